// Package sandboxtest starts the YNAB sandbox for tests. It lives apart from package sandbox so
// that the binary, which embeds the sandbox for `serve --sandbox`, links no `testing`.
//
//	sb, srv := sandboxtest.New(t, sandbox.Options{}) // dated by FixedNow, closed when t ends
package sandboxtest

import (
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// FixedNow is the day New dates the sample by when opts.Now is nil: Tuesday 15 September
// 2026, 10:00 UTC. On it the sample's examples read as in the confirmation spec (the current
// month is 2026-09-01, Market's 86.40 is dated 2026-09-12).
func FixedNow() time.Time { return time.Date(2026, time.September, 15, 10, 0, 0, 0, time.UTC) }

// New starts a sandbox on a free loopback port for a test and stops it when the test ends.
// Without opts.Now the sandbox lives on FixedNow, so every run sees the same plan.
func New(tb testing.TB, opts sandbox.Options) (*sandbox.Sandbox, *sandbox.Server) {
	tb.Helper()
	if opts.Now == nil {
		opts.Now = FixedNow
	}
	sb, err := sandbox.New(opts)
	if err != nil {
		tb.Fatalf("sandbox: %v", err)
	}
	srv, err := sb.Listen("127.0.0.1:0")
	if err != nil {
		tb.Fatalf("sandbox: %v", err)
	}
	tb.Cleanup(func() {
		if err := srv.Close(); err != nil {
			tb.Errorf("sandbox: close: %v", err)
		}
	})
	return sb, srv
}
