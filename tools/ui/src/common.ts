// What the three views share: the connection to the host through the MCP Apps view SDK, the
// host's theme, safe DOM building, and reading a tool result.
//
// The protocol is MCP Apps (extension io.modelcontextprotocol/ui, specification 2026-01-26,
// github.com/modelcontextprotocol/ext-apps specification/2026-01-26/apps.mdx): the view is an
// MCP client of its host over postMessage; the host hands it the tool's arguments
// (ui/notifications/tool-input) and result (ui/notifications/tool-result), proxies its
// tools/call to the server, and takes messages for the conversation (ui/message).

import {
  App,
  applyDocumentTheme,
  applyHostStyleVariables,
  type McpUiHostContext,
} from "@modelcontextprotocol/ext-apps";
import type { CallToolResult } from "@modelcontextprotocol/client";

export type ToolResult = CallToolResult;
export type Data = Record<string, unknown>;

/** The views' version, reported to the host in ui/initialize. */
export const VERSION = "1.0.0";

// ---- DOM ---------------------------------------------------------------------------------

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined>;

/**
 * el builds an element. Text is always set as text and never parsed as HTML: labels, payees
 * and memos come from YNAB, where anyone who can name a payee can write markup.
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  setAttrs(e, attrs);
  append(e, children);
  return e;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** svg builds an SVG element, as el does. */
export function svg(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  const e = document.createElementNS(SVG_NS, tag) as SVGElement;
  setAttrs(e, attrs);
  append(e, children);
  return e;
}

function setAttrs(e: Element, attrs: Attrs): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    e.setAttribute(k, v === true ? "" : String(v));
  }
}

function append(e: Element, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    e.append(typeof c === "number" ? String(c) : c);
  }
}

/** replace puts children in place of everything in root. */
export function replace(root: Element, ...children: Child[]): void {
  root.replaceChildren();
  append(root, children);
}

/**
 * setState names what a view shows in data-state on <body>: a test, and a stylesheet, can
 * wait on it. The card's states are opening, pending, answering, applied, partial, declined,
 * changed, refused, ynab-refused, unsettled, expired, superseded, answered (mounted again after
 * its answer), outdated, unknown, unreachable, required, no-token, undoing and error; the
 * pictures' are rendered.
 */
export function setState(state: string): void {
  document.body.dataset.state = state;
}

// ---- Tool results ------------------------------------------------------------------------

/** textOf is the text content of a result, its blocks joined. */
export function textOf(r: ToolResult): string {
  const parts: string[] = [];
  for (const c of r.content ?? []) {
    if (c.type === "text") parts.push(c.text);
  }
  return parts.join("\n").trim();
}

/**
 * dataOf is a result's structured content, or its text content read as a JSON object
 * (avenir's text content holds the same as JSON, then a pending card's `Card: H (v2)` line),
 * or undefined. Hosts that strip structuredContent (Claude Desktop: ext-apps#696) leave the text.
 */
