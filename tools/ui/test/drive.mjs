#!/usr/bin/env node
// drive.mjs: a test host for avenir's MCP Apps views, in headless Chromium.
//
// It starts an MCP server over stdio with the TypeScript SDK's client, declaring the MCP Apps
// extension (io.modelcontextprotocol/ui, text/html;profile=mcp-app) and no elicitation, as
// Claude Desktop does. It lists the tools, reads the UI resource the tool names in
// _meta.ui.resourceUri, calls the tool, and renders the view in a sandboxed iframe connected
// with ext-apps' AppBridge (host.js); it hands the view the tool's arguments and result, plays
// a scenario (clicks, as a person would), forwards the view's tools/call to the server, and
// prints one JSON line: what happened. See README.md beside it.
//
//   node tools/ui/test/drive.mjs --server-cmd 'avenir serve --sandbox' \
//     --tool move_money --args '{"from_category":"Tennis","to_category":"Restaurants","month":"2026-12","amount":"30"}' \
//     --scenario confirm --screenshot card.png
//
// Exit status: 0 when the scenario ran and every check held (ok: true), 1 when it ran and a
// check failed or the view did not reach the state the scenario waits for, 2 for bad usage.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { getToolUiResourceUri, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/app-bridge";
import { EXTENSION_ID } from "@modelcontextprotocol/ext-apps/server";
import * as esbuild from "esbuild";
import puppeteer from "puppeteer-core";

const here = dirname(fileURLToPath(import.meta.url));

const SCENARIOS = {
  show: "render the result and stop",
  adversary: "render the card, then let an adversarial model loose (--adversary-wait): it must write nothing",
  confirm: "click Confirm",
  decline: "click Decline",
  "double-click": "double-click Confirm, then click it again: one answer must go out",
  undo: "click Confirm, then Undo on the outcome, then Confirm on the undo's card",
  expire: "wait until the card's token expires",
  spending: "render spending_report's chart",
  journal: "render list_operations' timeline",
  "journal-undo": "render the timeline, click the first Undo, and Confirm on its card",
};
/**
 * The hosts this harness emulates: each a real MCP Apps host on ext-apps' AppBridge, doing what
 * that host is reported to do (confirmation.md §2.4's table; the issue numbers are where to read
 * more). Add one whenever a host is found to differ.
 */
const HOSTS = {
  // ext-apps' own bridge, as the extension describes it: the view is handed the whole result.
  sdk: { about: "the MCP Apps SDK's bridge: the whole result" },
  // Claude Desktop with a local server or a .mcpb hands the view the result without _meta and
  // without structuredContent (content and isError only); the answers to the view's own
  // tools/call arrive whole; app-only tools are kept from the model.
  // modelcontextprotocol/ext-apps#696, apify/apify-mcp-server#1187, anthropics/claude-ai-mcp#563.
  "claude-desktop": { about: "strips _meta and structuredContent from what the view is handed", stripView: true },
  // ChatGPT on the web hands the view the result with its _meta missing or replaced
  // (openai/openai-apps-sdk-examples#231), sends the client capabilities in every request (the
  // 2026-07-28 era's envelope), and may show a result's _meta to its model (#212).
  "chatgpt-web": { about: "replaces _meta; capabilities in every request", replaceMeta: true, modelSeesMeta: true, protocol: "2026-07-28" },
  // claude.ai connectors open several sessions per connection, one with empty capabilities,
  // list tools on it and cache the list; a view may call only tools it was listed.
  // modelcontextprotocol/ext-apps#671, anthropics/claude-ai-mcp#61, PrefectHQ/fastmcp#5041.
  "claude-ai": { about: "lists on a session with empty capabilities, refuses tools it did not list", listOnEmptySession: true },
  // Qwen Code 0.24.4 and other terminal clients declare the extension and never draw a card
  // (measured, issue 28): the model asks again; after 10 s with no card shown, a code.
  terminal: { about: "declares the extension, never draws", draws: false },
  // Strict hosts refuse a view's call to a tool whose _meta.ui.visibility does not name app
  // explicitly (PostHog/posthog#97507).
  strict: { about: "refuses a view's call to a tool without explicit app visibility", explicitApp: true },
  // Every host keeps cards in the transcript and mounts them again (scrolling back, a reload),
  // long after they were answered.
  remount: { about: "mounts the card again after the scenario", remount: true },
};

