package tools

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// Every reason a write's result can give (reason.go, the reason contract), each produced the way
// a person meets it and read from the result's structured content as a view reads it: never
// from the message.
func TestReasons(t *testing.T) {
	t.Parallel()
	rejects := clientKind{name: "2025-11-25 that answers no", protocol: "2025-11-25", answer: "reject"}
	codeFor := func(e *testEnv, tool string, args map[string]any) string {
		var out writeOut
		e.ok(tool, args, &out)
		if out.Confirmation == "" {
			e.t.Fatalf("%s: no code: %+v", tool, out)
		}
		return out.Confirmation
	}
	notDrawn := newFakeClock() // confirm's clock, for the card that is never drawn
	cases := []struct {
		reason string
		status string // the result's status
		opts   envOptions
		call   func(e *testEnv) *mcp.CallToolResult
	}{
		{reasonDeclined, "declined", envOptions{kind: rejects}, func(e *testEnv) *mcp.CallToolResult {
			return e.call("set_category_budget", budgetArgs)
		}},
		{reasonDeclined, "declined", envOptions{kind: headless, requireElicitation: true}, func(e *testEnv) *mcp.CallToolResult {
			return e.call("set_category_budget", budgetArgs)
		}},
		{reasonPlanChanged, "error", envOptions{kind: legacy1125}, func(e *testEnv) *mcp.CallToolResult {
			// Someone clears a transaction while the person reads the question: the reconcile
			// agreed to is no longer what would be written (the write path's own check).
			args := reconcileArgs(e, 12340)
			acct := createsAccount(e, "Betaalrekening")
			for _, tx := range createsExport(e).Transactions {
				if tx.AccountID == acct.ID && !tx.Deleted && tx.Cleared == "uncleared" {
					e.duringQuestion = func() {
						if _, err := someoneElse(e).UpdateTransactions(context.Background(), sandbox.PlanID, []ynab.SaveTransaction{{ID: tx.ID, Cleared: ynab.Cleared}}); err != nil {
							e.t.Error(err)
						}
					}
					break
				}
			}
			return e.call("reconcile_account", args)
		}},
		{reasonPlanChanged, "error", envOptions{kind: modernApps}, func(e *testEnv) *mcp.CallToolResult {
			_, token := e.cardToken("set_category_budget", budgetArgs)
			e.setNow(time.Date(2027, 1, 1, 0, 5, 0, 0, time.UTC))
			return e.answer(token, "accept")
		}},
		{reasonCodeRefused, "error", envOptions{kind: noElicit}, func(e *testEnv) *mcp.CallToolResult {
			return e.call("set_category_budget", withArg(budgetArgs, "confirmation", "AAAAAAAAAAA"))
		}},
		{reasonCardRefused, "error", envOptions{kind: modernApps}, func(e *testEnv) *mcp.CallToolResult {
			return e.answer("AAAAAAAAAAAAAAAAAAAAAA", "accept")
		}},
		{reasonCardOutdated, "error", envOptions{kind: modernApps}, func(e *testEnv) *mcp.CallToolResult {
			_, token := e.cardToken("set_category_budget", budgetArgs)
			return e.call("answer_confirmation", map[string]any{"token": token, "answer": "accept", "version": 1})
		}},
		{reasonCardNotShown, "error", envOptions{kind: modernApps, clock: notDrawn.Now, requireElicitation: true}, func(e *testEnv) *mcp.CallToolResult {
			e.pending("set_category_budget", budgetArgs)
			notDrawn.advance(confirm.NotDrawnAfter) // asked again, no card opened: the host did not draw it
			return e.call("set_category_budget", budgetArgs)
		}},
		{reasonCodesDisabled, "error", envOptions{kind: noElicit, requireElicitation: true}, func(e *testEnv) *mcp.CallToolResult {
			return e.call("set_category_budget", withArg(budgetArgs, "confirmation", "AAAAAAAAAAA"))
		}},
		{reasonCannotAsk, "error", envOptions{kind: noElicit, requireElicitation: true}, func(e *testEnv) *mcp.CallToolResult {
			return e.call("set_category_budget", budgetArgs)
		}},
		{reasonPartial, "partial", envOptions{kind: noElicit}, func(e *testEnv) *mcp.CallToolResult {
			code := codeFor(e, "move_money", moveArgs)
			restaurants, _ := moneyCategory(e, "Restaurants")
			e.sb.InjectFault(sandbox.Fault{Method: "PATCH", PathContains: restaurants.ID, Status: 503})
			return e.call("move_money", withArg(moveArgs, "confirmation", code))
		}},
		{reasonYNABRefused, "error", envOptions{kind: modernYes}, func(e *testEnv) *mcp.CallToolResult {
			e.sb.InjectFault(sandbox.Fault{Method: "PATCH", Status: 400})
			return e.call("set_category_budget", budgetArgs)
		}},
		{reasonNotSettled, "error", envOptions{kind: modernYes}, func(e *testEnv) *mcp.CallToolResult {
			var accounts map[string]any
			e.ok("list_accounts", map[string]any{}, &accounts) // the plan as last read serves the preview
			e.sb.InjectFault(sandbox.Fault{Method: "POST", DropAfter: true})
			e.sb.InjectFault(sandbox.Fault{Method: "GET", Skip: 1, Status: 503, Count: 4})
			return e.call("create_transactions", coolblueArgs)
		}},
		{reasonInvalidArgument, "error", envOptions{kind: modernYes}, func(e *testEnv) *mcp.CallToolResult {
			return e.call("set_category_budget", withArg(budgetArgs, "category", "Restaurantz"))
		}},
		{reasonInvalidArgument, "error", envOptions{kind: modernYes}, func(e *testEnv) *mcp.CallToolResult {
			return e.call("set_category_budget", withArg(budgetArgs, "amount", []any{1})) // refused before the tool runs
		}},
		{reasonInvalidArgument, "error", envOptions{kind: modernApps}, func(e *testEnv) *mcp.CallToolResult {
			_, token := e.cardToken("set_category_budget", budgetArgs)
			return e.answer(token, "maybe")
		}},
		{reasonError, "error", envOptions{kind: modernYes}, func(e *testEnv) *mcp.CallToolResult {
			e.sb.InjectFault(sandbox.Fault{Status: 401})
			return e.call("set_category_budget", budgetArgs)
		}},
	}
	for _, c := range cases {
		t.Run(c.reason, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, c.opts)
			res := c.call(e)
			var out writeOut
			decode(t, res, &out)
			if out.Reason != c.reason || out.Status != c.status || res.IsError != (c.status != "declined") {
				t.Fatalf("status %q, reason %q, error %v (%s); want %q, %q", out.Status, out.Reason, res.IsError, text(res), c.status, c.reason)
			}
			if c.reason == reasonPartial || c.reason == reasonNotSettled || c.reason == reasonYNABRefused {
				if out.OperationID == "" || e.operation(out.OperationID).ID == "" {
					t.Fatalf("operation_id %q; want the journal's entry", out.OperationID)
				}
			}
		})
	}
}

