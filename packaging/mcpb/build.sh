#!/usr/bin/env bash
# build.sh VERSION [GOOS/GOARCH ...]: the Claude Desktop extension bundles (MCPB), one per
# platform, in dist/mcpb/avenir-VERSION-GOOS-GOARCH.mcpb.
#
# Each bundle holds the avenir binary for its platform (cross-compiled with the same flags as
# the release, packaging/.goreleaser.yaml) and manifest.json with the version filled in and
# compatibility.platforms narrowed to that OS. Every staged manifest goes through `mcpb
# validate` before `mcpb pack`. Default platforms: Claude Desktop's, macOS and Windows on
# arm64 and amd64. Run from anywhere in the repository; needs go, node and the mcpb CLI
# (npm install -g @anthropic-ai/mcpb, or MCPB=/path/to/mcpb).
#
#   packaging/mcpb/build.sh 1.2.0
#   packaging/mcpb/build.sh 1.2.0 darwin/arm64
set -euo pipefail

if [ $# -lt 1 ] || [[ ! "$1" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
  echo "usage: $0 VERSION [GOOS/GOARCH ...]   (VERSION like 1.2.0, without the v)" >&2
  exit 2
fi
version=$1
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(darwin/arm64 darwin/amd64 windows/amd64 windows/arm64)

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mcpb=${MCPB:-mcpb}
command -v "$mcpb" >/dev/null || { echo "build.sh: no mcpb CLI: npm install -g @anthropic-ai/mcpb, or set MCPB" >&2; exit 2; }
command -v node >/dev/null || { echo "build.sh: needs node" >&2; exit 2; }
export PATH="$PATH:/usr/local/go/bin"

out="$root/dist/mcpb"
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/avenir-mcpb.XXXXXX")
trap 'rm -rf "$work"' EXIT

for target in "${targets[@]}"; do
  goos=${target%/*}
  goarch=${target#*/}
  case "$goos" in
    darwin) platform=darwin exe=avenir ;;
    windows) platform=win32 exe=avenir.exe ;;
    linux) platform=linux exe=avenir ;;
    *) echo "build.sh: $target: Claude Desktop runs on darwin, windows (and linux builds)" >&2; exit 2 ;;
  esac
  stage="$work/$goos-$goarch"
  mkdir -p "$stage/server"
  echo "build.sh: $target: go build" >&2
  (cd "$root" && CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath \
    -ldflags "-s -w -X main.version=v$version" -o "$stage/server/$exe" ./cmd/avenir)
  node - "$root/packaging/mcpb/manifest.json" "$stage/manifest.json" "$version" "$platform" "$exe" <<'JS'
const fs = require('fs');
const [src, dst, version, platform, exe] = process.argv.slice(2);
const m = JSON.parse(fs.readFileSync(src, 'utf8'));
m.version = version;
m.compatibility = { ...m.compatibility, platforms: [platform] };
m.server.entry_point = `server/${exe}`;
m.server.mcp_config.command = `\${__dirname}/server/${exe}`;
delete m.server.mcp_config.platform_overrides; // one platform per bundle
fs.writeFileSync(dst, JSON.stringify(m, null, 2) + '\n');
JS
  cp "$root/README.md" "$stage/README.md"
  "$mcpb" validate "$stage/manifest.json"
  bundle="$out/avenir-$version-$goos-$goarch.mcpb"
  rm -f "$bundle"
  "$mcpb" pack "$stage" "$bundle" >&2
  echo "$bundle"
done