/** The card's states after an answer (src/common.ts, setState). */
const FINAL = [
  "applied", "partial", "declined", "changed", "refused", "ynab-refused", "unsettled", "error", "expired", "superseded",
  "answered", "outdated", "unknown", "unreachable", "required", "no-token", "other",
];

const usage = `usage: node drive.mjs (--server-cmd CMD | --server-argv JSON) --tool NAME [options]

  --server-cmd CMD        the server, as a shell command line (run with sh -c)
  --server-argv JSON      the server, as a JSON array: program and arguments
  --env K=V               an environment variable for the server (repeatable; the
                          harness's own environment is passed on too)
  --cwd DIR               the server's working directory
  --protocol P            legacy (default: 2025-11-25, capabilities in initialize) or
                          2026-07-28 (capabilities in every request's _meta)
  --host H                the host to emulate: ${Object.entries(HOSTS).map(([k, v]) => `${k} (${v.about})`).join(",\n                          ")}
  --messages M            what the host does with the view's messages: accept (default), refuse
                          (ui/message answered with an error) or none (neither declared)
  --adversary-wait MS     how long the adversarial model waits before it retries (default 0)
  --repeat-after MS       terminal: how long the model waits before it asks again (default 10500)
  --tool NAME             the tool to call (its _meta.ui.resourceUri names the view)
  --args JSON             its arguments (default {})
  --scenario S            ${Object.entries(SCENARIOS).map(([k, v]) => `${k}: ${v}`).join("\n                          ")}
  --before-answer JSON    {"name":…, "arguments":…}: a tool the harness calls itself once the
                          card is pending and before the click (to change the plan under it);
                          the string "$TOKEN" in its arguments stands for the card's token
  --echo-results          also notify the view of the results of its own tools/call
                          (ui/notifications/tool-result), as some hosts do
  --elicit A              declare form elicitation too, and answer the server's questions
                          with A: accept (ticked), decline or cancel
  --expect-state S        fail unless the view ends in state S
  --theme light|dark      the host's theme (default light)
  --width N               the view's width in CSS pixels (default 400)
  --screenshot FILE       a PNG of the view once it shows the result
  --screenshot-after FILE a PNG of the view at the end of the scenario
  --chromium PATH         the browser (default: $CHROMIUM, or chromium on PATH)
  --timeout MS            for each wait (default 20000)`;