// A reason an error carries (confirm's card refusals say theirs) wins over a sentinel, through
// any wrapping; the sentinels are found through wrapping too.
func TestReasonOf(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("answering: %w", reasonCarrier(reasonCardRefused)), reasonCardRefused},
		{fmt.Errorf("answering: %w", reasonCarrier(reasonCardOutdated)), reasonCardOutdated},
		{reasonCarrier(reasonCardNotShown), reasonCardNotShown},
		{fmt.Errorf("%w What changed: x", confirm.ErrPlanChanged), reasonPlanChanged},
		{confirm.ErrCodeRefused, reasonCodeRefused},
		{fmt.Errorf("x: %w", confirm.ErrCodesDisabled), reasonCodesDisabled},
		{confirm.ErrCannotAsk, reasonCannotAsk},
		{because(reasonPartial, "01J", errors.New("only part")), reasonPartial},
		{errors.New("category: there is no category"), reasonInvalidArgument},
	}
	for _, c := range cases {
		if got := reasonOf(c.err); got != c.want {
			t.Errorf("reasonOf(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

// reasonCarrier is an error that says its own reason, as confirm's card errors do.
type reasonCarrier string

func (r reasonCarrier) Error() string  { return "refused: " + string(r) }
func (r reasonCarrier) Reason() string { return string(r) }
