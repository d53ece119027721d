#!/usr/bin/env bash
# Builds avenir's image from packaging/container/Dockerfile with podman and runs it as a
# deployment would: avenir hosted beside a PostgreSQL, signing people in with YNAB (here the
# sandbox's YNAB OAuth). Checks GET /healthz, GET /readyz (on the metrics port), the
# protected-resource metadata and one whole sign-in of an MCP client (.ci/signin: registration,
# PKCE, both consents, the token, then tools/list and a tool call), that the container runs as
# nonroot with a read-only root file system, and that the image has no shell. Then runs compose.yaml with podman-compose (its
# postgres:17 service, avenir built by compose, the env files, the published port, the volume) and
# signs in again through it. Cleans up whatever it made, however it ends.
#
# Exit status: 0 passed; 1 failed; 2 cannot run here (what is missing is named); 3 the image
# passed and compose.yaml was not tested (no podman-compose).
#
# Needs root (or passwordless sudo: it re-runs itself with it), Debian's podman, runc,
# busybox-static, postgresql and (for compose.yaml) podman-compose, and Go. ./test.sh runs it;
# to run it by hand, from anywhere: packaging/container/test.sh
#
# What the build here stands in for: no registry can be reached where avenir is tested, so the
# two images the Dockerfile starts from are made here under the names it uses, from this machine's
# files: golang:1.26-bookworm from the Go toolchain that runs this script (busybox as its shell,
# the toolchain, the module cache as its GOPROXY and the build cache mounted into the build,
# which has no network), and
# gcr.io/distroless/static-debian12:nonroot from Debian's CA certificates and tzdata and the
# nonroot user (uid 65532) of distroless. Everything after FROM is the Dockerfile as a person
# builds it. The images live in a podman storage of their own in a temporary folder, never in the
# machine's.
#
# Networking: avenir, PostgreSQL (a throwaway cluster of Debian's postgresql, run on the host),
# the sandbox (run from the image just built) and the client share one network namespace made
# for the run, so every address is 127.0.0.1 inside it: port 8080 is the Dockerfile's, and
# nothing listens on the machine's own network. avenir takes plain http only on loopback, which
# this is. compose.yaml's services get the bridge network podman-compose makes, inside that
# namespace too (its port 8080 published on the namespace's 127.0.0.1); the sandbox and the
# client then join avenir's own namespace, where YNAB's address is loopback again.
#
# podman runs with runc (crun refuses this kind of machine's hybrid cgroups), cgroupfs, and
# explicit ulimits (podman's defaults are above what the machine allows).
set -euo pipefail

if [ "$(id -u)" != 0 ]; then
  if sudo -n true 2>/dev/null; then
    exec sudo -n --preserve-env=PATH,GOFLAGS,GOCACHE,GOMODCACHE,CI "$0" "$@"
  fi
  echo "packaging/container/test.sh: needs root or passwordless sudo (network namespaces, podman as root)" >&2
  exit 2
fi

cd "$(dirname "$0")/../.."
export PATH="$PATH:/usr/local/go/bin:/usr/sbin:/sbin"
start=$SECONDS

for tool in podman runc busybox ip go; do
  command -v "$tool" >/dev/null || { echo "container test: $tool is missing (Debian: podman runc busybox-static iproute2; Go 1.26)" >&2; exit 2; }
done
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$pgbin" ] || { echo "container test: Debian's postgresql is missing" >&2; exit 2; }
runc=$(command -v runc)

work=$(mktemp -d /tmp/avenir-container-test.XXXXXX)
chmod 711 "$work" # the postgres user reaches its data folder inside
ns="avenir-ct-$$"
# Storage, run state and network definitions of the test's own, so that nothing it makes or
# removes (podman system reset, at the end) touches the machine's containers.
podman=(podman --runtime "$runc" --cgroup-manager=cgroupfs --root "$work/storage" --runroot "$work/run"
  --tmpdir "$work/libpod" --network-config-dir "$work/networks")
ulimits=(--ulimit nofile=1024:1024 --ulimit nproc=1000:1000)
run_opts=(--network "ns:/run/netns/$ns" "${ulimits[@]}")
inns() { nsenter --net="/run/netns/$ns" "$@"; }
pg() { inns runuser -u postgres -- "$pgbin/$1" "${@:2}"; }