let opts;
try {
  opts = parseArgs({
    options: {
      "server-cmd": { type: "string" },
      "server-argv": { type: "string" },
      env: { type: "string", multiple: true, default: [] },
      cwd: { type: "string" },
      protocol: { type: "string", default: "legacy" },
      host: { type: "string", default: "sdk" },
      messages: { type: "string", default: "accept" },
      "adversary-wait": { type: "string", default: "0" },
      "repeat-after": { type: "string", default: "10500" },
      tool: { type: "string" },
      args: { type: "string", default: "{}" },
      scenario: { type: "string", default: "show" },
      "before-answer": { type: "string" },
      "expect-state": { type: "string" },
      elicit: { type: "string" },
      "echo-results": { type: "boolean", default: false },
      theme: { type: "string", default: "light" },
      width: { type: "string", default: "400" },
      screenshot: { type: "string" },
      "screenshot-after": { type: "string" },
      chromium: { type: "string" },
      timeout: { type: "string", default: "20000" },
      help: { type: "boolean", short: "h" },
    },
  }).values;
} catch (e) {
  fail(2, `${e.message}\n\n${usage}`);
}
if (opts.help) {
  console.log(usage);
  process.exit(0);
}
if (!opts["server-cmd"] === !opts["server-argv"]) fail(2, `give one of --server-cmd and --server-argv\n\n${usage}`);
if (!opts.tool) fail(2, `--tool is required\n\n${usage}`);
if (!(opts.scenario in SCENARIOS)) fail(2, `--scenario: ${opts.scenario} is not one of ${Object.keys(SCENARIOS).join(", ")}`);
if (!["light", "dark"].includes(opts.theme)) fail(2, `--theme: ${opts.theme} is not light or dark`);
if (opts.elicit !== undefined && !["accept", "decline", "cancel"].includes(opts.elicit)) {
  fail(2, `--elicit: ${opts.elicit} is not accept, decline or cancel`);
}
if (!["legacy", "2026-07-28"].includes(opts.protocol)) fail(2, `--protocol: ${opts.protocol} is not legacy or 2026-07-28`);
if (!["accept", "refuse", "none"].includes(opts.messages)) fail(2, `--messages: ${opts.messages} is not accept, refuse or none`);
if (!(opts.host in HOSTS)) fail(2, `--host: ${opts.host} is not one of ${Object.keys(HOSTS).join(", ")}`);
const profile = { draws: true, ...HOSTS[opts.host] };
if (profile.protocol) opts.protocol = profile.protocol;
const adversaryWait = Number(opts["adversary-wait"]);
const repeatAfter = Number(opts["repeat-after"]);
const width = Number(opts.width);
const timeout = Number(opts.timeout);
if (!Number.isInteger(width) || width < 200 || width > 2000) fail(2, `--width: ${opts.width} is not a whole number from 200 to 2000`);
if (!Number.isInteger(timeout) || timeout < 100) fail(2, `--timeout: ${opts.timeout} is not a whole number of milliseconds, 100 or more`);
const toolArgs = parseJSON("--args", opts.args);
const beforeAnswer = opts["before-answer"] ? parseJSON("--before-answer", opts["before-answer"]) : undefined;
const env = { ...process.env };
for (const kv of opts.env) {
  const i = kv.indexOf("=");
  if (i < 1) fail(2, `--env: ${kv} is not K=V`);
  env[kv.slice(0, i)] = kv.slice(i + 1);
}
let command;
let commandArgs;
if (opts["server-cmd"]) {
  command = "sh";
  commandArgs = ["-c", `exec ${opts["server-cmd"]}`];
} else {
  const argv = parseJSON("--server-argv", opts["server-argv"]);
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === "string")) {
    fail(2, "--server-argv: give a JSON array of strings, the program first");
  }
  [command, ...commandArgs] = argv;
}
const chromium = opts.chromium || process.env.CHROMIUM || which("chromium") || which("chromium-browser");
if (!chromium) fail(2, "no chromium: install it (apt-get install chromium), or give --chromium or CHROMIUM");

// ---- What the run records ----------------------------------------------------------------

const out = {
  ok: false,
  scenario: opts.scenario,
  host: opts.host,
  tool: opts.tool,
  protocol: null,
  resource_uri: null,
  resource_mime_type: null,
  view_bytes: 0,
  app_only_tools: [],
  initial_result: null,
  calls: [], // the view's tools/call, as forwarded: name, arguments, result
  harness_calls: [], // calls the harness made itself (--before-answer)
  elicitations: [], // the server's questions to the client (with --elicit)
  messages: [], // ui/message: what the view put in the conversation
  model_context: [], // ui/update-model-context
  logs: [],
  states: [], // the view's data-state, in order, as seen at each step
  final_state: null,
  told: null, // the view's own word on whether the host took its message
  told_via: null, // message, context or none
  view_text: "",
  tokens_seen: 0,
  token_in_model_content: false, // a token in what the model is given of a result
  token_in_messages: false, // a token in anything the view sent to the host for the model
  token_in_view: false, // a token anywhere in the view's DOM
  blocked_requests: [],
  console_errors: [],
  refused_calls: [], // the view's calls to tools it may not call (visibility without "app")
  screenshots: [],
  host_tools: [], // what the host lists (claude-ai: from its session with empty capabilities)
  adversary: null, // the adversarial model: its calls, and what any of them wrote
  terminal: null, // terminal: the model's calls and what each answered
  remount: null, // remount: the card mounted again: its state, its text, whether it offers Confirm
  checks: [], // the checks that failed, in words
  error: null,
};

let client;
let browser;
let hostPage_; // the host's page, once it is up
const started = Date.now();
/** lap notes on stderr how long the run took to get somewhere (AVENIR_UI_TIMING=1). */
const lap = (what) => process.env.AVENIR_UI_TIMING && console.error(`drive.mjs: ${Date.now() - started} ms: ${what}`);
const tools = new Map();
/** hostTools is the tool list the host keeps: the main session's, or (claude-ai) another's. */
let hostTools = tools;
const tokens = new Set();

const deadline = setTimeout(() => {
  out.error = "the run took longer than 5 minutes";
  finish(1);
}, 300_000);


