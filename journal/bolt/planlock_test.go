package bolt

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/avenir-mcp/avenir/journal"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Two journals on one file in one process: while one holds a plan's lock the other is refused
// past its wait; another plan's lock is not held up.
func TestLockPlanOneWriterPerPlan(t *testing.T) {
	a, path := openTest(t)
	b, err := Open(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	unlock, err := a.LockPlan(ctx, "plan-1", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.LockPlan(ctx, "plan-1", 50*time.Millisecond); !errors.Is(err, journal.ErrPlanBusy) {
		t.Fatalf("second writer got %v, want journal.ErrPlanBusy while the first holds the lock", err)
	}
	other, err := b.LockPlan(ctx, "plan-2", 50*time.Millisecond)
	if err != nil {
		t.Fatalf("another plan's lock: %v", err)
	}
	other()
	unlock()
	again, err := b.LockPlan(ctx, "plan-1", 50*time.Millisecond)
	if err != nil {
		t.Fatalf("the lock once free: %v", err)
	}
	again()
}

// The lock holds between processes: a child that finds the plan locked waits, and takes the
// lock as soon as this process lets go; while the child holds it, this process is refused past
// its wait, and another plan's lock is free.
func TestLockPlanAcrossProcesses(t *testing.T) {
	j, path := openTest(t)
	ctx := context.Background()
	unlock, err := j.LockPlan(ctx, "plan-a", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c := startChild(t, "lock", path)
	if got := c.line(1); got != "waiting" {
		unlock()
		t.Fatalf("the child said %q, want waiting while this process holds the lock (stderr: %s)", got, c.stderr.String())
	}
	unlock()
	if got := c.line(2); got != "locked" {
		t.Fatalf("the child said %q, want locked once the lock was free (stderr: %s)", got, c.stderr.String())
	}
	if _, err := j.LockPlan(ctx, "plan-a", 50*time.Millisecond); !errors.Is(err, journal.ErrPlanBusy) {
		t.Errorf("got %v while the child holds the lock, want ErrPlanBusy", err)
	}
	if other, err := j.LockPlan(ctx, "plan-b", 50*time.Millisecond); err != nil {
		t.Errorf("another plan's lock while the child holds plan-a's: %v", err)
	} else {
		other()
	}
	if err := c.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	lines, err := c.wait()
	if err != nil || lines[len(lines)-1] != "unlocked" {
		t.Fatalf("the child ended with %v, %q (stderr: %s)", err, lines, c.stderr.String())
	}
	again, err := j.LockPlan(ctx, "plan-a", 50*time.Millisecond)
	if err != nil {
		t.Fatalf("the lock once the child let go: %v", err)
	}
	again()
}

// Writers of one plan never overlap, however many wait: each read-modify-write of a counter
// under the lock is kept.
func TestLockPlanSerializesWriters(t *testing.T) {
	j, path := openTest(t)
	k, err := Open(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	var inside, overlaps atomic.Int32
	counter := 0
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			jj := []*Journal{j, k}[i%2]
			for range 20 {
				unlock, err := jj.LockPlan(context.Background(), "plan-1", 10*time.Second)
				if err != nil {
					t.Error(err)
					return
				}
				if inside.Add(1) > 1 {
					overlaps.Add(1)
				}
				n := counter
				time.Sleep(50 * time.Microsecond) // widens the window an overlap would show in
				counter = n + 1
				inside.Add(-1)
				unlock()
			}
		}()
	}
	wg.Wait()
	if overlaps.Load() != 0 || counter != 160 {
		t.Fatalf("%d overlaps, counter %d; want 0 and 160", overlaps.Load(), counter)
	}
}

// A cancelled wait returns the context's error, not "busy".
func TestLockPlanCancelled(t *testing.T) {
	j, _ := openTest(t)
	unlock, err := j.LockPlan(context.Background(), "plan-1", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := j.LockPlan(ctx, "plan-1", time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// Recovery records each change's outcome: a move cut in half by a crash is partial, naming the
// half YNAB holds, never applied.
func TestRecoverPartial(t *testing.T) {
	crashed, path := openTest(t)
	d := testDraft("plan-1", "move_money")
	d.Changes = append(d.Changes, journal.Change{Kind: journal.KindMonthCategory, ID: "cat-vakantie", Month: "2026-11-01", Label: "Vakantie, November 2026",
		Before: json.RawMessage(`{"budgeted":300000}`), After: json.RawMessage(`{"budgeted":260000}`)})
	half := mustPrepare(t, crashed, d)
	if half.Changes[0].Outcome != journal.OutcomeUnknown || half.Changes[1].Outcome != journal.OutcomeUnknown {
		t.Fatalf("a prepared operation's changes read %q, %q; want unknown", half.Changes[0].Outcome, half.Changes[1].Outcome)
	}
	restarted, err := Open(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	checker := &fakeChecker{answers: map[string]answer{half.ID: {landed: []bool{true, false}}}}
	if _, err := restarted.Recover(context.Background(), checker); err != nil {
		t.Fatal(err)
	}
	op, err := restarted.Get(t.Context(), half.ID)
	if err != nil {
		t.Fatal(err)
	}
	if op.Status != journal.StatusPartial || op.Changes[0].Outcome != journal.OutcomeApplied || op.Changes[1].Outcome != journal.OutcomeNotApplied || !op.ReadBack {
		t.Fatalf("recovered as %s with %q, %q; want partial: applied, not_applied", op.Status, op.Changes[0].Outcome, op.Changes[1].Outcome)
	}
	// Resolve refuses an outcome that is still unknown: recovery records only what it read.
	again := mustPrepare(t, restarted, testDraft("plan-1", "set_category_budget"))
	if _, err := restarted.Resolve(t.Context(), again.ID, again.Changes); err == nil {
		t.Fatal("Resolve recorded changes whose outcome is unknown")
	}
}