cleanup() {
  local rc=$?
  set +e
  if [ $rc != 0 ] && [ -n "${avenir_started:-}" ]; then
    echo "--- avenir's log" >&2
    "${podman[@]}" logs avenir 2>&1 | tail -40 >&2
    echo "--- the sandbox's log" >&2
    "${podman[@]}" logs sandbox 2>&1 | tail -20 >&2
  fi
  if [ $rc != 0 ] && [ -n "${compose_started:-}" ]; then
    echo "--- podman-compose up" >&2
    grep -v "^\[" "$work/compose.log" | tail -40 >&2
    echo "--- compose: avenir's log" >&2
    "${podman[@]}" logs avenirct_avenir_1 2>&1 | tail -30 >&2
    echo "--- compose: postgres's log" >&2
    "${podman[@]}" logs avenirct_postgres_1 2>&1 | tail -20 >&2
  fi
  "${podman[@]}" rm -f -t 2 avenir sandbox >/dev/null 2>&1
  if [ -n "${compose_started:-}" ]; then
    (cd "$work/src/packaging/container" && inns "${compose[@]}" down -v) >/dev/null 2>&1
  fi
  [ -f "$work/pg/postmaster.pid" ] && pg pg_ctl -D "$work/pg" -m immediate stop >/dev/null 2>&1
  ip netns del "$ns" 2>/dev/null
  # The storage's overlay mounts go with it; then nothing is left.
  "${podman[@]}" system reset -f >/dev/null 2>&1
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step() { printf "%-5s %s (%d s)\n" "$1" "$2" $((SECONDS - start)); }
fail() { step FAIL "$1" >&2; exit 1; }

# --- The stand-ins for the Dockerfile's base images.
go_root=$(go env GOROOT)
go_version=$(go env GOVERSION)
case "$go_version" in go1.26*) ;; *) fail "Go $go_version stands in for golang:1.26-bookworm: install Go 1.26" ;; esac
gomodcache=$(go env GOMODCACHE)
gocache=$(go env GOCACHE)
go mod download # the stand-in's GOPROXY is this module cache

# Each stand-in is a root file system made here and imported as one layer (podman import keeps
# the modes and owners tar gives it: /tmp 1777, /home/nonroot the nonroot user's).
mkdir -p "$work/golang/usr/local/go" "$work/golang/bin" "$work/golang/tmp" "$work/golang/etc" "$work/golang/go"
# The toolchain itself is lent to the build read-only (below), not copied into the image.
cp "$(command -v busybox)" "$work/golang/bin/busybox"
for applet in sh ls cat mkdir rm cp mv env; do ln -s busybox "$work/golang/bin/$applet"; done
chmod 1777 "$work/golang/tmp"
echo 'root:x:0:0:root:/root:/bin/sh' >"$work/golang/etc/passwd"
tar --numeric-owner -C "$work/golang" -c . | "${podman[@]}" import -q \
  --change 'ENV PATH=/go/bin:/usr/local/go/bin:/bin' --change 'ENV HOME=/root' --change 'ENV GOPATH=/go' \
  --change 'ENV GOTOOLCHAIN=local' --change 'ENV GOPROXY=file:///goproxy' --change 'ENV GOSUMDB=off' \
  --change 'ENV GOCACHE=/root/.cache/go-build' --change 'WORKDIR /go' \
  - docker.io/library/golang:1.26-bookworm >/dev/null

mkdir -p "$work/distroless/etc/ssl/certs" "$work/distroless/usr/share" "$work/distroless/tmp" "$work/distroless/home/nonroot"
cp /etc/ssl/certs/ca-certificates.crt "$work/distroless/etc/ssl/certs/"
cp -a /usr/share/zoneinfo "$work/distroless/usr/share/"
printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' \
  'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' >"$work/distroless/etc/passwd"
printf '%s\n' 'root:x:0:' 'nobody:x:65534:' 'nonroot:x:65532:' >"$work/distroless/etc/group"
echo 'hosts: files dns' >"$work/distroless/etc/nsswitch.conf"
chmod 1777 "$work/distroless/tmp"
chmod 700 "$work/distroless/home/nonroot"
chown 65532:65532 "$work/distroless/home/nonroot"
tar --numeric-owner -C "$work/distroless" -c . | "${podman[@]}" import -q \
  --change 'USER 65532' --change 'WORKDIR /home/nonroot' - gcr.io/distroless/static-debian12:nonroot >/dev/null

build=(build --pull=never --network none --format docker -q)
step ok "stand-ins built: golang:1.26-bookworm ($go_version), gcr.io/distroless/static-debian12:nonroot"

