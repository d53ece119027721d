#!/usr/bin/env bash
# release-dry-run.sh: the release build without publishing anything — what CI checks.
#
# With goreleaser on PATH: `goreleaser check` validates packaging/.goreleaser.yaml. Either way,
# the six release targets (linux, darwin, windows × amd64, arm64) are cross-compiled with the
# release's flags, their checksums written, and the binary for this machine asked for its
# version, so a broken target or a version stamp that does not reach the binary fails here
# rather than on release day. The target list is read from the GoReleaser file, so the two
# cannot drift apart.
#
# Then what a release ships beside the archives: the Claude Desktop bundle, made from these
# very darwin and windows binaries (packaging/mcpb/build.sh: needs node, the mcpb CLI and a
# lipo) and started as Claude Desktop on macOS starts it (packaging/mcpb/test.sh), and server.json for the MCP Registry filled from it and checked against the registry's
# schema (packaging/registry: its checker's own tests run first).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PATH="$PATH:/usr/local/go/bin"
config=packaging/.goreleaser.yaml

if command -v goreleaser >/dev/null; then
  goreleaser check --config "$config"
else
  echo "release-dry-run: goreleaser is not installed; cross-building the release targets with go build" >&2
fi

# goos: [linux, darwin, windows] / goarch: [amd64, arm64] from the GoReleaser file.
list() { sed -n "s/^ *$1: *\[\(.*\)\] *$/\1/p" "$config" | tr -d ' ' | tr ',' ' '; }
goos=$(list goos)
goarch=$(list goarch)
[ -n "$goos" ] && [ -n "$goarch" ] || { echo "release-dry-run: no goos/goarch list in $config" >&2; exit 1; }

version=v0.0.0-dryrun
out=$(mktemp -d "${TMPDIR:-/tmp}/avenir-release.XXXXXX")
trap 'rm -rf "$out"' EXIT
n=0
for os in $goos; do
  for arch in $goarch; do
    exe=avenir
    [ "$os" = windows ] && exe=avenir.exe
    CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "-s -w -X main.version=$version" \
      -o "$out/${os}_${arch}/$exe" ./cmd/avenir
    n=$((n + 1))
  done
done
(cd "$out" && find . -type f ! -name checksums.txt | sort | xargs sha256sum > checksums.txt)
[ "$n" -eq 6 ] || { echo "release-dry-run: built $n targets, want 6" >&2; exit 1; }

host="$out/$(go env GOOS)_$(go env GOARCH)/avenir"
# The first line of the whole output: `| head -1` would close the pipe early, and under pipefail
# the binary's SIGPIPE on its next line would fail the run now and then.
got=$("$host" version)
got=${got%%$'\n'*}
[ "$got" = "avenir $version" ] || { echo "release-dry-run: the release binary says '$got', want 'avenir $version'" >&2; exit 1; }
echo "release-dry-run: $n targets built, checksummed, version stamped ($got)"
cat "$out/checksums.txt"

# Signing, as the release does it when its secrets are set: none are here, so the binaries
# above are unsigned; but the Windows hook is run on a copy of the exe with a throwaway
# self-signed certificate, and the signature verified, so a broken hook fails here.
./packaging/sign-windows.sh "$out/windows_amd64/avenir.exe" windows # no secret: a no-op
if command -v osslsigncode >/dev/null && command -v openssl >/dev/null; then
  sign="$out/sign"
  mkdir -p "$sign"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$sign/key.pem" -out "$sign/cert.pem" -days 1 \
    -subj "/CN=avenir dry-run signing" -addext extendedKeyUsage=codeSigning 2>/dev/null
  openssl pkcs12 -export -inkey "$sign/key.pem" -in "$sign/cert.pem" -out "$sign/cert.pfx" -passout pass:dry-run
  cp "$out/windows_amd64/avenir.exe" "$sign/avenir.exe"
  WINDOWS_SIGN_PFX=$(base64 -w0 "$sign/cert.pfx") WINDOWS_SIGN_PASSWORD=dry-run WINDOWS_SIGN_TIMESTAMP_URL=none \
    ./packaging/sign-windows.sh "$sign/avenir.exe" windows
  osslsigncode verify -CAfile "$sign/cert.pem" -in "$sign/avenir.exe" >/dev/null ||
    { echo "release-dry-run: the Windows signing hook's signature does not verify" >&2; exit 1; }
  rm -rf "$sign"
  echo "release-dry-run: the Windows signing hook signs (checked with a throwaway certificate)"
else
  echo "release-dry-run: osslsigncode or openssl missing: the Windows signing hook was not tried" >&2
fi

(cd packaging/registry/check && go vet ./... && go test -count=1 ./...)
bundle=$(AVENIR_DARWIN_SLICES="$out/darwin_amd64/avenir $out/darwin_arm64/avenir" \
  AVENIR_WINDOWS_BINARY="$out/windows_amd64/avenir.exe" packaging/mcpb/build.sh "${version#v}" | tail -n 1)
packaging/mcpb/test.sh "$bundle"
packaging/registry/fill.sh "${version#v}" "$bundle" "$out/server.json"
sum=$(sha256sum "$bundle" | cut -d' ' -f1)
grep -q "\"fileSha256\": \"$sum\"" "$out/server.json" || { echo "release-dry-run: server.json does not carry the bundle's hash $sum" >&2; exit 1; }
echo "release-dry-run: $(basename "$bundle") (sha256 $sum) and server.json for the MCP Registry:"
cat "$out/server.json"
