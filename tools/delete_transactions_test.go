package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

const deleteRoute = "DELETE /plans/{plan_id}/transactions/{transaction_id}"

func TestDeleteTransactions(t *testing.T) {
	t.Parallel()
	var ids []string
	wrAcrossClients(t, wrCase{tool: "delete_transactions",
		args: func(e *testEnv) map[string]any {
			ids = []string{e.txeditsTx("Market", -86400).ID, e.txeditsTx("Kruidvat", -8470).ID}
			return map[string]any{"transaction_ids": ids}
		},
		first:  "Delete 2 transaction(s)?",
		writes: map[string]int{deleteRoute: 2},
		check: func(t *testing.T, e *testEnv) {
			var out listTransactionsOut
			e.ok("list_transactions", map[string]any{"since": "2026-11-01", "limit": 500}, &out)
			for _, v := range out.Transactions {
				if v.ID == ids[0] || v.ID == ids[1] {
					t.Fatalf("list_transactions still shows %+v", v)
				}
			}
		}})
}

func TestDeleteTransactionsPreview(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	split, transfer := e.txeditsTx("Albert Heijn", -112350), e.txeditsTx("Transfer : Spaarrekening", -250000)
	got := e.preview("delete_transactions", map[string]any{"transaction_ids": []string{e.txeditsTx("Market", -86400).ID, split.ID, transfer.ID}}).Preview
	want := "Delete 3 transaction(s)?\n" +
		"2026-12-01 Market 86.40 on Betaalrekening, Boodschappen, memo \"Weekmarkt\"\n" +
		split.Date + " Albert Heijn 112.35 on Betaalrekening, a split of 2 lines, which go with it, memo \"Weekboodschappen en drogisterij\"\n" +
		transfer.Date + " Transfer : Spaarrekening 250.00 on Betaalrekening, a transfer: its other side on Spaarrekening goes with it"
	if !strings.HasPrefix(got, want) || !strings.Contains(got, "An undo enters them again with their fields, split lines and transfer, under new ids") ||
		!strings.Contains(got, "this costs 3 requests") {
		t.Fatalf("preview:\n%s\nwant it to start:\n%s", got, want)
	}
}

// The undo (after a restart) enters a plain transaction, a split with its lines and a transfer
// again, the transfer's other side with what it had of its own: the plan is as before but for
// the ids. It names the new ids; the redo deletes them again.
func TestDeleteTransactionsUndo(t *testing.T) {
	t.Parallel()
	_, w, u, r := wrRoundTrip(t, "delete_transactions", func(e *testEnv) map[string]any {
		return map[string]any{"transaction_ids": []string{e.txeditsTx("Market", -86400).ID, e.txeditsTx("Albert Heijn", -112350).ID,
			e.txeditsTx("Transfer : Betaalrekening", 250000).ID}}
	})
	if len(w.Changes) != 3 || len(u.Changes) != 3 || len(r.Changes) != 3 {
		t.Fatalf("changes: %d, %d, %d; want 3 each", len(w.Changes), len(u.Changes), len(r.Changes))
	}
	for i, c := range u.Changes {
		if c.Kind != journal.KindNewTransaction || c.ID == "" || c.ID == w.Changes[i].ID || r.Changes[i].ID != c.ID {
			t.Fatalf("the undo's change %d = %+v; want a new transaction under a new id, which the redo deletes", i, c)
		}
	}
	if !strings.Contains(u.Preview, "3 deleted thing(s) are entered again, under new ids") {
		t.Fatalf("undo preview = %q", u.Preview)
	}
}

