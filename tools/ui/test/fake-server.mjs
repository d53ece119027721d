#!/usr/bin/env node
// fake-server.mjs: a small MCP server over stdio that keeps avenir's contract for the card
// and the pictures (confirmation.md §2.4; tools.md, "MCP Apps: the card, and pictures"), so
// that the views and the harness can be tested without avenir or YNAB. Its plan lives in
// memory; each run starts from the same one.
//
//   move_money, apply_categories   confirmed writes: a pending result for a client that
//                                  renders MCP Apps and cannot elicit (a card handle, in
//                                  structured content and as the text's last line), a code
//                                  (confirmation_required) for any other, and a code too when
//                                  the same change is asked again FAKE_NOT_SHOWN_SECONDS
//                                  (default 10) after a card nobody opened
//   open_confirmation              app-only: the card, drawn, opens its handle: state, preview
//                                  and, while pending, a fresh one-time token
//   answer_confirmation            app-only: the card's answer (token, accept|decline,
//                                  version 2)
//   undo_operation                 the inverse of an operation, confirmed like any write
//   spending_report                shaped as tools/spending_report.go's spendingReportOut
//   list_operations                shaped as tools/list_operations.go's listOperationsOut
//   fake_change_plan               changes the plan as another YNAB client would (a test's
//                                  way to make "the plan changed" happen)
//
// The views it serves are tools/ui/dist/*.html, the committed build. FAKE_TOKEN_SECONDS sets
// the tokens' lifetime (default 600). This is the card exchange, version 2 (the contract between
// avenir's card server and its views); a failed write's result names its `reason`. A move to or from the category "Broken" fails half way
// in "YNAB", for the partial outcome.

