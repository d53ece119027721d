// Package storetest is the behaviour every journal.Store keeps, as tests that run against each
// implementation: the bbolt journal (in journal/bolt's tests) and PostgreSQL's (in
// journal/pg's). What only one of them can show (the bbolt file's layout, PostgreSQL's rows,
// who counts as a live writer) stays in that implementation's own tests.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/journal"
)

// Instance is one avenir instance's view of a journal: a process on this machine, or a hosted
// instance, with the journal of each person it serves.
type Instance interface {
	For(person int64) journal.Store
}

// Opener opens another instance of one journal (a new process, a restarted server, another
// machine), reading the clock now.
type Opener func(t *testing.T, now func() time.Time) Instance

// Backend is an implementation under test.
type Backend struct {
	// New returns a new, empty journal of the test's own.
	New func(t *testing.T) Opener
	// People says whether the store keeps people apart: For(1) and For(2) are two journals. A
	// store of one person (the local file) ignores the person.
	People bool
}

// Single is the Instance of a store that serves one person, whatever person is asked for.
func Single(s journal.Store) Instance { return single{s} }

type single struct{ s journal.Store }

func (s single) For(int64) journal.Store { return s.s }

// Run runs every test of the suite against b.
func Run(t *testing.T, b Backend) {
	tests := []struct {
		name string
		fn   func(t *testing.T, open Opener)
	}{
		{"WriteAhead", testWriteAhead},
		{"PrepareRecordsTheDraft", testPrepareRecordsTheDraft},
		{"PrepareRefusesBadDrafts", testPrepareRefusesBadDrafts},
		{"OutcomeOnlyOnce", testOutcomeOnlyOnce},
		{"UnknownIDs", testUnknownIDs},
		{"Undo", testUndo},
		{"UndoThatFailedLeavesTheTargetUndoable", testUndoThatFailed},
		{"OnlyAppliedOperationsCanBeUndone", testOnlyApplied},
		{"IDsFollowCommitsWhenTheClockGoesBack", testClockBack},
		{"Answered", testAnswered},
		{"List", testList},
		{"ListDefaultLimit", testListDefaultLimit},
		{"ListCarriesEvents", testListCarriesEvents},
		{"Pending", testPending},
		{"Recover", testRecover},
		{"RecoverLeavesOwnWritesAlone", testRecoverOwnWrites},
		{"RecoverStopsWhenCancelled", testRecoverCancelled},
		{"RecoverPartial", testRecoverPartial},
		{"ResolveByHand", testResolveByHand},
		{"ResolveByHandRefusals", testResolveByHandRefusals},
		{"LockPlanOneWriterPerPlan", testLockOneWriter},
		{"LockPlanWaitIsBounded", testLockBounded},
		{"LockPlanHandsOn", testLockHandsOn},
		{"LockPlanSerializesWriters", testLockSerializes},
		{"LockPlanCancelled", testLockCancelled},
		{"ConcurrentWriters", testConcurrentWriters},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, b.New(t)) })
	}
	t.Run("People", func(t *testing.T) {
		if !b.People {
			t.Skip("the store serves one person")
		}
		testPeople(t, b.New(t))
	})
}

// Clock is a test clock that moves on by Step at each reading.
type Clock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

// NewClock starts at 14:03 on 2026-11-28 (UTC) and moves a second at each reading.
func NewClock() *Clock {
	return &Clock{t: time.Date(2026, 11, 28, 14, 3, 0, 0, time.UTC), step: time.Second}
}

// Now reads the clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.t
	c.t = c.t.Add(c.step)
	return t
}

// SetStep sets how far each reading moves the clock (0: it stands still; below 0: it goes back).
func (c *Clock) SetStep(d time.Duration) {
	c.mu.Lock()
	c.step = d
	c.mu.Unlock()
}

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// store opens a new instance of the journal with a test clock and returns person 1's store.
func store(t *testing.T, open Opener) journal.Store {
	t.Helper()
	return open(t, NewClock().Now).For(1)
}

// Draft is a draft as the write path would record it for set_category_budget.
func Draft(plan, tool string) journal.Draft {
	return journal.Draft{
		PlanID:      plan,
		Tool:        tool,
		Subject:     json.RawMessage(`{"category": "cat-restaurants", "month": "2026-11-01"}`),
		Fingerprint: "fp-1",
		Preview:     "Set Restaurants to 120.00 for November 2026\n\nRestaurants  80.00 → 120.00",
		Changes: []journal.Change{{
			Kind: journal.KindMonthCategory, ID: "cat-restaurants", Month: "2026-11-01", Label: "Restaurants, November 2026",
			Before: json.RawMessage(`{"budgeted": 80000}`), After: json.RawMessage(`{"budgeted":120000}`),
		}},
		ConfirmedVia: "mrtr",
		Client:       journal.Client{Name: "claude-ai", Version: "0.1.0"},
	}
}