// The undo's result names the new ids; a transaction someone changed after the undo is left
// alone by the redo.
func TestDeleteTransactionsUndoNamesNewIDsAndRedoLeavesAloneWhatChanged(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	market, kruidvat := e.txeditsTx("Market", -86400), e.txeditsTx("Kruidvat", -8470)
	_, w := e.apply("delete_transactions", map[string]any{"transaction_ids": []string{market.ID, kruidvat.ID}})
	var first undoOut
	e.ok("undo_operation", map[string]any{"operation_id": w.OperationID}, &first)
	var u undoOut
	e.ok("undo_operation", map[string]any{"operation_id": w.OperationID, "confirmation": first.Confirmation}, &u)
	again := e.txeditsTx("Market", -86400)
	if len(u.CreatedIDs) != 2 || u.CreatedIDs[0] != again.ID || again.ID == market.ID {
		t.Fatalf("undo result names %v; want the new ids (Market is %s now)", u.CreatedIDs, again.ID)
	}
	if _, err := e.client.UpdateTransactions(context.Background(), sandbox.PlanID, []ynab.SaveTransaction{{ID: again.ID, Memo: ynab.Some("zaterdag")}}); err != nil {
		t.Fatal(err)
	}
	preview, _ := e.apply("undo_operation", map[string]any{"operation_id": u.OperationID})
	if !strings.Contains(preview, "Left alone, changed since: 2026-12-01 Market 86.40") {
		t.Fatalf("redo preview = %q", preview)
	}
	if e.txeditsTx("Market", -86400).ID != again.ID {
		t.Fatal("the redo deleted what someone changed since")
	}
}

// When YNAB refuses the second deletion, the first stays done: the operation is partial, the
// result says which, and its undo enters the one that was deleted again.
func TestDeleteTransactionsPartly(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	market, kruidvat := e.txeditsTx("Market", -86400), e.txeditsTx("Kruidvat", -8470)
	args := map[string]any{"transaction_ids": []string{market.ID, kruidvat.ID}}
	var first writeOut
	e.ok("delete_transactions", args, &first)
	e.sb.InjectFault(sandbox.Fault{Method: "DELETE", PathContains: kruidvat.ID, Status: 400})
	e.fails("delete_transactions", withArg(args, "confirmation", first.Confirmation), "Only part of the change is in YNAB")
	op := e.onlyOperation()
	if op.Status != journal.StatusPartial || op.Changes[0].Outcome != journal.OutcomeApplied || op.Changes[1].Outcome != journal.OutcomeNotApplied {
		t.Fatalf("journal = %+v", op)
	}
	e.apply("undo_operation", map[string]any{"operation_id": op.ID})
	if e.txeditsTx("Market", -86400).Memo == nil || e.txeditsTx("Kruidvat", -8470).ID != kruidvat.ID {
		t.Fatal("the undo did not enter Market again, or touched Kruidvat")
	}
}

func TestDeleteTransactionsRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	market := e.txeditsTx("Market", -86400)
	split := e.txeditsTx("Albert Heijn", -112350)
	out := e.txeditsTx("Transfer : Spaarrekening", -250000)
	var line string
	for _, s := range e.txeditsExport().Subtransactions {
		if s.TransactionID == split.ID {
			line = s.ID
		}
	}
	other := wrOtherPlan(t).Transactions[0].ID
	many := make([]string, 101)
	for i := range many {
		many[i] = market.ID
	}
	mirror := *out.TransferTransactionID
	tests := []struct {
		name string
		ids  []string
		want string
	}{
		{"an empty list", []string{}, "transaction_ids: the list is empty"},
		{"too many", many, "transaction_ids: 101 transactions is more than the 100 one call may delete"},
		{"an unknown id", []string{"nope"}, `transaction_ids[0]: there is no transaction "nope"`},
		{"an id of another plan", []string{other}, `transaction_ids[0]: there is no transaction "` + other + `"`},
		{"a split's line", []string{line}, "transaction_ids[0]: " + line + " is a line of the split"},
		{"twice", []string{market.ID, market.ID}, "transaction_ids[1]: transaction " + market.ID + " is already in transaction_ids[0]"},
		{"both sides of a transfer", []string{out.ID, mirror}, "transaction_ids[1]: " + out.Date + " Transfer : Betaalrekening +250.00 is the other side of the transfer in transaction_ids[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.t = t
			e.txeditsRefuses("delete_transactions", map[string]any{"transaction_ids": tt.ids}, tt.want)
		})
	}
}
