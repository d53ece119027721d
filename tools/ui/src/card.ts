// The card: a confirmed write's preview, answered by the person's own click (confirmation.md
// §2.4). The card view shows one; the journal shows one for each Undo it starts.
//
// A pending result carries the card's data in its structured content (title, changes,
// notes, plan_name, tool) and the one-time token only in its _meta ("avenir/confirmation"),
// which hosts hand to the view and not to the model (MCP Apps, "Data Passing": _meta is "not
// intended for model context"). Confirm and Decline call the app-only tool
// answer_confirmation with that token (tools with _meta.ui.visibility ["app"] are callable by
// the view, never offered to the model). The token lives in this object's memory only: it is
// never put in the page, never sent anywhere but answer_confirmation, and withheld from every
// message to the conversation.

import type { App } from "@modelcontextprotocol/ext-apps";
import {
  type Data,
  type ToolResult,
  dataOf,
  el,
  firstLine,
  isObject,
  list,
  message,
  num,
  plural,
  replace,
  setState,
  str,
  tell,
  textOf,
} from "./common";

/** META_KEY is where a pending result's token travels. */
const META_KEY = "avenir/confirmation";

/** The first words of avenir's answers that the card tells apart (confirm/ask.go, tools/write.go). */
const REFUSED = "This confirmation code is unknown";
const PLAN_CHANGED = "The plan changed between the preview and the answer";
const PARTIAL = "Only part of the change is in YNAB";

/** An operation id, as avenir's journal writes them (a ULID). */
const OPERATION_ID = /\b([0-9A-HJKMNP-TV-Z]{26})\b/;

let generation = 0;

/** What the person saw: the pending card's title and its changes. */
interface Shown {
  title: string;
  changes: Data[];
  plan: string;
}

type Origin = "host" | "answer" | "undo";

export class Card {
  /** The live token, until its first use or expiry; empty otherwise. */
  private token = "";
  /** Every token this card held, to keep out of what is sent to the host. */
  private readonly secrets: string[] = [];
  private timer: number | undefined;
  private shown: Shown = { title: "", changes: [], plan: "" };
  private answer: "accept" | "decline" = "accept";
  /** Whether the person has clicked Confirm, Decline or Undo on this card. */
  private acted = false;

  constructor(
    private readonly app: App,
    private readonly root: HTMLElement,
  ) {}

  /**
   * show renders a result: one the host handed over (host), the answer to the person's
   * Confirm or Decline (answer), or the result of their Undo (undo). Only the outcomes of the
   * person's own clicks are told to the conversation; the model already has the host's.
   */
  show(r: ToolResult, origin: Origin): void {
    // Once the person has acted, the card shows what their clicks brought back: a result the
    // host hands over later (a host may also notify the view of the results of its own
    // calls) must not put an answered card back, or turn its outcome into another.
    if (origin === "host" && this.acted) return;
    this.stopTimer();
    const d = dataOf(r);
    const status = str(d?.status);
    if (r.isError) {
      this.showError(r, d, origin);
      return;
    }
    switch (status) {
      case "confirmation_pending":
        this.showPending(d ?? {}, r._meta);
        return;
      case "applied":
      case "partial":
        this.showApplied(d ?? {}, origin);
        return;
      case "declined":
        this.showDeclined(d ?? {}, origin);
        return;
      case "confirmation_required":
        this.showRequired(d ?? {});
        return;
      default:
        replace(
          this.root,
          this.header(d ?? {}, str(d?.summary) || "avenir"),
          el("div", { class: "preview" }, textOf(r) || "This result has nothing to show."),
        );
        setState("other");
    }
  }

  /** undo starts undo_operation for an operation; its answer is a new card. */
  async undo(operationId: string, button?: HTMLButtonElement): Promise<void> {
    this.acted = true;
    if (button) button.disabled = true;
    setState("undoing");
    let r: ToolResult;
    try {
      r = await this.app.callServerTool({ name: "undo_operation", arguments: { operation_id: operationId } });
    } catch (err) {
      if (button) button.disabled = false;
      this.root.append(el("p", { class: "banner bad", role: "alert" }, `The undo could not be asked for: ${message(err)}`));
      setState("error");
      return;
    }
    if (r.isError) {
      const text = textOf(r);
      this.root.append(
        el("div", { class: "banner bad", role: "alert" }, el("strong", {}, "The undo was refused"), el("p", {}, text)),
      );
      setState("error");
      void this.say(`I asked on the card to undo operation ${operationId}; avenir answered: ${text}`);
      return;
    }
    this.show(r, "undo");
  }