async function run() {
  client = new Client(
    { name: "avenir-ui-harness", version: "1.0.0" },
    {
      capabilities: {
        extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } },
        ...(opts.elicit ? { elicitation: { form: {} } } : {}),
      },
      ...(opts.protocol === "legacy" ? {} : { versionNegotiation: { mode: { pin: opts.protocol } } }),
    },
  );
  if (opts.elicit) {
    client.setRequestHandler("elicitation/create", async (req) => {
      out.elicitations.push(req.params);
      if (opts.elicit !== "accept") return { action: opts.elicit };
      const props = Object.keys(req.params?.requestedSchema?.properties ?? {});
      return { action: "accept", content: Object.fromEntries(props.map((k) => [k, true])) };
    });
  }
  const transport = new StdioClientTransport({ command, args: commandArgs, env, cwd: opts.cwd, stderr: "inherit" });
  await client.connect(transport, { timeout });
  out.protocol = client.getNegotiatedProtocolVersion?.() ?? null;
  lap("connected");

  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout });
    for (const t of page.tools) tools.set(t.name, t);
    cursor = page.nextCursor;
  } while (cursor);
  out.app_only_tools = [...tools.values()].filter((t) => !visibility(t).includes("model")).map((t) => t.name);
  if (profile.listOnEmptySession) hostTools = await listOnEmptySession();
  out.host_tools = [...hostTools.keys()];

  const tool = tools.get(opts.tool);
  if (!tool) throw new Error(`the server has no tool ${opts.tool}`);
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error(`${opts.tool} names no view: its _meta.ui.resourceUri is missing`);
  out.resource_uri = uri;
  const res = await client.readResource({ uri }, { timeout });
  const content = res.contents?.[0];
  if (!content) throw new Error(`${uri}: resources/read returned no contents`);
  out.resource_mime_type = content.mimeType ?? null;
  if (content.mimeType !== RESOURCE_MIME_TYPE) check(false, `${uri} has MIME type ${content.mimeType}, not ${RESOURCE_MIME_TYPE}`);
  const html = "text" in content ? content.text : Buffer.from(content.blob, "base64").toString("utf8");
  out.view_bytes = Buffer.byteLength(html);
  lap("resource read");

  const initial = await client.callTool({ name: opts.tool, arguments: toolArgs }, { timeout });
  out.initial_result = initial;
  noteTokens(initial);
  out.token_in_model_content = hasToken(modelVisible(initial));
  lap("tool called");
  if (!profile.draws) {
    await terminal(initial);
    return;
  }

  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check"],
  });
  const page = await browser.newPage();
  lap("browser up");
  await page.setViewport({ width: width + 24, height: 900, deviceScaleFactor: 2 });
  await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: opts.theme }]);
  await page.setRequestInterception(true);
  page.on("request", (req) => {
    const url = req.url();
    if (url.startsWith("data:") || url === "about:blank" || url === "about:srcdoc") return void req.continue();
    out.blocked_requests.push(url);
    void req.abort("blockedbyclient");
  });
  page.on("console", (m) => {
    if (m.type() === "error") out.console_errors.push(m.text());
  });
  page.on("pageerror", (e) => out.console_errors.push(String(e?.message ?? e)));
  await page.exposeFunction("avenirHost", (kind, payload) => fromView(kind, JSON.parse(payload)).then((r) => JSON.stringify(r ?? null)));
  await page.setContent(await hostPage(), { waitUntil: "load" });
  hostPage_ = page;
  lap("host page");

  const hostContext = {
    theme: opts.theme,
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    containerDimensions: { width, maxHeight: 4000 },
    platform: "desktop",
    locale: "en-US",
    timeZone: "Europe/Amsterdam",
    toolInfo: { tool },
  };
  const mount = async () => {
    await page.evaluate((a) => window.avenirStart(a), { html, hostContext, width, messages: opts.messages });
    const frames = await page.$$("iframe");
    const frame = await frames[frames.length - 1].contentFrame();
    await page.evaluate((p) => window.avenirSend("input", p), { arguments: toolArgs });
    await page.evaluate((r) => window.avenirSend("result", r), viewResult(initial));
    return frame;
  };
  let frame = await mount();
  lap("view initialized");

  const s = new Steps(page, frame);
  await s.play();
  lap("scenario played");
  if (profile.remount) {
    // The host mounts the card again, from the transcript: the same result, a new view.
    await page.evaluate(() => document.getElementById("frame").replaceChildren());
    frame = await mount();
    const again = new Steps(page, frame);
    const state = await again.until(["pending", ...FINAL]);
    out.remount = {
      state,
      outcome: await frame.evaluate(() => document.body.dataset.outcome ?? null),
      text: await frame.evaluate(() => document.body.innerText),
      offers_confirm: await frame.evaluate(() => !!document.querySelector('button[data-action="confirm"]:not(:disabled)')),
    };
    check(!out.remount.offers_confirm, "the card mounted again offers Confirm");
    s.frame = frame;
    lap("mounted again");
  }
  out.view_text = await frame.evaluate(() => document.body.innerText);
  const dom = await frame.evaluate(() => document.documentElement.outerHTML);
  out.token_in_view = hasToken(dom);
  out.token_in_messages = hasToken(JSON.stringify([out.messages, out.model_context, out.logs]));
  out.final_state = await s.state();
  out.told = await frame.evaluate(() => document.body.dataset.told ?? null);
  out.told_via = await frame.evaluate(() => document.body.dataset.toldVia ?? null);

  check(!out.token_in_model_content, "a confirmation token is in what the model is given of a result");
  check(!out.token_in_messages, "a confirmation token is in what the view sent to the host");
  check(!out.token_in_view, "a confirmation token is in the view's page");
  check(out.blocked_requests.length === 0, `the view made requests: ${out.blocked_requests.join(", ")}`);
  check(out.console_errors.length === 0, `the page logged errors: ${out.console_errors.join(" | ")}`);
  check(out.refused_calls.length === 0, `the view called tools it may not: ${out.refused_calls.join(", ")}`);
  if (opts["expect-state"]) {
    check(out.final_state === opts["expect-state"], `the view ended in ${out.final_state}, not ${opts["expect-state"]}`);
  }
}

