#!/usr/bin/env bash
# test.sh BUNDLE: the Claude Desktop extension as Claude Desktop meets it, on Linux.
#
# 1. What is in it: server/avenir a universal Mach-O with x86_64 and arm64 slices, and
#    server/avenir.exe a PE executable for x86-64.
# 2. How Claude Desktop on macOS installs it: every file extracted as 0600, whatever modes the
#    zip holds (modelcontextprotocol/mcpb#294), into its extensions folder, here one whose path
#    has spaces ("…/Application Support/Claude/Claude Extensions/…").
# 3. How it starts there: the Mach-O cannot run on Linux, so a Linux avenir takes its place, as
#    0600 too; then the manifest's own command and arguments (the ones for macOS), with
#    ${__dirname} filled in and every optional setting left unfilled as its placeholder
#    (modelcontextprotocol/mcpb#250), are started without a shell, as Claude Desktop spawns a
#    server. It must answer MCP's initialize and tools/list. The binary started as the
#    manifest's entry point on its own must fail (EACCES): that is what the command is for.
#
# No request leaves the machine: the token is a made-up one and YNAB's URL a closed loopback
# port (initialize and tools/list ask YNAB nothing). Needs node, go, and unzip or python3.
#
#   packaging/mcpb/test.sh dist/mcpb/avenir-1.2.0.mcpb
set -euo pipefail

