package sandbox_test

import (
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

type movements struct {
	MoneyMovements  []ynab.MoneyMovement `json:"money_movements"`
	ServerKnowledge int64                `json:"server_knowledge"`
}

type movementGroups struct {
	MoneyMovementGroups []ynab.MoneyMovementGroup `json:"money_movement_groups"`
	ServerKnowledge     int64                     `json:"server_knowledge"`
}

func TestSampleMoneyMovementsFollowTheAssignments(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	var groups movementGroups
	a.ok(200, "GET", plan+"/money_movement_groups", nil, &groups)
	if len(groups.MoneyMovementGroups) != 3 || groups.ServerKnowledge != 1000 {
		t.Fatalf("groups = %+v, want one per assigned month", groups)
	}
	var current movements
	a.ok(200, "GET", plan+"/months/current/money_movements", nil, &current)
	if len(current.MoneyMovements) != 18 {
		t.Fatalf("%d movements in the current month, want one per category assigned (18)", len(current.MoneyMovements))
	}
	var total int64
	for _, m := range current.MoneyMovements {
		if m.FromCategoryID != nil || m.ToCategoryID == nil || *m.Month != "2026-09-01" || m.AmountFormatted == "" {
			t.Errorf("movement %+v: want from Ready to Assign to a category in September", m)
		}
		total += m.Amount
		if *m.ToCategoryID == n.id(t, "Huur") && m.Amount != 1150000 {
			t.Errorf("Huur's movement = %d, want 1150000", m.Amount)
		}
	}
	var month struct{ Month ynab.Month }
	a.ok(200, "GET", plan+"/months/current", nil, &month)
	if total != month.Month.Budgeted {
		t.Errorf("the month's movements add up to %d, its assigned to %d", total, month.Month.Budgeted)
	}
	var all movements
	a.ok(200, "GET", plan+"/money_movements", nil, &all)
	if len(all.MoneyMovements) != 3*18 {
		t.Errorf("%d movements in all, want 54", len(all.MoneyMovements))
	}
}

func TestAssigningRecordsMoneyMovements(t *testing.T) {
	clk := &clock{now: sandboxtest.FixedNow()}
	a := newAPI(t, sandbox.Options{Now: clk.Now})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	cat := func(name string) string { return plan + "/months/2026-09-01/categories/" + n.id(t, name) }
	newSince := func(before int) []ynab.MoneyMovement {
		t.Helper()
		var all movements
		a.ok(200, "GET", plan+"/months/2026-09-01/money_movements", nil, &all)
		return all.MoneyMovements[before:]
	}

	a.ok(200, "PATCH", cat("Huur"), budget(1200000), nil) // +50.00 from Ready to Assign
	got := newSince(18)
	if len(got) != 1 || got[0].FromCategoryID != nil || *got[0].ToCategoryID != n.id(t, "Huur") || got[0].Amount != 50000 ||
		got[0].MoneyMovementGroupID == nil || *got[0].MovedAt != "2026-09-15T10:00:00.000Z" {
		t.Fatalf("after assigning 50.00 more to Huur: %+v", got)
	}
	a.ok(200, "PATCH", cat("Huur"), budget(1200000), nil)
	if got := newSince(18); len(got) != 1 {
		t.Errorf("assigning the same amount again recorded %d movements", len(got)-1)
	}

	// A move done the only way the API allows, two PATCHes, reads as one movement.
	clk.advance(time.Hour)
	a.ok(200, "PATCH", cat("Restaurants"), budget(100000), nil) // −20.00
	clk.advance(5 * time.Second)
	a.ok(200, "PATCH", cat("Uitjes"), budget(100000), nil) // +20.00
	got = newSince(19)
	if len(got) != 1 || got[0].FromCategoryID == nil || *got[0].FromCategoryID != n.id(t, "Restaurants") ||
		got[0].ToCategoryID == nil || *got[0].ToCategoryID != n.id(t, "Uitjes") || got[0].Amount != 20000 {
		t.Fatalf("a move as two PATCHes: %+v, want one movement of 20.00 Restaurants → Uitjes", got)
	}

	// Two PATCHes far apart stay two movements, each in its own group.
	clk.advance(time.Hour)
	a.ok(200, "PATCH", cat("Vervoer"), budget(140000), nil) // −10.00
	clk.advance(2 * time.Minute)
	a.ok(200, "PATCH", cat("Tennis"), budget(55000), nil) // +10.00
	got = newSince(20)
	if len(got) != 2 || got[0].ToCategoryID != nil || got[1].FromCategoryID != nil || *got[0].MoneyMovementGroupID == *got[1].MoneyMovementGroupID {
		t.Errorf("two changes two minutes apart: %+v, want two movements with Ready to Assign", got)
	}

	var groups movementGroups
	a.ok(200, "GET", plan+"/months/2026-09-01/money_movement_groups", nil, &groups)
	if len(groups.MoneyMovementGroups) != 5 || groups.MoneyMovementGroups[4].Month != "2026-09-01" {
		t.Errorf("September's groups = %+v, want the sample's and 4 new", groups.MoneyMovementGroups)
	}
	a.ok(200, "GET", plan+"/months/2026-10-01/money_movement_groups", nil, &groups)
	if len(groups.MoneyMovementGroups) != 0 {
		t.Errorf("October has groups: %+v", groups.MoneyMovementGroups)
	}
	a.fail(404, "GET", plan+"/months/1999-01-01/money_movements", nil)
}
