// The card: a confirmed write's preview, answered by the person's own click (confirmation.md
// §2.4; the card exchange, version 2). The card view shows one; the journal shows one for each
// Undo it starts.
//
// Real hosts do not hand the view what the extension describes: Claude Desktop strips _meta and
// structuredContent from the result it gives the view (modelcontextprotocol/ext-apps#696,
// apify/apify-mcp-server#1187), ChatGPT on the web replaces _meta
// (openai/openai-apps-sdk-examples#231). So a pending result carries only a handle, which
// confirms nothing: in its structured content (card.handle) and as the last line of its text
// (`Card: H (v2)`), which every host hands over. When drawn, the card calls the app-only tool
// open_confirmation with it; that call tells avenir the card is on screen, and its answer (the
// view's own tools/call, which hosts hand back whole) carries the change, its state and, while
// pending, a fresh one-time token. Confirm and Decline call answer_confirmation with that token.
// The token lives in this object's memory only: never in the page, never sent anywhere but
// answer_confirmation, and withheld from every message to the conversation.
//
// Outcomes are told apart by their `reason` (a stable token), never by their sentences.

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

/** CARD_VERSION is the version of the card exchange this card speaks. */
export const CARD_VERSION = 2;

/** CARD_LINE is a pending result's last text line: the handle and the exchange's version. */
const CARD_LINE = /^Card: (\S+) \(v(\d+)\)$/;

/** The token's lifetime when open_confirmation does not say (the exchange's 600 s). */
const DEFAULT_SECONDS = 600;

let generation = 0;

/** What the person saw: the pending card's title, changes and plan. */
interface Shown {
  title: string;
  changes: Data[];
  plan: string;
}

type Origin = "host" | "answer" | "undo";

/** A card's handle as a result carries it, and the exchange's version it names. */
export interface Handle {
  handle: string;
  version: number;
}

/**
 * handleOf is a result's card handle: from its structured content, else from the last line of
 * its text content (hosts that strip structuredContent hand over the text), else from _meta
 * (which may repeat it). undefined when the result names no card.
 */
export function handleOf(r: ToolResult): Handle | undefined {
  const sc = r.structuredContent;
  if (isObject(sc) && isObject(sc.card) && str(sc.card.handle)) {
    return { handle: str(sc.card.handle), version: num(sc.card.version) };
  }
  const text = textOf(r);
  const last = text.slice(text.lastIndexOf("\n") + 1).trim();
  const m = CARD_LINE.exec(last);
  if (m) return { handle: m[1], version: Number(m[2]) };
  const meta = isObject(r._meta) ? r._meta : undefined;
  for (const v of Object.values(meta ?? {})) {
    if (isObject(v) && isObject(v.card) && str(v.card.handle)) return { handle: str(v.card.handle), version: num(v.card.version) };
  }
  return undefined;
}

/**
 * changesOf is what open_confirmation says of the change: its changes when it gives them as
 * objects, else its preview's lines ("label: before → after"), each split as avenir writes them.
 */
function changesOf(d: Data): Data[] {
  const given = list(d.changes);
  if (given.length > 0) return given;
  const p = isObject(d.preview) ? d.preview : {};
  const lines = Array.isArray(p.lines) ? p.lines : [];
  return lines.flatMap((l): Data[] => (typeof l === "string" ? [lineOf(l)] : isObject(l) ? [l] : []));
}

/** lineOf splits "label: before → after" (a line without an arrow is all label). */
function lineOf(l: string): Data {
  const s = l.trim();
  const a = s.lastIndexOf(" → ");
  if (a < 0) return { label: s };
  const head = s.slice(0, a);
  const after = s.slice(a + 3);
  const c = head.lastIndexOf(": ");
  if (c < 0) return { label: head, after };
  return { label: head.slice(0, c), before: head.slice(c + 2), after };
}