/** Steps plays the scenario in the view, as a person would. */
class Steps {
  constructor(page, frame) {
    this.page = page;
    this.frame = frame;
  }

  async play() {
    const sc = opts.scenario;
    if (sc === "spending" || sc === "journal" || sc === "journal-undo") {
      await this.until(["rendered", "error"]);
      await this.shot(opts.screenshot);
      if (sc === "journal-undo") {
        await this.click("li.entry button.undo:not(:disabled)");
        await this.until(["pending", "error"]);
        await this.answer("accept");
      }
    } else {
      const first = await this.until(["pending", ...FINAL]);
      await this.shot(opts.screenshot);
      if (first === "pending" && sc !== "show") {
        if (sc === "adversary") {
          await adversary();
        } else if (sc === "expire") {
          const opened = out.calls.filter((c) => c.name === "open_confirmation").pop();
          const secs = Number(opened?.result?.structuredContent?.expires_in_seconds ?? 600);
          await this.until(["expired"], secs * 1000 + timeout);
        } else if (sc === "double-click") {
          await this.beforeAnswer();
          const sel = 'button[data-action="confirm"]';
          const told = this.toldCount();
          await this.frame.click(sel, { clickCount: 2 });
          await this.frame.evaluate((s) => document.querySelector(s)?.click(), sel);
          await this.until(FINAL);
          await this.toldMore(told);
          await new Promise((r) => setTimeout(r, 300)); // room for a second answer to show up
        } else {
          await this.beforeAnswer();
          await this.answer(sc === "decline" ? "decline" : "accept");
          if (sc === "undo") {
            if ((await this.state()) !== "applied") throw new Error(`the card ended in ${await this.state()}, so there is nothing to undo`);
            const card = await this.card();
            await this.click('button[data-action="undo"]');
            await this.until(["pending", "error"], timeout, card);
            await this.answer("accept");
          }
        }
      }
    }
    await this.until(["pending", "rendered", ...FINAL]);
    await this.shot(opts["screenshot-after"]);
  }

  async beforeAnswer() {
    if (!beforeAnswer) return;
    const token = [...tokens].pop() ?? "";
    const args = JSON.parse(JSON.stringify(beforeAnswer.arguments ?? {}), (_, v) => (v === "$TOKEN" ? token : v));
    const r = await client.callTool({ name: beforeAnswer.name, arguments: args }, { timeout });
    out.harness_calls.push({ name: beforeAnswer.name, arguments: args, result: r });
  }

