// Package fidelity_test checks the sandbox against YNAB's official JavaScript SDK: a client
// built on it must work against `avenir sandbox serve` as against YNAB.
package fidelity_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

// TestOfficialJSSDK runs testdata/run.mjs under node: every operation of npm ynab 4.1.0 (and
// of 2.10.0 on the old /budgets paths) against a sandbox over loopback, each answer parsed by
// the SDK and validated against the schemas of YNAB's OpenAPI spec 1.86
// (testdata/ynab-openapi-1.86.yaml, as YNAB publishes it), each write followed by a read of
// its effect. The npm packages are pinned by testdata/package-lock.json and installed with
// `npm ci` into a cache directory (never into the source tree), again only when the lock file
// changes.
func TestOfficialJSSDK(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the check against YNAB's JavaScript SDK needs Node.js 18 or later")
	}
	src, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := npmInstall(ctx, t, src, "ynab-js-sdk", "run.mjs")
	_, srv := sandboxtest.New(t, sandbox.Options{})
	run := exec.CommandContext(ctx, node, "run.mjs", srv.URL, filepath.Join(src, "ynab-openapi-1.86.yaml"), sandboxtest.FixedNow().Format("2006-01-02"))
	run.Dir = dir
	out, err := run.CombinedOutput()
	t.Logf("YNAB's JS SDK against the sandbox:\n%s", out)
	if err != nil {
		t.Fatalf("the SDK run failed: %v", err)
	}
}

// npmInstall installs src's package.json and package-lock.json with `npm ci` into
// $XDG_CACHE_HOME/avenir-ci/NAME (~/.cache/… without it), as .ci/run does for its npm tools,
// copies the scripts there too (node finds the packages from a script's own directory), and
// returns that directory. The install runs again only when the lock file differs from the one
// it was made from, whose copy inside node_modules marks a finished install.
func npmInstall(ctx context.Context, t *testing.T, src, name string, scripts ...string) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatalf("no cache directory to install the npm packages into: %v", err)
	}
	dst := filepath.Join(cache, "avenir-ci", name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range append([]string{"package.json", "package-lock.json"}, scripts...) {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	stamp := filepath.Join(dst, "node_modules", ".installed-from-package-lock.json")
	if done, err := os.ReadFile(stamp); err == nil && bytes.Equal(done, lock) {
		return dst
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("node is installed but npm is not: cannot install the SDK (%v)", err)
	}
	install := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
	install.Dir = dst
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dst, err, out)
	}
	if err := os.WriteFile(stamp, lock, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}
