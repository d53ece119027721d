// ui://avenir/journal.html: list_operations' result as a timeline (tools/list_operations.go,
// listOperationsOut): each operation with its time, tool, summary, status, how it was
// confirmed, its changes where the result carries them, and an Undo button where it can be
// undone. Undo starts undo_operation, which is confirmed on a card like any write: the card
// opens inside the entry and is answered there.

import type { App } from "@modelcontextprotocol/ext-apps";
import { Card, changesTable } from "./card";
import {
  type Data,
  type ToolResult,
  dataOf,
  el,
  formatTime,
  isObject,
  list,
  message,
  openView,
  plural,
  replace,
  setState,
  str,
  textOf,
} from "./common";

const root = document.getElementById("root") as HTMLElement;
let args: Data = {};
let shown = false;

const app: App = openView("journal", {
  onInput(a) {
    args = a;
  },
  onResult(r) {
    // The journal's own result, not one of an undo started here (a host may notify the view
    // of the results of its own calls too).
    if (!shown || Array.isArray(dataOf(r)?.operations)) show(r);
  },
});

const STATUS: Record<string, string> = {
  prepared: "prepared, not finished",
  applied: "applied",
  partial: "partly applied",
  failed: "failed",
};

const VIA: Record<string, string> = {
  mrtr: "confirmed in the client",
  elicit: "confirmed in the client",
  app: "confirmed on the card",
  code: "confirmed by code",
  none: "needs no confirmation",
};

function show(r: ToolResult): void {
  shown = true;
  if (r.isError) {
    replace(
      root,
      title(),
      el("p", { class: "banner bad", role: "alert" }, textOf(r) || "list_operations returned an error."),
    );
    setState("error");
    return;
  }
  const ops = list(dataOf(r)?.operations);
  replace(
    root,
    title(),
    el("p", { class: "small muted" }, ops.length === 0 ? "" : `${plural(ops.length, "operation", "operations")}, newest first.`),
    ops.length === 0
      ? el("p", { class: "banner info" }, "avenir has written nothing yet.")
      : el("ol", { class: "timeline", "aria-label": "Operations, newest first" }, ...ops.map(entry)),
  );
  setState("rendered");
}

function title(): HTMLElement {
  const refresh = el("button", { type: "button", class: "small-btn", id: "refresh" }, "Refresh");
  refresh.addEventListener("click", async () => {
    refresh.disabled = true;
    try {
      show(await app.callServerTool({ name: "list_operations", arguments: args }));
    } catch (err) {
      refresh.disabled = false;
      root.append(el("p", { class: "banner bad", role: "alert" }, `The journal could not be read: ${message(err)}`));
    }
  });
  return el(
    "header",
    { class: "titlebar" },
    el("div", {}, el("p", { class: "eyebrow" }, "avenir · journal"), el("h1", {}, "What avenir wrote")),
    refresh,
  );
}

function entry(op: Data): HTMLElement {
  const id = str(op.id);
  const status = str(op.status);
  const tool = str(op.tool);
  const time = str(op.time);
  const undo = isObject(op.undo) ? op.undo : {};
  const via = str(op.confirmed_via);
  const changes = list(op.changes);

  const li = el("li", { class: `entry status-${status}`, "data-operation": id });
  const add = (...parts: (Node | string | false)[]) => {
    for (const p of parts) if (p !== false) li.append(p);
  };
  const actions = el("div", { class: "actions" });
  if (undo.can_undo === true && id) {
    const btn = el("button", { type: "button", class: "small-btn undo", "aria-label": `Undo: ${str(op.summary) || tool}` }, "Undo");
    btn.addEventListener("click", () => {
      const holder = el("div", { class: "card" });
      li.append(holder);
      void new Card(app, holder).undo(id, btn);
    });
    actions.append(btn);
  } else if (str(undo.why_not)) {
    actions.append(el("p", { class: "small muted" }, `Cannot be undone: ${str(undo.why_not)}`));
  }

  add(
    el("h2", {}, str(op.summary) || tool || id),
    el(
      "div",
      { class: "meta" },
      time && el("time", { datetime: time }, formatTime(time)),
      tool && el("code", {}, tool),
      status && el("span", { class: `badge status-${status}` }, STATUS[status] ?? status),
      via && el("span", {}, VIA[via] ?? `confirmed: ${via}`),
      str(op.client) && el("span", {}, `by ${str(op.client)}`),
    ),
    str(op.error) && el("p", { class: "banner bad small" }, str(op.error)),
    str(op.note) && el("p", { class: "small muted" }, str(op.note)),
    str(undo.undo_of) && el("p", { class: "small muted" }, "Undid ", el("code", {}, str(undo.undo_of))),
    str(undo.undone_by) && el("p", { class: "small muted" }, "Undone by ", el("code", {}, str(undo.undone_by))),
    changes.length > 0 && changesTable(changes, true),
    el("p", { class: "small muted" }, "Operation ", el("code", {}, id)),
    actions.childElementCount > 0 && actions,
  );
  return li;
}
