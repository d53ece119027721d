package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run of three packages as `go test -json` writes it (cmd/test2json's actions): one passes
// with a skip by design, one has a test that skips because PostgreSQL is missing, one has no
// test files.
const runOK = `{"Action":"start","Package":"github.com/avenir-mcp/avenir/journal"}
{"Action":"run","Package":"github.com/avenir-mcp/avenir/journal","Test":"TestStore"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/journal","Test":"TestStore","Output":"=== RUN   TestStore\n"}
{"Action":"run","Package":"github.com/avenir-mcp/avenir/journal","Test":"TestStore/People"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/journal","Test":"TestStore/People","Output":"=== RUN   TestStore/People\n"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/journal","Test":"TestStore/People","Output":"    storetest.go:85: the store serves one person\n"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/journal","Test":"TestStore/People","Output":"--- SKIP: TestStore/People (0.00s)\n"}
{"Action":"skip","Package":"github.com/avenir-mcp/avenir/journal","Test":"TestStore/People"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/journal","Test":"TestStore","Output":"--- PASS: TestStore (0.01s)\n"}
{"Action":"pass","Package":"github.com/avenir-mcp/avenir/journal","Test":"TestStore"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/journal","Output":"PASS\n"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/journal","Output":"ok  \tgithub.com/avenir-mcp/avenir/journal\t0.1s\n"}
{"Action":"pass","Package":"github.com/avenir-mcp/avenir/journal"}
{"Action":"run","Package":"github.com/avenir-mcp/avenir/auth","Test":"TestStore"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/auth","Test":"TestStore","Output":"=== RUN   TestStore\n"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/auth","Test":"TestStore","Output":"    store_test.go:20: skipping: no PostgreSQL under /usr/lib/postgresql/*/bin\n"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/auth","Test":"TestStore","Output":"--- SKIP: TestStore (0.00s)\n"}
{"Action":"skip","Package":"github.com/avenir-mcp/avenir/auth","Test":"TestStore"}
{"Action":"run","Package":"github.com/avenir-mcp/avenir/auth","Test":"TestFlow"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/auth","Test":"TestFlow","Output":"=== RUN   TestFlow\n"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/auth","Test":"TestFlow","Output":"    flow_test.go:9: skipping: no PostgreSQL under /usr/lib/postgresql/*/bin\n"}
{"Action":"skip","Package":"github.com/avenir-mcp/avenir/auth","Test":"TestFlow"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/auth","Output":"ok  \tgithub.com/avenir-mcp/avenir/auth\t0.2s\n"}
{"Action":"pass","Package":"github.com/avenir-mcp/avenir/auth"}
{"Action":"start","Package":"github.com/avenir-mcp/avenir/internal/golden"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/internal/golden","Output":"?   \tgithub.com/avenir-mcp/avenir/internal/golden\t[no test files]\n"}
{"Action":"skip","Package":"github.com/avenir-mcp/avenir/internal/golden"}
`

// A failed test, a package whose binary panicked in a test that never ended, and a build error.
const runFail = `{"Action":"run","Package":"github.com/avenir-mcp/avenir/tools","Test":"TestMove"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/tools","Test":"TestMove","Output":"=== RUN   TestMove\n"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/tools","Test":"TestMove","Output":"    move_test.go:3: moved 20.00, want 30.00\n"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/tools","Test":"TestMove","Output":"--- FAIL: TestMove (0.00s)\n"}
{"Action":"fail","Package":"github.com/avenir-mcp/avenir/tools","Test":"TestMove"}
{"Action":"run","Package":"github.com/avenir-mcp/avenir/tools","Test":"TestOther"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/tools","Test":"TestOther","Output":"--- PASS: TestOther (0.00s)\n"}
{"Action":"pass","Package":"github.com/avenir-mcp/avenir/tools","Test":"TestOther"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/tools","Output":"FAIL\tgithub.com/avenir-mcp/avenir/tools\t0.3s\n"}
{"Action":"fail","Package":"github.com/avenir-mcp/avenir/tools"}
{"Action":"run","Package":"github.com/avenir-mcp/avenir/undo","Test":"TestHang"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/undo","Test":"TestHang","Output":"panic: test timed out after 30m0s\n"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/undo","Output":"FAIL\tgithub.com/avenir-mcp/avenir/undo\t1800.0s\n"}
{"Action":"fail","Package":"github.com/avenir-mcp/avenir/undo"}
{"ImportPath":"github.com/avenir-mcp/avenir/ynab","Action":"build-output","Output":"ynab/client.go:3:1: syntax error\n"}
{"ImportPath":"github.com/avenir-mcp/avenir/ynab","Action":"build-fail"}
{"Action":"output","Package":"github.com/avenir-mcp/avenir/ynab","Output":"FAIL\tgithub.com/avenir-mcp/avenir/ynab [build failed]\n"}
{"Action":"fail","Package":"github.com/avenir-mcp/avenir/ynab"}
`

func TestStream(t *testing.T) {
	var b strings.Builder
	read(strings.NewReader(runFail+"go: downloading example.com/x v1.0.0\n"), &b)
	got := b.String()
	for _, want := range []string{
		"moved 20.00, want 30.00",                        // a failed test's output
		"FAIL\tgithub.com/avenir-mcp/avenir/tools\t0.3s", // the package's line
		"panic: test timed out after 30m0s",              // a test that never ended, in a failed package
		"ynab/client.go:3:1: syntax error",               // the build error
		"go: downloading example.com/x v1.0.0",           // a line that is not an event, as it is
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the stream lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "TestOther") {
		t.Errorf("the stream shows a passing test's output:\n%s", got)
	}

	b.Reset()
	read(strings.NewReader(runOK), &b)
	if got := b.String(); strings.Contains(got, "RUN") || !strings.Contains(got, "[no test files]") || !strings.Contains(got, "ok  \tgithub.com/avenir-mcp/avenir/auth") {
		t.Errorf("a passing run's stream should be its package lines:\n%s", got)
	}
}

func TestReport(t *testing.T) {
	tests := []struct {
		name  string
		run   string
		parts []part
		ci    bool
		ok    bool
		want  []string
		not   []string
	}{
		{name: "skips named, off CI", run: runOK, ok: true, want: []string{
			`- by design, a per-person check that does not apply to the local, one-person journal: "the store serves one person"`,
			"  journal.TestStore/People",
			`- not run here: "skipping: no PostgreSQL under /usr/lib/postgresql/*/bin"`,
			"  auth.TestFlow, auth.TestStore",
			"tests: 1 passed, 0 failed, 3 skipped",
		}},
		{name: "a missing part fails CI", run: runOK, ci: true, ok: false, want: []string{
			"CI: 2 tests or parts did not run that should",
		}},
		{name: "parts counted and named", run: runOK, ok: true,
			parts: []part{{"container test", "ran", ""}, {"compose test", "skipped", "podman-compose is not installed"}},
			want:  []string{"- compose test did not run: podman-compose is not installed", "tests: 2 passed, 0 failed, 4 skipped"}},
		{name: "a failed part fails the run", run: runOK, ok: false,
			parts: []part{{"container test", "failed", "exit status 1"}},
			want:  []string{"FAIL container test: exit status 1", "tests: 1 passed, 1 failed, 3 skipped"}},
		{name: "failures", run: runFail, ok: false, want: []string{
			"FAIL github.com/avenir-mcp/avenir/tools", "FAIL github.com/avenir-mcp/avenir/undo", "FAIL github.com/avenir-mcp/avenir/ynab",
			"tests: 1 passed, 1 failed, 0 skipped",
		}, not: []string{"Skipped:"}},
		{name: "nothing ran", run: "", ok: false, want: []string{"printed no test events", "tests: 0 passed, 0 failed, 0 skipped"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			ok := report(&b, read(strings.NewReader(tt.run), nil), tt.parts, tt.ci)
			got := b.String()
			if ok != tt.ok {
				t.Errorf("report says ok=%v, want %v:\n%s", ok, tt.ok, got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("the report lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("the report has %q:\n%s", n, got)
				}
			}
			if lines := strings.Split(strings.TrimSpace(got), "\n"); !strings.HasPrefix(lines[len(lines)-1], "tests: ") {
				t.Errorf("the report's last line is %q, want the closing line", lines[len(lines)-1])
			}
		})
	}
}

func TestReadParts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parts")
	os.WriteFile(path, []byte("container test\tran\ncompose test\tskipped\tno podman-compose\n"), 0o600)
	ps, err := readParts(path)
	if err != nil || len(ps) != 2 || ps[1] != (part{"compose test", "skipped", "no podman-compose"}) {
		t.Fatalf("readParts = %v, %v", ps, err)
	}
	os.WriteFile(path, []byte("container test\tmaybe\n"), 0o600)
	if _, err := readParts(path); err == nil || !strings.Contains(err.Error(), "container test\\tmaybe") {
		t.Fatalf("a bad status: err = %v, want it to quote the line", err)
	}
}