import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { CLIENT_CAPABILITIES_META_KEY, McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import {
  RESOURCE_MIME_TYPE,
  getUiCapability,
  registerAppResource,
  registerAppTool,
} from "@modelcontextprotocol/ext-apps/server";
import { z } from "zod";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const TOKEN_SECONDS = Number(process.env.FAKE_TOKEN_SECONDS ?? 600);
const PLAN_ID = "6f1c2a40-8d7e-4b7a-9c51-2f3e4d5a6b7c";
const PLAN_NAME = "Huishouden";

const REFUSED =
  "This confirmation code is unknown, expired, already used, or was issued for different changes. Call again without confirmation to get a new preview.";
const NOT_SHOWN_SECONDS = Number(process.env.FAKE_NOT_SHOWN_SECONDS ?? 10);
// FAKE_CARD_VERSION makes the fake an avenir of another version of the card exchange: 1 (the
// token in _meta, no handle) or 3, to test that a card and a server of different versions fail
// closed.
const CARD_VERSION = Number(process.env.FAKE_CARD_VERSION ?? 2);
const PLAN_CHANGED =
  "The plan changed between the preview and the answer, so what was agreed to is no longer what would be written. Nothing was written; call the tool again for a new preview";

// ---- The plan ----------------------------------------------------------------------------

const categories = [
  ["Bills", "Rent"],
  ["Bills", "Energy"],
  ["Bills", "Insurance"],
  ["Everyday", "Groceries"],
  ["Everyday", "Restaurants"],
  ["Everyday", "Transport"],
  ["Fun", "Tennis"],
  ["Fun", "Holidays"],
  ["Fun", "Books"],
  ["Savings", "Emergency fund"],
  ["Test", "Broken"],
].map(([group, name], i) => ({ id: `cat-${String(i + 1).padStart(2, "0")}`, group, name }));

/** assigned[month|category id] in milliunits. */
const assigned = new Map();
for (const c of categories) {
  for (const m of ["2026-11-01", "2026-12-01"]) assigned.set(`${m}|${c.id}`, seedAssigned(c.name));
}
function seedAssigned(name) {
  return { Rent: 1250000, Energy: 140000, Insurance: 95000, Groceries: 400000, Restaurants: 120000, Transport: 80000, Tennis: 50000, Holidays: 200000, Books: 25000 }[name] ?? 0;
}
let planVersion = 1;

/** The transactions spending_report counts: deterministic, June to December 2026. */
const transactions = makeTransactions();

/** The journal, newest last. */
const journal = [
  op("01JD2Q8M3K5V7X9Z1B3D5F7H9K", "2026-11-02T09:14:05Z", "set_category_budget", "Set Groceries to 400.00 for 2026-11-01", "applied", "code", "Claude 0.14.1", [
    { label: "Groceries (2026-11-01)", before: "350.00", after: "400.00", outcome: "applied" },
  ]),
  op("01JD5T2C6E8G0J2L4N6Q8S0U2W", "2026-11-09T18:40:51Z", "split_transaction", "Split Albert Heijn -84.20 into 2 lines", "applied", "elicit", "Claude Code 2.1.0", [
    { label: "Albert Heijn 2026-11-08 -84.20", before: "Groceries", after: "Groceries -61.70; Books -22.50", outcome: "applied" },
  ], { can_undo: false, why_not: "A split cannot be undone through YNAB's API: only YNAB itself can; undo it there." }),
  op("01JD9B4F7H0K3M6P9R2T5V8X1Z", "2026-11-20T07:02:33Z", "flag_transactions", "Flag 2 transaction(s)", "partial", "code", "Claude 0.14.1", [
    { label: "Jumbo 2026-11-18 -23.10: flag", before: "none", after: "red", outcome: "applied" },
    { label: "NS 2026-11-19 -12.40: flag", before: "none", after: "red", outcome: "not_applied" },
  ]),
];
journal[2].error = "YNAB answered 503 Service Unavailable for the second request";
// What the seeded operations left: their undos put it back.
assigned.set(`2026-11-01|${category("Groceries").id}`, 400000);
journal[0].inverse = () =>
  inverseOf([{ label: "Groceries (2026-11-01)", key: `2026-11-01|${category("Groceries").id}`, from: 350000 }], "Undo: set Groceries back to 350.00 for 2026-11-01?");
const flags = new Map([["Jumbo 2026-11-18 -23.10: flag", "red"]]);
journal[2].inverse = () => {
  const inv = [{ label: "Jumbo 2026-11-18 -23.10: flag", before: flags.get("Jumbo 2026-11-18 -23.10: flag"), after: "none" }];
  return {
    title: "Undo: take the flag off 1 transaction?",
    changes: inv,
    apply() {
      for (const c of inv) flags.set(c.label, c.after);
      planVersion++;
      return inv;
    },
  };
};

function op(id, time, tool, summary, status, via, client, changes, undo = { can_undo: true }) {
  return { id, time, plan_id: PLAN_ID, tool, summary, status, confirmed_via: via, client, undo: { ...undo }, changes, inverse: null };
}

// ---- Confirmation ------------------------------------------------------------------------

/**
 * cards by handle (the card's state: pending, answered, expired or superseded; its subject; its
 * live token; its outcome), the handle of each live token, pending subjects by code (each used
 * once), and the first pending answer of each change (tool and arguments) for the not-drawn rule.
 */
const cards = new Map();
const tokens = new Map();
const codes = new Map();
const asked = new Map();

/**
 * makeServer is one connection's server (serveStdio pins one per connection, of the era the
 * client opened with). The plan, the journal and the pending subjects are the process's.
 */
function makeServer() {
  const server = new McpServer({ name: "avenir-fake", version: "0.0.0" }, { capabilities: { tools: {}, resources: {} } });

  /** cardClient is whether this request's client renders MCP Apps and cannot elicit (§2.4). */
  function cardClient(ctx) {
    // 2026-07-28: in the request's envelope; before: in initialize.
    const caps = ctx?.mcpReq?.envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.server.getClientCapabilities();
    const ui = getUiCapability(caps);
    return !!ui?.mimeTypes?.includes(RESOURCE_MIME_TYPE) && !caps?.elicitation;
  }

  /**
   * confirmWrite is a confirmed write's first call: the preview, as a card's pending result or
   * as a code. apply() writes it; it is called only after the person's answer.
   */
  function confirmWrite(ctx, { tool, title, changes, notes = [], apply, args }) {
    const preview = [title, ...changes.map((c) => `  ${c.label}: ${c.before} → ${c.after}`), ...notes.map((n) => `Note: ${n}`)].join("\n");
    const subject = { tool, title, changes, notes, apply, args: JSON.stringify(args), version: planVersion, preview };
    const key = `${tool}|${subject.args}`;
    const first = asked.get(key);
    const notShown = first && !first.opened && performance.now() - first.at >= NOT_SHOWN_SECONDS * 1000;
    if (cardClient(ctx) && !notShown) {
      const handle = randomBytes(16).toString("base64url");
      if (first) for (const h of first.handles) if (cards.get(h)?.state === "pending") supersede(h);
      const a = first ?? { at: performance.now(), opened: false, handles: [] };
      a.handles.push(handle);
      asked.set(key, a);
      cards.set(handle, { subject, state: "pending", token: "", outcome: null, asked: a, expires: performance.now() + TOKEN_SECONDS * 1000 });
      const out = {
        status: "confirmation_pending",
        preview,
        message: "The user is asked to confirm on the card avenir shows; wait for their answer. Nothing is written until they confirm.",
        title,
        changes: changes.map(({ label, before, after }) => ({ label, before, after })),
        notes,
        plan_name: PLAN_NAME,
        tool,
        plan_id: PLAN_ID,
        ynab_requests: 0,
        card: { handle, version: CARD_VERSION },
      };
      if (CARD_VERSION === 1) {
        delete out.card;
        return { ...result(out), _meta: { "avenir/confirmation": { token: handle, expires_in_seconds: TOKEN_SECONDS } } };
      }
      return {
        content: [{ type: "text", text: `${JSON.stringify(out)}\nCard: ${handle} (v${CARD_VERSION})` }],
        structuredContent: out,
        _meta: { "avenir/card": { card: { handle, version: CARD_VERSION } } },
      };
    }
    const code = randomBytes(8).toString("base64url");
    codes.set(code, { ...subject, expires: performance.now() + 600_000 });
    return result({
      status: "confirmation_required",
      preview,
      confirmation: code,
      expires_in_seconds: 600,
      message: "Nothing was written yet. Show the preview to the user. Only if the user agrees, call this tool again with the same arguments plus confirmation set to this code.",
      plan_id: PLAN_ID,
      ynab_requests: 0,
    });
  }

  /** redeem takes a pending subject by token or code: once, unexpired, for these arguments. */
  function redeem(map, key, tool, args) {
    const s = map.get(key);
    map.delete(key); // consumed at its first use, even when it does not match
    if (!s || s.expires < performance.now()) return null;
    if (tool && (s.tool !== tool || s.args !== JSON.stringify(args))) return null;
    return s;
  }

  /** applySubject writes what the person agreed to, and journals it as confirmed via `via`. */
  function applySubject(s, via) {
    if (s.version !== planVersion) return error(PLAN_CHANGED, "plan_changed");
    return s.apply(via);
  }

  function supersede(handle) {
    const c = cards.get(handle);
    if (!c) return;
    if (c.token) tokens.delete(c.token);
    c.token = "";
    c.state = "superseded";
  }

  // ---- Tools -------------------------------------------------------------------------------

  const card = { ui: { resourceUri: "ui://avenir/confirm.html" } };

  registerAppTool(
    server,
    "move_money",
    {
      title: "Move money between categories",
      description: "Move assigned money from one category to another in a month. Undoable. Confirmed by the user.",
      inputSchema: z.object({
        plan_id: z.string().optional(),
        from_category: z.string(),
        to_category: z.string(),
        month: z.string(),
        amount: z.string(),
        confirmation: z.string().optional(),
      }),
      _meta: card,
    },
    async (a, ctx) => {
      const { confirmation, ...args } = a;
      const from = category(a.from_category, "from_category");
      if (typeof from === "string") return error(from);
      const to = category(a.to_category, "to_category");
      if (typeof to === "string") return error(to);
      if (from.id === to.id) return error("to_category: it is the same category as from_category; name two different ones");
      const month = monthOf(a.month);
      if (!month) return error(`month: “${a.month}” is not a month; give YYYY-MM (2026-12) or a date in it`);
      const amount = milli(a.amount);
      if (amount === null || amount <= 0) return error(`amount: “${a.amount}” is not an amount above zero; give one like 30.00`);
      const w = moveWrite(from, to, month, amount);
      if (confirmation !== undefined) {
        const s = redeem(codes, confirmation, "move_money", args);
        return s ? applySubject(s, "code") : error(REFUSED, "code_refused");
      }
      return confirmWrite(ctx, { ...w, args });
    },
  );

  registerAppTool(
    server,
    "apply_categories",
    {
      title: "Categorise transactions",
      description: "Set the category of 1 to 1000 transactions in one write. Undoable. Confirmed by the user.",
      inputSchema: z.object({
        changes: z.array(z.object({ transaction_id: z.string(), category: z.string() })),
        confirmation: z.string().optional(),
      }),
      _meta: card,
    },
    async (a, ctx) => {
      const { confirmation, ...args } = a;
      if (a.changes.length < 1 || a.changes.length > 1000) return error(`changes: ${a.changes.length} given; give 1 to 1000`);
      const lines = [];
      for (const [i, c] of a.changes.entries()) {
        const tx = transactions.find((t) => t.id === c.transaction_id);
        if (!tx) return error(`changes[${i}].transaction_id: there is no transaction “${c.transaction_id}”`);
        const cat = category(c.category, `changes[${i}].category`);
        if (typeof cat === "string") return error(cat);
        lines.push({ tx, cat });
      }
      const changes = lines.map(({ tx, cat }) => ({
        label: `${tx.payee} ${tx.date} ${money(tx.amount)}`,
        before: tx.category,
        after: `${cat.group}: ${cat.name}`,
        tx,
      }));
      const w = {
        tool: "apply_categories",
        title: `Categorise ${changes.length} transaction(s)?`,
        changes,
        notes: [],
        apply: (via) => {
          for (const c of changes) c.tx.category = c.after;
          planVersion++;
          return applied(record("apply_categories", `Categorised ${changes.length} transaction(s)`, via, changes, () => ({
            tool: "apply_categories",
            title: `Undo: put the categories of ${changes.length} transaction(s) back?`,
            changes: changes.map((c) => ({ label: c.label, before: c.after, after: c.before, tx: c.tx })),
            apply() {
              for (const c of this.changes) c.tx.category = c.after;
              planVersion++;
              return this.changes;
            },
          })));
        },
      };
      if (confirmation !== undefined) {
        const s = redeem(codes, confirmation, "apply_categories", args);
        return s ? applySubject(s, "code") : error(REFUSED, "code_refused");
      }
      return confirmWrite(ctx, { ...w, args });
    },
  );

  /** appOnly is the _meta of a tool only the card calls (hosts keep it from the model). */
  const appOnly = { ui: { visibility: ["app"] }, "openai/visibility": "private", "openai/widgetAccessible": true };

  server.registerTool(
    "open_confirmation",
    {
      title: "Open a confirmation card",
      description: "For avenir's confirmation card only: the change a card's handle names, as it stands.",
      inputSchema: z.object({ handle: z.string().optional() }),
      _meta: appOnly,
    },
    async (a) => {
      const c = cards.get(String(a.handle ?? ""));
      if (!c) return error("unknown card", "invalid_argument");
      c.asked.opened = true;
      if (c.state === "pending" && c.expires < performance.now()) c.state = "expired";
      const s = c.subject;
      const out = {
        version: CARD_VERSION,
        state: c.state,
        tool: s.tool,
        plan_name: PLAN_NAME,
        preview: {
          first_line: s.title,
          lines: s.changes.map((x) => `${x.label}: ${x.before} → ${x.after}`),
          warnings: s.notes,
        },
      };
      if (c.state === "pending") {
        if (c.token) tokens.delete(c.token); // each open voids the token before
        c.token = randomBytes(16).toString("base64url");
        tokens.set(c.token, { handle: a.handle, expires: performance.now() + TOKEN_SECONDS * 1000 });
        out.token = c.token;
        out.expires_in_seconds = TOKEN_SECONDS;
      }
      if (c.state === "answered") out.outcome = c.outcome;
      return result(out);
    },
  );

  server.registerTool(
    "answer_confirmation",
    {
      title: "Answer a confirmation card",
      description: "The card's answer: the token of a pending write and accept or decline. Called by avenir's card, never by the model.",
      inputSchema: z.object({ token: z.string().optional(), answer: z.string().optional(), version: z.number().optional() }),
      _meta: appOnly,
    },
    async (a) => {
      if (a.version !== CARD_VERSION) {
        return error("This card is from another version of avenir; nothing was written. Close it and ask again.", "card_outdated");
      }
      if (!a.token) return error("token: missing; give the token of the card's pending write", "invalid_argument");
      if (a.answer !== "accept" && a.answer !== "decline") {
        return error(`answer: ${a.answer === undefined ? "missing" : `“${a.answer}” is not accept or decline`}; give accept or decline`, "invalid_argument");
      }
      const t = tokens.get(a.token);
      tokens.delete(a.token); // consumed at its first use
      const c = t && cards.get(t.handle);
      if (!t || !c || t.expires < performance.now() || c.state !== "pending" || c.token !== a.token) return error(REFUSED, "card_refused");
      c.token = "";
      c.state = "answered";
      const r =
        a.answer === "decline"
          ? result({ status: "declined", reason: "declined", preview: c.subject.preview, message: "Declined; nothing was written.", plan_id: PLAN_ID, ynab_requests: 0 })
          : applySubject(c.subject, "app");
      const d = r.structuredContent ?? {};
      c.outcome = { status: d.status, reason: d.reason, operation_id: d.operation_id, message: d.message ?? r.content?.[0]?.text };
      return r;
    },
  );

  registerAppTool(
    server,
    "undo_operation",
    {
      title: "Undo an operation",
      description: "Write the inverse of an operation from the journal. Confirmed by the user.",
      inputSchema: z.object({ operation_id: z.string(), confirmation: z.string().optional() }),
      // The journal's Undo calls it: its visibility names app explicitly (PostHog/posthog#97507).
      _meta: { ui: { ...card.ui, visibility: ["model", "app"] } },
    },
    async (a, ctx) => {
      const { confirmation, ...args } = a;
      const o = journal.find((x) => x.id === a.operation_id.trim());
      if (!o) return error(`operation_id: there is no operation “${a.operation_id}” in the journal; list_operations shows the recent ones`);
      if (o.undo.undone_by) return error(`operation ${o.id} was undone already, by ${o.undo.undone_by}; undo_operation ${o.undo.undone_by} redoes it`);
      if (!o.undo.can_undo || !o.inverse) return error(`operation ${o.id} cannot be undone: ${o.undo.why_not ?? "it was written before this server started"}`);
      const inv = o.inverse();
      const w = {
        tool: "undo_operation",
        title: inv.title,
        changes: inv.changes,
        notes: [],
        apply: (via) => {
          const changes = inv.apply();
          const u = record("undo_operation", `Undid ${o.summary}`, via, changes, null);
          u.undo = { can_undo: false, why_not: "This fake server does not redo.", undo_of: o.id };
          o.undo = { ...o.undo, can_undo: false, undone_by: u.id, why_not: `undone by ${u.id}` };
          return applied(u, false);
        },
      };
      if (confirmation !== undefined) {
        const s = redeem(codes, confirmation, "undo_operation", args);
        return s ? applySubject(s, "code") : error(REFUSED, "code_refused");
      }
      return confirmWrite(ctx, { ...w, args });
    },
  );

  registerAppTool(
    server,
    "spending_report",
    {
      title: "Spending report",
      description: "Outflow and inflow per category (or group_by) and month, against the period before.",
      inputSchema: z.object({
        since: z.string().optional(),
        until: z.string().optional(),
        group_by: z.string().optional(),
        top: z.number().int().optional(),
      }),
      _meta: { ui: { resourceUri: "ui://avenir/spending.html" } },
      annotations: { readOnlyHint: true },
    },
    async (a) => {
      const groupBy = (a.group_by ?? "category").trim().toLowerCase() || "category";
      if (!["category", "category_group", "payee", "month", "account"].includes(groupBy)) {
        return error(`group_by: “${a.group_by}” is not one of category, category_group, payee, month, account`);
      }
      const top = a.top ?? 20;
      if (top < 1 || top > 100) return error(`top: ${top} is out of range; give 1 to 100 (default 20)`);
      const since = a.since ?? "2026-09-01";
      const until = a.until ?? "2026-12-15";
      if (!/^\d{4}-\d{2}-\d{2}$/.test(since) || !/^\d{4}-\d{2}-\d{2}$/.test(until) || since > until) {
        return error("since, until: give dates YYYY-MM-DD, since not after until");
      }
      return result(spending(since, until, groupBy, top));
    },
  );

  registerAppTool(
    server,
    "list_operations",
    {
      title: "List what avenir wrote",
      description: "avenir's journal of writes, newest first, with status and undo.",
      inputSchema: z.object({ plan_id: z.string().optional(), tool: z.string().optional(), status: z.string().optional(), limit: z.number().int().optional() }),
      _meta: { ui: { resourceUri: "ui://avenir/journal.html", visibility: ["model", "app"] } },
      annotations: { readOnlyHint: true },
    },
    async (a) => {
      const limit = a.limit ?? 20;
      if (limit < 1 || limit > 200) return error(`limit: ${limit} is out of range; give 1 to 200 (default 20)`);
      const ops = journal
        .filter((o) => (!a.tool || o.tool === a.tool) && (!a.status || o.status === a.status))
        .slice()
        .reverse()
        .slice(0, limit)
        .map(({ inverse, ...o }) => o);
      return result({ plan_id: a.plan_id ?? "", ynab_requests: 0, operations: ops });
    },
  );

  server.registerTool(
    "fake_change_plan",
    {
      title: "Change the plan (test control)",
      description: "Changes the fake plan as another YNAB client would: Tennis's assigned amount in 2026-12 goes up by 1.00.",
      inputSchema: z.object({}),
    },
    async () => {
      const k = `2026-12-01|${category("Tennis").id}`;
      assigned.set(k, assigned.get(k) + 1000);
      planVersion++;
      return result({ status: "changed", plan_version: planVersion });
    },
  );

  for (const [name, description] of [
    ["confirm", "The card on which the user confirms or declines a write"],
    ["spending", "spending_report as a chart"],
    ["journal", "The journal as a timeline, with undo"],
  ]) {
    const uri = `ui://avenir/${name}.html`;
    registerAppResource(server, name, uri, { description, mimeType: RESOURCE_MIME_TYPE }, async () => ({
      contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text: await readFile(join(dist, `${name}.html`), "utf8"), _meta: { ui: { prefersBorder: true } } }],
    }));
  }
  return server;
}

