package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

func TestUndoRedoChainOfABudget(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	_, w := e.apply("set_category_budget", budgetArgs)
	if e.restaurantsAssigned() != 150000 {
		t.Fatal("the write did not land")
	}

	preview, u1 := e.apply("undo_operation", map[string]any{"operation_id": w.OperationID})
	if want := "Undo: budget Restaurants for 2026-12-01: 120.00 → 150.00?\nDagelijks: Restaurants 2026-12: 150.00 → 120.00"; preview != want {
		t.Fatalf("undo preview = %q, want %q", preview, want)
	}
	if e.restaurantsAssigned() != 120000 {
		t.Fatal("the undo did not put 120.00 back")
	}
	orig, err := e.journal.Get(t.Context(), w.OperationID)
	if err != nil || orig.UndoneBy != u1.OperationID {
		t.Fatalf("the original's journal entry = %+v, %v; want it undone by %s", orig, err, u1.OperationID)
	}
	e.fails("undo_operation", map[string]any{"operation_id": w.OperationID}, "already undone by "+u1.OperationID)

	preview, redo := e.apply("undo_operation", map[string]any{"operation_id": u1.OperationID})
	if !strings.HasPrefix(preview, "Redo: budget Restaurants for 2026-12-01: 120.00 → 150.00?") || e.restaurantsAssigned() != 150000 {
		t.Fatalf("redo preview %q, assigned %d; want the redo to put 150.00 back", preview, e.restaurantsAssigned())
	}
	preview, _ = e.apply("undo_operation", map[string]any{"operation_id": redo.OperationID})
	if !strings.HasPrefix(preview, "Undo: budget Restaurants") || e.restaurantsAssigned() != 120000 {
		t.Fatalf("undo of the redo: preview %q, assigned %d", preview, e.restaurantsAssigned())
	}
	undoOp := e.operation(u1.OperationID)
	if undoOp.UndoOf != w.OperationID || undoOp.UndoneBy != redo.OperationID || undoOp.ConfirmedVia != "code" {
		t.Fatalf("the undo's journal entry = %+v", undoOp)
	}
	var ops listOperationsOut
	e.ok("list_operations", nil, &ops)
	if len(ops.Operations) != 4 || ops.Operations[0].Tool != "undo_operation" || ops.Operations[3].Undo.UndoneBy != u1.OperationID {
		t.Fatalf("list_operations = %+v", ops.Operations)
	}
}

func TestUndoLeavesAloneWhatChangedSince(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	_, w := e.apply("set_category_budget", budgetArgs)
	// Someone assigns another amount in YNAB after the write.
	op := e.operation(w.OperationID)
	if _, err := e.client.UpdateMonthCategory(context.Background(), sandbox.PlanID, "2026-12-01", op.Changes[0].ID, 170000); err != nil {
		t.Fatal(err)
	}
	e.sb.ResetCounts()
	e.fails("undo_operation", map[string]any{"operation_id": w.OperationID}, "nothing is left to undo: Dagelijks: Restaurants 2026-12 (changed since)")
	if e.writes() != 0 || e.restaurantsAssigned() != 170000 {
		t.Fatal("an undo overwrote a later change")
	}
}

func TestUndoRefusals(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	var first writeOut
	e.ok("set_category_budget", budgetArgs, &first)
	e.sb.InjectFault(sandbox.Fault{Method: "PATCH", Status: 500})
	e.fails("set_category_budget", withArg(budgetArgs, "confirmation", first.Confirmation), "YNAB is failing")
	failed := e.onlyOperation()
	if failed.Status != journal.StatusFailed {
		t.Fatalf("journal = %+v, want the failed write", failed)
	}
	e.fails("undo_operation", map[string]any{"operation_id": failed.ID}, "failed: nothing of it was written to YNAB, so there is nothing to undo")
	e.fails("undo_operation", map[string]any{"operation_id": "01ARZ3NDEKTSV4RRFFQ69G5FAV"}, "there is no operation")
}

