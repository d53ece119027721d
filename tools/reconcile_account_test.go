package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// createsAccount returns an account of the sandbox's plan as YNAB exports it now.
func createsAccount(e *testEnv, name string) ynab.Account {
	e.t.Helper()
	for _, a := range createsExport(e).Accounts {
		if a.Name == name {
			return a
		}
	}
	e.t.Fatalf("no account %s in the sandbox", name)
	return ynab.Account{}
}

// createsCleared counts the transactions on an account that are cleared and not reconciled.
func createsCleared(e *testEnv, accountID string) int {
	e.t.Helper()
	n := 0
	for _, t := range createsExport(e).Transactions {
		if t.AccountID == accountID && !t.Deleted && t.Cleared == ynab.Cleared {
			n++
		}
	}
	return n
}

// reconcileArgs asks to reconcile Betaalrekening at its cleared balance plus diff milliunits.
func reconcileArgs(e *testEnv, diff int64) map[string]any {
	e.t.Helper()
	bank := createsAccount(e, "Betaalrekening").ClearedBalance + diff
	return map[string]any{"account": "Betaalrekening", "bank_balance": FormatPlain(bank, 2)}
}

func TestReconcileAccountWithAdjustment(t *testing.T) {
	for _, tt := range []struct {
		kind clientKind
		via  string
	}{{noElicit, "code"}, {modernYes, "mrtr"}} {
		t.Run(tt.kind.name, func(t *testing.T) {
			e := newEnv(t, envOptions{kind: tt.kind})
			acct := createsAccount(e, "Betaalrekening")
			bank := acct.ClearedBalance + 12340
			preview, out := createsApply(e, "reconcile_account", reconcileArgs(e, 12340))
			want := "Reconcile Betaalrekening: mark 49 cleared transaction(s) reconciled?\n" +
				"Adjustment: 2026-12-02 Reconciliation Balance Adjustment +12.34, Inflow: Ready to Assign, cleared (cleared balance " +
				FormatPlain(acct.ClearedBalance, 2) + ", bank balance " + FormatPlain(bank, 2) + ")"
			if preview != want {
				t.Fatalf("preview:\n%s\nwant:\n%s", preview, want)
			}
			c := e.sb.Counts()
			if out.Status != "applied" || c.Writes != 2 || c.ByRoute["POST /plans/{plan_id}/transactions"] != 1 || c.ByRoute["PATCH /plans/{plan_id}/transactions"] != 1 {
				t.Fatalf("result %+v, counts %+v; want applied with the adjustment's POST and one PATCH", out, c)
			}
			if tt.kind.answer == "" && c.Reads > 1 {
				t.Fatalf("the confirming call read %d times, want at most 1", c.Reads)
			}
			after := createsAccount(e, "Betaalrekening")
			made := createsMade(e)
			switch {
			case after.ClearedBalance != bank || createsCleared(e, acct.ID) != 0:
				t.Fatalf("after: cleared balance %d (want %d), %d cleared left", after.ClearedBalance, bank, createsCleared(e, acct.ID))
			case len(made) != 1 || made[0].Amount != 12340 || made[0].Cleared != ynab.Reconciled ||
				*made[0].PayeeID != createsID(e, adjustmentPayee) || *made[0].CategoryID != createsID(e, "Inflow: Ready to Assign"):
				t.Fatalf("adjustment = %+v", made)
			case out.Message != "Betaalrekening is reconciled at "+FormatCurrency(bank, createsExport(e).CurrencyFormat)+".":
				t.Fatalf("message = %q", out.Message)
			}
			op := e.onlyOperation()
			if op.Status != journal.StatusApplied || op.ConfirmedVia != tt.via || len(op.Changes) != 50 || len(op.CreatedIDs) != 1 || op.CreatedIDs[0] != made[0].ID {
				t.Fatalf("journal = %+v", op)
			}
			adj := createsFields(t, op.Changes[0].After)
			if op.Changes[0].Kind != journal.KindNewTransaction || op.Changes[0].ID != made[0].ID || adj["cleared"] != "reconciled" || adj["import_id"] != nil || made[0].ImportID != nil {
				t.Fatalf("journaled adjustment = %+v", op.Changes[0])
			}
			for _, ch := range op.Changes[1:] {
				if ch.Kind != journal.KindTransaction || string(ch.Before) != `{"cleared":"cleared"}` || string(ch.After) != `{"cleared":"reconciled"}` {
					t.Fatalf("journaled change = %+v", ch)
				}
			}
		})
	}
}

func TestReconcileAccountWithoutDifference(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	args := reconcileArgs(e, 0)
	preview, out := createsApply(e, "reconcile_account", args)
	if preview != "Reconcile Betaalrekening: mark 49 cleared transaction(s) reconciled?" {
		t.Fatalf("preview:\n%s", preview)
	}
	if c := e.sb.Counts(); out.Status != "applied" || c.Writes != 1 || c.ByRoute["PATCH /plans/{plan_id}/transactions"] != 1 || c.Reads > 1 || len(createsMade(e)) != 0 {
		t.Fatalf("result %+v, counts %+v; want one PATCH and no adjustment", out, c)
	}
	// Done: the same call again has nothing left to do.
	e.sb.ResetCounts()
	e.fails("reconcile_account", args, "account: Betaalrekening has no cleared transactions that are not reconciled yet, and its cleared balance already equals the bank balance")
	if e.writes() != 0 {
		t.Fatal("a refused reconcile wrote")
	}
}