// ImportDraft is a draft as import_transactions records it: no change is known before YNAB
// answers.
func ImportDraft(plan string) journal.Draft {
	return journal.Draft{PlanID: plan, Tool: "import_transactions", Summary: "Import transactions from linked accounts?",
		Subject: json.RawMessage(`{"linked_account_ids":["acc-1"]}`), ConfirmedVia: "none"}
}

func mustPrepare(t testing.TB, s journal.Store, d journal.Draft) journal.Operation {
	t.Helper()
	op, err := s.Prepare(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return op
}

func mustApplied(t testing.TB, s journal.Store, id string, o journal.Outcome) journal.Operation {
	t.Helper()
	op, err := s.Applied(context.Background(), id, o)
	if err != nil {
		t.Fatal(err)
	}
	return op
}

func mustGet(t testing.TB, s journal.Store, id string) journal.Operation {
	t.Helper()
	op, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return op
}

func wantErr(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want %v", err, target)
	}
}

func eventTypes(op journal.Operation) []string {
	var types []string
	for _, ev := range op.Events {
		types = append(types, ev.Type)
	}
	return types
}

func withOutcome(cs []journal.Change, o string) []journal.Change {
	out := slices.Clone(cs)
	for i := range out {
		out[i].Outcome = o
	}
	return out
}

