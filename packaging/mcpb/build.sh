#!/usr/bin/env bash
# build.sh VERSION: the Claude Desktop extension (MCPB), one bundle for every Mac and PC, in
# dist/mcpb/avenir-VERSION.mcpb. Its path is the last line printed.
#
# The bundle holds
#   server/avenir      one universal macOS binary: darwin/amd64 and darwin/arm64 in one fat
#                      Mach-O, so that Intel and Apple silicon Macs each run their own slice (a
#                      bundle per CPU invites the wrong pick: arm64 on Intel fails with "Bad CPU
#                      type", amd64 on Apple silicon needs Rosetta, which recent macOS does not
#                      install by itself — grafana/mcp-grafana#1070; the manifest cannot choose
#                      by CPU, modelcontextprotocol/mcpb#10);
#   server/avenir.exe  windows/amd64, which Windows on Arm runs too;
#   manifest.json      the version filled in; icon.png, README.md, PRIVACY.md.
#
# The binaries are cross-compiled with the release's flags (packaging/.goreleaser.yaml), or
# taken as built: AVENIR_DARWIN_BINARY (a universal binary, e.g. GoReleaser's signed and
# notarized one) or AVENIR_DARWIN_SLICES ("AMD64_FILE ARM64_FILE", joined here), and
# AVENIR_WINDOWS_BINARY (e.g. GoReleaser's signed exe). Either way each is
# checked: the Mach-O must hold both slices, the exe must be PE for x86-64. The staged manifest
# goes through `mcpb validate` before `mcpb pack`.
#
# Needs go, node, the mcpb CLI (npm install -g @anthropic-ai/mcpb, or MCPB=/path/to/mcpb) and a
# lipo to join the macOS slices: Xcode's lipo, or llvm-lipo (Debian: apt install llvm; or
# LIPO=/path/to/lipo). Run from anywhere in the repository.
#
#   packaging/mcpb/build.sh 1.2.0
set -euo pipefail

if [ $# -ne 1 ] || [[ ! "$1" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
  echo "usage: $0 VERSION   (VERSION like 1.2.0, without the v)" >&2
  exit 2
fi
version=$1

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here="$root/packaging/mcpb"
mcpb=${MCPB:-mcpb}
command -v "$mcpb" >/dev/null || { echo "build.sh: no mcpb CLI: npm install -g @anthropic-ai/mcpb, or set MCPB" >&2; exit 2; }
command -v node >/dev/null || { echo "build.sh: needs node" >&2; exit 2; }
export PATH="$PATH:/usr/local/go/bin"

# find_lipo: $LIPO, else lipo, llvm-lipo, the newest llvm-lipo-N on PATH, or LLVM's own folder.
find_lipo() {
  local c
  for c in "${LIPO:-}" lipo llvm-lipo; do
    [ -n "$c" ] && command -v "$c" >/dev/null && { command -v "$c"; return; }
  done
  for c in $(compgen -c llvm-lipo- | sort -t- -k3 -n -r) /usr/lib/llvm-*/bin/llvm-lipo; do
    command -v "$c" >/dev/null && { command -v "$c"; return; }
  done
  return 1
}

out="$root/dist/mcpb"
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/avenir-mcpb.XXXXXX")
trap 'rm -rf "$work"' EXIT
stage="$work/avenir"
mkdir -p "$stage/server"

gobuild() { # GOOS GOARCH OUTPUT
  echo "build.sh: $1/$2: go build" >&2
  (cd "$root" && CGO_ENABLED=0 GOOS=$1 GOARCH=$2 go build -trimpath \
    -ldflags "-s -w -X main.version=v$version" -o "$3" ./cmd/avenir)
}

lipo=$(find_lipo) || { echo "build.sh: no lipo to check (or join) the macOS slices: apt install llvm, install Xcode's command line tools, or set LIPO" >&2; exit 2; }
if [ -n "${AVENIR_DARWIN_BINARY:-}" ]; then
  cp "$AVENIR_DARWIN_BINARY" "$stage/server/avenir"
elif [ -n "${AVENIR_DARWIN_SLICES:-}" ]; then
  read -r amd64 arm64 <<<"$AVENIR_DARWIN_SLICES"
  "$lipo" -create "$amd64" "$arm64" -output "$stage/server/avenir"
else
  gobuild darwin amd64 "$work/avenir-darwin-amd64"
  gobuild darwin arm64 "$work/avenir-darwin-arm64"
  "$lipo" -create "$work/avenir-darwin-amd64" "$work/avenir-darwin-arm64" -output "$stage/server/avenir"
fi
archs=" $("$lipo" -archs "$stage/server/avenir" 2>/dev/null || true) "
if [[ "$archs" != *" x86_64 "* || "$archs" != *" arm64 "* ]]; then
  echo "build.sh: server/avenir is not a universal binary with x86_64 and arm64 (its slices: '${archs// /}')" >&2
  exit 1
fi

if [ -n "${AVENIR_WINDOWS_BINARY:-}" ]; then
  cp "$AVENIR_WINDOWS_BINARY" "$stage/server/avenir.exe"
else
  gobuild windows amd64 "$stage/server/avenir.exe"
fi
# A PE file: "MZ", the PE header's offset at 0x3c, "PE\0\0" there, then the machine, 0x8664.
exe="$stage/server/avenir.exe"
pe=$(od -An -tu4 -j60 -N4 "$exe" | tr -d ' ')
if [ "$(head -c2 "$exe")" != MZ ] || [ "$(od -An -tx1 -j"$pe" -N6 "$exe" | tr -d ' \n')" != 504500006486 ]; then
  echo "build.sh: server/avenir.exe is not a PE executable for x86-64" >&2
  exit 1
fi
chmod 0755 "$stage/server/avenir" "$exe"

node - "$here/manifest.json" "$stage/manifest.json" "$version" <<'JS'
const fs = require('fs');
const [src, dst, version] = process.argv.slice(2);
const m = JSON.parse(fs.readFileSync(src, 'utf8'));
m.version = version;
fs.writeFileSync(dst, JSON.stringify(m, null, 2) + '\n');
JS
cp "$here/icon.png" "$stage/icon.png"
cp "$root/README.md" "$root/PRIVACY.md" "$stage/"
"$mcpb" validate "$stage/manifest.json" >&2
bundle="$out/avenir-$version.mcpb"
rm -f "$bundle"
"$mcpb" pack "$stage" "$bundle" >&2
echo "$bundle"