// ---- Writes ------------------------------------------------------------------------------

function moveWrite(from, to, month, amount) {
  const kf = `${month}|${from.id}`;
  const kt = `${month}|${to.id}`;
  const bf = assigned.get(kf) ?? 0;
  const bt = assigned.get(kt) ?? 0;
  const changes = [
    { label: `${from.name} (${month})`, before: money(bf), after: money(bf - amount), key: kf, from: bf, to: bf - amount },
    { label: `${to.name} (${month})`, before: money(bt), after: money(bt + amount), key: kt, from: bt, to: bt + amount },
  ];
  const notes = bf - amount < 0 ? [`${from.name} will have ${money(bf - amount)} assigned for ${month}: less than nothing.`] : [];
  const summary = `Moved ${money(amount)} from ${from.name} to ${to.name} for ${month}`;
  return {
    tool: "move_money",
    title: `Move ${money(amount)} from ${from.name} to ${to.name} for ${month}?`,
    changes,
    notes,
    apply(via) {
      if (from.name === "Broken" || to.name === "Broken") {
        // The first request lands, the second is refused: a partial operation.
        const ok = changes[0];
        assigned.set(ok.key, ok.to);
        planVersion++;
        const o = record("move_money", summary, via, [
          { ...changes[0], outcome: "applied" },
          { ...changes[1], outcome: "not_applied" },
        ], () => inverseOf(changes.slice(0, 1), `Undo: put ${from.name} back for ${month}?`));
        o.status = "partial";
        o.error = "YNAB answered 500 for the second category";
        const text =
          `Only part of the change is in YNAB (YNAB answered 500 for the second category). In YNAB now: ${changes[0].label} (assigned now ${changes[0].after}). Not in YNAB: ${changes[1].label}. ` +
          `Journal entry ${o.id} records exactly this: undo_operation ${o.id} takes back the part that is in YNAB; to finish instead, ask for the missing part again`;
        const out = { status: "partial", reason: "partial", operation_id: o.id, summary, changes: o.changes, message: text, plan_id: PLAN_ID, ynab_requests: 2 };
        return { content: [{ type: "text", text }], structuredContent: out, isError: true };
      }
      for (const c of changes) assigned.set(c.key, c.to);
      planVersion++;
      return applied(record("move_money", summary, via, changes, () =>
        inverseOf(changes, `Move ${money(amount)} back from ${to.name} to ${from.name} for ${month}?`)));
    },
  };
}