// all lists every operation of s, newest first.
func all(t testing.TB, s journal.Store) []journal.Operation {
	t.Helper()
	ops, err := s.List(context.Background(), journal.Filter{Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

// eventCount is how many events s holds, over all its operations.
func eventCount(t testing.TB, s journal.Store) int {
	t.Helper()
	n := 0
	for _, op := range all(t, s) {
		n += len(op.Events)
	}
	return n
}

// FakeChecker answers as YNAB would have, from a table; it remembers what it was asked.
type FakeChecker struct {
	mu      sync.Mutex
	Answers map[string]Answer
	Asked   []string
}

// Answer is what FakeChecker says of one operation.
type Answer struct {
	Applied bool
	Err     error
	// Landed, when set, gives each change's outcome instead of Applied: true is applied.
	Landed []bool
}

// Check answers from the table.
func (f *FakeChecker) Check(_ context.Context, op journal.Operation) ([]journal.Change, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Asked = append(f.Asked, op.ID)
	a, ok := f.Answers[op.ID]
	if !ok {
		return nil, errors.New("the test has no answer for " + op.ID)
	}
	if a.Err != nil {
		return nil, a.Err
	}
	cs := slices.Clone(op.Changes)
	for i := range cs {
		applied := a.Applied
		if a.Landed != nil {
			applied = a.Landed[i]
		}
		cs[i].Outcome = journal.OutcomeNotApplied
		if applied {
			cs[i].Outcome = journal.OutcomeApplied
		}
	}
	return cs, nil
}

func (f *FakeChecker) asked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.Asked)
}

func testWriteAhead(t *testing.T, open Opener) {
	created := []journal.Change{{Kind: journal.KindTransaction, ID: "tx-new", Label: "2026-11-28 Market -86.40", After: json.RawMessage(`{"amount":-86400}`)}}
	two := func(a, b string) []journal.Change {
		return []journal.Change{
			{Kind: journal.KindMonthCategory, ID: "cat-a", Month: "2026-11-01", Label: "A", Outcome: a},
			{Kind: journal.KindMonthCategory, ID: "cat-b", Month: "2026-11-01", Label: "B", Outcome: b},
		}
	}
	cases := []struct {
		name   string
		settle func(s journal.Store, id string) (journal.Operation, error)
		want   func(op *journal.Operation)
		event  string
	}{
		{"applied", func(s journal.Store, id string) (journal.Operation, error) {
			return s.Applied(context.Background(), id, journal.Outcome{CreatedIDs: []string{"tx-new"}, ServerKnowledge: 42, Requests: 2})
		}, func(op *journal.Operation) {
			op.Status, op.CreatedIDs, op.ServerKnowledge, op.Requests = journal.StatusApplied, []string{"tx-new"}, 42, 2
			op.Changes = withOutcome(op.Changes, journal.OutcomeApplied)
		}, "applied"},
		{"applied with the ids YNAB gave", func(s journal.Store, id string) (journal.Operation, error) {
			return s.Applied(context.Background(), id, journal.Outcome{Changes: created, Requests: 1})
		}, func(op *journal.Operation) {
			op.Status, op.Changes, op.Requests = journal.StatusApplied, withOutcome(created, journal.OutcomeApplied), 1
		}, "applied"},
		{"partial, without per-change outcomes", func(s journal.Store, id string) (journal.Operation, error) {
			return s.Applied(context.Background(), id, journal.Outcome{Partial: true, Note: "the flags were set; the categories were not", Requests: 3})
		}, func(op *journal.Operation) {
			op.Status, op.Note, op.Requests = journal.StatusPartial, "the flags were set; the categories were not", 3
			op.Changes = withOutcome(op.Changes, journal.OutcomeUnknown)
		}, "applied"},
		{"partial, change by change", func(s journal.Store, id string) (journal.Operation, error) {
			return s.Applied(context.Background(), id, journal.Outcome{Changes: two(journal.OutcomeApplied, journal.OutcomeNotApplied), Error: "B: YNAB answered 500", Requests: 2})
		}, func(op *journal.Operation) {
			op.Status, op.Changes, op.Error, op.Requests = journal.StatusPartial, two(journal.OutcomeApplied, journal.OutcomeNotApplied), "B: YNAB answered 500", 2
		}, "applied"},
		{"failed", func(s journal.Store, id string) (journal.Operation, error) {
			return s.Failed(context.Background(), id, "YNAB refused the token", 1)
		}, func(op *journal.Operation) {
			op.Status, op.Error, op.Requests = journal.StatusFailed, "YNAB refused the token", 1
			op.Changes = withOutcome(op.Changes, journal.OutcomeNotApplied)
		}, "failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := store(t, open)
			prepared := mustPrepare(t, s, Draft("plan-1", "set_category_budget"))
			if prepared.Status != journal.StatusPrepared {
				t.Fatalf("status after Prepare = %s", prepared.Status)
			}
			// What another instance reads, before YNAB is called: Prepare is durable.
			other := open(t, NewClock().Now).For(1)
			if stored, err := other.Get(context.Background(), prepared.ID); err != nil || !reflect.DeepEqual(stored, prepared) {
				t.Fatalf("before YNAB is called the journal holds %+v, %v; want %+v", stored, err, prepared)
			}
			got, err := c.settle(s, prepared.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := prepared
			c.want(&want)
			want.Events = got.Events
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
			if types := eventTypes(got); !reflect.DeepEqual(types, []string{"prepared", c.event}) {
				t.Errorf("events = %v, want prepared, %s", types, c.event)
			}
			if stored, err := other.Get(context.Background(), got.ID); err != nil || !reflect.DeepEqual(stored, got) {
				t.Errorf("Get = %+v, %v; want what was returned: %+v", stored, err, got)
			}
		})
	}
}

func testPrepareRecordsTheDraft(t *testing.T, open Opener) {
	s := store(t, open)
	d := Draft("plan-1", "set_category_budget")
	d.Summary = ""
	d.Changes = append(d.Changes, journal.Change{Kind: journal.KindTransaction, Label: "new", Before: json.RawMessage("null"), After: json.RawMessage(`{"amount": 1000}`)})
	op := mustPrepare(t, s, d)
	for _, op := range []journal.Operation{op, mustGet(t, s, op.ID)} {
		if op.Summary != "Set Restaurants to 120.00 for November 2026" {
			t.Errorf("summary = %q, want the preview's first line", op.Summary)
		}
		if string(op.Subject) != `{"category":"cat-restaurants","month":"2026-11-01"}` {
			t.Errorf("subject = %s", op.Subject)
		}
		if op.Changes[1].Before != nil || string(op.Changes[1].After) != `{"amount":1000}` {
			t.Errorf("a create reads back as before %s, after %s", op.Changes[1].Before, op.Changes[1].After)
		}
		if op.Preview != d.Preview || op.Fingerprint != "fp-1" || op.ConfirmedVia != "mrtr" || op.Client != d.Client || op.PlanID != "plan-1" {
			t.Errorf("the draft was not recorded as given: %+v", op)
		}
		if !op.Time.Equal(time.Date(2026, 11, 28, 14, 3, 0, 0, time.UTC)) {
			t.Errorf("time = %v, want the clock's", op.Time)
		}
	}
	if string(d.Changes[1].Before) != "null" || string(d.Changes[1].After) != `{"amount": 1000}` {
		t.Errorf("Prepare changed the caller's changes: %s, %s", d.Changes[1].Before, d.Changes[1].After)
	}
}

func testPrepareRefusesBadDrafts(t *testing.T, open Opener) {
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
	s := store(t, open)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Draft("plan-1", "set_category_budget")
			c.change(&d)
			_, err := s.Prepare(context.Background(), d)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want one that says %q", err, c.want)
			}
			if ops := all(t, s); len(ops) != 0 {
				t.Errorf("a refused draft was recorded: %v", ops)
			}
		})
	}
}