# --- avenir's image, from the Dockerfile as it is. The stand-in golang image gets this machine's
# Go toolchain at /usr/local/go, its module cache as the GOPROXY and its build cache, each
# mounted for the build only (the build cache makes a second run take seconds).
"${podman[@]}" "${build[@]}" -t localhost/avenir:test --build-arg VERSION=v0.0.0-container-test \
  -f packaging/container/Dockerfile --ignorefile packaging/container/Dockerfile.dockerignore \
  -v "$go_root:/usr/local/go:ro" -v "$gomodcache/cache/download:/goproxy:ro" -v "$gocache:/root/.cache/go-build" \
  . >/dev/null
size=$("${podman[@]}" image inspect -f '{{.Size}}' localhost/avenir:test)
step ok "image built from packaging/container/Dockerfile: $((size / 1000000)) MB"
user=$("${podman[@]}" image inspect -f '{{.Config.User}}' localhost/avenir:test)
[ "$user" = nonroot:nonroot ] || fail "the image runs as '$user', want nonroot:nonroot"
if "${podman[@]}" run --rm --network none "${ulimits[@]}" --entrypoint /bin/sh localhost/avenir:test -c true >/dev/null 2>&1; then
  fail "the image has a shell (/bin/sh ran)"
fi
step ok "the image's user is nonroot and it has no shell"

# --- The network namespace, PostgreSQL and the sandbox in it.
ip netns add "$ns"
inns ip link set lo up
mkdir -p "$work/pg" "$work/pgsock"
chown postgres:postgres "$work/pg" "$work/pgsock"
pg initdb -D "$work/pg" -U postgres --auth=trust --no-sync >/dev/null
pg pg_ctl -D "$work/pg" -l "$work/pg/log" -w -o "-c listen_addresses=127.0.0.1 -p 5432 -k $work/pgsock -c fsync=off" start >/dev/null
pg createdb -h 127.0.0.1 -p 5432 -U postgres avenir
step ok "PostgreSQL $("$pgbin/postgres" -V | awk '{print $3}') at 127.0.0.1:5432 in the test's network namespace"

client_id=avenir-container-test
client_secret=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
"${podman[@]}" run -d --name sandbox "${run_opts[@]}" --read-only --tmpfs /tmp --entrypoint /usr/local/bin/avenir \
  localhost/avenir:test sandbox serve --addr 127.0.0.1:8765 --state /tmp/sandbox.json \
  --oauth-client "$client_id:$client_secret" >/dev/null
avenir_started=1

# wait_http URL [CODE]: until URL answers CODE (default 200; "any" for any answer), at most 30 s,
# asked from the network namespace probe runs in.
probe=(nsenter --net="/run/netns/$ns")
wait_http() {
  local i code
  for i in $(seq 1 60); do
    code=$("${probe[@]}" curl -s -o /dev/null -w '%{http_code}' "$1" 2>/dev/null) || true
    if [ "$code" = "${2:-200}" ] || { [ "${2:-}" = any ] && [ "$code" != 000 ]; }; then return 0; fi
    sleep 0.5
  done
  return 1
}
wait_http http://127.0.0.1:8765/v1/user any || fail "the sandbox never answered"

# wait_ready: until GET /readyz answers 200 where avenir serves it: on its public port 8080, or,
# where /readyz and /metrics have a listener of their own (--metrics-addr, loopback by default,
# 127.0.0.1:9464), there, inside the container; then the public port must not serve /metrics.
# Sets ready_url.
wait_ready() {
  local i code
  for i in $(seq 1 60); do
    code=$("${probe[@]}" curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8080/readyz 2>/dev/null) || true
    if [ "$code" = 200 ]; then ready_url=http://127.0.0.1:8080/readyz && return 0; fi
    if [ "$code" = 404 ]; then
      code=$("${probe[@]}" curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:9464/readyz 2>/dev/null) || true
      if [ "$code" = 200 ]; then
        ready_url=http://127.0.0.1:9464/readyz
        code=$("${probe[@]}" curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8080/metrics) || true
        [ "$code" = 404 ] || fail "/readyz has its own listener, but the public port answers /metrics with $code"
        return 0
      fi
    fi
    sleep 0.5
  done
  return 1
}

# --- avenir hosted, as the Dockerfile starts it, with compose.yaml's read-only root.
"${podman[@]}" run -d --name avenir "${run_opts[@]}" --read-only --tmpfs /tmp \
  -e AVENIR_MCP_DATABASE_URL="postgres://postgres@127.0.0.1:5432/avenir?sslmode=disable" \
  -e AVENIR_MCP_PUBLIC_URL=http://127.0.0.1:8080 \
  -e AVENIR_MCP_YNAB_CLIENT_ID="$client_id" -e AVENIR_MCP_YNAB_CLIENT_SECRET="$client_secret" \
  -e AVENIR_MCP_SECRET_KEY="$(head -c 32 /dev/urandom | base64)" \
  -e AVENIR_MCP_YNAB_URL=http://127.0.0.1:8765/v1 -e AVENIR_MCP_YNAB_OAUTH_URL=http://127.0.0.1:8765/oauth \
  localhost/avenir:test >/dev/null