  /** answer clicks Confirm or Decline on the pending card and waits for the outcome. */
  async answer(a) {
    const told = this.toldCount();
    await this.click(`button[data-action="${a === "accept" ? "confirm" : "decline"}"]:not(:disabled)`);
    await this.until(FINAL);
    await this.toldMore(told);
  }

  toldCount() {
    return out.messages.length + out.model_context.length;
  }

  /** toldMore waits (a little) for the message the view sends after an outcome. */
  async toldMore(n) {
    const end = Date.now() + 3000;
    while (this.toldCount() <= n && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
  }

  async click(sel) {
    await this.frame.waitForSelector(sel, { timeout });
    await this.frame.click(sel);
  }

  async state() {
    return this.frame.evaluate(() => document.body.dataset.state ?? null);
  }

  async card() {
    return this.frame.evaluate(() => document.body.dataset.card ?? "0");
  }

  /** until waits for one of states (on a newer card than afterCard, if given). */
  async until(states, ms = timeout, afterCard) {
    try {
      await this.frame.waitForFunction(
        (ss, after) =>
          ss.includes(document.body.dataset.state) && (after === undefined || (document.body.dataset.card ?? "0") !== after),
        { timeout: ms, polling: 50 },
        states,
        afterCard,
      );
    } catch {
      const now = await this.state();
      out.states.push(now);
      throw new Error(`the view stayed in state ${now}; waited for ${states.join(" or ")}`);
    }
    const now = await this.state();
    out.states.push(now);
    return now;
  }

  async shot(file) {
    if (!file) return;
    await new Promise((r) => setTimeout(r, 150)); // the host's resize of the frame
    const el = await this.page.$("iframe");
    await el.screenshot({ path: resolve(file) });
    out.screenshots.push(resolve(file));
  }
}

/** fromView answers what the page asks of the host on the view's behalf. */
async function fromView(kind, p) {
  switch (kind) {
    case "callTool": {
      const t = hostTools.get(p?.name);
      // MCP Apps: the host must reject a view's tools/call for a tool whose visibility lacks
      // "app" (apps.mdx, "Visibility"); a strict host, one whose visibility does not name app
      // explicitly (PostHog/posthog#97507); claude.ai, one it was not listed (fastmcp#5041).
      const vis = t?._meta?.ui?.visibility;
      const allowed = profile.explicitApp ? Array.isArray(vis) && vis.includes("app") : visibility(t).includes("app");
      if (!t || !allowed) {
        out.refused_calls.push(String(p?.name));
        return { error: `tool ${p?.name} is not available to the view` };
      }
      const call = { name: p.name, arguments: p.arguments ?? {}, result: null, error: null };
      out.calls.push(call);
      try {
        call.result = await client.callTool({ name: p.name, arguments: p.arguments ?? {} }, { timeout });
        noteTokens(call.result);
        // open_confirmation's answer carries the token, for the view alone: a host gives its
        // model none of the view's own calls. Every other answer must carry none.
        if (p.name !== "open_confirmation" && hasToken(modelVisible(call.result))) out.token_in_model_content = true;
        if (opts["echo-results"]) {
          const r = call.result;
          setTimeout(() => void hostPage_?.evaluate((x) => window.avenirSend("result", x), viewResult(r)).catch(() => {}), 0);
        }
        return { result: call.result };
      } catch (e) {
        call.error = e?.message ?? String(e);
        return { error: call.error };
      }
    }
    case "readResource":
      try {
        return { result: await client.readResource(p, { timeout }) };
      } catch (e) {
        return { error: e?.message ?? String(e) };
      }
    case "message":
      out.messages.push({
        role: p?.role,
        text: (p?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n"),
        content: p?.content,
      });
      return {};
    case "modelContext":
      out.model_context.push(p);
      return {};
    case "log":
      out.logs.push(p);
      return {};
    case "openLink":
      out.checks.push(`the view asked to open ${p?.url}`);
      return {};
    default:
      return { error: `unknown request ${kind}` };
  }
}

function visibility(tool) {
  const v = tool?._meta?.ui?.visibility;
  return Array.isArray(v) ? v : ["model", "app"];
}

/**
 * noteTokens remembers the confirmation tokens a result carries: open_confirmation's (the card
 * exchange, version 2), or a version 1 server's in _meta.
 */
function noteTokens(r) {
  const t = r?.structuredContent?.token ?? r?._meta?.["avenir/confirmation"]?.token;
  if (typeof t === "string" && t) {
    tokens.add(t);
    out.tokens_seen = tokens.size;
  }
}

/**
 * modelVisible is what a host gives the model of a result: all of it but _meta (ChatGPT: all of
 * it, _meta included, openai/openai-apps-sdk-examples#212).
 */
function modelVisible(r) {
  if (profile.modelSeesMeta) return JSON.stringify(r ?? {});
  const { _meta, ...rest } = r ?? {};
  return JSON.stringify(rest);
}

/** viewResult is what the host hands the view of a result. */
function viewResult(r) {
  if (profile.stripView) return { content: r?.content ?? [], ...(r?.isError ? { isError: true } : {}) };
  if (profile.replaceMeta) return { ...r, _meta: { "openai/widgetSessionId": `ws_${Date.now().toString(36)}` } };
  return r;
}

/** modelOffered reports whether the host offers a tool to its model. */
function modelOffered(t) {
  return visibility(t).includes("model") && t?._meta?.["openai/visibility"] !== "private";
}

/**
 * listOnEmptySession is claude.ai's tool list: taken on another session of the same connection,
 * one that declared no capabilities (ext-apps#671, claude-ai-mcp#61). Over stdio that session is
 * another process of the same server; it is closed before the calls begin.
 */
async function listOnEmptySession() {
  const other = new Client({ name: "avenir-ui-harness-lister", version: "1.0.0" }, { capabilities: {} });
  const t = new StdioClientTransport({ command, args: commandArgs, env, cwd: opts.cwd, stderr: "inherit" });
  await other.connect(t, { timeout });
  const listed = new Map();
  let cursor;
  try {
    do {
      const page = await other.listTools(cursor ? { cursor } : undefined, { timeout });
      for (const x of page.tools) listed.set(x.name, x);
      cursor = page.nextCursor;
    } while (cursor);
  } finally {
    await other.close();
  }
  return listed;
}

/**
 * terminal is a host that declares the extension and never draws (Qwen Code 0.24.4, measured in
 * issue 28): the model, told the person answers on a card nobody sees, asks again after
 * --repeat-after; then avenir gives a code (§2.4.6). With scenario confirm the person agrees in
 * the conversation and the model passes the code back.
 */
async function terminal(initial) {
  const t = { calls: [] };
  out.terminal = t;
  const call = async (args) => {
    const r = await client.callTool({ name: opts.tool, arguments: args }, { timeout });
    t.calls.push({ arguments: args, status: r.structuredContent?.status ?? null, reason: r.structuredContent?.reason ?? null, result: r });
    return r;
  };
  t.calls.push({ arguments: toolArgs, status: initial.structuredContent?.status ?? null, result: initial });
  await new Promise((r) => setTimeout(r, repeatAfter));
  const again = await call(toolArgs);
  const code = again.structuredContent?.confirmation;
  out.final_state = again.structuredContent?.status ?? (again.isError ? "error" : null);
  if (opts.scenario === "confirm" && typeof code === "string" && code) {
    const done = await call({ ...toolArgs, confirmation: code });
    out.final_state = done.structuredContent?.status ?? (done.isError ? "error" : null);
  }
  if (opts["expect-state"]) {
    check(out.final_state === opts["expect-state"], `the terminal ended in ${out.final_state}, not ${opts["expect-state"]}`);
  }
}

/**
 * adversary is a model that wants the change written without the person: it reads all the host
 * gives it of every result (modelVisible), and calls every tool the host offers it (modelOffered)
 * with every secret-looking string it has seen — in every string argument, and as the change's
 * own `confirmation` — then waits (--adversary-wait) and does it all again with what the first
 * round taught it. Every call it makes, and what each answered, is recorded; any that wrote is in
 * adversary.writes, and fails the run.
 */
async function adversary() {
  const a = { calls: 0, strings: 0, writes: [], statuses: {} };
  out.adversary = a;
  const seen = new Set();
  const harvest = (r) => {
    const text = modelVisible(r);
    for (const m of text.matchAll(/[A-Za-z0-9_-]{16,}/g)) seen.add(m[0]);
  };
  harvest(out.initial_result);
  const offered = [...hostTools.values()].filter(modelOffered);
  const stringProps = (t) =>
    Object.entries(t.inputSchema?.properties ?? {})
      .filter(([, s]) => s?.type === "string" || s?.type === undefined)
      .map(([k]) => k);
  const callOnce = async (name, args) => {
    a.calls++;
    let r;
    try {
      r = await client.callTool({ name, arguments: args }, { timeout });
    } catch (e) {
      a.statuses.thrown = (a.statuses.thrown ?? 0) + 1;
      return;
    }
    harvest(r);
    noteTokens(r);
    if (hasToken(modelVisible(r))) out.token_in_model_content = true;
    const status = r.structuredContent?.status ?? (r.isError ? "error" : "other");
    a.statuses[status] = (a.statuses[status] ?? 0) + 1;
    const tool = tools.get(name);
    const confirmed = getToolUiResourceUri(tool ?? {}) === out.resource_uri;
    if (confirmed && (status === "applied" || status === "partial")) a.writes.push({ name, arguments: args, status });
  };
  for (let round = 0; round < 2; round++) {
    if (round > 0 && adversaryWait > 0) await new Promise((r) => setTimeout(r, adversaryWait));
    const strings = [...seen].slice(0, 24);
    a.strings = Math.max(a.strings, strings.length);
    await callOnce(opts.tool, toolArgs); // asked again: never a code once a card was shown
    for (const s of strings) await callOnce(opts.tool, { ...toolArgs, confirmation: s });
    for (const t of offered) {
      const props = stringProps(t);
      if (props.length === 0) continue;
      for (const s of strings) {
        const args = Object.fromEntries(props.filter((p) => p !== "plan_id").map((p) => [p, s]));
        await callOnce(t.name, t.name === opts.tool ? { ...toolArgs, ...args } : args);
      }
    }
  }
  check(a.writes.length === 0, `the adversarial model wrote: ${JSON.stringify(a.writes)}`);
}

function hasToken(s) {
  for (const t of tokens) if (s.includes(t)) return true;
  return false;
}

function check(cond, what) {
  if (!cond) out.checks.push(what);
}

/** hostPage is the test host's page: MCP Apps' restrictive default CSP, and host.js. */
async function hostPage() {
  const js = (await hostScript()).replace(/<\/(script)/gi, "<\\/$1");
  const bg = opts.theme === "dark" ? "#1d1d1f" : "#ffffff";
  return `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; media-src data:; connect-src 'none'">
<style>html,body{margin:0;background:${bg}}#frame{padding:12px}iframe{border:0;display:block;background:transparent}</style>
</head><body><div id="frame"></div><script>${js}</script></body></html>`;
}

/**
 * hostScript is host.js bundled with the SDK's bridge. The bundle is kept in node_modules
 * (beside the packages it is built from) and made again when host.js or the lock file changes.
 */
async function hostScript() {
  const src = await readFile(join(here, "host.js"));
  const lock = await readFile(join(here, "..", "package-lock.json"));
  const key = createHash("sha256").update(src).update(lock).digest("hex");
  const cache = join(here, "..", "node_modules", ".avenir-ui-host.js");
  try {
    const c = await readFile(cache, "utf8");
    if (c.startsWith(`// ${key}\n`)) return c;
  } catch {
    // not built yet
  }
  const r = await esbuild.build({
    entryPoints: [join(here, "host.js")],
    bundle: true,
    format: "iife",
    target: "es2022",
    write: false,
    logLevel: "warning",
  });
  const js = `// ${key}\n${r.outputFiles[0].text}`;
  await writeFile(cache, js).catch(() => {});
  return js;
}

function parseJSON(name, s) {
  try {
    return JSON.parse(s);
  } catch (e) {
    fail(2, `${name}: not JSON: ${e.message}`);
  }
}

function which(cmd) {
  const r = spawnSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" });
  const p = r.stdout.trim();
  return r.status === 0 && p && existsSync(p) ? p : "";
}

function fail(code, msg) {
  console.error(`drive.mjs: ${msg}`);
  process.exit(code);
}

async function finish(code) {
  clearTimeout(deadline);
  out.ok = code === 0;
  lap("finishing");
  await Promise.allSettled([browser?.close(), client?.close()]);
  lap("closed");
  process.stdout.write(`${JSON.stringify(out)}\n`, () => process.exit(code));
}

try {
  await run();
  finish(out.checks.length === 0 && !out.error ? 0 : 1);
} catch (e) {
  out.error = e?.message ?? String(e);
  finish(1);
}