func testOutcomeOnlyOnce(t *testing.T, open Opener) {
	s := store(t, open)
	op := mustPrepare(t, s, Draft("plan-1", "set_category_budget"))
	mustApplied(t, s, op.ID, journal.Outcome{Requests: 1})

	_, err := s.Applied(context.Background(), op.ID, journal.Outcome{Requests: 1})
	wantErr(t, err, journal.ErrNotPrepared)
	_, err = s.Failed(context.Background(), op.ID, "timeout", 1)
	wantErr(t, err, journal.ErrNotPrepared)
	got, err := s.Get(context.Background(), op.ID)
	if err != nil || got.Status != journal.StatusApplied || len(got.Events) != 2 {
		t.Errorf("after refused outcomes: %s with %d events, %v", got.Status, len(got.Events), err)
	}
	if _, err := s.Failed(context.Background(), op.ID, "", 1); err == nil || !strings.Contains(err.Error(), "reason is missing") {
		t.Errorf("a failure without a reason: %v", err)
	}
}

func testUnknownIDs(t *testing.T, open Opener) {
	s := store(t, open)
	mustPrepare(t, s, Draft("plan-1", "set_category_budget")) // a journal that holds something
	for _, id := range []string{"01JD3Q6V5G8Y2ZQ4M7N9P0R1ST", "not-an-id", ""} {
		_, err := s.Get(context.Background(), id)
		wantErr(t, err, journal.ErrNotFound)
		_, err = s.Applied(context.Background(), id, journal.Outcome{})
		wantErr(t, err, journal.ErrNotFound)
		_, err = s.Failed(context.Background(), id, "x", 0)
		wantErr(t, err, journal.ErrNotFound)
		wantErr(t, s.Answered(context.Background(), id), journal.ErrNotFound)
		_, err = s.ResolveByHand(context.Background(), id, true, "by hand")
		wantErr(t, err, journal.ErrNotFound)
		_, err = s.Resolve(context.Background(), id, nil)
		wantErr(t, err, journal.ErrNotFound)
	}
}

func testUndo(t *testing.T, open Opener) {
	s := store(t, open)
	orig := mustPrepare(t, s, Draft("plan-1", "set_category_budget"))
	mustApplied(t, s, orig.ID, journal.Outcome{Requests: 1})

	undo := Draft("plan-1", "undo_operation")
	undo.UndoOf = orig.ID
	u := mustPrepare(t, s, undo)

	// While the undo's outcome is unknown, nobody else may undo the same operation.
	_, err := s.Prepare(context.Background(), undo)
	if err == nil || !strings.Contains(err.Error(), "already being undone by "+u.ID) {
		t.Fatalf("a second undo in flight: error = %v", err)
	}
	if got := mustGet(t, s, orig.ID); got.UndoneBy != "" {
		t.Fatalf("undone by %s before the undo was applied", got.UndoneBy)
	}

	u = mustApplied(t, s, u.ID, journal.Outcome{Requests: 1})
	if u.UndoOf != orig.ID {
		t.Errorf("undo of %q, want %s", u.UndoOf, orig.ID)
	}
	got, err := s.Get(context.Background(), orig.ID)
	if err != nil || got.UndoneBy != u.ID || got.Status != journal.StatusApplied {
		t.Fatalf("original after undo: undone by %q, %s, %v", got.UndoneBy, got.Status, err)
	}
	if types := eventTypes(got); !reflect.DeepEqual(types, []string{"prepared", "applied", "undone"}) {
		t.Errorf("original's events = %v", types)
	}

	_, err = s.Prepare(context.Background(), undo)
	wantErr(t, err, journal.ErrAlreadyUndone)

	// Undoing the undo redoes; the redo is an operation like any other.
	redo := Draft("plan-1", "undo_operation")
	redo.UndoOf = u.ID
	r := mustPrepare(t, s, redo)
	mustApplied(t, s, r.ID, journal.Outcome{Requests: 1})
	if got := mustGet(t, s, u.ID); got.UndoneBy != r.ID {
		t.Errorf("the undo is undone by %q, want %s", got.UndoneBy, r.ID)
	}
}

