package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/journal"
)

// Two instances: while one holds a plan's lock the other is refused past its wait; another
// plan's lock is not held up; once let go, the lock is free.
func testLockOneWriter(t *testing.T, open Opener) {
	a, b := store(t, open), store(t, open)
	ctx := context.Background()
	unlock, err := a.LockPlan(ctx, "plan-1", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.LockPlan(ctx, "plan-1", 50*time.Millisecond); !errors.Is(err, journal.ErrPlanBusy) {
		t.Fatalf("second writer got %v, want ErrPlanBusy while the first holds the lock", err)
	}
	if _, err := a.LockPlan(ctx, "plan-1", 50*time.Millisecond); !errors.Is(err, journal.ErrPlanBusy) {
		t.Fatalf("a second writer of the same instance got %v, want ErrPlanBusy", err)
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
	if _, err := a.LockPlan(ctx, "plan-1", 50*time.Millisecond); !errors.Is(err, journal.ErrPlanBusy) {
		t.Fatalf("the first instance got %v while the second holds the lock, want ErrPlanBusy", err)
	}
	again()
}

// A wait for a held lock ends at the wait, give or take the machine's pace, with an error that
// says how long it waited and that nothing was written.
func testLockBounded(t *testing.T, open Opener) {
	a, b := store(t, open), store(t, open)
	ctx := context.Background()
	unlock, err := a.LockPlan(ctx, "plan-1", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	for _, wait := range []time.Duration{0, 200 * time.Millisecond} {
		start := time.Now()
		_, err := b.LockPlan(ctx, "plan-1", wait)
		took := time.Since(start)
		if !errors.Is(err, journal.ErrPlanBusy) || !strings.Contains(err.Error(), "nothing was written") {
			t.Fatalf("wait %s: %v, want ErrPlanBusy saying nothing was written", wait, err)
		}
		if took < wait || took > wait+2*time.Second {
			t.Errorf("wait %s: refused after %s", wait, took)
		}
	}
}

// A writer waiting for another instance's lock takes it as soon as the holder lets go, well
// within its wait.
func testLockHandsOn(t *testing.T, open Opener) {
	a, b := store(t, open), store(t, open)
	ctx := context.Background()
	unlock, err := a.LockPlan(ctx, "plan-1", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		unlockB, err := b.LockPlan(ctx, "plan-1", 20*time.Second)
		if err == nil {
			unlockB()
		}
		got <- err
	}()
	time.Sleep(100 * time.Millisecond) // b waits
	start := time.Now()
	unlock()
	if err := <-got; err != nil {
		t.Fatalf("the waiting writer: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the waiting writer took the lock %s after it was let go", took)
	}
}

// Writers of one plan on two instances never overlap, however many wait: each read-modify-write
// of a counter under the lock is kept.
func testLockSerializes(t *testing.T, open Opener) {
	stores := []journal.Store{store(t, open), store(t, open)}
	var inside, overlaps atomic.Int32
	counter := 0
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			s := stores[i%2]
			for range 10 {
				unlock, err := s.LockPlan(context.Background(), "plan-1", 20*time.Second)
				if err != nil {
					t.Error(err)
					return
				}
				if inside.Add(1) > 1 {
					overlaps.Add(1)
				}
				n := counter
				time.Sleep(200 * time.Microsecond) // widens the window an overlap would show in
				counter = n + 1
				inside.Add(-1)
				unlock()
			}
		})
	}
	wg.Wait()
	if overlaps.Load() != 0 || counter != 60 {
		t.Fatalf("%d overlaps, counter %d; want 0 and 60", overlaps.Load(), counter)
	}
}

