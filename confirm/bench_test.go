package confirm_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkFingerprint1000 fingerprints the largest change a tool accepts:
// 1,000 recategorised transactions.
func BenchmarkFingerprint1000(b *testing.B) {
	type change struct {
		TransactionID string `json:"transaction_id"`
		CategoryID    string `json:"category_id"`
	}
	changes := make([]change, 1000)
	for i := range changes {
		changes[i] = change{fmt.Sprintf("tx-%04d-5d2e-4c7a-9b1f-0e3d2c1b0a99", 999-i), fmt.Sprintf("cat-%02d", i%40)}
	}
	subject := map[string]any{"changes": changes}
	for b.Loop() {
		if _, err := confirm.Fingerprint("plan-1", subject); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAskByCode issues a code and redeems it, the whole in-process cost of
// a confirmation for a client without elicitation.
func BenchmarkAskByCode(b *testing.B) {
	a, err := confirm.New(confirm.Options{})
	if err != nil {
		b.Fatal(err)
	}
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: toolBudget}}
	q := confirm.Question{Tool: toolBudget, PlanID: "plan-1", Preview: "Budget Restaurants: 150.00?",
		Subject: map[string]any{"category_id": "cat-rest", "month": "2026-09-01", "amount": 150000}}
	ctx := context.Background()
	for b.Loop() {
		d, err := a.Ask(ctx, req, q)
		if err != nil || d.Reply == nil {
			b.Fatal(d, err)
		}
		q.Confirmation = d.Reply.Confirmation
		if d, err := a.Ask(ctx, req, q); err != nil || !d.Proceed {
			b.Fatal(d, err)
		}
		q.Confirmation = ""
	}
}

// BenchmarkAskByForm seals a state and opens it with a ticked box.
func BenchmarkAskByForm(b *testing.B) {
	a, err := confirm.New(confirm.Options{})
	if err != nil {
		b.Fatal(err)
	}
	caps := map[string]any{mcp.MetaKeyProtocolVersion: "2026-07-28",
		mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}}
	q := confirm.Question{Tool: toolBudget, PlanID: "plan-1", Preview: "Budget Restaurants: 150.00?",
		Subject: map[string]any{"category_id": "cat-rest", "month": "2026-09-01", "amount": 150000},
		Args:    setArgs{Category: "Restaurants", Amount: 150000}}
	ctx := context.Background()
	for b.Loop() {
		first := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: caps, Name: toolBudget}}
		d, err := a.Ask(ctx, first, q)
		if err != nil || d.Input == nil {
			b.Fatal(d, err)
		}
		second := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: caps, Name: toolBudget,
			RequestState: d.Input.RequestState, InputResponses: mcp.InputResponseMap{"confirm": accept(true)}}}
		if d, err := a.Ask(ctx, second, q); err != nil || !d.Proceed {
			b.Fatal(d, err)
		}
	}
}
