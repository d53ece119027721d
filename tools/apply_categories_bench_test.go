package tools

import (
	"context"
	"testing"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// BenchmarkApplyCategories1000 times what apply_categories does locally for its largest call,
// on a warm snapshot: plan 1,000 recategorisations (every transaction found and checked, every
// category resolved), render the preview and fingerprint the subject. Confirmation does this
// twice per write, so it must stay instant next to a YNAB request.
func BenchmarkApplyCategories1000(b *testing.B) {
	e := newEnv(b, envOptions{kind: modernNone})
	ids := txeditsCreate(b, e.client, 1000)
	p, err := e.client.Plan(context.Background(), sandbox.PlanID, ynab.Fresh)
	if err != nil {
		b.Fatal(err)
	}
	names := []string{"Boodschappen", "Restaurants", "Dagelijks: Vervoer", "uitjes", "Inflow: Ready to Assign"}
	changes := make([]categoryChange, len(ids))
	for i, id := range ids {
		changes[i] = categoryChange{TransactionID: id, Category: names[i%len(names)]}
	}
	h := &handlers{}
	b.ReportAllocs()
	for b.Loop() {
		ed, err := h.recategorise(p, changes)
		if err != nil {
			b.Fatal(err)
		}
		if len(ed.preview()) == 0 {
			b.Fatal("no preview")
		}
		if _, err := confirm.Fingerprint(p.ID, ed.subject); err != nil {
			b.Fatal(err)
		}
	}
}
