package bolt

import (
	"bytes"
	"encoding/json"
	"github.com/avenir-mcp/avenir/journal"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"
)

func TestWriteAhead(t *testing.T) {
	created := []journal.Change{{Kind: journal.KindTransaction, ID: "tx-new", Label: "2026-11-28 Market -86.40", After: json.RawMessage(`{"amount":-86400}`)}}
	two := func(a, b string) []journal.Change {
		return []journal.Change{
			{Kind: journal.KindMonthCategory, ID: "cat-a", Month: "2026-11-01", Label: "A", Outcome: a},
			{Kind: journal.KindMonthCategory, ID: "cat-b", Month: "2026-11-01", Label: "B", Outcome: b},
		}
	}
	cases := []struct {
		name   string
		settle func(j *Journal, id string) (journal.Operation, error)
		want   func(op *journal.Operation)
		event  string
	}{
		{"applied", func(j *Journal, id string) (journal.Operation, error) {
			return j.Applied(t.Context(), id, journal.Outcome{CreatedIDs: []string{"tx-new"}, ServerKnowledge: 42, Requests: 2})
		}, func(op *journal.Operation) {
			op.Status, op.CreatedIDs, op.ServerKnowledge, op.Requests = journal.StatusApplied, []string{"tx-new"}, 42, 2
			op.Changes = withOutcome(op.Changes, journal.OutcomeApplied)
		}, "applied"},
		{"applied with the ids YNAB gave", func(j *Journal, id string) (journal.Operation, error) {
			return j.Applied(t.Context(), id, journal.Outcome{Changes: created, Requests: 1})
		}, func(op *journal.Operation) {
			op.Status, op.Changes, op.Requests = journal.StatusApplied, withOutcome(created, journal.OutcomeApplied), 1
		}, "applied"},
		{"partial, as journals before per-change outcomes wrote it", func(j *Journal, id string) (journal.Operation, error) {
			return j.Applied(t.Context(), id, journal.Outcome{Partial: true, Note: "the flags were set; the categories were not", Requests: 3})
		}, func(op *journal.Operation) {
			op.Status, op.Note, op.Requests = journal.StatusPartial, "the flags were set; the categories were not", 3
			op.Changes = withOutcome(op.Changes, journal.OutcomeUnknown)
		}, "applied"},
		{"partial, change by change", func(j *Journal, id string) (journal.Operation, error) {
			return j.Applied(t.Context(), id, journal.Outcome{Changes: two(journal.OutcomeApplied, journal.OutcomeNotApplied), Error: "B: YNAB answered 500", Requests: 2})
		}, func(op *journal.Operation) {
			op.Status, op.Changes, op.Error, op.Requests = journal.StatusPartial, two(journal.OutcomeApplied, journal.OutcomeNotApplied), "B: YNAB answered 500", 2
		}, "applied"},
		{"all applied, change by change", func(j *Journal, id string) (journal.Operation, error) {
			return j.Applied(t.Context(), id, journal.Outcome{Changes: two(journal.OutcomeApplied, journal.OutcomeApplied), ReadBack: true, Requests: 3})
		}, func(op *journal.Operation) {
			op.Status, op.Changes, op.ReadBack, op.Requests = journal.StatusApplied, two(journal.OutcomeApplied, journal.OutcomeApplied), true, 3
		}, "applied"},
		{"failed", func(j *Journal, id string) (journal.Operation, error) {
			return j.Failed(t.Context(), id, "YNAB refused the token", 1)
		}, func(op *journal.Operation) {
			op.Status, op.Error, op.Requests = journal.StatusFailed, "YNAB refused the token", 1
			op.Changes = withOutcome(op.Changes, journal.OutcomeNotApplied)
		}, "failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j, path := openTest(t)
			prepared := mustPrepare(t, j, testDraft("plan-1", "set_category_budget"))
			if prepared.Status != journal.StatusPrepared {
				t.Fatalf("status after Prepare = %s", prepared.Status)
			}
			if stored, err := j.Get(t.Context(), prepared.ID); err != nil || !reflect.DeepEqual(stored, prepared) {
				t.Fatalf("before YNAB is called the journal holds %+v, %v; want %+v", stored, err, prepared)
			}
			got, err := c.settle(j, prepared.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := prepared
			c.want(&want)
			want.Events = got.Events
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
			wantTypes := []string{"prepared", c.event}
			if types := eventTypes(got); !reflect.DeepEqual(types, wantTypes) {
				t.Errorf("events = %v, want %v", types, wantTypes)
			}
			if stored, err := j.Get(t.Context(), got.ID); err != nil || !reflect.DeepEqual(stored, got) {
				t.Errorf("Get = %+v, %v; want what was returned: %+v", stored, err, got)
			}
			replay(t, path)
		})
	}
}