[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: $0 BUNDLE.mcpb" >&2; exit 2; }
bundle=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export PATH="$PATH:/usr/local/go/bin"
fail() { echo "test.sh: $*" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/avenir-mcpb-test.XXXXXX")
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
ext="$work/Library/Application Support/Claude/Claude Extensions/local.mcpb.avenir contributors.avenir"
mkdir -p "$ext"

# 2. Extract, then every file 0600 (and folders 0700, which Claude Desktop's must be to be entered).
if command -v unzip >/dev/null; then
  unzip -q "$bundle" -d "$ext"
else
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$bundle" "$ext"
fi
find "$ext" -type d -exec chmod 0700 {} +
find "$ext" -type f -exec chmod 0600 {} +

# 1. The binaries as shipped. A fat Mach-O starts with 0xcafebabe and its count of slices, then
# per slice its CPU type: 0x01000007 x86_64, 0x0100000c arm64 (all big-endian).
mac="$ext/server/avenir"
[ -f "$mac" ] && [ -f "$ext/server/avenir.exe" ] || fail "the bundle lacks server/avenir or server/avenir.exe"
be32() { od -An -tx1 -j"$2" -N4 "$1" | tr -d ' \n'; }
[ "$(be32 "$mac" 0)" = cafebabe ] || fail "server/avenir is not a universal (fat) Mach-O"
n=$((16#$(be32 "$mac" 4)))
cpus=""
for ((i = 0; i < n; i++)); do cpus+=" $(be32 "$mac" $((8 + 20 * i)))"; done
[[ "$cpus" == *01000007* && "$cpus" == *0100000c* ]] || fail "server/avenir's slices are${cpus:- none}, want x86_64 (01000007) and arm64 (0100000c)"
exe="$ext/server/avenir.exe"
pe=$(od -An -tu4 -j60 -N4 "$exe" | tr -d ' ')
[ "$(head -c2 "$exe")" = MZ ] && [ "$(od -An -tx1 -j"$pe" -N6 "$exe" | tr -d ' \n')" = 504500006486 ] ||
  fail "server/avenir.exe is not a PE executable for x86-64"
echo "test.sh: server/avenir is universal (x86_64, arm64), server/avenir.exe is PE x86-64" >&2

# 3. A Linux avenir in the Mach-O's place, as unexecutable as Claude Desktop leaves it.
(cd "$root" && CGO_ENABLED=0 go build -trimpath -o "$work/avenir-linux" ./cmd/avenir)
cp "$work/avenir-linux" "$mac"
chmod 0600 "$mac"

home="$work/home"
mkdir -p "$home"
node - "$ext" "$home" <<'JS'
const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');
const [ext, home] = process.argv.slice(2);
const manifest = JSON.parse(fs.readFileSync(path.join(ext, 'manifest.json'), 'utf8'));
const cfg = manifest.server.mcp_config; // macOS's: no darwin entry in platform_overrides
if (cfg.platform_overrides && cfg.platform_overrides.darwin) throw new Error('the test reads the base mcp_config, but the manifest overrides it for darwin');
// ${__dirname} filled in as Claude Desktop does; the token given; every other setting left as
// its placeholder, as a host may pass an optional setting left empty.
const fill = (s) => s.split('${__dirname}').join(ext).split('${user_config.ynab_token}').join('made-up-token-for-the-bundle-test');
const command = fill(cfg.command);
const args = (cfg.args || []).map(fill);
const env = { PATH: process.env.PATH, HOME: home, XDG_STATE_HOME: path.join(home, 'state'),
  XDG_CONFIG_HOME: path.join(home, 'config'), AVENIR_MCP_YNAB_URL: 'http://127.0.0.1:9/v1' };
for (const [k, v] of Object.entries(cfg.env || {})) env[k] = fill(v);
const fail = (msg) => { console.error('test.sh: ' + msg); process.exit(1); };

async function main() {
  // The entry point started directly, as a manifest that runs it would: Claude Desktop's modes
  // make that fail, which is why the command makes it executable first.
  const entry = path.join(ext, manifest.server.entry_point);
  const direct = await new Promise((resolve) => {
    const p = spawn(entry, ['serve'], { env });
    p.on('error', (e) => resolve(e.code));
    p.on('spawn', () => { p.kill(); resolve('started'); });
  });
  if (direct !== 'EACCES') fail(`${manifest.server.entry_point} at 0600 started directly: ${direct}, want EACCES`);

  console.error(`test.sh: starting ${JSON.stringify([command, ...args])}`);
  const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  child.on('error', (e) => fail(`the manifest's command did not start: ${e.message}`));
  const pending = new Map();
  let buf = '';
  child.stdout.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i); buf = buf.slice(i + 1);
      if (!line.trim()) continue;
      let msg;
      try { msg = JSON.parse(line); } catch { fail(`stdout carried a line that is not JSON: ${line}`); }
      if (msg.id !== undefined && pending.has(msg.id)) { pending.get(msg.id)(msg); pending.delete(msg.id); }
    }
  });
  child.on('exit', (code, sig) => {
    if (pending.size) fail(`avenir exited (${code ?? sig}) before answering:\n${stderr}`);
  });
  let next = 1;
  const call = (method, params) => new Promise((resolve) => {
    const id = next++;
    pending.set(id, resolve);
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
  const timer = setTimeout(() => fail(`no answer within 60 s:\n${stderr}`), 60000);

  const init = await call('initialize', { protocolVersion: '2025-06-18', capabilities: {},
    clientInfo: { name: 'claude-ai', version: 'bundle-test' } });
  if (init.error || !init.result || !init.result.serverInfo) fail(`initialize: ${JSON.stringify(init)}`);
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  const list = await call('tools/list', {});
  const tools = (list.result && list.result.tools) || [];
  const names = tools.map((t) => t.name);
  for (const want of ['list_plans', 'list_operations']) {
    if (!names.includes(want)) fail(`tools/list has no ${want}: ${JSON.stringify(list).slice(0, 500)}`);
  }
  clearTimeout(timer);
  const mode = fs.statSync(entry).mode & 0o777;
  if (!(mode & 0o100)) fail(`the command ran, yet ${manifest.server.entry_point} is still ${mode.toString(8)}`);
  console.error(`test.sh: ${init.result.serverInfo.name} ${init.result.serverInfo.version} answered initialize and tools/list (${tools.length} tools), started by the manifest's command from a 0600 file in a path with spaces`);
  child.stdin.end();
  const code = await new Promise((resolve) => child.on('exit', (c) => resolve(c)));
  if (code !== 0) fail(`avenir exited ${code} when its stdin closed:\n${stderr}`);
  if (/\$\{user_config/.test(stderr)) fail(`a placeholder reached avenir's log:\n${stderr}`);
}
main().catch((e) => fail(e.stack));
JS
echo "test.sh: ok" >&2
