package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/journal/bolt"

	"github.com/avenir-mcp/avenir/internal/golden"
)

// cet is the time zone of the journal's golden tests.
var cet = time.FixedZone("CET", 60*60)

// testJournalCmd is `avenir journal` at 18:00 CET on 2026-11-28.
func testJournalCmd() journalCmd {
	return journalCmd{now: func() time.Time { return time.Date(2026, 11, 28, 18, 0, 0, 0, cet) }, loc: cet,
		entropy: rand.NewChaCha8([32]byte{'c', 'l', 'i'})}
}

const (
	planHome    = "6c9a1f2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"
	planHoliday = "f0e1d2c3-b4a5-4968-8776-655443322110"
)

// seeded names the operations seedJournal writes.
type seeded struct {
	budget, categorize, create, undo, flag, approve, move string
}

// seedJournal writes a journal as servers would, with a clock that starts at 14:00 CET and
// moves on a minute at each event.
func seedJournal(t *testing.T) (string, seeded) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "avenir", "journal.db")
	var mu sync.Mutex
	clock := time.Date(2026, 11, 28, 13, 0, 0, 0, time.UTC)
	j, err := bolt.Open(path, bolt.Options{
		Now: func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			clock = clock.Add(time.Minute)
			return clock
		},
		Entropy: rand.NewChaCha8([32]byte{'a', 'v', 'e', 'n', 'i', 'r'}),
	})
	if err != nil {
		t.Fatal(err)
	}
	claude := journal.Client{Name: "claude-ai", Version: "1.2.0"}
	prepare := func(d journal.Draft) string {
		t.Helper()
		if d.Client == (journal.Client{}) {
			d.Client = claude
		}
		op, err := j.Prepare(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		return op.ID
	}
	applied := func(id string, o journal.Outcome) {
		t.Helper()
		if _, err := j.Applied(t.Context(), id, o); err != nil {
			t.Fatal(err)
		}
	}
	var s seeded

	s.budget = prepare(journal.Draft{
		PlanID: planHome, Tool: "set_category_budget", Fingerprint: "b7f3c2",
		Subject: json.RawMessage(`{"category_id":"cat-restaurants","month":"2026-11-01"}`),
		Preview: "Set Restaurants to 120.00 for November 2026\n\n  Restaurants (Vrije tijd)  assigned 80.00 → 120.00\n  Ready to Assign           412.50 → 372.50",
		Changes: []journal.Change{{Kind: "month_category", ID: "cat-restaurants", Month: "2026-11-01", Label: "Restaurants, November 2026",
			Before: json.RawMessage(`{"budgeted":80000}`), After: json.RawMessage(`{"budgeted":120000}`)}},
		ConfirmedVia: "mrtr",
	})
	applied(s.budget, journal.Outcome{ServerKnowledge: 1234, Requests: 2})

	s.categorize = prepare(journal.Draft{
		PlanID: planHome, Tool: "apply_categories", Fingerprint: "9d01aa",
		Preview: "Categorize 3 transactions: Market → Dagelijks, Albert Heijn → Dagelijks, NS → Vervoer",
		Changes: []journal.Change{
			{Kind: "transaction", ID: "tx-market", Label: "2026-11-27 Market -86.40", Before: json.RawMessage(`{"category_id":null}`), After: json.RawMessage(`{"category_id":"cat-dagelijks"}`)},
			{Kind: "transaction", ID: "tx-ah", Label: "2026-11-26 Albert Heijn -23.15", Before: json.RawMessage(`{"category_id":null}`), After: json.RawMessage(`{"category_id":"cat-dagelijks"}`)},
			{Kind: "transaction", ID: "tx-ns", Label: "2026-11-25 NS -12.80", Before: json.RawMessage(`{"category_id":null}`), After: json.RawMessage(`{"category_id":"cat-vervoer"}`)},
		},
		ConfirmedVia: "elicit",
	})
	applied(s.categorize, journal.Outcome{ServerKnowledge: 1240, Requests: 1})

	s.create = prepare(journal.Draft{
		PlanID: planHome, Tool: "create_transactions", Fingerprint: "44e0b1",
		Preview: "Add 1 transaction to Betaalrekening\n\n  2026-11-28  Bakkerij de Zon (new payee)  -4.50  Dagelijks",
		Changes: []journal.Change{{Kind: "transaction", Label: "2026-11-28 Bakkerij de Zon -4.50",
			After: json.RawMessage(`{"amount":-4500,"category_id":"cat-dagelijks","date":"2026-11-28","payee_name":"Bakkerij de Zon"}`)}},
		ConfirmedVia: "code",
	})
	applied(s.create, journal.Outcome{
		Changes: []journal.Change{{Kind: "transaction", ID: "tx-bakkerij", Label: "2026-11-28 Bakkerij de Zon -4.50",
			After: json.RawMessage(`{"amount":-4500,"category_id":"cat-dagelijks","date":"2026-11-28","payee_name":"Bakkerij de Zon"}`)}},
		CreatedIDs: []string{"tx-bakkerij"}, ServerKnowledge: 1251, Requests: 1,
	})

	s.undo = prepare(journal.Draft{
		PlanID: planHome, Tool: "undo_operation", Fingerprint: "c0ffee",
		Preview: "Undo: set Restaurants back to 80.00 for November 2026",
		Changes: []journal.Change{{Kind: "month_category", ID: "cat-restaurants", Month: "2026-11-01", Label: "Restaurants, November 2026",
			Before: json.RawMessage(`{"budgeted":120000}`), After: json.RawMessage(`{"budgeted":80000}`)}},
		ConfirmedVia: "mrtr", UndoOf: s.budget,
	})
	applied(s.undo, journal.Outcome{ServerKnowledge: 1260, Requests: 2})

	s.flag = prepare(journal.Draft{
		PlanID: planHoliday, Tool: "flag_transactions", Fingerprint: "f1a900",
		Preview: "Flag 1 transaction red",
		Changes: []journal.Change{{Kind: "transaction", ID: "tx-hotel", Label: "2026-08-02 Hotel Sol -410.00",
			Before: json.RawMessage(`{"flag_color":null}`), After: json.RawMessage(`{"flag_color":"red"}`)}},
		ConfirmedVia: "mrtr",
	})
	if _, err := j.Failed(t.Context(), s.flag, "YNAB answered 429: too many requests; the limit resets in 12 minutes", 1); err != nil {
		t.Fatal(err)
	}

	s.approve = prepare(journal.Draft{
		PlanID: planHome, Tool: "approve_transactions", Fingerprint: "a99207",
		Preview: "Approve 2 transactions",
		Changes: []journal.Change{
			{Kind: "transaction", ID: "tx-gym", Label: "2026-11-20 Sportschool -35.00", Before: json.RawMessage(`{"approved":false}`), After: json.RawMessage(`{"approved":true}`)},
			{Kind: "transaction", ID: "tx-gone", Label: "2026-11-21 Kiosk -3.00", Before: json.RawMessage(`{"approved":false}`), After: json.RawMessage(`{"approved":true}`)},
		},
		ConfirmedVia: "none", Client: journal.Client{Name: "cursor", Version: "0.48"},
	})
	applied(s.approve, journal.Outcome{Partial: true, Note: "Sportschool was approved; Kiosk was deleted in YNAB meanwhile", ServerKnowledge: 1270, Requests: 2})

	s.move = prepare(journal.Draft{
		PlanID: planHoliday, Tool: "move_money", Fingerprint: "0a0b0c",
		Preview: "Move 50.00 from Vakantie to Restaurants for November 2026",
		Changes: []journal.Change{
			{Kind: "month_category", ID: "cat-vakantie", Month: "2026-11-01", Label: "Vakantie, November 2026", Before: json.RawMessage(`{"budgeted":300000}`), After: json.RawMessage(`{"budgeted":250000}`)},
			{Kind: "month_category", ID: "cat-restaurants-2", Month: "2026-11-01", Label: "Restaurants, November 2026", Before: json.RawMessage(`{"budgeted":0}`), After: json.RawMessage(`{"budgeted":50000}`)},
		},
		ConfirmedVia: "mrtr",
	})
	return path, s
}

