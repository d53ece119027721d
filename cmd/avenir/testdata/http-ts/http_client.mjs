// http_client.mjs KIND ENDPOINT: drive avenir over Streamable HTTP with a TypeScript MCP SDK
// client, as an app built on it would. The bearer secret comes in AVENIR_HTTP_SECRET (never in
// argv). KIND is one of:
//
//   v1-2025-06-18         @modelcontextprotocol/sdk 1.32.2, protocol 2025-06-18, no elicitation
//   v1-2025-11-25-elicit  @modelcontextprotocol/sdk 1.32.2, protocol 2025-11-25, form elicitation
//   v2-2026-07-28-elicit  @modelcontextprotocol/client 2.4.0, protocol 2026-07-28, form elicitation
//   v2-2026-07-28         @modelcontextprotocol/client 2.4.0, protocol 2026-07-28, no elicitation
//
// It connects, lists the tools, calls list_accounts, and makes one set_category_budget write,
// confirmed as the client can (answering yes to the server's question, or preview then code).
// It prints one JSON line — {"protocol", "tools", "status", "asked"} — and exits 0; on any
// failure it prints the reason on stderr and exits 1. Run by http_test.go from a directory
// where package.json's packages are installed (.ci/run does that).

import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HTTP } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2HTTP } from '@modelcontextprotocol/client';

const [kind, endpoint] = process.argv.slice(2);
const secret = process.env.AVENIR_HTTP_SECRET;
const kinds = {
  'v1-2025-06-18': { sdk: 'v1', protocol: '2025-06-18', elicit: false },
  'v1-2025-11-25-elicit': { sdk: 'v1', protocol: '2025-11-25', elicit: true },
  'v2-2026-07-28-elicit': { sdk: 'v2', protocol: '2026-07-28', elicit: true },
  'v2-2026-07-28': { sdk: 'v2', protocol: '2026-07-28', elicit: false },
};
const k = kinds[kind];
if (!k || !endpoint || !secret) {
  console.error(`usage: AVENIR_HTTP_SECRET=… node http_client.mjs ${Object.keys(kinds).join('|')} ENDPOINT`);
  process.exit(2);
}
setTimeout(() => {
  console.error('no result within 60 s');
  process.exit(1);
}, 60_000).unref();

/** SDK 1.x offers its newest protocol; this rewrites the initialize to ask for an older one. */
class PinProtocol {
  constructor(inner, version) {
    this.inner = inner;
    this.version = version;
    inner.onmessage = (m, x) => this.onmessage?.(m, x);
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => this.onerror?.(e);
  }
  start = () => this.inner.start();
  close = () => this.inner.close();
  setProtocolVersion = (v) => {
    this.negotiated = v;
    this.inner.setProtocolVersion?.(v);
  };
  get sessionId() {
    return this.inner.sessionId;
  }
  send(msg, opts) {
    if (msg?.method === 'initialize') msg = { ...msg, params: { ...msg.params, protocolVersion: this.version } };
    return this.inner.send(msg, opts);
  }
}

const info = { name: 'avenir-http-ts', version: k.sdk === 'v1' ? '1.32.2' : '2.4.0' };
const capabilities = k.elicit ? { elicitation: { form: {} } } : {};
const requestInit = { headers: { Authorization: `Bearer ${secret}` } };
let asked = 0;
const answer = async () => {
  asked++;
  return { action: 'accept', content: { value: true } };
};

let client, transport, negotiated;
if (k.sdk === 'v1') {
  client = new V1Client(info, { capabilities });
  if (k.elicit) client.setRequestHandler(ElicitRequestSchema, answer);
  transport = new PinProtocol(new V1HTTP(new URL(endpoint), { requestInit }), k.protocol);
  negotiated = () => transport.negotiated;
} else {
  client = new V2Client(info, { capabilities, versionNegotiation: { mode: { pin: k.protocol } } });
  if (k.elicit) client.setRequestHandler('elicitation/create', answer);
  transport = new V2HTTP(new URL(endpoint), { requestInit });
  negotiated = () => client.getNegotiatedProtocolVersion();
}

const opts = { timeout: 20_000 };
const call = (name, args) =>
  k.sdk === 'v1' ? client.callTool({ name, arguments: args }, undefined, opts) : client.callTool({ name, arguments: args }, opts);
const text = (r) => (r?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const data = (r) => r?.structuredContent ?? JSON.parse(text(r) || 'null');

try {
  await client.connect(transport, opts);
  const tools = (await client.listTools(undefined, opts)).tools;
  const accounts = await call('list_accounts', {});
  if (accounts.isError) throw new Error(`list_accounts: ${text(accounts)}`);
  const args = { category: 'Restaurants', month: 'current', amount: '150.00' };
  let r = await call('set_category_budget', args);
  if (r.isError) throw new Error(`set_category_budget: ${text(r)}`);
  if (data(r)?.status === 'confirmation_required') {
    r = await call('set_category_budget', { ...args, confirmation: data(r).confirmation });
    if (r.isError) throw new Error(`set_category_budget with the code: ${text(r)}`);
  }
  console.log(JSON.stringify({ protocol: negotiated(), tools: tools.length, status: data(r)?.status, asked }));
  await client.close();
  process.exit(0);
} catch (e) {
  console.error(`${kind}: ${e?.code !== undefined ? `[${e.code}] ` : ''}${e?.message ?? e}`);
  process.exit(1);
}