export function dataOf(r: ToolResult): Data | undefined {
  const sc = r.structuredContent;
  if (isObject(sc)) return sc;
  let t = textOf(r);
  const last = t.lastIndexOf("\n");
  if (last >= 0 && t.slice(last + 1).startsWith("Card: ")) t = t.slice(0, last).trim();
  if (!t.startsWith("{")) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

export function isObject(v: unknown): v is Data {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** str is v when it is a string, else "". */
export function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** num is v when it is a finite number, else 0. */
export function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

/** list is v's objects when it is an array, else none. */
export function list(v: unknown): Data[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** firstLine is s up to its first line break. */
export function firstLine(s: string): string {
  const i = s.indexOf("\n");
  return (i < 0 ? s : s.slice(0, i)).trim();
}

// ---- The host ----------------------------------------------------------------------------

let hostLocale: string | undefined;
let hostTimeZone: string | undefined;

/** applyContext follows what the host says of itself: its theme, style variables, locale. */
function applyContext(ctx: McpUiHostContext | undefined): void {
  if (!ctx) return;
  if (ctx.theme === "light" || ctx.theme === "dark") applyDocumentTheme(ctx.theme);
  // The host's variables (colours, fonts by name, radii) are applied; its font CSS is not,
  // since loading a font is a request to an origin, which these views never make.
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  if (typeof ctx.locale === "string" && ctx.locale) hostLocale = ctx.locale;
  if (typeof ctx.timeZone === "string" && ctx.timeZone) hostTimeZone = ctx.timeZone;
}

export interface ViewHandlers {
  /** onResult gets each tool result the host hands the view. */
  onResult(r: ToolResult): void;
  /** onInput gets the tool's arguments. */
  onInput?(args: Data): void;
}

/**
 * openView creates the view's App and connects it to the host. The handlers are set before
 * connecting, so no notification sent right after the handshake is missed.
 */
export function openView(name: string, h: ViewHandlers): App {
  const app = new App({ name: `avenir-${name}`, version: VERSION }, {}, { autoResize: true });
  app.ontoolinput = (p) => h.onInput?.(isObject(p.arguments) ? p.arguments : {});
  app.ontoolresult = (p) => h.onResult(p);
  app.ontoolcancelled = (p) => {
    const root = document.getElementById("root");
    if (root) {
      replace(root, el("p", { class: "banner info" }, `The call was cancelled${p.reason ? `: ${p.reason}` : "."}`));
    }
    setState("cancelled");
  };
  app.onhostcontextchanged = (ctx) => applyContext(ctx);
  app.onteardown = async () => ({});
  app.connect().then(
    () => applyContext(app.getHostContext()),
    (err: unknown) => {
      const root = document.getElementById("root");
      if (root) replace(root, el("p", { class: "banner bad" }, `This view could not reach its host: ${message(err)}`));
      setState("error");
    },
  );
  return app;
}

/**
 * tell puts one short text in the conversation as the person's message (ui/message), so the
 * model learns what the person did on the card. Where the host takes no message (it lacks the
 * capability, answers with an error, or throws) the text becomes model context
 * (ui/update-model-context) for the next turn. secrets are withheld from the text whatever it
 * says: a confirmation token must never reach the model. It returns how the host took it —
 * "message", "context" — or false when it took neither: the card then says so, and never
 * claims to have told the conversation.
 */
export async function tell(app: App, text: string, secrets: readonly string[]): Promise<"message" | "context" | false> {
  let t = text;
  for (const s of secrets) if (s) t = t.split(s).join("[withheld]");
  const caps = app.getHostCapabilities();
  const content = [{ type: "text" as const, text: t }];
  if (!caps || caps.message || !caps.updateModelContext) {
    try {
      const r = await app.sendMessage({ role: "user", content });
      if (!r.isError) return "message";
    } catch {
      // fall through to model context
    }
  }
  if (caps?.updateModelContext) {
    try {
      await app.updateModelContext({ content });
      return "context";
    } catch {
      return false;
    }
  }
  return false;
}

export function message(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

// ---- Formatting --------------------------------------------------------------------------

/** formatTime is an RFC 3339 time in the host's locale and time zone. */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  try {
    return new Intl.DateTimeFormat(hostLocale, {
      dateStyle: "medium",
      timeStyle: "short",
      timeZone: hostTimeZone,
    }).format(d);
  } catch {
    return d.toISOString();
  }
}

/** formatDate is a YYYY-MM-DD date in the host's locale. */
export function formatDate(ymd: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ymd);
  if (!m) return ymd;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  try {
    return new Intl.DateTimeFormat(hostLocale, { dateStyle: "medium", timeZone: "UTC" }).format(d);
  } catch {
    return ymd;
  }
}

/** formatMonth is a YYYY-MM month, short ("Sep"), with the year where withYear. */
export function formatMonth(ym: string, withYear: boolean): string {
  const m = /^(\d{4})-(\d{2})/.exec(ym);
  if (!m) return ym;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
  try {
    return new Intl.DateTimeFormat(hostLocale, {
      month: "short",
      year: withYear ? "numeric" : undefined,
      timeZone: "UTC",
    }).format(d);
  } catch {
    return ym;
  }
}

/** plural is "1 change" or "3 changes". */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