/** inverseOf is the undo of assigned-amount changes: each back to its before. */
function inverseOf(changes, title) {
  const inv = changes.map((c) => ({ label: c.label, before: money(assigned.get(c.key)), after: money(c.from), key: c.key, to: c.from }));
  return {
    title,
    changes: inv,
    apply() {
      for (const c of inv) assigned.set(c.key, c.to);
      planVersion++;
      return inv;
    },
  };
}

function record(tool, summary, via, changes, inverse) {
  const o = {
    id: ulid(),
    time: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    plan_id: PLAN_ID,
    tool,
    summary,
    status: "applied",
    confirmed_via: via,
    client: "avenir-ui-harness 1.0.0",
    undo: { can_undo: !!inverse },
    changes: changes.map((c) => ({ label: c.label, before: c.before, after: c.after, outcome: c.outcome ?? "applied" })),
    inverse,
  };
  journal.push(o);
  return o;
}

function applied(o, undoable = true) {
  return result({
    status: "applied",
    operation_id: o.id,
    summary: o.summary,
    undoable: undoable && o.undo.can_undo,
    changes: o.changes,
    message: `${o.summary}. Journal entry ${o.id}; undo_operation ${o.id} takes it back.`,
    plan_id: PLAN_ID,
    ynab_requests: o.changes.length,
  });
}

