package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// The pilot write, set_category_budget, through confirm.Ask with every kind of client.

var budgetArgs = map[string]any{"category": "Restaurants", "month": "current", "amount": "150.00"}

const budgetPreview = "Budget Restaurants for 2026-12-01: 120.00 → 150.00?"

// restaurants returns what Restaurants has assigned in December 2026 in the sandbox.
func (e *testEnv) restaurantsAssigned() int64 {
	e.t.Helper()
	p, err := e.sb.Export(sandbox.PlanID)
	if err != nil {
		e.t.Fatal(err)
	}
	var id string
	for _, c := range p.Categories {
		if c.Name == "Restaurants" {
			id = c.ID
		}
	}
	for _, m := range p.Months {
		if m.Month == "2026-12-01" {
			for _, c := range m.Categories {
				if c.ID == id {
					return c.Budgeted
				}
			}
		}
	}
	e.t.Fatal("no Restaurants in 2026-12 in the sandbox")
	return 0
}

// onlyOperation returns the journal's one operation.
func (e *testEnv) onlyOperation() journal.Operation {
	e.t.Helper()
	ops, err := e.journal.List(context.Background(), journal.Filter{})
	if err != nil || len(ops) != 1 {
		e.t.Fatalf("journal holds %d operations (%v), want 1", len(ops), err)
	}
	return ops[0]
}

func TestPilotThroughEachKindOfClient(t *testing.T) {
	tests := []struct {
		kind clientKind
		via  string
	}{
		{modernYes, "mrtr"},
		{legacy1125, "elicit"},
		{legacy0618, "elicit"},
	}
	for _, tt := range tests {
		t.Run(tt.kind.name, func(t *testing.T) {
			e := newEnv(t, envOptions{kind: tt.kind})
			e.sb.ResetCounts()
			var out writeOut
			e.ok("set_category_budget", budgetArgs, &out)
			if out.Status != "applied" || out.OperationID == "" {
				t.Fatalf("result = %+v, want applied with an operation id", out)
			}
			if q := e.questions(); len(q) != 1 || q[0] != budgetPreview {
				t.Fatalf("the user was asked %q, want once: %q", q, budgetPreview)
			}
			if c := e.sb.Counts(); c.Writes != 1 {
				t.Fatalf("YNAB writes = %d, want exactly 1", c.Writes)
			}
			if got := e.restaurantsAssigned(); got != 150000 {
				t.Fatalf("Restaurants assigned = %d, want 150000", got)
			}
			op := e.onlyOperation()
			if op.ID != out.OperationID || op.Status != journal.StatusApplied || op.ConfirmedVia != tt.via || op.Client.Name != "avenir-test" {
				t.Fatalf("journal = %+v", op)
			}
			if len(op.Changes) != 1 || string(op.Changes[0].Before) != `{"budgeted":120000}` || string(op.Changes[0].After) != `{"budgeted":150000}` {
				t.Fatalf("journaled changes = %+v", op.Changes)
			}
		})
	}
}

func TestPilotCodePath(t *testing.T) {
	for _, kind := range []clientKind{noElicit, modernNone, headless, modernCancel} {
		t.Run(kind.name, func(t *testing.T) {
			e := newEnv(t, envOptions{kind: kind})
			var first writeOut
			e.ok("set_category_budget", budgetArgs, &first)
			if first.Status != "confirmation_required" || first.Preview != budgetPreview || len(first.Confirmation) != 11 || first.ExpiresInSeconds != 600 {
				t.Fatalf("first call = %+v", first)
			}
			if e.writes() != 0 {
				t.Fatal("the preview wrote to YNAB")
			}
			args := withArg(budgetArgs, "confirmation", first.Confirmation)
			e.sb.ResetCounts()
			var out writeOut
			e.ok("set_category_budget", args, &out)
			if c := e.sb.Counts(); out.Status != "applied" || c.Writes != 1 || c.Reads > 1 || out.YNABRequests != c.Total {
				t.Fatalf("with the code: %+v, sandbox counts %+v; want applied with one read and one write", out, c)
			}
			if op := e.onlyOperation(); op.ConfirmedVia != "code" {
				t.Fatalf("confirmed via %q, want code", op.ConfirmedVia)
			}
			// The same code again is refused, and nothing more is written.
			e.fails("set_category_budget", args, "This confirmation code is unknown, expired, already used, or was issued for different changes. Call again without confirmation to get a new preview.")
			if e.writes() != 1 {
				t.Fatal("a spent code wrote again")
			}
		})
	}
}

func TestPilotCodeForOtherChangesIsSpent(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	var first writeOut
	e.ok("set_category_budget", budgetArgs, &first)
	e.fails("set_category_budget", withArg(withArg(budgetArgs, "amount", "160"), "confirmation", first.Confirmation), "issued for different changes")
	e.fails("set_category_budget", withArg(budgetArgs, "confirmation", first.Confirmation), "already used")
	if e.writes() != 0 || e.restaurantsAssigned() != 120000 {
		t.Fatal("a refused code wrote")
	}
}

