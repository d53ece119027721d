package tools

import (
	"context"
	"testing"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// A redo of a create whose answer is lost: avenir reads YNAB, finds the transaction entered
// again by what it sent (under a new id), and records that id, so that undoing the redo deletes
// exactly it.
func TestRedoOfACreateWithALostAnswer(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernYes})
	var created createdOut
	e.ok("create_transactions", coolblueArgs, &created)
	var undone writeOut
	e.ok("undo_operation", map[string]any{"operation_id": created.OperationID}, &undone)
	if len(createsMade(e)) != 0 {
		t.Fatal("the undo left the transaction")
	}
	e.sb.InjectFault(sandbox.Fault{Method: "POST", DropAfter: true})
	var redone writeOut
	e.ok("undo_operation", map[string]any{"operation_id": undone.OperationID}, &redone)
	made := createsMade(e)
	op, err := e.journal.Get(t.Context(), redone.OperationID)
	if err != nil {
		t.Fatal(err)
	}
	if len(made) != 1 || op.Status != journal.StatusApplied || !op.ReadBack || len(op.Changes) != 1 ||
		op.Changes[0].ID != made[0].ID || op.Changes[0].ID == created.TransactionIDs[0] || op.Changes[0].Outcome != journal.OutcomeApplied {
		t.Fatalf("redo journaled %+v; YNAB holds %+v; want applied with the new id", op, made)
	}
	var again writeOut
	e.ok("undo_operation", map[string]any{"operation_id": redone.OperationID}, &again)
	if len(createsMade(e)) != 0 {
		t.Fatal("undoing the redo did not delete what the redo entered")
	}
}

// A create cut off before its outcome was known (the answer lost, the read back failing: what
// a crash leaves) stays prepared; at the next start recovery reads YNAB, finds the transaction
// by what was sent and records its id, so that its undo deletes it.
func TestRecoveryFindsACreateByWhatItSent(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernYes})
	var accounts map[string]any
	e.ok("list_accounts", map[string]any{}, &accounts)
	e.sb.InjectFault(sandbox.Fault{Method: "POST", DropAfter: true})
	e.sb.InjectFault(sandbox.Fault{Method: "GET", Skip: 1, Status: 503, Count: 4})
	e.fails("create_transactions", coolblueArgs, "stays prepared")
	op := e.onlyOperation()
	if op.Status != journal.StatusPrepared || op.KnowledgeBefore == 0 {
		t.Fatalf("journal %+v; want prepared, with the knowledge read before the write", op)
	}
	restarted := e.restart(modernYes)
	recovery := NewRecovery(Deps{YNAB: restarted.client, Journal: e.journal})
	changes, err := recovery.Check(context.Background(), op)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.journal.Resolve(t.Context(), op.ID, changes); err != nil {
		t.Fatal(err)
	}
	made := createsMade(e)
	got := e.operation(op.ID)
	if len(made) != 1 || got.Status != journal.StatusApplied || got.Changes[0].ID != made[0].ID {
		t.Fatalf("recovered %+v; YNAB holds %+v", got, made)
	}
	var undone writeOut
	restarted.ok("undo_operation", map[string]any{"operation_id": op.ID}, &undone)
	if len(createsMade(e)) != 0 {
		t.Fatal("the undo of a recovered create did not delete it")
	}
}