export class Card {
  /** The live token, until its first use or expiry; empty otherwise. */
  private token = "";
  /** Every token this card held, to keep out of what is sent to the host. */
  private readonly secrets: string[] = [];
  /** The handle this card opened, if any. */
  private handle = "";
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
    const d = dataOf(r);
    // open_confirmation's own answer, echoed back by a host that notifies the view of the
    // results of its calls: the card already has it.
    if (origin === "host" && d && d.status === undefined && d.state !== undefined) return;
    const h = handleOf(r);
    if (h) {
      if (origin === "host" && h.handle === this.handle) return; // the same card, handed over again
      this.stopTimer();
      void this.open(h, d ?? {});
      return;
    }
    this.stopTimer();
    const status = str(d?.status);
    if (r.isError || status === "error") {
      this.showError(r, d, origin);
      return;
    }
    switch (status) {
      case "confirmation_pending":
        // A pending result without a handle: from an avenir that speaks another version of
        // the card exchange (a token in _meta, version 1). Nothing here can answer it.
        this.showOutdated(d ?? {}, origin);
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

  // ---- Opening ---------------------------------------------------------------------------

  /**
   * open draws a card for a handle: it asks avenir for the change (open_confirmation, which
   * also tells avenir the card is on screen), then shows it as it stands — pending with
   * Confirm and Decline, or what became of it.
   */
  private async open(h: Handle, d: Data): Promise<void> {
    this.handle = h.handle;
    this.token = "";
    const title = str(d.title) || firstLine(str(d.preview)) || "A change to confirm";
    this.shown = { title, changes: list(d.changes), plan: str(d.plan_name) };
    if (h.version !== CARD_VERSION) {
      this.showOutdated(d, "host");
      return;
    }
    replace(this.root, this.header(d, title), el("p", { class: "small muted", role: "status" }, "Opening the card…"));
    setState("opening");
    let r: ToolResult;
    try {
      r = await this.app.callServerTool({ name: "open_confirmation", arguments: { handle: h.handle } });
    } catch (err) {
      // The host would not pass the card's call on (a host that lists tools on another
      // session, or refuses tools it did not list): nothing can be answered here.
      this.showUnreachable(message(err));
      return;
    }
    if (h.handle !== this.handle) return; // another card was handed over meanwhile
    const o = dataOf(r) ?? {};
    if (r.isError) {
      replace(
        this.root,
        this.header(o, title),
        el(
          "div",
          { class: "banner bad", role: "alert" },
          el("strong", {}, "avenir does not know this card"),
          el("p", {}, "Nothing can be confirmed here. Ask the assistant to prepare the change again."),
        ),
      );
      setState("unknown");
      return;
    }
    if (num(o.version) !== CARD_VERSION) {
      this.showOutdated(o, "host");
      return;
    }
    const preview = isObject(o.preview) ? o.preview : {};
    const shownTitle = str(preview.first_line) || title;
    const warnings = Array.isArray(preview.warnings) ? preview.warnings : [];
    this.shown = { title: shownTitle, changes: changesOf(o), plan: str(o.plan_name) || this.shown.plan };
    switch (str(o.state)) {
      case "pending":
        this.showPending(o, warnings);
        return;
      case "answered":
        this.showAnswered(o);
        return;
      case "expired":
      case "superseded":
        this.showGone(o, str(o.state));
        return;
      default:
        this.showOutdated(o, "host");
    }
  }

  // ---- Pending ---------------------------------------------------------------------------

  private showPending(d: Data, warnings: unknown[]): void {
    const token = str(d.token);
    if (token) this.secrets.push(token);
    this.token = token;
    const expires = num(d.expires_in_seconds) || DEFAULT_SECONDS;
    const { title, changes } = this.shown;
    generation++;
    document.body.dataset.card = String(generation);

    const confirmBtn = el("button", { type: "button", class: "primary", "data-action": "confirm" }, "Confirm");
    const declineBtn = el("button", { type: "button", "data-action": "decline" }, "Decline");
    const expiry = el("p", { class: "expiry" });
    const status = el("p", { class: "small muted", role: "status", "aria-live": "polite" });
    const body: (Node | false)[] = [
      this.header(d, title),
      this.notes(warnings),
      changes.length > 0 && changesTable(changes, false),
      changes.length > 0 && el("p", { class: "small muted" }, plural(changes.length, "change", "changes")),
    ];
    if (!token) {
      replace(
        this.root,
        ...body,
        el("p", { class: "banner bad", role: "alert" }, "avenir gave this card no way to answer. Ask the assistant to prepare the change again."),
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
    tick();
    this.timer = window.setInterval(tick, 1000);
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
      r = await this.app.callServerTool({
        name: "answer_confirmation",
        arguments: { token, answer, version: CARD_VERSION },
      });
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
    const partial =
      str(d.status) === "partial" ||
      str(d.reason) === "partial" ||
      changes.some((c) => str(c.outcome) !== "" && str(c.outcome) !== "applied");
    const actions = el("div", { class: "actions" });
    if (opId && (d.undoable === true || partial)) {
      const undo = el("button", { type: "button", "data-action": "undo" }, partial ? "Undo the part in YNAB" : "Undo");
      undo.addEventListener("click", () => void this.undo(opId, undo));
      actions.append(undo);
    }
    const msg = str(d.message);
    replace(
      this.root,
      this.header(d, summary),
      el(
        "div",
        { class: `banner ${partial ? "warn" : "ok"}`, role: "status" },
        el("strong", {}, partial ? "Only part of it was written" : "Applied"),
        partial && msg && el("p", {}, msg),
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
        ? `${did}, and avenir wrote only part of it: ${msg || summary}${opId && !msg.includes(opId) ? ` (operation ${opId})` : ""}`
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

  /**
   * showAnswered is a card mounted again after its change was answered: what became of it,
   * and no Confirm. Nothing is told to the conversation: it was told when the person answered.
   */
  private showAnswered(o: Data): void {
    const out = isObject(o.outcome) ? o.outcome : {};
    const status = str(out.status);
    const reason = str(out.reason);
    const opId = str(out.operation_id);
    const [tone, head] =
      status === "applied"
        ? ["ok", "Confirmed and applied"]
        : status === "partial" || reason === "partial"
          ? ["warn", "Confirmed; only part of it was written"]
          : status === "declined" || reason === "declined"
            ? ["info", "Declined; nothing was written"]
            : reason === "not_settled"
              ? ["warn", "Confirmed; what YNAB holds could not be read back yet"]
              : ["bad", "Answered; nothing was written"];
    replace(
      this.root,
      this.header(o, this.shown.title || "This change was answered"),
      el(
        "div",
        { class: `banner ${tone}`, role: "status" },
        el("strong", {}, head),
        str(out.message) && el("p", {}, str(out.message)),
        opId && el("p", { class: "small" }, "Operation ", el("code", {}, opId)),
        el("p", { class: "small muted" }, "This card was answered already; it can no longer confirm anything."),
      ),
      this.shown.changes.length > 0 && changesTable(this.shown.changes, false),
    );
    document.body.dataset.outcome = status || reason;
    setState("answered");
  }

  /** showGone is a card whose change expired, or was asked again on a newer card. */
  private showGone(o: Data, state: string): void {
    replace(
      this.root,
      this.header(o, this.shown.title || "This change is no longer asked"),
      el(
        "div",
        { class: "banner info", role: "status" },
        el("strong", {}, state === "expired" ? "This confirmation expired" : "A newer card asks for this change"),
        el(
          "p",
          {},
          state === "expired"
            ? "Nothing was written. Ask the assistant to prepare the change again."
            : "Nothing was written from this card; answer the newer one, further down the conversation.",
        ),
      ),
      this.shown.changes.length > 0 && changesTable(this.shown.changes, false),
    );
    setState(state);
  }

  /** showOutdated is a card and a server that speak different versions of the exchange. */
  private showOutdated(d: Data, origin: Origin): void {
    replace(
      this.root,
      this.header(d, this.shown.title || str(d.title) || "avenir"),
      el(
        "div",
        { class: "banner bad", role: "alert" },
        el("strong", {}, "This card is from another version of avenir"),
        el("p", {}, "Nothing was written, and nothing can be confirmed here. Close this card and ask the assistant again."),
      ),
    );
    setState("outdated");
    if (origin === "answer") {
      void this.say(
        `I answered on the card for “${this.shown.title}”, but the card is from another avenir version, so nothing was written. Please ask again.`,
      );
    }
  }

  /** showUnreachable is a card whose host would not pass its call to avenir on. */
  private showUnreachable(why: string): void {
    replace(
      this.root,
      this.header({}, this.shown.title || "avenir"),
      el(
        "div",
        { class: "banner bad", role: "alert" },
        el("strong", {}, "This host did not let the card reach avenir"),
        el("p", {}, `${why}. Nothing was written. Tell the assistant you see no way to confirm: asked again, avenir offers another.`),
      ),
    );
    setState("unreachable");
  }

  private showRequired(d: Data): void {
    // A host that is asked by code: the code is the model's to pass back after the person
    // agreed in the conversation. The card never shows it, and offers no button.
    const title = str(d.title) || firstLine(str(d.preview)) || "Confirm this change?";
    replace(
      this.root,
      this.header(d, title),
      this.notes(d.notes),
      str(d.preview) && el("div", { class: "preview" }, str(d.preview)),
      el(
        "p",
        { class: "banner info", role: "status" },
        "This change is confirmed in the conversation: answer the assistant there. Nothing is written until you agree.",
      ),
    );
    setState("required");
  }

  /** showError is an error result, told apart by its reason (reasons.md), never its words. */
  private showError(r: ToolResult, d: Data | undefined, origin: Origin): void {
    const text = str(d?.message) || textOf(r) || "avenir returned an error without a message.";
    const reason = str(d?.reason);
    if (reason === "partial" || str(d?.status) === "partial") {
      this.showApplied({ ...d, message: text }, origin);
      return;
    }
    if (reason === "declined") {
      this.showDeclined(d ?? {}, origin);
      return;
    }
    if (reason === "card_outdated") {
      this.showOutdated(d ?? {}, origin);
      return;
    }
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
    switch (reason) {
      case "plan_changed":
        kind = "changed";
        head = "The plan changed since this preview";
        tone = "warn";
        say = `I confirmed “${title}” on the card, but the plan changed between the preview and my answer, so nothing was written.`;
        break;
      case "card_refused":
      case "code_refused":
        kind = "refused";
        head = "This confirmation is no longer valid";
        tone = "bad";
        say = `I answered on the card for “${title}”, but avenir refused the answer: the confirmation was unknown, expired or already used. Nothing was written.`;
        break;
      case "ynab_refused":
        kind = "ynab-refused";
        head = "YNAB refused the change; nothing was written";
        tone = "bad";
        say = `I confirmed “${title}” on the card, but YNAB refused it, so nothing was written: ${text}`;
        break;
      case "not_settled":
        kind = "unsettled";
        head = "The outcome could not be read back";
        tone = "warn";
        say = `I confirmed “${title}” on the card, but avenir could not read back what YNAB holds; the journal (list_operations) keeps the operation to settle: ${text}`;
        break;
      default:
        kind = "error";
        head = "avenir refused the answer";
        tone = "bad";
        say = `I answered on the card (${this.answer === "accept" ? "confirm" : "decline"}) for “${title}”; avenir answered: ${text}`;
    }
    const changes = list(d?.changes);
    replace(
      this.root,
      this.header(d ?? {}, title || head),
      el("div", { class: `banner ${tone}`, role: "alert" }, el("strong", {}, head), el("p", {}, text)),
      changes.length > 0 ? changesTable(changes, true) : this.shown.changes.length > 0 && changesTable(this.shown.changes, false),
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

  private notes(v: unknown): HTMLElement | false {
    const notes = Array.isArray(v) ? v.filter((n): n is string => typeof n === "string" && n !== "") : [];
    if (notes.length === 0) return false;
    return el("ul", { class: "notes", "aria-label": "Warnings" }, ...notes.map((n) => el("li", { class: "note" }, n)));
  }

  /** say tells the conversation, and says on the card whether the host took it. */
  private async say(text: string): Promise<void> {
    const told = await tell(this.app, text, this.secrets);
    this.root.append(
      el(
        "p",
        { class: "small muted told" },
        told === "message"
          ? "The assistant has been told."
          : told === "context"
            ? "The assistant will see this on its next turn."
            : "The host took no message: tell the assistant what happened.",
      ),
    );
    document.body.dataset.told = told ? "yes" : "no";
    document.body.dataset.toldVia = told || "none";
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