func eventTypes(op journal.Operation) []string {
	var types []string
	for _, ev := range op.Events {
		types = append(types, ev.Type)
	}
	return types
}

func TestPrepareRecordsTheDraft(t *testing.T) {
	j, _ := openTest(t)
	d := testDraft("plan-1", "set_category_budget")
	d.Summary = ""
	d.Changes = append(d.Changes, journal.Change{Kind: journal.KindTransaction, Label: "new", Before: json.RawMessage("null"), After: json.RawMessage(`{"amount": 1000}`)})
	op := mustPrepare(t, j, d)
	if op.Summary != "Set Restaurants to 120.00 for November 2026" {
		t.Errorf("summary = %q, want the preview's first line", op.Summary)
	}
	if string(op.Subject) != `{"category":"cat-restaurants","month":"2026-11-01"}` {
		t.Errorf("subject = %s", op.Subject)
	}
	if op.Changes[1].Before != nil || string(op.Changes[1].After) != `{"amount":1000}` {
		t.Errorf("a create reads back as before %s, after %s", op.Changes[1].Before, op.Changes[1].After)
	}
	if string(d.Changes[1].Before) != "null" || string(d.Changes[1].After) != `{"amount": 1000}` {
		t.Errorf("Prepare changed the caller's changes: %s, %s", d.Changes[1].Before, d.Changes[1].After)
	}
	if op.Preview != d.Preview || op.Fingerprint != "fp-1" || op.ConfirmedVia != "mrtr" || op.Client != d.Client || op.PlanID != "plan-1" {
		t.Errorf("the draft was not recorded as given: %+v", op)
	}
	if !op.Time.Equal(time.Date(2026, 11, 28, 14, 3, 0, 0, time.UTC)) {
		t.Errorf("time = %v, want the clock's", op.Time)
	}
}

func TestPrepareRefusesBadDrafts(t *testing.T) {
	cases := []struct {
		name   string
		change func(d *journal.Draft)
		want   string
	}{
		{"no plan", func(d *journal.Draft) { d.PlanID = "" }, "names no plan"},
		{"no tool", func(d *journal.Draft) { d.Tool = "" }, "names no tool"},
		{"unknown confirmation", func(d *journal.Draft) { d.ConfirmedVia = "nod" }, `confirmation "nod"`},
		{"nothing to show", func(d *journal.Draft) { d.Summary, d.Preview = "", "" }, "neither a summary nor a preview"},
		{"bad subject", func(d *journal.Draft) { d.Subject = json.RawMessage(`{"a":`) }, "subject: not valid JSON"},
		{"change without kind", func(d *journal.Draft) { d.Changes[0].Kind = "" }, "change 1 has no kind"},
		{"before not an object", func(d *journal.Draft) { d.Changes[0].Before = json.RawMessage(`80000`) }, "before: not a JSON object"},
		{"undo of an unknown operation", func(d *journal.Draft) { d.UndoOf = "01JD3Q6V5G8Y2ZQ4M7N9P0R1ST" }, "not in the journal"},
		{"undo of a malformed id", func(d *journal.Draft) { d.UndoOf = "42" }, "not in the journal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j, path := openTest(t)
			before := fileState(t, path)
			d := testDraft("plan-1", "set_category_budget")
			c.change(&d)
			_, err := j.Prepare(t.Context(), d)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want one that says %q", err, c.want)
			}
			if fileState(t, path) != before {
				t.Error("a refused draft changed the journal")
			}
		})
	}
}

func TestOutcomeOnlyOnce(t *testing.T) {
	j, _ := openTest(t)
	op := mustPrepare(t, j, testDraft("plan-1", "set_category_budget"))
	mustApplied(t, j, op.ID, journal.Outcome{Requests: 1})

	_, err := j.Applied(t.Context(), op.ID, journal.Outcome{Requests: 1})
	wantErr(t, err, journal.ErrNotPrepared)
	_, err = j.Failed(t.Context(), op.ID, "timeout", 1)
	wantErr(t, err, journal.ErrNotPrepared)
	got, err := j.Get(t.Context(), op.ID)
	if err != nil || got.Status != journal.StatusApplied || len(got.Events) != 2 {
		t.Errorf("after refused outcomes: %s with %d events, %v", got.Status, len(got.Events), err)
	}
}

