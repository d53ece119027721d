package tools

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// BenchmarkListTransactions10k: list_transactions over a plan of 10,000 transactions from a
// warm cache (no YNAB request), through the MCP surface: filter, sort, page and render.
func BenchmarkListTransactions10k(b *testing.B) {
	e := newEnv(b, envOptions{kind: modernNone, maxAge: time.Hour})
	ctx := context.Background()
	p, err := e.client.Plan(ctx, sandbox.PlanID, ynab.Fresh)
	if err != nil {
		b.Fatal(err)
	}
	var account string
	for _, a := range p.Accounts {
		if a.Name == "Betaalrekening" {
			account = a.ID
		}
	}
	for n := len(p.Transactions); n < 10000; {
		batch := make([]ynab.SaveTransaction, 0, 100)
		for i := 0; i < 100 && n < 10000; i, n = i+1, n+1 {
			batch = append(batch, ynab.SaveTransaction{AccountID: account, Date: fmt.Sprintf("2026-%02d-%02d", 1+n%11, 1+n%28),
				Amount: ynab.Some(int64(-1000 - n*10)), PayeeName: ynab.Some(fmt.Sprintf("Winkel %d", n%40)),
				Memo: ynab.Some(fmt.Sprintf("bon %d", n)), ImportID: ynab.Some(fmt.Sprintf("BENCH:%d", n))})
		}
		if _, err := e.client.CreateTransactions(ctx, sandbox.PlanID, batch); err != nil {
			b.Fatal(err)
		}
	}
	for _, args := range []map[string]any{
		{"limit": 100},
		{"status": "unapproved", "text": "winkel 7", "limit": 500},
	} {
		b.Run(fmt.Sprint(args), func(b *testing.B) {
			params := &mcp.CallToolParams{Name: "list_transactions", Arguments: args}
			res, err := e.session.CallTool(ctx, params) // warms the cache
			if err != nil || res.IsError {
				b.Fatalf("%v %v", err, res)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.session.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