// The marking fails after the adjustment was entered: the result and the journal say exactly
// that, and calling again finishes the job.
func TestReconcileAccountMarkingFails(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernYes})
	args := reconcileArgs(e, -500)
	e.sb.InjectFault(sandbox.Fault{Method: "PATCH", Status: 503})
	msg := e.fails("reconcile_account", args, "Only part of the change is in YNAB (the adjustment 2026-12-02 Reconciliation Balance Adjustment 0.50 was entered, "+
		"but marking the 49 cleared transaction(s) reconciled failed")
	if !strings.Contains(msg, "In YNAB now: 2026-12-02 Reconciliation Balance Adjustment 0.50") || !strings.Contains(msg, "ask for the missing part again") {
		t.Fatalf("error = %q", msg)
	}
	made := createsMade(e)
	op := e.onlyOperation()
	if len(made) != 1 || made[0].Cleared != ynab.Cleared || op.Status != journal.StatusPartial || len(op.Changes) != 50 || op.Changes[0].ID != made[0].ID ||
		op.Changes[0].Outcome != journal.OutcomeApplied || op.Changes[1].Outcome != journal.OutcomeNotApplied {
		t.Fatalf("adjustment %+v, journal %+v", made, op)
	}
	var out createdOut
	e.ok("reconcile_account", args, &out)
	if out.Status != "applied" || createsCleared(e, made[0].AccountID) != 0 || len(createsMade(e)) != 1 {
		t.Fatalf("finishing: %+v", out)
	}
	if q := e.questions(); !strings.HasPrefix(q[len(q)-1], "Reconcile Betaalrekening: mark 50 cleared transaction(s) reconciled?") || strings.Contains(q[len(q)-1], "Adjustment") {
		t.Fatalf("finishing asked %q; want the 49 and the adjustment marked, no new adjustment", q[len(q)-1])
	}
}

// A transaction cleared between the question and the answer changes the difference: the
// answer no longer confirms what is there, and nothing is written.
func TestReconcileAccountPlanChangedBetweenLegs(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernYes, noMRTRDriver: true})
	ctx := context.Background()
	args := reconcileArgs(e, 12340)
	first, err := e.session.CallTool(ctx, &mcp.CallToolParams{Name: "reconcile_account", Arguments: args})
	if err != nil || !first.NeedsInput() {
		t.Fatalf("first leg: %v %+v; want input required", err, first)
	}
	if q, ok := first.InputRequests["confirm"].(*mcp.ElicitParams); !ok || !strings.HasPrefix(q.Message, "Reconcile Betaalrekening: mark 49 cleared transaction(s) reconciled?\n") {
		t.Fatalf("input request = %+v", first.InputRequests)
	}
	// Someone clears a new transaction in YNAB meanwhile.
	if _, err := e.client.CreateTransactions(ctx, sandbox.PlanID, []ynab.SaveTransaction{{AccountID: createsID(e, "Betaalrekening"),
		Date: "2026-12-02", Amount: ynab.Some(int64(-2000)), PayeeName: ynab.Some("Bakkerij Bart"), Cleared: ynab.Cleared}}); err != nil {
		t.Fatal(err)
	}
	e.sb.ResetCounts()
	res, err := e.session.CallTool(ctx, &mcp.CallToolParams{Name: "reconcile_account", Arguments: args, RequestState: first.RequestState,
		InputResponses: mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"value": true}}}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "The plan changed between the preview and the answer") {
		t.Fatalf("answer leg: %v %+v; want the plan-changed error", err, res)
	}
	if e.writes() != 0 || createsCleared(e, createsID(e, "Betaalrekening")) != 50 {
		t.Fatal("a stale answer wrote")
	}
	if ops := e.operations(journal.Filter{}); len(ops) != 0 {
		t.Fatalf("a stale answer was journaled: %+v", ops)
	}
}

func TestReconcileAccountBadInput(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"closed account", map[string]any{"account": "Oude rekening", "bank_balance": 0}, "account: Oude rekening is closed"},
		{"unknown account", map[string]any{"account": "Beleggingen", "bank_balance": 0}, `account: there is no account "Beleggingen"`},
		{"too many decimals", map[string]any{"account": "Betaalrekening", "bank_balance": "100.001"}, "bank_balance:"},
		{"not an amount", map[string]any{"account": "Betaalrekening", "bank_balance": "1.234,56"}, `"1.234,56" is not an amount`},
		{"no bank balance", map[string]any{"account": "Betaalrekening"}, `bank_balance: missing`},
	}
	for _, tt := range tests {
		if res := e.call("reconcile_account", tt.args); !res.IsError || !strings.Contains(text(res), tt.want) {
			t.Errorf("%s: result %q (error: %v), want an error containing %q", tt.name, text(res), res.IsError, tt.want)
		}
	}
	if e.writes() != 0 {
		t.Fatal("bad input wrote to YNAB")
	}
}
