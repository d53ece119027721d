package main

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/journal/bolt"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

// doctorSetup is one machine's setup for `avenir doctor`: a YNAB (the sandbox over loopback,
// accepting only tokenKeychain), a token somewhere, settings, a journal.
type doctorSetup struct {
	vars     map[string]string
	keychain *fakeKeychain
	sb       *sandbox.Sandbox
	dir      string
}

// newDoctorSetup is a good setup: the token in the keychain, YNAB accepting it, no journal yet.
func newDoctorSetup(t *testing.T) *doctorSetup {
	t.Helper()
	sb, srv := sandboxtest.New(t, sandbox.Options{Token: tokenKeychain})
	dir := t.TempDir()
	return &doctorSetup{
		vars: map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config"),
			"XDG_STATE_HOME": filepath.Join(dir, "state"), "AVENIR_MCP_YNAB_URL": srv.URL},
		keychain: &fakeKeychain{secret: tokenKeychain},
		sb:       sb,
		dir:      dir,
	}
}

// doctor runs `avenir doctor` and returns its report, the YNAB requests it made and its error.
func (s *doctorSetup) doctor(t *testing.T) (string, int, error) {
	t.Helper()
	s.sb.ResetCounts()
	var out, errOut strings.Builder
	e := env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: mapEnv(s.vars), keychain: s.keychain}
	err := run(context.Background(), []string{"doctor"}, e)
	report := out.String() + errOut.String()
	for _, tok := range []string{tokenKeychain, tokenFile, tokenEnv} {
		if strings.Contains(report, tok) {
			t.Fatalf("the report shows a token:\n%s", report)
		}
	}
	return report, s.sb.Counts().Total, err
}

// wantLine finds the report's line for a check and its status.
func wantLine(t *testing.T, report, status, name, text string) {
	t.Helper()
	for _, line := range strings.Split(report, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == status && strings.HasPrefix(strings.TrimSpace(line[len(f[0]):]), name) && strings.Contains(line, text) {
			return
		}
	}
	t.Fatalf("no %q line for %s with %q in:\n%s", status, name, text, report)
}

func TestDoctorGoodSetup(t *testing.T) {
	s := newDoctorSetup(t)
	report, requests, err := s.doctor(t)
	if err != nil {
		t.Fatalf("doctor on a good setup: %v\n%s", err, report)
	}
	if !strings.Contains(report, "All good") {
		t.Fatalf("report:\n%s", report)
	}
	wantLine(t, report, "ok", "token", "the test keychain")
	wantLine(t, report, "ok", "YNAB", "accepts the token")
	wantLine(t, report, "ok", "plan", `"Huishouden", YNAB's last-used plan`)
	wantLine(t, report, "ok", "journal", "not created yet")
	if requests != 2 {
		t.Fatalf("doctor made %d YNAB requests; want 2 (GET /user, GET /plans)", requests)
	}
	if _, err := os.Stat(journalPath(mapEnv(s.vars))); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("doctor created the journal (%v); it must change nothing", err)
	}

	t.Run("a plan named by name, in any case", func(t *testing.T) {
		s.vars["AVENIR_MCP_PLAN"] = "vakantiehuis"
		defer delete(s.vars, "AVENIR_MCP_PLAN")
		report, _, err := s.doctor(t)
		if err != nil {
			t.Fatal(err)
		}
		wantLine(t, report, "ok", "plan", `"Vakantiehuis" (AVENIR_MCP_PLAN)`)
	})
	t.Run("a journal with operations", func(t *testing.T) {
		j, err := bolt.Open(journalPath(mapEnv(s.vars)), bolt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		op, err := j.Prepare(t.Context(), journal.Draft{PlanID: sandbox.PlanID, Tool: "set_category_budget", Summary: "Budget Restaurants", ConfirmedVia: "code"})
		if err == nil {
			_, err = j.Applied(t.Context(), op.ID, journal.Outcome{Requests: 1})
		}
		if err != nil {
			t.Fatal(err)
		}
		report, _, err := s.doctor(t)
		if err != nil {
			t.Fatal(err)
		}
		wantLine(t, report, "ok", "journal", "nothing left unfinished")
	})
}

