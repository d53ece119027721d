#!/usr/bin/env bash
# test.sh: avenir's whole test suite, the one command the README names and .ci/run runs.
#
#   ./test.sh                 everything: the Go tests with -race, then the container test
#   ./test.sh ./tools/...     only these packages' Go tests (the container test is left out)
#
# First it installs what the tests drive as real parts, where it may:
# - Debian's packages (as root, or with passwordless sudo; otherwise it says what is missing):
#   postgresql (a throwaway cluster for avenir hosted's tests, internal/pgtest), chromium (the
#   MCP Apps views, tools/ui/uitest), gnome-keyring and dbus (a real Secret Service for the
#   keychain's test), nodejs and npm (the views' harness and the npm clients below), podman,
#   runc, podman-compose, busybox-static, curl and iproute2 (packaging/container/test.sh);
# - the npm packages, pinned by their lock files: tools/ui's (the browser harness) into
#   tools/ui/node_modules, and into a cache directory (~/.cache/avenir-ci) the TypeScript SDK
#   clients that cmd/avenir's HTTP tests and hosted's tests drive (AVENIR_HTTP_TS_CLIENTS,
#   AVENIR_HOSTED_TS_CLIENT) and the YNAB JavaScript SDK of ynab/sandbox/fidelity (which
#   installs itself).
# Then `go test -race -count=1 -timeout 30m` through .ci/testreport, which prints each
# package's line and every failure as they come, then packaging/container/test.sh, and last a
# report naming every skipped test and part and why, and the closing line
# "tests: N passed, N failed, N skipped". With CI=true (as CI runs it) a test or part skipped
# for want of something installable fails the run; skips by design (opt-in measurements) are
# listed in .ci/testreport.
set -uo pipefail
cd "$(dirname "$0")"
export PATH="$PATH:/usr/local/go/bin"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
parts="$tmp/parts"
: >"$parts"
# part NAME ran|failed|skipped [WHY]: one line of the report's parts.
part() { printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >>"$parts"; }
say() { printf 'test.sh: %s\n' "$*"; }

sudo=""
can_root=false
if [ "$(id -u)" = 0 ]; then
  can_root=true
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  can_root=true sudo="sudo -n"
fi

# --- Debian's packages, each found by what it installs.
need=()
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need+=(postgresql)
command -v chromium >/dev/null || need+=(chromium)
command -v gnome-keyring-daemon >/dev/null || need+=(gnome-keyring)
command -v dbus-daemon >/dev/null || need+=(dbus-daemon)
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
command -v podman >/dev/null || need+=(podman)
command -v podman-compose >/dev/null || need+=(podman-compose)
[ -x /usr/sbin/runc ] || command -v runc >/dev/null || need+=(runc)
command -v busybox >/dev/null || need+=(busybox-static)
command -v curl >/dev/null || need+=(curl)
command -v ip >/dev/null || [ -x /usr/sbin/ip ] || [ -x /sbin/ip ] || need+=(iproute2)
if [ ${#need[@]} -gt 0 ]; then
  if $can_root; then
    say "installing Debian's ${need[*]}"
    if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"; } >"$tmp/apt.log" 2>&1; then
      tail -20 "$tmp/apt.log" >&2
      say "could not install ${need[*]}: the tests that need them will say so"
    fi
  else
    say "not root and no passwordless sudo: Debian's ${need[*]} stay missing, and the tests that need them will say so"
  fi
fi

# --- npm packages.
if command -v npm >/dev/null; then
  # shellcheck source=.ci/npm_install.sh
  . .ci/npm_install.sh
  # tools/ui's packages, where tools/ui/build.sh puts them (the browser harness needs them).
  stamp=tools/ui/node_modules/.installed-from-package-lock.json
  if ! cmp -s tools/ui/package-lock.json "$stamp"; then
    say "installing tools/ui's npm packages"
    if (cd tools/ui && npm ci --no-audit --no-fund --loglevel=error >&2); then
      cp tools/ui/package-lock.json "$stamp"
    fi
  fi
  # node_modules is no part of the Go module: a package there that ships .go files must not
  # be built by go test ./...
  [ ! -d tools/ui/node_modules ] || [ -f tools/ui/node_modules/go.mod ] ||
    printf 'module ignored/node_modules\n' >tools/ui/node_modules/go.mod
  # The TypeScript SDK clients cmd/avenir's tests drive over Streamable HTTP, and the 1.x client
  # whose own OAuth signs in to avenir hosted (hosted's tests).
  if [ -z "${AVENIR_HTTP_TS_CLIENTS:-}" ]; then
    AVENIR_HTTP_TS_CLIENTS=$(npm_install cmd/avenir/testdata/http-ts http-ts) && export AVENIR_HTTP_TS_CLIENTS
  fi
  if [ -z "${AVENIR_HOSTED_TS_CLIENT:-}" ]; then
    AVENIR_HOSTED_TS_CLIENT=$(npm_install hosted/testdata/hosted-ts hosted-ts) && export AVENIR_HOSTED_TS_CLIENT
  fi
else
  say "no npm: the browser harness and the TypeScript clients' tests will say so"
fi

# --- The Go tests.
go build -o "$tmp/testreport" ./.ci/testreport || exit 1
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)
go test -json -race -count=1 -timeout 30m "${pkgs[@]}" 2>&1 | tee "$tmp/run.json" | "$tmp/testreport" -stream
gotest=${PIPESTATUS[0]}

# --- The container: the image from the Dockerfile, then compose.yaml.
image="the container image (packaging/container/test.sh)"
compose="compose.yaml (packaging/container/test.sh)"
if [ $# -gt 0 ]; then
  part "$image" skipped "not asked for: ./test.sh was given packages"
  part "$compose" skipped "not asked for: ./test.sh was given packages"
elif ! $can_root; then
  part "$image" skipped "needs root or passwordless sudo (podman as root, a network namespace)"
  part "$compose" skipped "needs root or passwordless sudo"
elif ! command -v podman >/dev/null; then
  part "$image" skipped "podman is not installed (Debian: podman runc busybox-static)"
  part "$compose" skipped "podman is not installed (Debian: podman podman-compose)"
else
  say "the container test"
  packaging/container/test.sh
  case $? in
  0) part "$image" ran && part "$compose" ran ;;
  2) part "$image" skipped "what it needs is missing (it said what, above)" &&
    part "$compose" skipped "what it needs is missing (above)" ;;
  3) part "$image" ran && part "$compose" skipped "podman-compose is not installed (Debian: podman-compose)" ;;
  *) part "$image" failed "it failed (above)" ;;
  esac
fi

"$tmp/testreport" -parts "$parts" <"$tmp/run.json"
report=$?
if [ "$gotest" != 0 ] && [ "$report" = 0 ]; then
  say "go test exited with status $gotest (above)"
  exit 1
fi
exit $report
