package tools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

func TestImportTransactions(t *testing.T) {
	for _, kind := range []clientKind{noElicit, modernYes} {
		t.Run(kind.name, func(t *testing.T) {
			e := newEnv(t, envOptions{kind: kind, maxAge: time.Hour})
			e.ok("list_accounts", map[string]any{}, &struct{}{}) // a warm cache, as after any read
			e.sb.ResetCounts()
			var out createdOut
			e.ok("import_transactions", map[string]any{}, &out)
			if c := e.sb.Counts(); out.Status != "applied" || out.OperationID == "" || c.Writes != 1 ||
				c.ByRoute["POST /plans/{plan_id}/transactions/import"] != 1 || c.Reads != 1 {
				t.Fatalf("result %+v, counts %+v; want applied with the import's POST and one read after it", out, c)
			}
			if len(e.questions()) != 0 {
				t.Fatal("an import asked the user")
			}
			if len(out.TransactionIDs) != 2 || out.Message != "Imported 2 transaction(s): 2026-12-01 Coolblue 19.99; 2026-12-02 Albert Heijn 4.35." {
				t.Fatalf("result = %+v", out)
			}
			op := e.onlyOperation()
			if op.Status != journal.StatusApplied || op.ConfirmedVia != "none" || op.Summary != "Imported transactions from linked accounts" ||
				len(op.Changes) != 2 || len(op.CreatedIDs) != 2 {
				t.Fatalf("journal = %+v", op)
			}
			for i, ch := range op.Changes {
				after := createsFields(t, ch.After)
				if ch.Kind != journal.KindNewTransaction || ch.ID != out.TransactionIDs[i] || ch.Before != nil || after["cleared"] != "cleared" || after["approved"] != false ||
					!strings.HasPrefix(after["import_id"].(string), "YNAB:") || after["account_id"] != createsID(e, "Betaalrekening") {
					t.Fatalf("journaled change %d = %+v", i, ch)
				}
			}

			// Nothing new the second time: still applied and journaled, and it says so.
			var again createdOut
			e.ok("import_transactions", map[string]any{}, &again)
			if again.Status != "applied" || len(again.TransactionIDs) != 0 || again.Message != "No new transactions: the linked accounts had nothing new to import." {
				t.Fatalf("second import = %+v", again)
			}
			ops := e.operations(journal.Filter{})
			if len(ops) != 2 || ops[0].ID != again.OperationID || ops[0].Status != journal.StatusApplied || len(ops[0].Changes) != 0 {
				t.Fatalf("journal after the second import = %+v", ops)
			}
		})
	}
}

// A 503 leaves the import in doubt: avenir reads YNAB, finds nothing imported, and records that.
func TestImportTransactionsRefused(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	e.sb.InjectFault(sandbox.Fault{Method: "POST", Status: 503})
	e.fails("import_transactions", map[string]any{}, "A read of YNAB afterwards shows none of it there: nothing was written")
	if op := e.onlyOperation(); op.Status != journal.StatusFailed || op.ConfirmedVia != "none" {
		t.Fatalf("journal = %+v", op)
	}
	if len(createsExport(e).Transactions) != 83 {
		t.Fatal("a refused import brought transactions in")
	}
}

// An import whose answer is lost after YNAB imported: the read finds what came in, and the
// journal records it as the import's, with the ids YNAB gave.
func TestImportTransactionsLostAnswer(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	e.sb.InjectFault(sandbox.Fault{Method: "POST", PathContains: "/transactions/import", DropAfter: true})
	var out createdOut
	e.ok("import_transactions", map[string]any{}, &out)
	if out.Status != "applied" || len(out.TransactionIDs) != 2 || !strings.Contains(out.Message, "Imported 2 transaction(s)") ||
		!strings.Contains(out.Message, "avenir read YNAB and found them there") {
		t.Fatalf("result = %+v", out)
	}
	op := e.onlyOperation()
	if op.Status != journal.StatusApplied || !op.ReadBack || len(op.Changes) != 2 || len(op.CreatedIDs) != 2 {
		t.Fatalf("journal = %+v", op)
	}
	for i, ch := range op.Changes {
		if ch.ID != out.TransactionIDs[i] || ch.Outcome != journal.OutcomeApplied || !strings.Contains(string(ch.After), `"import_id":"YNAB:`) {
			t.Fatalf("journaled change %d = %+v", i, ch)
		}
	}
	if n := len(createsExport(e).Transactions); n != 85 {
		t.Fatalf("YNAB holds %d transactions; want the sample's 83 and the 2 imported", n)
	}
}

// When the read fails too, the import stays prepared and the message says exactly that; a
// restart cannot settle it either (what was imported then cannot be told from later changes).
func TestImportTransactionsLostAnswerAndRead(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	e.ok("list_accounts", map[string]any{}, &struct{}{})
	e.sb.InjectFault(sandbox.Fault{Method: "POST", PathContains: "/transactions/import", DropAfter: true})
	e.sb.InjectFault(sandbox.Fault{Method: "GET", Status: 500, Count: 100})
	e.fails("import_transactions", map[string]any{}, "stays prepared")
	op := e.onlyOperation()
	if op.Status != journal.StatusPrepared {
		t.Fatalf("journal = %+v; want prepared", op)
	}
	e.sb.ClearFaults()
	if _, err := NewRecovery(Deps{YNAB: e.client, Journal: e.journal}).Check(context.Background(), op); err == nil {
		t.Fatal("recovery settled an import cut off before its answer")
	}
}

func TestImportTransactionsWithoutLinkedAccounts(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	var out createdOut
	e.ok("import_transactions", map[string]any{"plan_id": sandbox.SecondPlanID}, &out)
	if out.Status != "applied" || out.PlanID != sandbox.SecondPlanID || len(out.TransactionIDs) != 0 ||
		out.Message != "No new transactions: none of this plan's open accounts is linked to a bank (link one in YNAB to import)." {
		t.Fatalf("result = %+v", out)
	}
}

// The import went through but the plan cannot be read back: it is still applied, with the ids
// YNAB gave and a note that the details are missing.
func TestImportTransactionsReadBackFails(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit, maxAge: time.Hour})
	e.ok("list_accounts", map[string]any{}, &struct{}{}) // warm: the import reads nothing before it
	e.sb.InjectFault(sandbox.Fault{Method: "GET", Status: 503, Count: 4})
	var out createdOut
	e.ok("import_transactions", map[string]any{}, &out)
	op := e.onlyOperation()
	if out.Status != "applied" || len(out.TransactionIDs) != 2 || op.Status != journal.StatusApplied ||
		!strings.Contains(op.Note, "could not be read back") || len(op.Changes) != 2 || op.Changes[0].ID != out.TransactionIDs[0] {
		t.Fatalf("result %+v, journal %+v", out, op)
	}
}