  // ---- Pending ---------------------------------------------------------------------------

  private showPending(d: Data, meta: unknown): void {
    const m = isObject(meta) ? meta[META_KEY] : undefined;
    const token = isObject(m) ? str(m.token) : "";
    const expires = isObject(m) ? num(m.expires_in_seconds) : 0;
    if (token) this.secrets.push(token);
    this.token = token;

    const title = str(d.title) || firstLine(str(d.preview)) || "Confirm this change?";
    const changes = list(d.changes);
    this.shown = { title, changes, plan: str(d.plan_name) };
    generation++;
    document.body.dataset.card = String(generation);

    const confirmBtn = el("button", { type: "button", class: "primary", "data-action": "confirm" }, "Confirm");
    const declineBtn = el("button", { type: "button", "data-action": "decline" }, "Decline");
    const expiry = el("p", { class: "expiry" });
    const status = el("p", { class: "small muted", role: "status", "aria-live": "polite" });

    const body: (Node | false)[] = [
      this.header(d, title),
      this.notes(d),
      changes.length > 0 ? changesTable(changes, false) : !!str(d.preview) && el("div", { class: "preview" }, str(d.preview)),
      changes.length > 0 && el("p", { class: "small muted" }, plural(changes.length, "change", "changes")),
    ];
    if (!token) {
      replace(
        this.root,
        ...body,
        el(
          "p",
          { class: "banner bad", role: "alert" },
          "This card came without its confirmation token, so it cannot confirm. Ask the assistant to prepare the change again.",
        ),
      );
      setState("no-token");
      return;
    }
    replace(this.root, ...body, expiry, el("div", { class: "actions" }, confirmBtn, declineBtn), status);

    const answer = (a: "accept" | "decline") => {
      // Both buttons go at the first click, before anything is sent: a second click (or a
      // double click) finds them disabled and the token already forgotten.
      if (!this.token) return;
      confirmBtn.disabled = true;
      declineBtn.disabled = true;
      void this.send(a, status);
    };
    confirmBtn.addEventListener("click", () => answer("accept"));
    declineBtn.addEventListener("click", () => answer("decline"));

    const deadline = performance.now() + expires * 1000;
    const tick = () => {
      const left = Math.max(0, Math.ceil((deadline - performance.now()) / 1000));
      if (left > 0) {
        expiry.textContent = `Expires in ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
        return;
      }
      this.stopTimer();
      this.token = "";
      confirmBtn.disabled = true;
      declineBtn.disabled = true;
      expiry.replaceWith(
        el(
          "p",
          { class: "banner warn", role: "alert" },
          "This confirmation expired; nothing was written. Ask the assistant to prepare the change again.",
        ),
      );
      setState("expired");
    };
    if (expires > 0) {
      tick();
      this.timer = window.setInterval(tick, 1000);
    } else {
      expiry.textContent = "Valid for a few minutes.";
    }
    setState("pending");
  }

  private async send(answer: "accept" | "decline", status: HTMLElement): Promise<void> {
    const token = this.token;
    this.token = ""; // one use: whatever comes back, this token is spent
    this.acted = true;
    this.answer = answer;
    this.stopTimer();
    status.textContent = answer === "accept" ? "Confirming…" : "Declining…";
    setState("answering");
    let r: ToolResult;
    try {
      r = await this.app.callServerTool({ name: "answer_confirmation", arguments: { token, answer } });
    } catch (err) {
      this.root.append(
        el(
          "div",
          { class: "banner bad", role: "alert" },
          el("strong", {}, "No answer came back"),
          el("p", {}, `${message(err)}. Whether it was written, the journal says (list_operations).`),
        ),
      );
      setState("error");
      void this.say(
        `I answered on the card (${answer === "accept" ? "confirm" : "decline"}) for “${this.shown.title}”, but no answer came back (${message(err)}). The journal (list_operations) says whether it was written.`,
      );
      return;
    }
    this.show(r, "answer");
  }

  // ---- Outcomes --------------------------------------------------------------------------

  private showApplied(d: Data, origin: Origin): void {
    const changes = list(d.changes);
    const opId = str(d.operation_id);
    const summary = str(d.summary) || this.shown.title || "Applied";
    const partial = str(d.status) === "partial" || changes.some((c) => str(c.outcome) !== "" && str(c.outcome) !== "applied");
    const actions = el("div", { class: "actions" });
    if (d.undoable === true && opId) {
      const undo = el("button", { type: "button", "data-action": "undo" }, "Undo");
      undo.addEventListener("click", () => void this.undo(opId, undo));
      actions.append(undo);
    }
    replace(
      this.root,
      this.header(d, summary),
      el(
        "div",
        { class: `banner ${partial ? "warn" : "ok"}`, role: "status" },
        el("strong", {}, partial ? "Only part of it was written" : "Applied"),
        opId && el("p", { class: "small" }, "Operation ", el("code", {}, opId)),
      ),
      changes.length > 0 && changesTable(changes, true),
      actions.childElementCount > 0 && actions,
    );
    setState(partial ? "partial" : "applied");
    if (origin === "host") return;
    const did = origin === "undo" ? "I undid it on the card" : "I confirmed on the card";
    void this.say(
      partial
        ? `${did}, but only part of it is in YNAB: ${summary}${opId ? ` (operation ${opId})` : ""}.`
        : `${did}: ${summary}${opId ? ` (operation ${opId})` : ""}.`,
    );
  }

  private showDeclined(d: Data, origin: Origin): void {
    const title = this.shown.title || str(d.title) || firstLine(str(d.preview));
    replace(
      this.root,
      this.header(d, title || "Declined"),
      el("div", { class: "banner info", role: "status" }, el("strong", {}, "Declined"), el("p", {}, "Nothing was written.")),
    );
    setState("declined");
    if (origin === "host") return;
    void this.say(`I declined on the card${title ? `: “${title}”` : ""}. Nothing was written.`);
  }

  private showRequired(d: Data): void {
    // A host that is asked by code: the code is the model's to pass back after the person
    // agreed in the conversation. The card never shows it, and offers no button.
    const title = str(d.title) || firstLine(str(d.preview)) || "Confirm this change?";
    replace(
      this.root,
      this.header(d, title),
      this.notes(d),
      str(d.preview) && el("div", { class: "preview" }, str(d.preview)),
      el(
        "p",
        { class: "banner info", role: "status" },
        "This change is confirmed in the conversation: answer the assistant there. Nothing is written until you agree.",
      ),
    );
    setState("required");
  }

  private showError(r: ToolResult, d: Data | undefined, origin: Origin): void {
    const text = textOf(r) || "avenir returned an error without a message.";
    if (origin === "host" || origin === "undo") {
      // The write tool refused its arguments (or there was nothing to change): no card to
      // answer, so no Confirm.
      replace(
        this.root,
        this.header(d ?? {}, origin === "undo" ? "The undo could not be prepared" : "avenir could not prepare this change"),
        el("div", { class: "banner bad", role: "alert" }, el("p", {}, text)),
      );
      setState("error");
      return;
    }
    const title = this.shown.title;
    let kind: string;
    let head: string;
    let tone: string;
    let say: string;
    if (text.startsWith(PARTIAL)) {
      kind = "partial";
      head = "Only part of the change is in YNAB";
      tone = "warn";
      say = `I confirmed on the card, and avenir wrote only part of it: ${text}`;
    } else if (text.startsWith(PLAN_CHANGED)) {
      kind = "changed";
      head = "The plan changed since this preview";
      tone = "warn";
      say = `I confirmed “${title}” on the card, but the plan changed between the preview and my answer, so nothing was written.`;
    } else if (text.startsWith(REFUSED)) {
      kind = "refused";
      head = "This confirmation is no longer valid";
      tone = "bad";
      say = `I answered on the card for “${title}”, but avenir refused the answer: the confirmation was unknown, expired or already used. Nothing was written.`;
    } else {
      kind = "error";
      head = "avenir refused the answer";
      tone = "bad";
      say = `I answered on the card (${this.answer === "accept" ? "confirm" : "decline"}) for “${title}”; avenir answered: ${text}`;
    }
    const actions = el("div", { class: "actions" });
    const opId = kind === "partial" ? (OPERATION_ID.exec(text)?.[1] ?? "") : "";
    if (opId) {
      const undo = el("button", { type: "button", "data-action": "undo" }, "Undo the part in YNAB");
      undo.addEventListener("click", () => void this.undo(opId, undo));
      actions.append(undo);
    }
    const changes = list(d?.changes);
    replace(
      this.root,
      this.header(d ?? {}, title || head),
      el("div", { class: `banner ${tone}`, role: "alert" }, el("strong", {}, head), el("p", {}, text)),
      changes.length > 0 ? changesTable(changes, true) : this.shown.changes.length > 0 && changesTable(this.shown.changes, false),
      actions.childElementCount > 0 && actions,
    );
    setState(kind);
    void this.say(say);
  }

  // ---- Parts -----------------------------------------------------------------------------

  private header(d: Data, title: string): HTMLElement {
    const plan = str(d.plan_name) || this.shown.plan;
    return el(
      "header",
      {},
      el("p", { class: "eyebrow" }, plan ? `avenir · ${plan}` : "avenir"),
      el("h1", {}, title),
    );
  }

  private notes(d: Data): HTMLElement | false {
    const notes = Array.isArray(d.notes) ? d.notes.filter((n): n is string => typeof n === "string" && n !== "") : [];
    if (notes.length === 0) return false;
    return el("ul", { class: "notes", "aria-label": "Warnings" }, ...notes.map((n) => el("li", { class: "note" }, n)));
  }

  private async say(text: string): Promise<void> {
    const told = await tell(this.app, text, this.secrets);
    this.root.append(
      el(
        "p",
        { class: "small muted told" },
        told ? "The assistant has been told." : "The host took no message: tell the assistant what happened.",
      ),
    );
    document.body.dataset.told = told ? "yes" : "no";
  }

  private stopTimer(): void {
    if (this.timer !== undefined) {
      window.clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}

/** table is every change, label and before → after, with each one's outcome where known. */
export function changesTable(changes: Data[], outcomes: boolean): HTMLElement {
  const withOutcome = outcomes && changes.some((c) => str(c.outcome) !== "");
  // A list that names its changes without their values (the journal's timeline) shows no
  // empty Before and After columns.
  const withValues = changes.some((c) => shownValue(c.before) !== "—" || shownValue(c.after) !== "—");
  const head = el(
    "tr",
    {},
    el("th", { scope: "col" }, "Change"),
    withValues && el("th", { scope: "col", class: "num" }, "Before"),
    withValues && el("th", { scope: "col", class: "num" }, "After"),
    withOutcome && el("th", { scope: "col", class: "outcome" }, "In YNAB"),
  );
  const rows = changes.map((c) =>
    el(
      "tr",
      {},
      el("th", { scope: "row" }, keepDates(str(c.label) || str(c.kind) || "—")),
      withValues && el("td", { class: `${valueClass(c.before)} before` }, shownValue(c.before)),
      withValues &&
        el("td", { class: valueClass(c.after) }, el("span", { "aria-hidden": "true", class: "muted" }, "→ "), shownValue(c.after)),
      withOutcome && outcomeCell(str(c.outcome)),
    ),
  );
  return el(
    "div",
    { class: "table-wrap", tabindex: 0, role: "region", "aria-label": "Changes" },
    el(
      "table",
      {},
      el("caption", { class: "sr-only" }, plural(changes.length, "change", "changes")),
      el("thead", {}, head),
      el("tbody", {}, ...rows),
    ),
  );
}

/** shownValue is a change's before or after as a person reads it: "—" for none. */
function shownValue(v: unknown): string {
  if (v === null || v === undefined || v === "") return "—";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (isObject(v)) {
    return Object.entries(v)
      .filter(([, x]) => x !== null && x !== undefined && x !== "")
      .map(([k, x]) => `${k}: ${typeof x === "object" ? JSON.stringify(x) : String(x)}`)
      .join(", ");
  }
  return JSON.stringify(v);
}

/** keepDates keeps each date of a label on one line (non-breaking hyphens between digits). */
function keepDates(s: string): string {
  return s.replace(/(\d)-(?=\d)/g, "$1\u2011");
}

/** valueClass keeps a short value (an amount, a flag) on one line; a long one wraps. */
function valueClass(v: unknown): string {
  return shownValue(v).length <= 16 ? "num" : "text";
}

/** outcomeCell is a change's outcome: a mark, with its words for screen readers and on hover. */
function outcomeCell(o: string): HTMLElement {
  const [mark, words] =
    o === "applied"
      ? ["✓", "written"]
      : o === "not_applied"
        ? ["✗", "not written"]
        : o === "" || o === "unknown"
          ? ["?", "unknown"]
          : ["•", o];
  return el(
    "td",
    { class: `outcome outcome-${o || "unknown"}`, title: words },
    el("span", { "aria-hidden": "true" }, mark),
    el("span", { class: "sr-only" }, words),
  );
}
