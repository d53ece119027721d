#!/usr/bin/env bash
# fill.sh VERSION BUNDLE OUT: server.json for the MCP Registry for release VERSION, from the
# Claude Desktop bundle that release built (its SHA-256, and its download address on the
# release's GitHub page), written to OUT and checked against the registry's schema.
#
#   packaging/registry/fill.sh 1.2.0 dist/mcpb/avenir-1.2.0.mcpb dist/server.json
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 VERSION BUNDLE OUT" >&2; exit 2; }
abs() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bundle=$(abs "$2")
out=$(abs "$3")
export PATH="$PATH:/usr/local/go/bin"
cd "$here/check"
go run . -fill -version "$1" -bundle "$bundle" -o "$out" "$here/server.json"