// A cancelled wait returns the context's error, not "busy".
func testLockCancelled(t *testing.T, open Opener) {
	a, b := store(t, open), store(t, open)
	unlock, err := a.LockPlan(context.Background(), "plan-1", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, s := range []journal.Store{a, b} {
		if _, err := s.LockPlan(ctx, "plan-1", time.Second); !errors.Is(err, context.Canceled) {
			unlock()
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	}
	// Cancelled while it waits.
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err = b.LockPlan(ctx, "plan-1", 20*time.Second)
	unlock()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled while waiting: %v, want context.Canceled", err)
	}
	again, err := b.LockPlan(context.Background(), "plan-1", time.Second)
	if err != nil {
		t.Fatalf("after a cancelled wait, the lock once free: %v", err)
	}
	again()
}

// Writers on two instances prepare, settle and answer at once, undoing each other's
// operations: every write is recorded once, in order, and an operation is undone once however
// many race to undo it.
func testConcurrentWriters(t *testing.T, open Opener) {
	stores := []journal.Store{store(t, open), store(t, open)}
	const writers, each = 4, 6
	target := mustPrepare(t, stores[0], Draft("plan-0", "set_category_budget"))
	mustApplied(t, stores[0], target.ID, journal.Outcome{Requests: 1})

	var (
		mu      sync.Mutex
		written = map[string]journal.Status{}
		undos   []string
	)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			s := stores[w%2]
			// Each writer first races the others to undo target.
			undo := Draft("plan-0", "undo_operation")
			undo.UndoOf = target.ID
			if op, err := s.Prepare(context.Background(), undo); err == nil {
				if op, err = s.Applied(context.Background(), op.ID, journal.Outcome{Requests: 1}); err == nil {
					mu.Lock()
					undos = append(undos, op.ID)
					written[op.ID] = op.Status
					mu.Unlock()
				} else if !errors.Is(err, journal.ErrAlreadyUndone) {
					t.Errorf("writer %d, the undo: %v", w, err)
				}
			} else if !errors.Is(err, journal.ErrAlreadyUndone) && !strings.Contains(err.Error(), "already being undone") {
				t.Errorf("writer %d, preparing the undo: %v", w, err)
			}
			for i := range each {
				op, err := s.Prepare(context.Background(), Draft(fmt.Sprintf("plan-%d", i%2), "set_category_budget"))
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				if i%3 == 2 {
					op, err = s.Failed(context.Background(), op.ID, "YNAB answered 503", 1)
				} else {
					op, err = s.Applied(context.Background(), op.ID, journal.Outcome{Requests: 1})
				}
				if err == nil {
					err = s.Answered(context.Background(), op.ID)
				}
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				mu.Lock()
				written[op.ID] = op.Status
				mu.Unlock()
			}
		})
	}
	wg.Wait()

	ops := all(t, store(t, open))
	listed := map[string]journal.Operation{}
	var lastEvent []string
	for i, op := range ops {
		listed[op.ID] = op
		if i > 0 && op.ID >= ops[i-1].ID {
			t.Errorf("%s is listed after %s", op.ID, ops[i-1].ID)
		}
		for k, ev := range op.Events {
			if k > 0 && ev.ID <= op.Events[k-1].ID {
				t.Errorf("operation %s: event %s comes after %s", op.ID, ev.ID, op.Events[k-1].ID)
			}
			lastEvent = append(lastEvent, ev.ID)
		}
	}
	slices.Sort(lastEvent)
	if len(slices.Compact(lastEvent)) != len(lastEvent) {
		t.Error("two events share an id")
	}
	for id, status := range written {
		if op, ok := listed[id]; !ok || op.Status != status {
			t.Errorf("operation %s was written %s and reads %s (listed: %v)", id, status, op.Status, ok)
		}
	}
	if want := len(written) + 1; len(ops) > want+writers || len(ops) < want {
		t.Errorf("%d operations in the journal, %d written", len(ops), want)
	}
	got := mustGet(t, stores[1], target.ID)
	if len(undos) != 1 || got.UndoneBy != undos[0] {
		t.Errorf("the target is undone by %q; the undos applied: %v; want exactly one", got.UndoneBy, undos)
	}
}
