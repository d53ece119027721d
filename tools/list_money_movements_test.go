package tools

import (
	"context"
	"fmt"
	"testing"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// The sandbox records a movement for every change of an assigned amount (two changes in a row
// that take and give the same amount read as one move between the categories), and the sample
// has the history of its assignments: on the first of each month, from Ready to Assign to each
// category.
func TestListMoneyMovements(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	_, categories, _, _ := analysisIDs(e)
	ctx := context.Background()
	// 25.00 from Restaurants to Uitjes, as an API client moves money: two PATCHes.
	for _, c := range []struct {
		name   string
		amount int64
	}{{"Restaurants", 120000 - 25000}, {"Uitjes", 80000 + 25000}} {
		if _, err := e.client.UpdateMonthCategory(ctx, sandbox.PlanID, "2026-12-01", categories[c.name], c.amount); err != nil {
			t.Fatal(err)
		}
	}
	var out listMoneyMovementsOut
	e.ok("list_money_movements", nil, &out)
	if out.Month != "2026-12-01" || out.More != 0 {
		t.Errorf("month %s (more %d), want the current month, all of it", out.Month, out.More)
	}
	// The sample assigned 18 categories in December; then the move, newest first.
	if len(out.Movements) != 19 {
		t.Fatalf("%d movements, want 19: %+v", len(out.Movements), out.Movements)
	}
	line := func(m moneyMovementView) string {
		return fmt.Sprintf("%s %s (%d) %s → %s", m.MovedAt, m.Amount, m.AmountMilliunits, m.From, m.To)
	}
	if got, want := line(out.Movements[0]), "2026-12-02T10:00:00.000Z €25,00 (25000) Dagelijks: Restaurants → Vrije tijd: Uitjes"; got != want {
		t.Errorf("newest movement = %q, want %q", got, want)
	}
	if m := out.Movements[0]; m.FromCategoryID != categories["Restaurants"] || m.ToCategoryID != categories["Uitjes"] || m.PerformedByUserID == "" || m.GroupID == "" {
		t.Errorf("the move's ids: %+v", m)
	}
	var huur []string
	for _, m := range out.Movements {
		if m.To == "Vaste lasten: Huur" {
			huur = append(huur, line(m))
		}
	}
	if len(huur) != 1 || huur[0] != "2026-12-01T08:00:00.000Z €1.150,00 (1150000) Ready to Assign → Vaste lasten: Huur" {
		t.Errorf("Huur's movements = %q", huur)
	}

	var november listMoneyMovementsOut
	e.ok("list_money_movements", map[string]any{"month": "previous"}, &november)
	if november.Month != "2026-11-01" || len(november.Movements) != 18 {
		t.Errorf("November: %s with %d movements, want 18", november.Month, len(november.Movements))
	}
	e.fails("list_money_movements", map[string]any{"month": "2026-13"}, `month: "2026-13" has no month 13`)
}