// runJournalCLI runs `avenir journal ARGS` on the journal at path and returns stdout, stderr
// and the exit code.
func runJournalCLI(t *testing.T, path string, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := env{stdout: &stdout, stderr: &stderr, getenv: func(k string) string {
		if k == "AVENIR_MCP_JOURNAL" {
			return path
		}
		return ""
	}}
	code := exitCode(testJournalCmd().run(t.Context(), args, e), &stderr)
	return stdout.String(), stderr.String(), code
}

func TestJournalGolden(t *testing.T) {
	path, s := seedJournal(t)
	cases := []struct {
		name string
		args []string
	}{
		{"list", []string{"list"}},
		{"list_json", []string{"list", "--json"}},
		{"list_plan_applied_limit", []string{"list", "--plan", planHome, "--status", "applied", "--limit", "2"}},
		{"list_tool", []string{"list", "--tool", "undo_operation"}},
		{"list_since_duration", []string{"list", "--since", "3h50m"}},
		{"list_since_date", []string{"list", "--since", "2026-11-29"}},
		{"show_undone", []string{"show", s.budget}},
		{"show_undo", []string{"show", s.undo}},
		{"show_created", []string{"show", s.create}},
		{"show_failed", []string{"show", s.flag}},
		{"show_partial", []string{"show", s.approve}},
		{"show_prepared", []string{"show", s.move}},
		{"show_json", []string{"show", s.undo, "--json"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := runJournalCLI(t, path, c.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			journalGolden(t, c.name, stdout)
		})
	}
}

func journalGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "journal", name+".golden"), []byte(got))
}

