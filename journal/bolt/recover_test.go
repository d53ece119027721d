package bolt

import (
	"context"
	"errors"
	"github.com/avenir-mcp/avenir/journal"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fakeChecker answers as YNAB would have, from a table; it remembers what it was asked.
type fakeChecker struct {
	mu      sync.Mutex
	answers map[string]answer
	asked   []string
}

type answer struct {
	applied bool
	err     error
	// landed, when set, gives each change's outcome instead of applied: true is applied.
	landed []bool
}

func (f *fakeChecker) Check(_ context.Context, op journal.Operation) ([]journal.Change, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, op.ID)
	a, ok := f.answers[op.ID]
	if !ok {
		return nil, errors.New("the test has no answer for " + op.ID)
	}
	if a.err != nil {
		return nil, a.err
	}
	if a.landed == nil {
		return outcomes(op.Changes, a.applied), nil
	}
	cs := slices.Clone(op.Changes)
	for i := range cs {
		cs[i].Outcome = journal.OutcomeNotApplied
		if a.landed[i] {
			cs[i].Outcome = journal.OutcomeApplied
		}
	}
	return cs, nil
}

// outcomes returns cs, each marked applied or not.
func outcomes(cs []journal.Change, applied bool) []journal.Change {
	o := journal.OutcomeNotApplied
	if applied {
		o = journal.OutcomeApplied
	}
	return withOutcome(cs, o)
}

// A server killed between Prepare and the outcome leaves operations prepared; the next
// server start resolves each from what YNAB shows, both ways, and keeps the undecided ones.
func TestRecover(t *testing.T) {
	crashed, path := openTest(t)
	target := mustPrepare(t, crashed, testDraft("plan-1", "set_category_budget"))
	mustApplied(t, crashed, target.ID, journal.Outcome{Requests: 1})
	written := mustPrepare(t, crashed, testDraft("plan-1", "set_category_budget"))
	notWritten := mustPrepare(t, crashed, testDraft("plan-1", "flag_transactions"))
	unknown := mustPrepare(t, crashed, testDraft("plan-1", "apply_categories"))
	undo := testDraft("plan-1", "undo_operation")
	undo.UndoOf = target.ID
	undoWritten := mustPrepare(t, crashed, undo)
	// crashed is never used again: its operations' writer is gone.

	restarted, err := Open(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	checker := &fakeChecker{answers: map[string]answer{
		written.ID:     {applied: true},
		notWritten.ID:  {applied: false},
		unknown.ID:     {err: errors.New("YNAB answered 503")},
		undoWritten.ID: {applied: true},
	}}
	ops, err := restarted.Recover(context.Background(), checker)
	if err == nil || !strings.Contains(err.Error(), unknown.ID) || !strings.Contains(err.Error(), "YNAB answered 503") {
		t.Errorf("error = %v, want one that names %s and why it stays prepared", err, unknown.ID)
	}
	if len(ops) != 3 {
		t.Errorf("Recover returned %d operations, want the 3 it resolved", len(ops))
	}

	want := map[string]struct {
		status journal.Status
		error  string
	}{
		written.ID:     {journal.StatusApplied, ""},
		notWritten.ID:  {journal.StatusFailed, notApplied},
		unknown.ID:     {journal.StatusPrepared, ""},
		undoWritten.ID: {journal.StatusApplied, ""},
	}
	for id, w := range want {
		op, err := restarted.Get(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if op.Status != w.status || op.Error != w.error {
			t.Errorf("%s: %s %q, want %s %q", op.Tool, op.Status, op.Error, w.status, w.error)
		}
		if w.status != journal.StatusPrepared && op.Events[len(op.Events)-1].Type != "recovered" {
			t.Errorf("%s: last event %s, want recovered", op.Tool, op.Events[len(op.Events)-1].Type)
		}
	}
	if got := mustGet(t, restarted, target.ID); got.UndoneBy != undoWritten.ID {
		t.Errorf("the recovered undo did not mark its target undone: undone by %q", got.UndoneBy)
	}
	if !strings.HasPrefix(notApplied, "not applied: ") {
		t.Errorf("the error of an operation YNAB does not have is %q", notApplied)
	}
	replay(t, path)

	// The undecided one is asked again at the next start, and only it.
	checker.asked = nil
	checker.answers[unknown.ID] = answer{applied: false}
	if _, err := restarted.Recover(context.Background(), checker); err != nil {
		t.Fatal(err)
	}
	if len(checker.asked) != 1 || checker.asked[0] != unknown.ID {
		t.Errorf("asked about %v, want only %s", checker.asked, unknown.ID)
	}
}

// A Journal does not recover its own writes in flight.
func TestRecoverLeavesOwnWritesAlone(t *testing.T) {
	j, _ := openTest(t)
	op := mustPrepare(t, j, testDraft("plan-1", "set_category_budget"))
	checker := &fakeChecker{answers: map[string]answer{op.ID: {applied: false}}}
	ops, err := j.Recover(context.Background(), checker)
	if err != nil || len(ops) != 0 || len(checker.asked) != 0 {
		t.Errorf("Recover touched an operation being written: %v, %v, asked %v", ops, err, checker.asked)
	}
	mustApplied(t, j, op.ID, journal.Outcome{Requests: 1})
}

// Another running process's writes in flight are left to it; once that process is gone
// without recording the outcome, they are recovered.
func TestRecoverWaitsForLiveWriters(t *testing.T) {
	j, path := openTest(t)
	c := startChild(t, "hold", path)
	reported := newReport()
	line := c.line(1) // the operation it prepared
	if line == "" {
		lines, err := c.wait()
		t.Fatalf("the child stopped: %v %q\n%s", err, lines, c.stderr.String())
	}
	reported.add(t, []string{line})
	var id string
	for _, op := range reported.events {
		id = op
	}
	checker := &fakeChecker{answers: map[string]answer{id: {applied: true}}}

	ops, err := j.Recover(context.Background(), checker)
	if err != nil || len(ops) != 0 || len(checker.asked) != 0 {
		t.Errorf("Recover touched the operation of a live process: %v, %v, asked %v", ops, err, checker.asked)
	}

	if err := c.stdin.Close(); err != nil { // the child exits without recording the outcome
		t.Fatal(err)
	}
	if _, err := c.wait(); err != nil {
		t.Fatalf("the child failed: %v\n%s", err, c.stderr.String())
	}
	ops, err = j.Recover(context.Background(), checker)
	if err != nil || len(ops) != 1 || ops[0].ID != id || ops[0].Status != journal.StatusApplied {
		t.Errorf("after the writer stopped, Recover = %v, %v; want %s applied", ops, err, id)
	}
}

func TestRecoverStopsWhenCancelled(t *testing.T) {
	crashed, path := openTest(t)
	op := mustPrepare(t, crashed, testDraft("plan-1", "set_category_budget"))
	restarted, err := Open(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = restarted.Recover(ctx, &fakeChecker{answers: map[string]answer{op.ID: {applied: true}}})
	wantErr(t, err, context.Canceled)
	if got := mustGet(t, restarted, op.ID); got.Status != journal.StatusPrepared {
		t.Errorf("status = %s, want still prepared", got.Status)
	}
}