// ---- spending_report ---------------------------------------------------------------------

function makeTransactions() {
  let seed = 20261215;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const payees = {
    Rent: ["Woonstichting De Key"], Energy: ["Vattenfall"], Insurance: ["Centraal Beheer"],
    Groceries: ["Albert Heijn", "Jumbo", "Lidl", "Marqt"], Restaurants: ["Café de Jaren", "Wagamama", "Thuisbezorgd"],
    Transport: ["NS", "GVB", "Shell"], Tennis: ["TC Amstelpark"], Holidays: ["Transavia", "Booking.com"], Books: ["Boekhandel Van Rossum", "Bol.com"],
  };
  const out = [];
  let n = 0;
  for (const ym of ["2026-06", "2026-07", "2026-08", "2026-09", "2026-10", "2026-11", "2026-12"]) {
    const days = ym === "2026-12" ? 15 : 28;
    out.push({ id: `tx-${String(++n).padStart(3, "0")}`, date: `${ym}-25`, payee: "Employer BV", category: "Inflow: Ready to Assign", amount: 3650000, account: "Betaalrekening" });
    for (const c of categories) {
      const ps = payees[c.name];
      if (!ps) continue;
      const count = { Rent: 1, Energy: 1, Insurance: 1, Groceries: 9, Restaurants: 4, Transport: 6, Tennis: 1, Holidays: 0, Books: 2 }[c.name];
      const size = { Rent: 1250000, Energy: 138000, Insurance: 94500, Groceries: 42000, Restaurants: 31000, Transport: 14000, Tennis: 45000, Books: 19000 }[c.name];
      const extra = c.name === "Holidays" && (ym === "2026-07" || ym === "2026-10") ? 2 : 0;
      for (let i = 0; i < count + extra; i++) {
        const day = String(1 + Math.floor(rnd() * days)).padStart(2, "0");
        const base = c.name === "Holidays" ? 310000 : size;
        const amount = c.name === "Rent" || c.name === "Insurance" ? base : Math.round((base * (0.6 + rnd() * 0.8)) / 10) * 10;
        out.push({ id: `tx-${String(++n).padStart(3, "0")}`, date: `${ym}-${day}`, payee: ps[i % ps.length], category: `${c.group}: ${c.name}`, amount: -amount, account: c.name === "Holidays" ? "Creditcard" : "Betaalrekening" });
      }
    }
    out.push({ id: `tx-${String(++n).padStart(3, "0")}`, date: `${ym}-12`, payee: "Jumbo", category: "Uncategorized", amount: -17350, account: "Betaalrekening" });
  }
  return out;
}