// --json writes one whole operation a line, as the journal holds it.
func TestJournalListJSONLines(t *testing.T) {
	path, s := seedJournal(t)
	stdout, stderr, code := runJournalCLI(t, path, "list", "--json")
	if code != 0 {
		t.Fatalf("journal list --json: exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 7 {
		t.Fatalf("%d lines, want 7", len(lines))
	}
	var op journal.Operation
	if err := json.Unmarshal([]byte(lines[3]), &op); err != nil {
		t.Fatal(err)
	}
	if op.ID != s.undo || op.UndoOf != s.budget || len(op.Events) != 2 || len(op.Changes) != 1 {
		t.Errorf("line 4 reads back as %+v", op)
	}
}

func TestJournalNothingRecordedYet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "avenir")
	missing := filepath.Join(dir, "journal.db")
	for _, c := range []struct {
		name, stdout, stderr string
		args                 []string
	}{
		{"table", "nothing recorded yet\n", "", []string{"list"}},
		{"json", "", "nothing recorded yet\n", []string{"list", "--json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := runJournalCLI(t, missing, c.args...)
			if code != 0 || stdout != c.stdout || stderr != c.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q; want 0, %q, %q", code, stdout, stderr, c.stdout, c.stderr)
			}
		})
	}
	_, stderr, code := runJournalCLI(t, missing, "show", "01JD3Q6V5G8Y2ZQ4M7N9P0R1ST")
	if code != 1 || !strings.Contains(stderr, "nothing recorded yet") || !strings.Contains(stderr, missing) {
		t.Errorf("show: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Error("the CLI created the journal's directory")
	}

	empty := filepath.Join(t.TempDir(), "journal.db")
	if _, err := bolt.Open(empty, bolt.Options{}); err != nil {
		t.Fatal(err)
	}
	if stdout, _, _ := runJournalCLI(t, empty, "list"); stdout != "nothing recorded yet\n" {
		t.Errorf("an empty journal lists %q", stdout)
	}
	if stdout, _, _ := runJournalCLI(t, empty, "list", "--tool", "move_money"); stdout != "no operation matches\n" {
		t.Errorf("an empty journal, filtered, lists %q", stdout)
	}
}