wait_http http://127.0.0.1:8080/healthz || fail "GET /healthz never answered 200"
step ok "GET /healthz: 200"
wait_ready || fail "GET /readyz never answered 200 (the database, migrated)"
step ok "GET $ready_url: 200 (PostgreSQL answers, avenir's schemas migrated)"
ps_user=$("${podman[@]}" top avenir user | awk 'NR == 2 {print $1}')
[ "$ps_user" = nonroot ] || [ "$ps_user" = 65532 ] || fail "avenir runs as '$ps_user', want nonroot"
step ok "avenir runs as $ps_user, root file system read-only"

# --- One person signs in and calls a tool, as an app does.
go build -o "$work/signin" ./.ci/signin
inns "$work/signin" -mcp http://127.0.0.1:8080/mcp -login container-test || fail "the sign-in and MCP call"
step ok "signed in through YNAB's OAuth (the sandbox) and called MCP"


# --- compose.yaml, as its comment says to run it, with podman-compose: the postgres:17 service
# (a stand-in made here), the avenir image built by compose from the Dockerfile, the env files,
# the published port, the read-only root, the named volume.
if ! command -v podman-compose >/dev/null; then
  step skip "compose.yaml: podman-compose is not installed (Debian: podman-compose)"
  echo "container test: the image passed in $((SECONDS - start)) s; compose.yaml not tested"
  exit 3
fi
"${podman[@]}" rm -f -t 2 avenir sandbox >/dev/null
avenir_started=""