function spending(since, until, groupBy, top) {
  const days = (Date.parse(until) - Date.parse(since)) / 86400000 + 1;
  const prevUntil = new Date(Date.parse(since) - 86400000).toISOString().slice(0, 10);
  const prevSince = new Date(Date.parse(since) - days * 86400000).toISOString().slice(0, 10);
  const cur = transactions.filter((t) => t.date >= since && t.date <= until);
  const prev = transactions.filter((t) => t.date >= prevSince && t.date <= prevUntil);
  const keyOf = (t) => {
    switch (groupBy) {
      case "category": return t.category;
      case "category_group": return t.category.includes(": ") ? t.category.split(": ")[0] : t.category;
      case "payee": return t.payee;
      case "account": return t.account;
      default: return t.date.slice(0, 7);
    }
  };
  const tally = (ts) => {
    const x = { out: 0, in: 0, income: 0, n: 0 };
    for (const t of ts) {
      if (t.amount < 0) x.out -= t.amount;
      else x.in += t.amount;
      if (t.category === "Inflow: Ready to Assign") x.income += t.amount;
      x.n++;
    }
    return x;
  };
  const totals = (x) => ({
    transactions: x.n,
    outflow_milliunits: x.out, outflow: money(x.out),
    inflow_milliunits: x.in, inflow: money(x.in),
    net_milliunits: x.in - x.out, net: money(x.in - x.out),
    income_milliunits: x.income, income: money(x.income),
  });
  const figures = (x, p) => ({
    transactions: x.n,
    outflow_milliunits: x.out, outflow: money(x.out),
    inflow_milliunits: x.in, inflow: money(x.in),
    outflow_change_milliunits: x.out - p.out, outflow_change: money(x.out - p.out),
    inflow_change_milliunits: x.in - p.in, inflow_change: money(x.in - p.in),
  });
  const byKey = (ts) => {
    const m = new Map();
    for (const t of ts) m.set(keyOf(t), [...(m.get(keyOf(t)) ?? []), t]);
    return m;
  };
  const curBy = byKey(cur);
  const prevBy = byKey(prev);
  const none = { out: 0, in: 0, n: 0 };
  const out = {
    plan_id: PLAN_ID, ynab_requests: 0, as_of: "2026-12-15T08:30:00Z",
    since, until, group_by: groupBy, ...totals(tally(cur)),
    previous: { since: prevSince, until: prevUntil, ...totals(tally(prev)) },
    groups: [],
  };
  if (groupBy === "month") {
    let before = tally(transactions.filter((t) => t.date.slice(0, 7) === prevUntil.slice(0, 7)));
    for (const k of [...curBy.keys()].sort()) {
      const x = tally(curBy.get(k));
      out.groups.push({ name: k, ...figures(x, before) });
      before = x;
    }
    return out;
  }
  const rows = [...curBy.entries()].map(([k, ts]) => ({ name: k, x: tally(ts), p: prevBy.has(k) ? tally(prevBy.get(k)) : none }));
  rows.sort((a, b) => b.x.out - a.x.out || a.name.localeCompare(b.name));
  out.groups = rows.slice(0, top).map((r) => ({ name: r.name, ...figures(r.x, r.p) }));
  if (rows.length > top) {
    const rest = rows.slice(top);
    const sum = (f) => rest.reduce((s, r) => s + f(r), 0);
    out.other = { groups: rest.length, ...figures({ out: sum((r) => r.x.out), in: sum((r) => r.x.in), n: sum((r) => r.x.n) }, { out: sum((r) => r.p.out), in: sum((r) => r.p.in) }) };
  }
  out.months = [...new Set(cur.map((t) => t.date.slice(0, 7)))].sort().map((m) => {
    const x = tally(cur.filter((t) => t.date.startsWith(m)));
    return { month: m, transactions: x.n, outflow_milliunits: x.out, outflow: money(x.out), inflow_milliunits: x.in, inflow: money(x.in) };
  });
  return out;
}