func TestJournalNoMatch(t *testing.T) {
	path, _ := seedJournal(t)
	stdout, stderr, code := runJournalCLI(t, path, "list", "--plan", "no-such-plan")
	if code != 0 || stdout != "no operation matches\n" || stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestJournalErrors(t *testing.T) {
	path, _ := seedJournal(t)
	foreign := filepath.Join(t.TempDir(), "notes.db")
	if err := os.WriteFile(foreign, []byte(strings.Repeat("not a journal\n", 500)), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		path string
		args []string
		code int
		want []string
	}{
		{"no subcommand", path, nil, 2, []string{"say list, show or resolve"}},
		{"unknown subcommand", path, []string{"erase"}, 2, []string{`unknown command "erase"`}},
		{"unknown flag", path, []string{"list", "--verbose"}, 2, []string{"journal list", "-verbose"}},
		{"bad status", path, []string{"list", "--status", "done"}, 2, []string{`--status "done"`, "prepared, applied, partial or failed"}},
		{"bad since", path, []string{"list", "--since", "last week"}, 2, []string{`--since "last week"`, "2026-11-28", "24h"}},
		{"bad limit", path, []string{"list", "--limit", "0"}, 2, []string{"--limit must be 1 or more"}},
		{"stray argument", path, []string{"list", "applied"}, 2, []string{`unexpected "applied"`}},
		{"show without id", path, []string{"show"}, 2, []string{"give one operation id"}},
		{"show two ids", path, []string{"show", "a", "b"}, 2, []string{"give one operation id"}},
		{"unknown id", path, []string{"show", "01JD3Q6V5G8Y2ZQ4M7N9P0R1ST"}, 1, []string{"01JD3Q6V5G8Y2ZQ4M7N9P0R1ST", "not in the journal"}},
		{"not an id", path, []string{"show", "budget"}, 1, []string{`"budget"`, "not in the journal"}},
		{"foreign file", foreign, []string{"list"}, 1, []string{foreign, "not an avenir journal", "left untouched"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, err := os.ReadFile(c.path)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			stdout, stderr, code := runJournalCLI(t, c.path, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, c.code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not say %q", stderr, w)
				}
			}
			if c.code == 1 && stdout != "" {
				t.Errorf("stdout %q on an error", stdout)
			}
			if after, err := os.ReadFile(c.path); (err != nil && !errors.Is(err, os.ErrNotExist)) || !bytes.Equal(before, after) {
				t.Errorf("the CLI changed the file (%v)", err)
			}
		})
	}
}

func TestJournalHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"list", "--help"}, {"show", "-h"}, {"resolve", "--help"}} {
		stdout, _, code := runJournalCLI(t, "unused", args...)
		if code != 0 || !strings.Contains(stdout, "avenir journal list [flags]") {
			t.Errorf("%v: exit %d, stdout %q", args, code, stdout)
		}
	}
}

// The CLI reads the journal while a server writes to it.
func TestJournalWhileAServerWrites(t *testing.T) {
	path, _ := seedJournal(t)
	server, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			op, err := server.Prepare(t.Context(), journal.Draft{PlanID: planHome, Tool: "set_category_budget", Summary: "Set Restaurants", ConfirmedVia: "mrtr"})
			if err == nil {
				_, err = server.Applied(t.Context(), op.ID, journal.Outcome{Requests: 1})
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	})
	for range 20 {
		stdout, stderr, code := runJournalCLI(t, path, "list", "--limit", "50")
		if code != 0 || !strings.HasPrefix(stdout, "ID ") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	}
	close(stop)
	wg.Wait()
}

// seedCutImports adds to the journal at path two imports a crash cut off (prepared, no change
// known), written by a server that is gone, at 15:01 and 15:02 CET.
func seedCutImports(t *testing.T, path string) (first, second string) {
	t.Helper()
	clock := time.Date(2026, 11, 28, 14, 0, 0, 0, time.UTC)
	crashed, err := bolt.Open(path, bolt.Options{
		Now:     func() time.Time { clock = clock.Add(time.Minute); return clock },
		Entropy: rand.NewChaCha8([32]byte{'i', 'm', 'p', 'o', 'r', 't'}),
	})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for range 2 {
		op, err := crashed.Prepare(t.Context(), journal.Draft{PlanID: planHome, Tool: "import_transactions", Summary: "Import transactions from linked accounts?",
			Subject: json.RawMessage(`{"linked_account_ids":["acc-betaal"]}`), ConfirmedVia: "none", Client: journal.Client{Name: "claude-ai", Version: "1.2.0"}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, op.ID)
	}
	return ids[0], ids[1]
}

// journal resolve records the person's decision about a cut-off import, and list, show and
// --json show it.
func TestJournalResolveGolden(t *testing.T) {
	path, _ := seedJournal(t)
	first, second := seedCutImports(t, path)
	steps := []struct {
		name string
		args []string
	}{
		{"show_cut_import", []string{"show", first}},
		{"resolve_applied", []string{"resolve", first, "applied"}},
		{"resolve_not_applied_json", []string{"resolve", "--json", second, "not-applied"}},
		{"show_resolved", []string{"show", first}},
		{"show_resolved_not_applied", []string{"show", second}},
		{"list_resolved", []string{"list", "--limit", "3"}},
		{"list_resolved_json", []string{"list", "--json", "--tool", "import_transactions"}},
	}
	for _, st := range steps {
		stdout, stderr, code := runJournalCLI(t, path, st.args...)
		if code != 0 || stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", st.name, code, stderr)
		}
		journalGolden(t, st.name, stdout)
	}
}