func TestUnknownIDs(t *testing.T) {
	j, _ := openTest(t)
	for _, id := range []string{"01JD3Q6V5G8Y2ZQ4M7N9P0R1ST", "not-an-id", ""} {
		_, err := j.Get(t.Context(), id)
		wantErr(t, err, journal.ErrNotFound)
		_, err = j.Applied(t.Context(), id, journal.Outcome{})
		wantErr(t, err, journal.ErrNotFound)
		_, err = j.Failed(t.Context(), id, "x", 0)
		wantErr(t, err, journal.ErrNotFound)
	}
}

func TestUndo(t *testing.T) {
	j, path := openTest(t)
	orig := mustPrepare(t, j, testDraft("plan-1", "set_category_budget"))
	mustApplied(t, j, orig.ID, journal.Outcome{Requests: 1})

	undo := testDraft("plan-1", "undo_operation")
	undo.UndoOf = orig.ID
	u := mustPrepare(t, j, undo)

	// While the undo's outcome is unknown, nobody else may undo the same operation.
	_, err := j.Prepare(t.Context(), undo)
	if err == nil || !strings.Contains(err.Error(), "already being undone by "+u.ID) {
		t.Fatalf("a second undo in flight: error = %v", err)
	}
	if got := mustGet(t, j, orig.ID); got.UndoneBy != "" {
		t.Fatalf("undone by %s before the undo was applied", got.UndoneBy)
	}

	u = mustApplied(t, j, u.ID, journal.Outcome{Requests: 1})
	if u.UndoOf != orig.ID {
		t.Errorf("undo of %q, want %s", u.UndoOf, orig.ID)
	}
	got, err := j.Get(t.Context(), orig.ID)
	if err != nil || got.UndoneBy != u.ID || got.Status != journal.StatusApplied {
		t.Fatalf("original after undo: undone by %q, %s, %v", got.UndoneBy, got.Status, err)
	}
	if types := eventTypes(got); !reflect.DeepEqual(types, []string{"prepared", "applied", "undone"}) {
		t.Errorf("original's events = %v", types)
	}

	_, err = j.Prepare(t.Context(), undo)
	wantErr(t, err, journal.ErrAlreadyUndone)

	// Undoing the undo redoes; the redo is an operation like any other.
	redo := testDraft("plan-1", "undo_operation")
	redo.UndoOf = u.ID
	r := mustPrepare(t, j, redo)
	mustApplied(t, j, r.ID, journal.Outcome{Requests: 1})
	if got := mustGet(t, j, u.ID); got.UndoneBy != r.ID {
		t.Errorf("the undo is undone by %q, want %s", got.UndoneBy, r.ID)
	}
	replay(t, path)
}

func TestUndoThatFailedLeavesTheTargetUndoable(t *testing.T) {
	j, _ := openTest(t)
	orig := mustPrepare(t, j, testDraft("plan-1", "set_category_budget"))
	mustApplied(t, j, orig.ID, journal.Outcome{Requests: 1})
	undo := testDraft("plan-1", "undo_operation")
	undo.UndoOf = orig.ID
	u := mustPrepare(t, j, undo)
	if _, err := j.Failed(t.Context(), u.ID, "YNAB is down", 1); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, j, orig.ID); got.UndoneBy != "" {
		t.Errorf("a failed undo marked the original undone by %s", got.UndoneBy)
	}
	u2 := mustPrepare(t, j, undo)
	mustApplied(t, j, u2.ID, journal.Outcome{Requests: 1})
	if got := mustGet(t, j, orig.ID); got.UndoneBy != u2.ID {
		t.Errorf("undone by %q, want %s", got.UndoneBy, u2.ID)
	}
}

func TestOnlyAppliedOperationsCanBeUndone(t *testing.T) {
	j, _ := openTest(t)
	prepared := mustPrepare(t, j, testDraft("plan-1", "set_category_budget"))
	failed := mustPrepare(t, j, testDraft("plan-1", "set_category_budget"))
	if _, err := j.Failed(t.Context(), failed.ID, "no", 1); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{prepared.ID: "is prepared", failed.ID: "is failed"} {
		undo := testDraft("plan-1", "undo_operation")
		undo.UndoOf = id
		_, err := j.Prepare(t.Context(), undo)
		if err == nil || !strings.Contains(err.Error(), want+": only an applied operation can be undone") {
			t.Errorf("undo of %s: error = %v", want, err)
		}
	}
}