// ---- Helpers -----------------------------------------------------------------------------

function category(name, arg) {
  const n = String(name ?? "").trim().toLowerCase();
  const c = categories.find((x) => x.name.toLowerCase() === n || `${x.group}: ${x.name}`.toLowerCase() === n || x.id === n);
  if (c) return c;
  return arg === undefined ? undefined : `${arg}: there is no category “${name}” in ${PLAN_NAME}; list_categories shows them`;
}

function monthOf(s) {
  const m = /^(\d{4})-(\d{2})(?:-\d{2})?$/.exec(String(s).trim());
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) return null;
  return `${m[1]}-${m[2]}-01`;
}

/** milli parses a decimal amount exactly (at most three decimals), or null. */
function milli(s) {
  const m = /^(-)?(\d{1,12})(?:[.,](\d{1,3}))?$/.exec(String(s).trim());
  if (!m) return null;
  const v = Number(m[2]) * 1000 + Number((m[3] ?? "").padEnd(3, "0"));
  return m[1] ? -v : v;
}

/** money formats milliunits as 1,234.56 (the fake plan's currency format). */
function money(v) {
  const neg = v < 0;
  const cents = Math.round(Math.abs(v) / 10);
  const whole = String(Math.floor(cents / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${neg ? "-" : ""}${whole}.${String(cents % 100).padStart(2, "0")}`;
}

function result(obj) {
  return { content: [{ type: "text", text: JSON.stringify(obj) }], structuredContent: obj };
}

/** error is a failed call's result: its words for the model, its reason for code. */
function error(text, reason = "invalid_argument") {
  return { content: [{ type: "text", text }], structuredContent: { status: "error", reason, message: text }, isError: true };
}

function ulid() {
  const A = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let t = Date.now();
  let s = "";
  for (let i = 0; i < 10; i++) {
    s = A[t % 32] + s;
    t = Math.floor(t / 32);
  }
  for (const b of randomBytes(16)) s += A[b % 32];
  return s.slice(0, 26);
}

serveStdio(makeServer);