# make_postgres_rootfs DIR: a root file system for the postgres:17 stand-in: Debian's PostgreSQL
# with the libraries it loads (not LLVM: JIT is optional), busybox, and an entrypoint doing what
# the official image's does for compose.yaml: POSTGRES_USER, POSTGRES_DB and POSTGRES_PASSWORD
# make the cluster in /var/lib/postgresql/data (the volume) on first start, then the server
# listens on every address with password authentication, running as postgres.
make_postgres_rootfs() {
  local dir=$1 pgroot f
  pgroot=$(dirname "$pgbin")
  mkdir -p "$dir/bin" "$dir/etc" "$dir/tmp" "$dir/run/postgresql" "$dir/var/lib/postgresql/data" "$dir/usr/local/bin" \
    "$dir/usr/share/postgresql" "$dir$(dirname "$pgroot")"
  cp "$(command -v busybox)" "$dir/bin/busybox"
  for applet in sh ls cat mkdir chown chmod su rm echo id; do ln -s busybox "$dir/bin/$applet"; done
  ln -s ../run "$dir/var/run" # where Debian's pg_isready looks for the socket
  cp -a /usr/share/zoneinfo "$dir/usr/share/"
  cp -a "$pgroot" "$dir$(dirname "$pgroot")/"
  cp -a "/usr/share/postgresql/$(basename "$pgroot")" "$dir/usr/share/postgresql/"
  rm -rf "$dir$pgroot/lib/llvmjit"* "$dir$pgroot/lib/bitcode"
  for f in $( { for b in "$pgroot"/bin/* "$pgroot"/lib/*.so; do
      case $b in *llvmjit*) continue ;; esac
      ldd "$b" 2>/dev/null
    done; } | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | sort -u); do
    cp -L --parents "$f" "$dir/"
  done
  find "$dir" -type d -exec chmod 755 {} +
  chmod 1777 "$dir/tmp"
  printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'postgres:x:999:999:PostgreSQL:/var/lib/postgresql:/bin/sh' >"$dir/etc/passwd"
  printf '%s\n' 'root:x:0:' 'postgres:x:999:' >"$dir/etc/group"
  echo 'hosts: files dns' >"$dir/etc/nsswitch.conf"
  cat >"$dir/usr/local/bin/docker-entrypoint.sh" <<'ENTRYPOINT'
#!/bin/sh
set -e
export PGDATA=/var/lib/postgresql/data
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /run/postgresql
  chown -R postgres:postgres "$PGDATA" /run/postgresql
  chmod 700 "$PGDATA"
  exec su -s /bin/sh postgres -c "exec /usr/local/bin/docker-entrypoint.sh $*"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  echo "$POSTGRES_PASSWORD" >/tmp/pwfile
  initdb -D "$PGDATA" -U "${POSTGRES_USER:-postgres}" --pwfile=/tmp/pwfile --auth-local=trust \
    --auth-host=scram-sha-256 --locale=C --encoding=UTF8 --no-sync >/dev/null
  rm -f /tmp/pwfile
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -w -o "-c listen_addresses='' -k /run/postgresql" start >/dev/null
  if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != postgres ]; then
    createdb -h /run/postgresql -U "${POSTGRES_USER:-postgres}" "$POSTGRES_DB"
  fi
  pg_ctl -D "$PGDATA" -w stop >/dev/null
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' -k /run/postgresql
ENTRYPOINT
  chmod 755 "$dir/usr/local/bin/docker-entrypoint.sh"
}
make_postgres_rootfs "$work/postgres"
tar --numeric-owner -C "$work/postgres" -c . | "${podman[@]}" import -q \
  --change "ENV PATH=/usr/local/bin:$pgbin:/bin" --change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
  --change 'CMD ["postgres"]' --change 'EXPOSE 5432' - docker.io/library/postgres:17 >/dev/null
step ok "stand-in built: postgres:17 (Debian's PostgreSQL $("$pgbin/postgres" -V | awk '{print $3}'))"

# A copy of the repository to run compose from: compose.yaml reads avenir.env and .env beside
# it, which are written there, never into the checkout under test.
mkdir "$work/src"
tar -c --exclude=.git --exclude=node_modules . | tar -C "$work/src" -x
printf '%s\n' AVENIR_MCP_PUBLIC_URL=http://127.0.0.1:8080 "AVENIR_MCP_YNAB_CLIENT_ID=$client_id" \
  "AVENIR_MCP_YNAB_CLIENT_SECRET=$client_secret" "AVENIR_MCP_SECRET_KEY=$(head -c 32 /dev/urandom | base64)" \
  AVENIR_MCP_YNAB_URL=http://127.0.0.1:8765/v1 AVENIR_MCP_YNAB_OAUTH_URL=http://127.0.0.1:8765/oauth \
  >"$work/src/packaging/container/avenir.env"
echo "POSTGRES_PASSWORD=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$work/src/packaging/container/.env"
# podman-compose runs this podman, with the storage, runtime and networks of the test.
printf '#!/bin/sh\nexec %s "$@"\n' "${podman[*]}" >"$work/podman"
chmod 755 "$work/podman"
compose=(podman-compose --podman-path "$work/podman" -p avenirct
  --podman-run-args "${ulimits[*]}"
  --podman-build-args "--pull=never --network none --format docker --ignorefile $work/src/packaging/container/Dockerfile.dockerignore -v $go_root:/usr/local/go:ro -v $gomodcache/cache/download:/goproxy:ro -v $gocache:/root/.cache/go-build")
compose_started=1
(cd "$work/src/packaging/container" && inns "${compose[@]}" up -d) >"$work/compose.log" 2>&1 ||
  { tail -30 "$work/compose.log" >&2; fail "podman-compose up"; }
step ok "podman-compose up: postgres and avenir (its image built by compose from the Dockerfile)"

# The published port, from the test's namespace; then the sandbox and the client join avenir's.
probe=(nsenter --net="/run/netns/$ns")
wait_http http://127.0.0.1:8080/healthz || fail "compose: GET /healthz on the published 127.0.0.1:8080 never answered 200"
step ok "compose: GET /healthz on the published 127.0.0.1:8080: 200"
pid=$("${podman[@]}" inspect -f '{{.State.Pid}}' avenirct_avenir_1)
probe=(nsenter -t "$pid" -n)
wait_ready || fail "compose: GET /readyz never answered 200 (the postgres service, migrated)"
step ok "compose: GET $ready_url in avenir's container: 200"
"${podman[@]}" run -d --name sandbox --network container:avenirct_avenir_1 "${ulimits[@]}" --read-only --tmpfs /tmp \
  --entrypoint /usr/local/bin/avenir localhost/avenir:test sandbox serve --addr 127.0.0.1:8765 \
  --state /tmp/sandbox.json --oauth-client "$client_id:$client_secret" >/dev/null
wait_http http://127.0.0.1:8765/v1/user any || fail "compose: the sandbox never answered"
nsenter -t "$pid" -n "$work/signin" -mcp http://127.0.0.1:8080/mcp -login compose-test || fail "compose: the sign-in and MCP call"
step ok "compose: signed in through YNAB's OAuth (the sandbox) and called MCP"

echo "container test: passed in $((SECONDS - start)) s"
