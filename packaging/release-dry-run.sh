#!/usr/bin/env bash
# release-dry-run.sh: the release build without publishing anything — what CI checks.
#
# With goreleaser on PATH: `goreleaser check` validates packaging/.goreleaser.yaml. Either way,
# the six release targets (linux, darwin, windows × amd64, arm64) are cross-compiled with the
# release's flags, their checksums written, and the binary for this machine asked for its
# version, so a broken target or a version stamp that does not reach the binary fails here
# rather than on release day. The target list is read from the GoReleaser file, so the two
# cannot drift apart.
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