// The journal and the sandbox outlive the server: a second server (new process, new codes)
// undoes what the first wrote.
func TestUndoAfterARestart(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	_, w := e.apply("set_category_budget", budgetArgs)
	e2 := e.restart(noElicit)
	e2.apply("undo_operation", map[string]any{"operation_id": w.OperationID})
	if e.restaurantsAssigned() != 120000 {
		t.Fatal("the undo after a restart did not put 120.00 back")
	}
}

// What YNAB's API cannot take back is refused with the reason, through the MCP surface.
func TestUndoRefusesWhatYNABCannotTakeBack(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	market := e.txIDs(map[string]any{"payee": "Market"}, 1)[0]
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"create_category", map[string]any{"group": "Dagelijks", "name": "Huisdieren"}, "YNAB's API has no way to delete or hide a category"},
		{"split_transaction", map[string]any{"transaction_id": market, "lines": []map[string]any{
			{"amount": "-50.00", "category": "Boodschappen"}, {"amount": "-36.40", "category": "Restaurants"}}}, "YNAB's API cannot un-split one: only YNAB can"},
		{"import_transactions", nil, "an import cannot be undone"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			_, out := e.apply(tt.tool, tt.args)
			e.sb.ResetCounts()
			e.fails("undo_operation", map[string]any{"operation_id": out.OperationID}, tt.want)
			if e.writes() != 0 {
				t.Fatal("a refused undo wrote")
			}
			var op getOperationOut
			e.ok("get_operation", map[string]any{"operation_id": out.OperationID}, &op)
			if op.Undo.CanUndo || !strings.Contains(op.Undo.Why, tt.want) {
				t.Fatalf("get_operation says can_undo=%v (%q), want the refusal", op.Undo.CanUndo, op.Undo.Why)
			}
		})
	}
}

// A move whose second half failed is partial; its undo puts back the half that was written and
// leaves the other alone.
func TestUndoOfAPartlyAppliedMove(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	moveArgs := map[string]any{"from_category": "Tennis", "to_category": "Restaurants", "month": "current", "amount": "30"}
	var first writeOut
	e.ok("move_money", moveArgs, &first)
	restaurants, _ := moneyCategory(e, "Restaurants")
	e.sb.InjectFault(sandbox.Fault{Method: "PATCH", PathContains: restaurants.ID, Status: 503})
	e.fails("move_money", withArg(moveArgs, "confirmation", first.Confirmation), "Only part of the change is in YNAB")
	op := e.onlyOperation()
	if op.Status != journal.StatusPartial || moneyAssigned(e, "Tennis") != 15000 {
		t.Fatalf("journal %s, Tennis %d; want partial with Tennis at 15.00", op.Status, moneyAssigned(e, "Tennis"))
	}
	e.sb.ResetCounts()
	preview, _ := e.apply("undo_operation", map[string]any{"operation_id": op.ID})
	if !strings.Contains(preview, "Left alone, never applied: ") || e.writes() != 1 {
		t.Fatalf("undo preview %q, %d writes; want the unapplied half left alone and one write", preview, e.writes())
	}
	if moneyAssigned(e, "Tennis") != 45000 || moneyAssigned(e, "Restaurants") != 120000 {
		t.Fatalf("after the undo Tennis %d, Restaurants %d; want 45.00 and 120.00", moneyAssigned(e, "Tennis"), moneyAssigned(e, "Restaurants"))
	}
}

// Undoing a create that made a new payee says the payee stays: YNAB's API cannot delete one.
func TestUndoOfACreateNamesThePayeeItCannotRemove(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	_, w := e.apply("create_transactions", map[string]any{"account": "Betaalrekening", "transactions": []map[string]any{
		{"date": "today", "amount": "-19.99", "payee": "Coolblue"}}})
	preview, _ := e.apply("undo_operation", map[string]any{"operation_id": w.OperationID})
	if !strings.Contains(preview, "The payees YNAB created for these transactions stay") {
		t.Fatalf("undo preview = %q; want it to say the new payee stays", preview)
	}
}