func testUndoThatFailed(t *testing.T, open Opener) {
	s := store(t, open)
	orig := mustPrepare(t, s, Draft("plan-1", "set_category_budget"))
	mustApplied(t, s, orig.ID, journal.Outcome{Requests: 1})
	undo := Draft("plan-1", "undo_operation")
	undo.UndoOf = orig.ID
	u := mustPrepare(t, s, undo)
	if _, err := s.Failed(context.Background(), u.ID, "YNAB is down", 1); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, s, orig.ID); got.UndoneBy != "" {
		t.Errorf("a failed undo marked the original undone by %s", got.UndoneBy)
	}
	u2 := mustPrepare(t, s, undo)
	mustApplied(t, s, u2.ID, journal.Outcome{Requests: 1})
	if got := mustGet(t, s, orig.ID); got.UndoneBy != u2.ID {
		t.Errorf("undone by %q, want %s", got.UndoneBy, u2.ID)
	}
}

func testOnlyApplied(t *testing.T, open Opener) {
	s := store(t, open)
	prepared := mustPrepare(t, s, Draft("plan-1", "set_category_budget"))
	failed := mustPrepare(t, s, Draft("plan-1", "set_category_budget"))
	if _, err := s.Failed(context.Background(), failed.ID, "no", 1); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{prepared.ID: "is prepared", failed.ID: "is failed"} {
		undo := Draft("plan-1", "undo_operation")
		undo.UndoOf = id
		_, err := s.Prepare(context.Background(), undo)
		if err == nil || !strings.Contains(err.Error(), want+": only an applied operation can be undone") {
			t.Errorf("undo of %s: error = %v", want, err)
		}
	}
}

// Ids follow the order of commits even when the clock is set back.
func testClockBack(t *testing.T, open Opener) {
	c := NewClock()
	c.SetStep(-time.Minute)
	s := open(t, c.Now).For(1)
	var ids []string
	for range 5 {
		ids = append(ids, mustPrepare(t, s, Draft("plan-1", "set_category_budget")).ID)
	}
	ops, err := s.List(context.Background(), journal.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != len(ids) {
		t.Fatalf("%d operations listed, want %d", len(ops), len(ids))
	}
	for i, op := range ops {
		if want := ids[len(ids)-1-i]; op.ID != want {
			t.Errorf("listing %d is %s, want %s (the %d-th written)", i, op.ID, want, len(ids)-i)
		}
	}
}

// Answered is recorded once, only after the outcome, and another instance sees it.
func testAnswered(t *testing.T, open Opener) {
	s := store(t, open)
	op := mustPrepare(t, s, Draft("plan-1", "create_transactions"))
	if err := s.Answered(context.Background(), op.ID); err == nil {
		t.Fatal("a prepared operation was recorded as answered")
	}
	mustApplied(t, s, op.ID, journal.Outcome{Requests: 1})
	for range 2 {
		if err := s.Answered(context.Background(), op.ID); err != nil {
			t.Fatal(err)
		}
	}
	got, err := store(t, open).Get(context.Background(), op.ID)
	if err != nil || !got.Answered || got.Status != journal.StatusApplied || len(got.Events) != 3 {
		t.Fatalf("after Answered twice: answered %v, %s, %d events, %v; want answered, applied, 3 events", got.Answered, got.Status, len(got.Events), err)
	}
}

// seedForList writes, one minute apart from 14:03 on 2026-11-28 (UTC):
//
//	0 plan-a set_category_budget applied
//	1 plan-a flag_transactions   failed
//	2 plan-b set_category_budget applied
//	3 plan-b apply_categories    partial
//	4 plan-a set_category_budget prepared
//	5 plan-a apply_categories    applied
func seedForList(t *testing.T, open Opener) (journal.Store, []string) {
	t.Helper()
	c := NewClock()
	c.SetStep(0)
	s := open(t, c.Now).For(1)
	applied := func(id string) error { _, err := s.Applied(context.Background(), id, journal.Outcome{}); return err }
	rows := []struct {
		plan, tool string
		settle     func(id string) error
	}{
		{"plan-a", "set_category_budget", applied},
		{"plan-a", "flag_transactions", func(id string) error { _, err := s.Failed(context.Background(), id, "no", 0); return err }},
		{"plan-b", "set_category_budget", applied},
		{"plan-b", "apply_categories", func(id string) error {
			_, err := s.Applied(context.Background(), id, journal.Outcome{Partial: true})
			return err
		}},
		{"plan-a", "set_category_budget", func(string) error { return nil }},
		{"plan-a", "apply_categories", applied},
	}
	var ids []string
	for _, r := range rows {
		op := mustPrepare(t, s, Draft(r.plan, r.tool))
		if err := r.settle(op.ID); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, op.ID)
		c.Advance(time.Minute)
	}
	return s, ids
}

