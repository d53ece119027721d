package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/journal"
)

// Two people with the same plan id, on one instance and on two: neither reads, lists, settles,
// undoes, recovers or locks the other's; another's operation is not found.
func testPeople(t *testing.T, open Opener) {
	one := open(t, NewClock().Now)
	ann, bob := one.For(1), one.For(2)
	bobElsewhere := open(t, NewClock().Now).For(2)

	annDone := mustPrepare(t, ann, Draft("plan-1", "set_category_budget"))
	mustApplied(t, ann, annDone.ID, journal.Outcome{Requests: 1})
	annCut := mustPrepare(t, ann, ImportDraft("plan-1"))
	annPending := mustPrepare(t, ann, Draft("plan-1", "flag_transactions"))
	bobOwn := mustPrepare(t, bob, Draft("plan-1", "set_category_budget"))

	for name, bob := range map[string]journal.Store{"on the same instance": bob, "on another instance": bobElsewhere} {
		t.Run(name, func(t *testing.T) {
			for _, id := range []string{annDone.ID, annCut.ID, annPending.ID} {
				_, err := bob.Get(context.Background(), id)
				wantErr(t, err, journal.ErrNotFound)
				_, err = bob.Applied(context.Background(), id, journal.Outcome{})
				wantErr(t, err, journal.ErrNotFound)
				_, err = bob.Failed(context.Background(), id, "no", 0)
				wantErr(t, err, journal.ErrNotFound)
				wantErr(t, bob.Answered(context.Background(), id), journal.ErrNotFound)
				_, err = bob.Resolve(context.Background(), id, withOutcome(annPending.Changes, journal.OutcomeApplied))
				wantErr(t, err, journal.ErrNotFound)
				_, err = bob.ResolveByHand(context.Background(), id, false, byHand)
				wantErr(t, err, journal.ErrNotFound)
				undo := Draft("plan-1", "undo_operation")
				undo.UndoOf = id
				_, err = bob.Prepare(context.Background(), undo)
				wantErr(t, err, journal.ErrNotFound)
			}
			for _, f := range []journal.Filter{{}, {PlanID: "plan-1"}, {Status: journal.StatusApplied}, {Status: journal.StatusPrepared}, {Tool: "import_transactions"}} {
				ops, err := bob.List(context.Background(), f)
				if err != nil {
					t.Fatal(err)
				}
				for _, op := range ops {
					if op.ID != bobOwn.ID {
						t.Errorf("List(%+v) shows %s, which is not bob's", f, op.ID)
					}
				}
			}
			pending, err := bob.Pending(context.Background())
			if err != nil || len(pending) != 1 || pending[0].ID != bobOwn.ID {
				t.Errorf("bob's pending: %v, %v; want only his own", pending, err)
			}
		})
	}

	// Bob's recovery settles his own only; it never asks about Ann's.
	checker := &FakeChecker{Answers: map[string]Answer{bobOwn.ID: {Applied: true}}}
	ops, err := bobElsewhere.Recover(context.Background(), checker)
	if err != nil || len(ops) != 1 || ops[0].ID != bobOwn.ID {
		t.Errorf("bob's Recover = %v, %v; want his own operation", ops, err)
	}
	for _, op := range []journal.Operation{annCut, annPending} {
		if got := mustGet(t, ann, op.ID); got.Status != journal.StatusPrepared {
			t.Errorf("ann's %s is %s after bob's recovery", op.Tool, got.Status)
		}
	}
	if got := mustGet(t, ann, annDone.ID); len(got.Events) != 2 || got.UndoneBy != "" {
		t.Errorf("ann's operation changed: %+v", got)
	}

	// The same plan id is two plans: each person's lock is their own.
	ctx := context.Background()
	unlock, err := ann.LockPlan(ctx, "plan-1", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, bob := range []journal.Store{bob, bobElsewhere} {
		other, err := bob.LockPlan(ctx, "plan-1", 100*time.Millisecond)
		if err != nil {
			t.Fatalf("bob's plan-1 while ann holds hers: %v", err)
		}
		other()
	}
	if _, err := open(t, NewClock().Now).For(1).LockPlan(ctx, "plan-1", 50*time.Millisecond); !errors.Is(err, journal.ErrPlanBusy) {
		t.Errorf("ann's plan-1 on another instance: %v, want ErrPlanBusy", err)
	}
	unlock()
}
