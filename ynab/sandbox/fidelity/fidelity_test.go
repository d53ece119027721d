// Package fidelity_test checks the sandbox against YNAB's official JavaScript SDK: a client
// built on it must work against `avenir sandbox serve` as against YNAB.
package fidelity_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// TestOfficialJSSDK runs testdata/run.mjs under node: every operation of npm ynab 4.1.0 (and
// of 2.10.0 on the old /budgets paths) against a sandbox over loopback, each answer parsed by
// the SDK and validated against the schemas of YNAB's OpenAPI spec 1.86
// (testdata/ynab-openapi-1.86.yaml, as YNAB publishes it), each write followed by a read of
// its effect. The npm packages are pinned by testdata/package-lock.json and installed with
// `npm ci` when testdata/node_modules is missing.
func TestOfficialJSSDK(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the check against YNAB's JavaScript SDK needs Node.js 18 or later")
	}
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Fatalf("node is installed but npm is not: cannot install the SDK (%v)", err)
		}
		install := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		install.Dir = dir
		if out, err := install.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	_, srv := sandbox.NewTest(t, sandbox.Options{})
	run := exec.CommandContext(ctx, node, "run.mjs", srv.URL, "ynab-openapi-1.86.yaml", sandbox.FixedNow().Format("2006-01-02"))
	run.Dir = dir
	out, err := run.CombinedOutput()
	t.Logf("YNAB's JS SDK against the sandbox:\n%s", out)
	if err != nil {
		t.Fatalf("the SDK run failed: %v", err)
	}
}
