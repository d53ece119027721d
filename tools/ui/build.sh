#!/usr/bin/env bash
# build.sh: builds avenir's MCP Apps views into dist/ (confirm.html, spending.html,
# journal.html), the files tools/ui/ui.go embeds. Run it after changing src/ or the lock file,
# and commit dist/ with the change: `go build` needs no Node, and CI runs this script and fails
# when dist/ differs from what is committed.
#
# It installs the pinned packages of package-lock.json into node_modules (npm ci, again only
# when the lock file changed), type-checks src/ and bundles each view with esbuild. Needs node
# 20 or later and npm; the output is the same bytes on every run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

command -v node >/dev/null || { echo "build.sh: needs node (20 or later) and npm" >&2; exit 2; }
stamp=node_modules/.installed-from-package-lock.json
if ! cmp -s package-lock.json "$stamp"; then
  npm ci --no-audit --no-fund --loglevel=error >&2
  cp package-lock.json "$stamp"
fi
# node_modules is no part of the Go module: a package there that ships .go files must not be
# built by go vet ./... or go test ./...
[ -f node_modules/go.mod ] || printf 'module ignored/node_modules\n' > node_modules/go.mod
node node_modules/typescript/bin/tsc -p tsconfig.json
node build.mjs
