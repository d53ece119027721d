package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/journal"
)

const byHand = "by the person, with avenir journal resolve"

// notApplied is what recovery records for an operation YNAB does not have.
const notApplied = "not applied: avenir stopped before YNAB answered, and YNAB does not have the change"

// An instance stopped between Prepare and the outcome leaves operations prepared; the next
// instance resolves each from what YNAB shows, both ways, and keeps the undecided ones.
func testRecover(t *testing.T, open Opener) {
	crashed := store(t, open)
	target := mustPrepare(t, crashed, Draft("plan-1", "set_category_budget"))
	mustApplied(t, crashed, target.ID, journal.Outcome{Requests: 1})
	written := mustPrepare(t, crashed, Draft("plan-1", "set_category_budget"))
	notWritten := mustPrepare(t, crashed, Draft("plan-2", "flag_transactions"))
	unknown := mustPrepare(t, crashed, Draft("plan-1", "apply_categories"))
	undo := Draft("plan-1", "undo_operation")
	undo.UndoOf = target.ID
	undoWritten := mustPrepare(t, crashed, undo)
	// crashed is never used again: its operations' writer is gone.

	restarted := store(t, open)
	checker := &FakeChecker{Answers: map[string]Answer{
		written.ID:     {Applied: true},
		notWritten.ID:  {Applied: false},
		unknown.ID:     {Err: errors.New("YNAB answered 503")},
		undoWritten.ID: {Applied: true},
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
		op := mustGet(t, restarted, id)
		if op.Status != w.status || op.Error != w.error {
			t.Errorf("%s: %s %q, want %s %q", op.Tool, op.Status, op.Error, w.status, w.error)
		}
		if w.status != journal.StatusPrepared && (op.Events[len(op.Events)-1].Type != "recovered" || !op.ReadBack) {
			t.Errorf("%s: last event %s (read back %v), want recovered", op.Tool, op.Events[len(op.Events)-1].Type, op.ReadBack)
		}
	}
	if got := mustGet(t, restarted, target.ID); got.UndoneBy != undoWritten.ID {
		t.Errorf("the recovered undo did not mark its target undone: undone by %q", got.UndoneBy)
	}

	// The undecided one is asked again at the next start, and only it.
	checker = &FakeChecker{Answers: map[string]Answer{unknown.ID: {Applied: false}}}
	if _, err := store(t, open).Recover(context.Background(), checker); err != nil {
		t.Fatal(err)
	}
	if asked := checker.asked(); len(asked) != 1 || asked[0] != unknown.ID {
		t.Errorf("asked about %v, want only %s", asked, unknown.ID)
	}
	if pending, err := restarted.Pending(context.Background()); err != nil || len(pending) != 0 {
		t.Errorf("still pending: %v, %v", pending, err)
	}
}

// An instance does not recover its own writes in flight.
func testRecoverOwnWrites(t *testing.T, open Opener) {
	s := store(t, open)
	op := mustPrepare(t, s, Draft("plan-1", "set_category_budget"))
	checker := &FakeChecker{Answers: map[string]Answer{op.ID: {Applied: false}}}
	ops, err := s.Recover(context.Background(), checker)
	if err != nil || len(ops) != 0 || len(checker.asked()) != 0 {
		t.Errorf("Recover touched an operation being written: %v, %v, asked %v", ops, err, checker.asked())
	}
	mustApplied(t, s, op.ID, journal.Outcome{Requests: 1})
}

func testRecoverCancelled(t *testing.T, open Opener) {
	op := mustPrepare(t, store(t, open), Draft("plan-1", "set_category_budget"))
	restarted := store(t, open)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := restarted.Recover(ctx, &FakeChecker{Answers: map[string]Answer{op.ID: {Applied: true}}})
	wantErr(t, err, context.Canceled)
	if got := mustGet(t, restarted, op.ID); got.Status != journal.StatusPrepared {
		t.Errorf("status = %s, want still prepared", got.Status)
	}
}

// Recovery records each change's outcome: a move cut in half by a crash is partial.
func testRecoverPartial(t *testing.T, open Opener) {
	d := Draft("plan-1", "move_money")
	d.Changes = append(d.Changes, journal.Change{Kind: journal.KindMonthCategory, ID: "cat-vakantie", Month: "2026-11-01", Label: "Vakantie, November 2026",
		Before: json.RawMessage(`{"budgeted":300000}`), After: json.RawMessage(`{"budgeted":260000}`)})
	half := mustPrepare(t, store(t, open), d)
	if half.Changes[0].Outcome != journal.OutcomeUnknown || half.Changes[1].Outcome != journal.OutcomeUnknown {
		t.Fatalf("a prepared operation's changes read %q, %q; want unknown", half.Changes[0].Outcome, half.Changes[1].Outcome)
	}
	restarted := store(t, open)
	checker := &FakeChecker{Answers: map[string]Answer{half.ID: {Landed: []bool{true, false}}}}
	if _, err := restarted.Recover(context.Background(), checker); err != nil {
		t.Fatal(err)
	}
	op := mustGet(t, restarted, half.ID)
	if op.Status != journal.StatusPartial || op.Changes[0].Outcome != journal.OutcomeApplied || op.Changes[1].Outcome != journal.OutcomeNotApplied || !op.ReadBack {
		t.Fatalf("recovered as %s with %q, %q; want partial: applied, not_applied", op.Status, op.Changes[0].Outcome, op.Changes[1].Outcome)
	}
	// Resolve refuses an outcome that is still unknown: recovery records only what it read.
	again := mustPrepare(t, restarted, Draft("plan-1", "set_category_budget"))
	if _, err := restarted.Resolve(context.Background(), again.ID, again.Changes); err == nil {
		t.Fatal("Resolve recorded changes whose outcome is unknown")
	}
	// Resolving what another writer settled first returns it as that writer left it.
	mustApplied(t, restarted, again.ID, journal.Outcome{Requests: 1})
	got, err := store(t, open).Resolve(context.Background(), again.ID, withOutcome(again.Changes, journal.OutcomeNotApplied))
	if err != nil || got.Status != journal.StatusApplied || len(got.Events) != 2 {
		t.Errorf("Resolve of a settled operation = %s with %d events, %v; want it applied as it was", got.Status, len(got.Events), err)
	}
}

// An import a crash cut off is resolved by the person's decision, recorded as an event that
// says how it was decided.
func testResolveByHand(t *testing.T, open Opener) {
	for _, tt := range []struct {
		name    string
		applied bool
		status  journal.Status
	}{
		{"applied", true, journal.StatusApplied},
		{"not applied", false, journal.StatusFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			crashed := store(t, open)
			cut := mustPrepare(t, crashed, ImportDraft("plan-1"))
			cli := store(t, open)
			op, err := cli.ResolveByHand(context.Background(), cut.ID, tt.applied, byHand)
			if err != nil {
				t.Fatal(err)
			}
			if op.Status != tt.status || op.ResolvedBy != byHand || op.ReadBack || len(op.Changes) != 0 {
				t.Fatalf("resolved as %s by %q (read back %v, %d changes); want %s by %q", op.Status, op.ResolvedBy, op.ReadBack, len(op.Changes), tt.status, byHand)
			}
			if tt.applied && op.Note != "applied, as decided "+byHand+"; what it changed in YNAB is not recorded" ||
				!tt.applied && op.Error != "not applied, as decided "+byHand {
				t.Errorf("note %q, error %q", op.Note, op.Error)
			}
			last := op.Events[len(op.Events)-1]
			var data struct{ Decision, By string }
			if err := json.Unmarshal(last.Data, &data); err != nil {
				t.Fatal(err)
			}
			want := journal.OutcomeNotApplied
			if tt.applied {
				want = journal.OutcomeApplied
			}
			if last.Type != "resolved" || data.Decision != want || data.By != byHand {
				t.Errorf("last event %s %s", last.Type, last.Data)
			}
			if got := mustGet(t, crashed, cut.ID); got.Status != tt.status || got.ResolvedBy != byHand {
				t.Errorf("read back as %s by %q", got.Status, got.ResolvedBy)
			}
			if pending, err := crashed.Pending(context.Background()); err != nil || len(pending) != 0 {
				t.Errorf("still pending: %v, %v", pending, err)
			}
			if _, err := cli.ResolveByHand(context.Background(), cut.ID, !tt.applied, byHand); !errors.Is(err, journal.ErrNotPrepared) {
				t.Errorf("a second decision: %v, want ErrNotPrepared", err)
			}
		})
	}
}

