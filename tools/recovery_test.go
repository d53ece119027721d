package tools

import (
	"context"
	"testing"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/journal/bolt"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// A crash between "prepared" and YNAB's answer leaves an operation prepared; the next start
// asks YNAB whether the change is there, both ways.
func TestRecoveryResolvesPreparedOperations(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	ctx := context.Background()
	p, err := e.client.Plan(ctx, sandbox.PlanID, 0)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := spendableCategory(p, "category", "Restaurants")
	if err != nil {
		t.Fatal(err)
	}
	prepare := func(after int64) journal.Operation {
		op, err := e.journal.Prepare(ctx, journal.Draft{PlanID: p.ID, Tool: "set_category_budget", Summary: "Budget Restaurants",
			ConfirmedVia: "code", Changes: []journal.Change{assignedChange(p, cat, "2026-12-01", 120000, after)}})
		if err != nil {
			t.Fatal(err)
		}
		return op
	}
	lost := prepare(150000)   // the crash came before YNAB was called
	landed := prepare(175000) // the crash came after YNAB took it
	if _, err := e.client.UpdateMonthCategory(ctx, p.ID, "2026-12-01", cat.ID, 175000); err != nil {
		t.Fatal(err)
	}
	// The next start: another Journal on the same file.
	next, err := bolt.Open(e.journalPath, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	resolved, err := next.Recover(ctx, NewRecovery(Deps{YNAB: e.client}))
	if err != nil || len(resolved) != 2 {
		t.Fatalf("Recover = %d operations, %v; want both resolved", len(resolved), err)
	}
	for _, c := range []struct {
		op   journal.Operation
		want journal.Status
	}{{lost, journal.StatusFailed}, {landed, journal.StatusApplied}} {
		got, err := e.journal.Get(ctx, c.op.ID)
		if err != nil || got.Status != c.want || got.Events[len(got.Events)-1].Type != "recovered" {
			t.Errorf("operation %s after recovery: %s (%v), want %s by a recovered event", c.op.ID, got.Status, err, c.want)
		}
	}
}
