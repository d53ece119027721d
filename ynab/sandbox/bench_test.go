package sandbox_test

import (
	"fmt"
	"testing"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// BenchmarkPlanOf10k: the sandbox holding 10,000 transactions, the size the tools' large-plan
// benchmarks set up: a bulk create of 100 more, a full read of the transactions, a delta read.
func BenchmarkPlanOf10k(b *testing.B) {
	a := newAPI(b, sandbox.Options{})
	n := sampleNames(b, a.sb, sandbox.PlanID)
	next := 0
	batch := func() map[string]any {
		txs := make([]map[string]any, 100)
		for i := range txs {
			txs[i] = map[string]any{"account_id": n.id(b, "Betaalrekening"), "date": fmt.Sprintf("2026-%02d-%02d", 1+next%8, 1+next%28),
				"amount": -1000 - next*10, "payee_name": fmt.Sprintf("Winkel %d", next%40), "memo": fmt.Sprintf("bon %d", next)}
			next++
		}
		return many(txs...)
	}
	for next < 10000 {
		a.ok(201, "POST", plan+"/transactions", batch(), nil)
	}
	b.Run("bulk create 100", func(b *testing.B) {
		for b.Loop() {
			a.ok(201, "POST", plan+"/transactions", batch(), nil)
		}
	})
	b.Run("GET transactions", func(b *testing.B) {
		for b.Loop() {
			a.ok(200, "GET", plan+"/transactions?since_date=2026-01-01", nil, nil)
		}
	})
	b.Run("GET transactions delta", func(b *testing.B) {
		k := a.knowledge()
		for b.Loop() {
			a.ok(200, "GET", plan+"/transactions?last_knowledge_of_server="+fmt.Sprint(k), nil, nil)
		}
	})
}