// resolve refuses, and records nothing, for everything but a cut-off import it can decide.
func TestJournalResolveRefusals(t *testing.T) {
	path, s := seedJournal(t)
	cut, _ := seedCutImports(t, path)
	cases := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"no arguments", []string{"resolve"}, 2, []string{"give an operation id and what you found in YNAB: applied or not-applied"}},
		{"no decision", []string{"resolve", cut}, 2, []string{"give an operation id and what you found"}},
		{"an unknown decision", []string{"resolve", cut, "yes"}, 2, []string{`"yes" is neither applied`, "not-applied"}},
		{"the decision's other spelling", []string{"resolve", cut, "not_applied"}, 2, []string{`"not_applied" is neither applied`}},
		{"an applied operation", []string{"resolve", s.budget, "not-applied"}, 1, []string{s.budget, "is applied: its outcome is already recorded, so there is nothing to resolve"}},
		{"a failed operation", []string{"resolve", s.flag, "applied"}, 1, []string{"is failed: its outcome is already recorded"}},
		{"a prepared operation recovery settles", []string{"resolve", s.move, "applied"}, 1,
			[]string{s.move, "(move_money) recorded its 2 change(s) before YNAB was called", "avenir settles it itself", "the next avenir server to start reads YNAB"}},
		{"an unknown id", []string{"resolve", "01JD3Q6V5G8Y2ZQ4M7N9P0R1ST", "applied"}, 1, []string{"01JD3Q6V5G8Y2ZQ4M7N9P0R1ST", "not in the journal"}},
		{"not an id", []string{"resolve", "import", "applied"}, 1, []string{`"import"`, "an operation id is 26 letters and digits"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := runJournalCLI(t, path, c.args...)
			if code != c.code || stdout != "" {
				t.Errorf("exit %d, stdout %q; want %d and nothing (stderr %q)", code, stdout, c.code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not say %q", stderr, w)
				}
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Error("a refused resolve changed the journal")
			}
		})
	}

	missing := filepath.Join(t.TempDir(), "avenir", "journal.db")
	_, stderr, code := runJournalCLI(t, missing, "resolve", cut, "applied")
	if code != 1 || !strings.Contains(stderr, "nothing recorded yet") || !strings.Contains(stderr, missing) {
		t.Errorf("no journal: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
		t.Error("resolve created a journal's directory where there was none")
	}
}

// resolve works while a server writes to the same journal: each opens it only for a moment.
func TestJournalResolveWhileAServerWrites(t *testing.T) {
	path, _ := seedJournal(t)
	first, second := seedCutImports(t, path)
	server, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			op, err := server.Prepare(t.Context(), journal.Draft{PlanID: planHome, Tool: "set_category_budget", Summary: "Set Restaurants", ConfirmedVia: "mrtr"})
			if err == nil {
				_, err = server.Applied(t.Context(), op.ID, journal.Outcome{Requests: 1})
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	})
	for _, r := range []struct{ id, decision, status string }{{first, "applied", "applied"}, {second, "not-applied", "failed"}} {
		stdout, stderr, code := runJournalCLI(t, path, "resolve", r.id, r.decision)
		if code != 0 || !strings.Contains(stdout, "is "+r.status+", as you decided") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	}
	close(stop)
	wg.Wait()
	for _, r := range []struct {
		id     string
		status journal.Status
	}{{first, journal.StatusApplied}, {second, journal.StatusFailed}} {
		op, err := server.Get(t.Context(), r.id)
		if err != nil {
			t.Fatal(err)
		}
		if op.Status != r.status || op.ResolvedBy != resolvedBy {
			t.Errorf("%s reads %s by %q from the server, want %s by %q", r.id, op.Status, op.ResolvedBy, r.status, resolvedBy)
		}
	}
}