// Only what recovery cannot settle is resolved by hand; everything else is refused and nothing
// is recorded.
func testResolveByHandRefusals(t *testing.T, open Opener) {
	s := store(t, open)
	cli := store(t, open)
	done := mustPrepare(t, s, ImportDraft("plan-1"))
	mustApplied(t, s, done.ID, journal.Outcome{Requests: 2})
	// Prepared by s, these are s's writes in flight; to cli (another instance) their writer is
	// gone, as after a restart.
	checkable := mustPrepare(t, s, Draft("plan-1", "set_category_budget"))
	ownWrite := mustPrepare(t, s, ImportDraft("plan-1"))

	for _, tt := range []struct {
		name string
		by   journal.Store
		id   string
		want error
	}{
		{"an applied operation", cli, done.ID, journal.ErrNotPrepared},
		{"one whose changes a read of YNAB can check", cli, checkable.ID, journal.ErrSelfSettling},
		{"one this instance is still writing", s, ownWrite.ID, journal.ErrWriting},
		{"an unknown operation", cli, "01JD3Q6V5G8Y2ZQ4M7N9P0R1ST", journal.ErrNotFound},
		{"not an id", cli, "import", journal.ErrNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := eventCount(t, s)
			_, err := tt.by.ResolveByHand(context.Background(), tt.id, true, byHand)
			wantErr(t, err, tt.want)
			if after := eventCount(t, s); after != before {
				t.Errorf("%d events recorded by a refusal", after-before)
			}
		})
	}
	if _, err := cli.ResolveByHand(context.Background(), ownWrite.ID, true, ""); err == nil {
		t.Error("a decision that does not say how it was made was recorded")
	}
	if got := mustGet(t, s, ownWrite.ID); got.Status != journal.StatusPrepared {
		t.Errorf("the import is %s after the refusals, want still prepared", got.Status)
	}
}