func testList(t *testing.T, open Opener) {
	s, ids := seedForList(t, open)
	at := func(minute int) time.Time { return time.Date(2026, 11, 28, 14, 3+minute, 0, 0, time.UTC) }
	cases := []struct {
		name   string
		filter journal.Filter
		want   []int // rows of seedForList, newest first
	}{
		{"everything", journal.Filter{}, []int{5, 4, 3, 2, 1, 0}},
		{"limit", journal.Filter{Limit: 2}, []int{5, 4}},
		{"plan", journal.Filter{PlanID: "plan-b"}, []int{3, 2}},
		{"tool", journal.Filter{Tool: "set_category_budget"}, []int{4, 2, 0}},
		{"status applied", journal.Filter{Status: journal.StatusApplied}, []int{5, 2, 0}},
		{"status prepared", journal.Filter{Status: journal.StatusPrepared}, []int{4}},
		{"status partial", journal.Filter{Status: journal.StatusPartial}, []int{3}},
		{"status failed", journal.Filter{Status: journal.StatusFailed}, []int{1}},
		{"plan and tool", journal.Filter{PlanID: "plan-a", Tool: "set_category_budget"}, []int{4, 0}},
		{"plan, tool and status", journal.Filter{PlanID: "plan-a", Tool: "set_category_budget", Status: journal.StatusApplied}, []int{0}},
		{"applied in a plan", journal.Filter{PlanID: "plan-a", Status: journal.StatusApplied}, []int{5, 0}},
		{"since", journal.Filter{Since: at(3)}, []int{5, 4, 3}},
		{"since, to the sub-millisecond", journal.Filter{Since: at(3).Add(time.Millisecond / 2)}, []int{5, 4}},
		{"since, to the nanosecond", journal.Filter{Since: at(3).Add(time.Nanosecond)}, []int{5, 4}},
		{"since and tool with limit", journal.Filter{Since: at(1), Tool: "set_category_budget", Limit: 1}, []int{4}},
		{"since long ago", journal.Filter{Since: time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), Limit: 3}, []int{5, 4, 3}},
		{"unknown plan", journal.Filter{PlanID: "plan-z"}, nil},
		{"unknown status", journal.Filter{Status: "lost"}, nil},
		{"nothing that recent", journal.Filter{Since: at(10)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ops, err := s.List(context.Background(), c.filter)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, op := range ops {
				got = append(got, slices.Index(ids, op.ID))
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("rows %v, want %v", got, c.want)
			}
		})
	}
}

func testListDefaultLimit(t *testing.T, open Opener) {
	s := store(t, open)
	for range journal.DefaultLimit + 3 {
		mustPrepare(t, s, Draft("plan-1", "set_category_budget"))
	}
	ops, err := s.List(context.Background(), journal.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != journal.DefaultLimit {
		t.Errorf("%d operations, want %d", len(ops), journal.DefaultLimit)
	}
}

func testListCarriesEvents(t *testing.T, open Opener) {
	s, _ := seedForList(t, open)
	ops, err := s.List(context.Background(), journal.Filter{Status: journal.StatusFailed})
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 1 || !reflect.DeepEqual(eventTypes(ops[0]), []string{"prepared", "failed"}) || ops[0].Error != "no" {
		t.Errorf("listed %+v", ops)
	}
	for _, op := range all(t, s) {
		if got := mustGet(t, s, op.ID); !reflect.DeepEqual(got, op) {
			t.Errorf("listed %+v\nGet    %+v", op, got)
		}
	}
}

func testPending(t *testing.T, open Opener) {
	s, ids := seedForList(t, open)
	later := mustPrepare(t, s, ImportDraft("plan-b"))
	ops, err := s.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 2 || ops[0].ID != ids[4] || ops[1].ID != later.ID {
		t.Errorf("pending = %v, want row 4 then the import, oldest first", ops)
	}
}
