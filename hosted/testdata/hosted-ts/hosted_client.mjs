// hosted_client.mjs MCP_URL LOGIN STATE_FILE AMOUNT: sign in to avenir hosted with the TypeScript
// MCP SDK 1.x's own OAuth client, as an app built on it does, and use avenir as LOGIN.
//
// The SDK does the OAuth: its StreamableHTTPClientTransport meets avenir's 401, discovers the
// protected resource and authorization server metadata, registers a client dynamically
// (RFC 7591), builds the authorization URL with PKCE S256 and the resource, and calls the
// authProvider's redirectToAuthorization. This script is the app around it: an
// OAuthClientProvider kept in memory and saved to STATE_FILE at the end (the client's
// registration and its tokens, what an app keeps between runs), and a person at a browser in
// redirectToAuthorization — a fetch with cookies kept by hand (Node's fetch keeps none) that
// opens the URL, clicks the first button of each form it is shown (avenir's consent page, then
// the sandbox's YNAB consent with LOGIN in its user field) and stops at the redirect to the
// app's loopback redirect URI, taking its code. Then transport.finishAuth(code) and a new
// connection, as the SDK's documentation describes. A run that finds STATE_FILE starts with its
// tokens: when avenir answers 401 (the access token expired or revoked) the SDK refreshes with
// the refresh token, and signs in again only when that fails.
//
// Then: list the tools, call list_plans, and set_category_budget of Restaurants this month to
// AMOUNT — first without a code, then again with the confirmation code avenir answered. It
// prints one JSON line of what it saw (the OAuth requests the SDK made, the authorization URL's
// PKCE parameters, the pages shown, the plans, the write's statuses and operation id) and exits
// 0; on any failure it prints the reason on stderr and exits 1. Run by hosted/ts_test.go from a
// directory where package.json's packages are installed (.ci/run does that).

import { readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const [mcpURL, login, stateFile, amount, mode = 'code'] = process.argv.slice(2);
// mode "card": the client declares MCP Apps (a host that draws avenir's card), so the write comes
// back pending with the card's token in _meta, and the script answers as the card does.
const capabilities =
  mode === 'card' ? { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } : {};
if (!mcpURL || !login || !stateFile || !amount) {
  console.error('usage: node hosted_client.mjs MCP_URL LOGIN STATE_FILE AMOUNT');
  process.exit(2);
}
setTimeout(() => {
  console.error('no result within 60 s');
  process.exit(1);
}, 60_000).unref();

// The app's redirect URI: a loopback address (RFC 8252 §7.3), where a desktop app would listen.
// Nothing listens here: the browser below stops at the redirect to it.
const redirectUrl = 'http://127.0.0.1:47913/callback';

let saved = {};
try {
  saved = JSON.parse(readFileSync(stateFile, 'utf8'));
} catch (e) {
  if (e.code !== 'ENOENT') throw e;
}

const seen = {
  login,
  registered: false, // saveClientInformation was called in this run
  authorization: null, // the authorization URL's parameters, when the SDK sent the person to sign in
  pages: [], // the <h1> of each page the person was shown
  oauth: [], // the SDK's requests to the authorization server: method, path, grant_type, status
  unauthorized: 0, // avenir's 401 answers at MCP_URL
};

/** An OAuthClientProvider held in memory, what saveX receives kept unchanged (the SDK stamps the issuer in). */
class Provider {
  constructor() {
    this.client = saved.client;
    this.saved = saved.tokens;
    this.verifier = undefined;
    this.stateValue = undefined;
    this.code = undefined;
  }
  get redirectUrl() {
    return redirectUrl;
  }
  get clientMetadata() {
    return {
      client_name: `avenir hosted-ts test (${login})`,
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    this.stateValue = randomBytes(16).toString('base64url');
    return this.stateValue;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info) {
    seen.registered = true;
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(v) {
    this.verifier = v;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier was saved');
    return this.verifier;
  }
  // Discovery's result, kept for this run only (so finishAuth does not discover again; a run
  // that starts from STATE_FILE discovers anew).
  saveDiscoveryState(d) {
    this.discovery = d;
  }
  discoveryState() {
    return this.discovery;
  }
  invalidateCredentials(scope) {
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
  async redirectToAuthorization(url) {
    const q = url.searchParams;
    seen.authorization = {
      client_id: q.get('client_id'),
      redirect_uri: q.get('redirect_uri'),
      response_type: q.get('response_type'),
      code_challenge: q.get('code_challenge'),
      code_challenge_method: q.get('code_challenge_method'),
      resource: q.get('resource'),
      code_verifier: this.verifier, // saved by the SDK before it redirects; spent once the code is exchanged
    };
    const back = await browse(url);
    if (back.searchParams.get('state') !== this.stateValue) {
      throw new Error(`the redirect back carries state ${back.searchParams.get('state')}, not the one sent`);
    }
    seen.authorization.iss = back.searchParams.get('iss');
    this.code = back.searchParams.get('code');
    if (!this.code) throw new Error(`the redirect back has no code: ${back}`);
  }
}

/**
 * The SDK's fetch, for every request it makes (MCP and OAuth): the authorization server's
 * endpoints and avenir's 401s are noted in seen.
 */
async function recordingFetch(input, init) {
  const res = await fetch(input, init);
  const u = new URL(input instanceof Request ? input.url : String(input));
  if (u.pathname.startsWith('/oauth/') || u.pathname.startsWith('/.well-known/')) {
    const entry = { method: init?.method ?? 'GET', path: u.pathname, status: res.status };
    const body = init?.body;
    if (body instanceof URLSearchParams || typeof body === 'string') {
      const grant = new URLSearchParams(body).get('grant_type');
      if (grant) entry.grant_type = grant;
    }
    seen.oauth.push(entry);
  } else if (u.href === new URL(mcpURL).href && res.status === 401) {
    seen.unauthorized++;
  }
  return res;
}

// The browser's cookies, by origin (a browser keys them by host; avenir and the sandbox are
// both on 127.0.0.1 here, and keeping them apart by origin is the stricter choice): name →
// { value, path }.
const jar = new Map();

function keepCookies(url, res) {
  const origin = url.origin;
  const cookies = jar.get(origin) ?? new Map();
  for (const line of res.headers.getSetCookie()) {
    const [pair, ...attrs] = line.split(';').map((s) => s.trim());
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    let path = '/';
    let gone = value === '';
    for (const a of attrs) {
      const [k, v = ''] = a.split('=');
      if (k.toLowerCase() === 'path' && v.startsWith('/')) path = v;
      if (k.toLowerCase() === 'max-age' && Number(v) <= 0) gone = true;
    }
    if (gone) cookies.delete(name);
    else cookies.set(name, { value, path });
  }
  jar.set(origin, cookies);
}

function cookieHeader(url) {
  const cookies = jar.get(url.origin);
  if (!cookies) return undefined;
  const parts = [];
  for (const [name, c] of cookies) if (url.pathname.startsWith(c.path)) parts.push(`${name}=${c.value}`);
  return parts.length ? parts.join('; ') : undefined;
}

/** One request as the browser makes it: cookies sent and kept, redirects not followed. */
async function visit(url, form) {
  const headers = {};
  const cookie = cookieHeader(url);
  if (cookie) headers.cookie = cookie;
  const init = { method: 'GET', headers, redirect: 'manual' };
  if (form) {
    init.method = 'POST';
    headers['content-type'] = 'application/x-www-form-urlencoded';
    // A browser posts a page's form with the page's origin (the form's action is on it here).
    headers.origin = url.origin;
    init.body = form.toString();
  }
  const res = await fetch(url, init);
  keepCookies(url, res);
  return res;
}

/** The text of an HTML attribute value or element, its character references decoded. */
function unescapeHTML(s) {
  const named = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, ref) => {
    if (ref[0] === '#') {
      const n = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return String.fromCodePoint(n);
    }
    return named[ref.toLowerCase()] ?? m;
  });
}

function attr(tag, name) {
  const m = tag.match(new RegExp(`\\s${name}="([^"]*)"`, 'i'));
  return m ? unescapeHTML(m[1]) : undefined;
}

/**
 * What a person does with a page: submit its form by its first button, with LOGIN typed in a
 * field named user. Returns the request to make, or throws when the page has no form.
 */
function submit(pageURL, html) {
  const h1 = html.match(/<h1>([\s\S]*?)<\/h1>/i);
  seen.pages.push(h1 ? unescapeHTML(h1[1].trim()) : '');
  const form = html.match(/<form\b([^>]*)>([\s\S]*?)<\/form>/i);
  if (!form) throw new Error(`${pageURL}: a page with no form to continue by:\n${html}`);
  if ((attr(form[1], 'method') ?? 'get').toLowerCase() !== 'post') throw new Error(`${pageURL}: the form is not a POST`);
  const action = new URL(attr(form[1], 'action') ?? pageURL.href, pageURL);
  const fields = new URLSearchParams();
  for (const [tag] of form[2].matchAll(/<input\b[^>]*>/gi)) {
    const name = attr(tag, 'name');
    if (!name) continue;
    const type = (attr(tag, 'type') ?? 'text').toLowerCase();
    if (type === 'hidden') fields.append(name, attr(tag, 'value') ?? '');
    else if (name === 'user') fields.append(name, login);
    else fields.append(name, attr(tag, 'value') ?? '');
  }
  const button = form[2].match(/<button\b[^>]*>/i);
  if (button && attr(button[0], 'name')) fields.append(attr(button[0], 'name'), attr(button[0], 'value') ?? '');
  return { url: action, form: fields };
}

/** The person at the browser, from the authorization URL to the redirect back to the app. */
async function browse(start) {
  let next = { url: start, form: undefined };
  for (let step = 0; step < 12; step++) {
    const res = await visit(next.url, next.form);
    if (res.status >= 300 && res.status < 400) {
      const loc = new URL(res.headers.get('location'), next.url);
      await res.body?.cancel();
      if (loc.href.startsWith(redirectUrl)) return loc;
      next = { url: loc, form: undefined };
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`${next.url.origin}${next.url.pathname} answered ${res.status}:\n${html}`);
    next = submit(next.url, html);
  }
  throw new Error('the sign-in did not come back to the app within 12 steps');
}

const provider = new Provider();
const info = { name: 'avenir-hosted-ts', version: '1.32.2' };
const opts = { timeout: 20_000 };
const newTransport = () =>
  new StreamableHTTPClientTransport(new URL(mcpURL), { authProvider: provider, fetch: recordingFetch });
const text = (r) => (r?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const data = (r) => r?.structuredContent ?? JSON.parse(text(r) || 'null');

try {
  let client = new Client(info, { capabilities });
  let transport = newTransport();
  try {
    await client.connect(transport, opts);
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) throw e;
    // The SDK sent the person to sign in (redirectToAuthorization ran to the end): trade the
    // code for tokens and connect again.
    if (!provider.code) throw new Error(`the SDK asked for a sign-in that did not happen: ${e.message}`);
    await transport.finishAuth(provider.code);
    client = new Client(info, { capabilities });
    transport = newTransport();
    await client.connect(transport, opts);
  }
  const tools = (await client.listTools(undefined, opts)).tools;
  const plans = await client.callTool({ name: 'list_plans', arguments: {} }, undefined, opts);
  if (plans.isError) throw new Error(`list_plans: ${text(plans)}`);
  // mode "move": move amount from Tennis to Restaurants (relative, so concurrent runs add up).
  const tool = mode === 'move' ? 'move_money' : 'set_category_budget';
  const args =
    mode === 'move'
      ? { from_category: 'Tennis', to_category: 'Restaurants', month: 'current', amount }
      : { category: 'Restaurants', month: 'current', amount };
  const first = await client.callTool({ name: tool, arguments: args }, undefined, opts);
  if (first.isError) throw new Error(`${tool}: ${text(first)}`);
  let done = first;
  const card = data(first)?.card;
  if (mode === 'card') {
    // The card exchange, version 2: the pending result names the card's handle (no secret); the
    // card, drawn, opens it (an app-only tool) for a one-time token, and answers with that.
    if (data(first)?.status !== 'confirmation_pending' || !card?.handle) throw new Error(`no card: ${text(first)}`);
    const opened = await client.callTool({ name: 'open_confirmation', arguments: { handle: card.handle } }, undefined, opts);
    const view = data(opened);
    if (opened.isError || view?.state !== 'pending' || !view?.token) throw new Error(`open_confirmation: ${text(opened)}`);
    if (text(first).includes(view.token)) throw new Error('the card token is in what the model reads');
    done = await client.callTool({ name: 'answer_confirmation', arguments: { token: view.token, answer: 'accept', version: 2 } }, undefined, opts);
    if (done.isError) throw new Error(`answer_confirmation: ${text(done)}`);
  } else if (data(first)?.confirmation) {
    done = await client.callTool({ name: tool, arguments: { ...args, confirmation: data(first).confirmation } }, undefined, opts);
    if (done.isError) throw new Error(`${tool} with the code: ${text(done)}`);
  }
  await client.close();
  writeFileSync(stateFile, JSON.stringify({ client: provider.client, tokens: provider.saved }), { mode: 0o600 });
  console.log(
    JSON.stringify({
      ...seen,
      client_id: provider.client?.client_id,
      protocol: transport.protocolVersion,
      tools: tools.map((t) => t.name),
      plans: (data(plans)?.plans ?? []).map((p) => ({ id: p.id, name: p.name })),
      write: { first: data(first)?.status, status: data(done)?.status, operation_id: data(done)?.operation_id },
    }),
  );
  process.exit(0);
} catch (e) {
  console.error(`${login}: ${e?.code !== undefined ? `[${e.code}] ` : ''}${e?.message ?? e}`);
  process.exit(1);
}