// TestDoctorBrokenSetups: each kind of broken setup is named, with what to fix, and doctor
// exits non-zero; it asks YNAB nothing it cannot use.
func TestDoctorBrokenSetups(t *testing.T) {
	tests := []struct {
		name         string
		breakIt      func(t *testing.T, s *doctorSetup)
		status       string // of the line below
		check, text  string
		fix          string // "" = no fix line expected
		fails        bool
		wantRequests int
	}{
		{"no token anywhere", func(t *testing.T, s *doctorSetup) { s.keychain.secret = "" },
			"FAIL", "token", "none", "avenir token set", true, 0},
		{"a token YNAB refuses", func(t *testing.T, s *doctorSetup) { s.keychain.secret = "revoked-0123456789abcdef" },
			"FAIL", "YNAB", "refused the token", "avenir token set", true, 1},
		{"YNAB_ACCESS_TOKEN_FILE names a missing file", func(t *testing.T, s *doctorSetup) {
			s.vars["YNAB_ACCESS_TOKEN_FILE"] = filepath.Join(s.dir, "nope")
		}, "FAIL", "token", "YNAB_ACCESS_TOKEN_FILE", "fix or unset YNAB_ACCESS_TOKEN_FILE", true, 0},
		{"a token file others can read", func(t *testing.T, s *doctorSetup) {
			p := filepath.Join(s.dir, "token")
			if err := os.WriteFile(p, []byte(tokenKeychain+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			s.vars["YNAB_ACCESS_TOKEN_FILE"] = p
		}, "warn", "token", "others can read (mode 0644)", "chmod 600", false, 2},
		{"a plan that does not exist", func(t *testing.T, s *doctorSetup) { s.vars["AVENIR_MCP_PLAN"] = "Budget 2019" },
			"FAIL", "plan", `AVENIR_MCP_PLAN="Budget 2019" names no plan`, `"Huishouden", "Vakantiehuis"`, true, 2},
		{"YNAB unreachable", func(t *testing.T, s *doctorSetup) { s.vars["AVENIR_MCP_YNAB_URL"] = closedURL(t) },
			"FAIL", "YNAB", "could not reach YNAB", "check the network", true, 0},
		{"YNAB failing", func(t *testing.T, s *doctorSetup) {
			s.sb.InjectFault(sandbox.Fault{PathContains: "/user", Status: 503, Count: 2})
		}, "FAIL", "YNAB", "YNAB is failing right now", "", true, 2},
		{"the hour's requests spent", func(t *testing.T, s *doctorSetup) {
			s.sb.InjectFault(sandbox.Fault{PathContains: "/user", Status: 429})
		}, "warn", "YNAB", "limit of 200 requests", "until the hour's limit resets", false, 2},
		{"a YNAB URL in plain http to another machine", func(t *testing.T, s *doctorSetup) {
			s.vars["AVENIR_MCP_YNAB_URL"] = "http://api.ynab.example/v1"
		}, "FAIL", "YNAB URL", "http://api.ynab.example/v1", "use https", true, 0},
		{"codes forced and elicitation required", func(t *testing.T, s *doctorSetup) {
			s.vars["AVENIR_MCP_CONFIRM"] = "code"
			s.vars["AVENIR_MCP_REQUIRE_ELICITATION"] = "1"
		}, "FAIL", "settings", "contradict each other", "", true, 2},
		{"a switch serve would ignore", func(t *testing.T, s *doctorSetup) { s.vars["AVENIR_MCP_READ_ONLY"] = "true" },
			"warn", "settings", `AVENIR_MCP_READ_ONLY="true" has no effect`, "set it to 1", false, 2},
		{"a journal path holding another file", func(t *testing.T, s *doctorSetup) {
			p := filepath.Join(s.dir, "notes.txt")
			if err := os.WriteFile(p, []byte("shopping list\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			s.vars["AVENIR_MCP_JOURNAL"] = p
		}, "FAIL", "journal", "not an avenir journal", "move it away", true, 2},
		{"operations a crash left unfinished", func(t *testing.T, s *doctorSetup) {
			j, err := bolt.Open(journalPath(mapEnv(s.vars)), bolt.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := j.Prepare(t.Context(), journal.Draft{PlanID: sandbox.PlanID, Tool: "set_category_budget", Summary: "Budget Restaurants", ConfirmedVia: "code"}); err != nil {
				t.Fatal(err)
			}
		}, "warn", "journal", "1 left unfinished by a crash", "settles them at its next start", false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newDoctorSetup(t)
			tt.breakIt(t, s)
			report, requests, err := s.doctor(t)
			if tt.fails != (err != nil) {
				t.Fatalf("doctor: %v; want failure %v\n%s", err, tt.fails, report)
			}
			wantLine(t, report, tt.status, tt.check, tt.text)
			if tt.fix != "" && !strings.Contains(report, "→ ") || !strings.Contains(report, tt.fix) {
				t.Fatalf("the report does not say how to fix it (%q):\n%s", tt.fix, report)
			}
			if requests != tt.wantRequests {
				t.Fatalf("doctor made %d YNAB requests; want %d\n%s", requests, tt.wantRequests, report)
			}
		})
	}
}

// closedURL is a loopback URL where nothing listens.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}

// TestDoctorOverTheBinary: the real binary, with the token in YNAB_ACCESS_TOKEN_FILE and
// `avenir sandbox serve` as YNAB: exit 0 when good, 1 with the fix when the token is refused.
func TestDoctorOverTheBinary(t *testing.T) {
	env, dir := isolatedEnv(t, "XDG_CONFIG_HOME="+filepath.Join(t.TempDir(), "config"))
	sp := startSandbox(t, env, "--state", filepath.Join(dir, "s.json"), "--token", tokenFile)
	tokenPath := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenPath, []byte(tokenFile+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env = append(env, "AVENIR_MCP_YNAB_URL="+sp.url, "YNAB_ACCESS_TOKEN_FILE="+tokenPath)
	out, errOut, code := runBinary(t, env, "doctor")
	if code != 0 || !strings.Contains(out, "All good") {
		t.Fatalf("doctor: exit %d\n%s%s", code, out, errOut)
	}
	if err := os.WriteFile(tokenPath, []byte("revoked-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runBinary(t, env, "doctor")
	if code != 1 || !strings.Contains(out, "refused the token") || !strings.Contains(errOut, "1 problem(s)") {
		t.Fatalf("doctor with a revoked token: exit %d\n%s%s", code, out, errOut)
	}
}