// The same operation cannot be linked as undone twice, even if two undos got past Prepare.
func TestSecondUndoneLinkIsRefused(t *testing.T) {
	j, _ := openTest(t)
	orig := mustPrepare(t, j, testDraft("plan-1", "set_category_budget"))
	mustApplied(t, j, orig.ID, journal.Outcome{Requests: 1})
	var second journal.Operation
	for i := range 2 {
		undo := testDraft("plan-1", "undo_operation")
		undo.UndoOf = orig.ID
		err := j.update(t.Context(), func(tx *bbolt.Tx) error { // past the checks of Prepare
			_, e, err := journal.PrepareEntry(undo)
			if err != nil {
				return err
			}
			op, err := j.prepare(tx, e)
			second = op
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			mustApplied(t, j, second.ID, journal.Outcome{Requests: 1})
		}
	}
	_, err := j.Applied(t.Context(), second.ID, journal.Outcome{Requests: 1})
	wantErr(t, err, journal.ErrAlreadyUndone)
	if got := mustGet(t, j, second.ID); got.Status != journal.StatusPrepared {
		t.Errorf("the refused undo is %s, want still prepared", got.Status)
	}
}

// Events are appended, never rewritten: every event stored stays byte for byte as it was.
func TestEventsAreNeverRewritten(t *testing.T) {
	j, path := openTest(t)
	a := mustPrepare(t, j, testDraft("plan-1", "set_category_budget"))
	mustApplied(t, j, a.ID, journal.Outcome{Requests: 1})
	first := events(t, path)

	undo := testDraft("plan-1", "undo_operation")
	undo.UndoOf = a.ID
	u := mustPrepare(t, j, undo)
	mustApplied(t, j, u.ID, journal.Outcome{Requests: 1})
	b := mustPrepare(t, j, testDraft("plan-2", "flag_transactions"))
	if _, err := j.Failed(t.Context(), b.ID, "no", 0); err != nil {
		t.Fatal(err)
	}
	later := events(t, path)
	if len(later) != len(first)+5 {
		t.Fatalf("%d events, then %d: want 5 more", len(first), len(later))
	}
	for k, v := range first {
		if !bytes.Equal(later[k], v) {
			t.Errorf("event %s changed", idString([]byte(k)))
		}
	}
}

func events(t *testing.T, path string) map[string][]byte {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB(t, db)
	m := map[string][]byte{}
	err = db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketEvents).ForEach(func(k, v []byte) error {
			m[string(k)] = bytes.Clone(v)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Ids follow the order of commits even when the clock is set back.
func TestIDsFollowCommitsWhenTheClockGoesBack(t *testing.T) {
	c := newClock()
	c.step = -time.Minute
	j, err := Open(t.TempDir()+"/journal.db", Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for range 5 {
		ids = append(ids, mustPrepare(t, j, testDraft("plan-1", "set_category_budget")).ID)
	}
	ops, err := j.List(t.Context(), journal.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for i, op := range ops {
		if want := ids[len(ids)-1-i]; op.ID != want {
			t.Errorf("listing %d is %s, want %s (the %d-th written)", i, op.ID, want, len(ids)-i)
		}
	}
}

// Answered is recorded once, only after the outcome, and survives a reopen: it is how a retry
// is told from a new call.
func TestAnswered(t *testing.T) {
	j, path := openTest(t)
	op := mustPrepare(t, j, testDraft("plan-1", "create_transactions"))
	if err := j.Answered(t.Context(), op.ID); err == nil {
		t.Fatal("a prepared operation was recorded as answered")
	}
	mustApplied(t, j, op.ID, journal.Outcome{Requests: 1})
	for range 2 {
		if err := j.Answered(t.Context(), op.ID); err != nil {
			t.Fatal(err)
		}
	}
	j, err := Open(path, testOptions()) // a new process's view

	if err != nil {
		t.Fatal(err)
	}
	got, err := j.Get(t.Context(), op.ID)
	if err != nil || !got.Answered || got.Status != journal.StatusApplied || len(got.Events) != 3 {
		t.Fatalf("after Answered twice: answered %v, %s, %d events, %v; want answered, applied, 3 events", got.Answered, got.Status, len(got.Events), err)
	}
	wantErr(t, j.Answered(t.Context(), "01JD3Q6V5G8Y2ZQ4M7N9P0R1ST"), journal.ErrNotFound)
}