func TestPilotUnknownAndExpiredCodes(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	e := newEnv(t, envOptions{kind: noElicit, clock: clock})
	const refused = "This confirmation code is unknown, expired, already used, or was issued for different changes. Call again without confirmation to get a new preview."
	e.fails("set_category_budget", withArg(budgetArgs, "confirmation", "AAAAAAAAAAA"), refused)
	e.fails("set_category_budget", withArg(budgetArgs, "confirmation", "not even a code"), refused)
	var first writeOut
	e.ok("set_category_budget", budgetArgs, &first)
	mu.Lock()
	now = now.Add(601 * time.Second)
	mu.Unlock()
	e.fails("set_category_budget", withArg(budgetArgs, "confirmation", first.Confirmation), refused)
	if e.writes() != 0 {
		t.Fatal("a refused code wrote")
	}
}

func TestPilotDeclined(t *testing.T) {
	for _, kind := range []clientKind{
		{name: "2026-07-28 unticked", answer: "reject"},
		{name: "2026-07-28 decline", answer: "decline"},
		{name: "2025-11-25 decline", protocol: "2025-11-25", answer: "decline"},
	} {
		t.Run(kind.name, func(t *testing.T) {
			e := newEnv(t, envOptions{kind: kind})
			var out writeOut
			e.ok("set_category_budget", budgetArgs, &out)
			if out.Status != "declined" || !strings.Contains(out.Message, "Nothing was written.") {
				t.Fatalf("result = %+v, want declined", out)
			}
			if e.writes() != 0 || e.restaurantsAssigned() != 120000 {
				t.Fatal("a declined write reached YNAB")
			}
			if ops := e.operations(journal.Filter{}); len(ops) != 0 {
				t.Fatalf("a declined write was journaled: %+v", ops)
			}
		})
	}
}

// The month "current" rolls over between the preview and the answer: the subject differs, so
// the answer does not confirm it.
func TestPilotPlanChangedBetweenLegs(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernYes, noMRTRDriver: true})
	ctx := context.Background()
	first, err := e.session.CallTool(ctx, &mcp.CallToolParams{Name: "set_category_budget", Arguments: budgetArgs})
	if err != nil || !first.NeedsInput() {
		t.Fatalf("first leg: %v %+v; want input required", err, first)
	}
	req, ok := first.InputRequests["confirm"].(*mcp.ElicitParams)
	if !ok || req.Message != budgetPreview {
		t.Fatalf("input request = %+v", first.InputRequests)
	}
	e.setNow(time.Date(2027, 1, 1, 0, 5, 0, 0, time.UTC))
	res, err := e.session.CallTool(ctx, &mcp.CallToolParams{Name: "set_category_budget", Arguments: budgetArgs,
		RequestState:   first.RequestState,
		InputResponses: mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"value": true}}}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "The plan changed between the preview and the answer") {
		t.Fatalf("answer leg: %v %+v; want the plan-changed error", err, res)
	}
	if e.writes() != 0 {
		t.Fatal("a stale answer wrote")
	}
	// A tampered state is invalid params, and writes nothing.
	_, err = e.session.CallTool(ctx, &mcp.CallToolParams{Name: "set_category_budget", Arguments: budgetArgs,
		RequestState:   first.RequestState + "x",
		InputResponses: mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"value": true}}}})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || e.writes() != 0 {
		t.Fatalf("tampered state: %v; want invalid params and nothing written", err)
	}
}

func TestRequireElicitation(t *testing.T) {
	t.Run("2026-07-28 without elicitation: -32021", func(t *testing.T) {
		e := newEnv(t, envOptions{kind: modernNone, requireElicitation: true})
		_, err := e.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "set_category_budget", Arguments: budgetArgs})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != mcp.CodeMissingRequiredClientCapabilities || !strings.Contains(string(we.Data), "elicitation") {
			t.Fatalf("err = %v, want -32021 naming elicitation", err)
		}
	})
	t.Run("older client without elicitation: a tool error", func(t *testing.T) {
		e := newEnv(t, envOptions{kind: noElicit, requireElicitation: true})
		e.fails("set_category_budget", budgetArgs, "Nothing was changed")
		e.fails("set_category_budget", withArg(budgetArgs, "confirmation", "AAAAAAAAAAA"), "codes are disabled")
	})
	t.Run("dismissed: declined", func(t *testing.T) {
		e := newEnv(t, envOptions{kind: headless, requireElicitation: true})
		var out writeOut
		e.ok("set_category_budget", budgetArgs, &out)
		if out.Status != "declined" {
			t.Fatalf("result = %+v, want declined", out)
		}
	})
	t.Run("the user says yes: applied", func(t *testing.T) {
		e := newEnv(t, envOptions{kind: modernYes, requireElicitation: true})
		var out writeOut
		e.ok("set_category_budget", budgetArgs, &out)
		if out.Status != "applied" {
			t.Fatalf("result = %+v, want applied", out)
		}
	})
}

func TestReadOnlyModeOffersNoWrites(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone, readOnly: true})
	res, err := e.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) == 0 {
		t.Fatal("no tools at all")
	}
	for _, tool := range res.Tools {
		if !tool.Annotations.ReadOnlyHint {
			t.Errorf("read-only mode offers %s", tool.Name)
		}
	}
}

func withArg(args map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(args)+1)
	for a, b := range args {
		out[a] = b
	}
	out[k] = v
	return out
}

var _ = json.Marshal
