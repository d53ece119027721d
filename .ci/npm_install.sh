# npm_install DIR NAME: `npm ci` DIR's package.json and package-lock.json into a cache directory
# (again only when the lock file changes) and print that directory. The stamp lives inside
# node_modules, so a half-finished install is never taken for a good one. Sourced by .ci/run and
# test.sh.
npm_install() {
  local src=$1 dst="${XDG_CACHE_HOME:-$HOME/.cache}/avenir-ci/$2"
  mkdir -p "$dst"
  cp "$src/package.json" "$src/package-lock.json" "$dst/"
  if ! cmp -s "$src/package-lock.json" "$dst/node_modules/.installed-from-package-lock.json"; then
    (cd "$dst" && npm ci --no-audit --no-fund --loglevel=error >&2)
    cp "$src/package-lock.json" "$dst/node_modules/.installed-from-package-lock.json"
  fi
  echo "$dst"
}
