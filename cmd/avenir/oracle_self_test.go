package main

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

// The oracle itself: a journal that tells the truth about writes made to the sandbox passes,
// and each kind of lie it is built to catch is caught.

// oracleFixture writes to a sandbox (a budget, a recategorisation, a split, two creates and the
// delete of one) and returns the oracle, YNAB's plan afterwards and a journal telling the truth
// about those writes.
func oracleFixture(t *testing.T) (*oracle, *sandbox.Sandbox, []jOp, *ynab.Client) {
	t.Helper()
	sb, srv := sandboxtest.New(t, sandbox.Options{Now: time.Now})
	c := ynab.New(ynab.Options{BaseURL: srv.URL, Token: "oracle-test"})
	ctx := context.Background()
	initial, err := sb.Export(sandbox.PlanID)
	if err != nil {
		t.Fatal(err)
	}
	o := &oracle{initial: initial, memoMark: "oracle "}
	ids := categoryIDs(initial)
	month := currentMonth()
	restaurants, tennis := ids["Restaurants"], ids["Tennis"]
	before, ok := assignedNow(initial, "Restaurants")
	if !ok {
		t.Fatal("the sample has nothing assigned to Restaurants this month")
	}
	plain := plainTransactions(initial)
	a, b := plain[0], plain[1]
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.UpdateMonthCategory(ctx, sandbox.PlanID, month, restaurants, before+5000))
	must(c.UpdateTransactions(ctx, sandbox.PlanID, []ynab.SaveTransaction{{ID: a.ID, CategoryID: ynab.Some(tennis)}}))
	half := b.Amount / 20 * 10
	must(c.UpdateTransaction(ctx, sandbox.PlanID, b.ID, ynab.SaveTransaction{CategoryID: ynab.Null[string](), Subtransactions: []ynab.SaveSubTransaction{
		{Amount: half, CategoryID: &tennis}, {Amount: b.Amount - half, CategoryID: &restaurants}}}))
	created, err := c.CreateTransactions(ctx, sandbox.PlanID, []ynab.SaveTransaction{
		{AccountID: a.AccountID, Date: a.Date, Amount: ynab.Some(int64(-1230)), PayeeID: ynab.Some(*a.PayeeID), Memo: ynab.Some("oracle 1"), Cleared: "uncleared", Approved: ynab.Some(true)},
		{AccountID: a.AccountID, Date: a.Date, Amount: ynab.Some(int64(-4560)), PayeeID: ynab.Some(*a.PayeeID), Memo: ynab.Some("oracle 2"), Cleared: "uncleared", Approved: ynab.Some(true)},
	})
	if err != nil || len(created.TransactionIDs) != 2 {
		t.Fatalf("creating: %v %+v", err, created)
	}
	must(c.DeleteTransaction(ctx, sandbox.PlanID, created.TransactionIDs[1]))

	raw := func(v any) json.RawMessage { return mustJSON(v) }
	newTx := func(id string, amount int64, memo string) jChange {
		return jChange{Kind: kindCreated, ID: id, Outcome: outcomeApplied, After: raw(map[string]any{"account_id": a.AccountID, "date": a.Date,
			"amount": amount, "payee_id": a.PayeeID, "memo": memo, "cleared": "uncleared", "approved": true})}
	}
	ops := []jOp{
		{ID: "01", Tool: "set_category_budget", Status: "applied", Changes: []jChange{{Kind: kindMonth, ID: restaurants, Month: month,
			Before: raw(map[string]any{"budgeted": before}), After: raw(map[string]any{"budgeted": before + 5000}), Outcome: outcomeApplied}}},
		{ID: "02", Tool: "apply_categories", Status: "applied", Changes: []jChange{{Kind: kindTx, ID: a.ID,
			Before: raw(map[string]any{"category_id": a.CategoryID}), After: raw(map[string]any{"category_id": tennis}), Outcome: outcomeApplied}}},
		{ID: "03", Tool: "split_transaction", Status: "applied", Changes: []jChange{{Kind: kindTx, ID: b.ID,
			Before: raw(map[string]any{"category_id": b.CategoryID}), Outcome: outcomeApplied,
			After: raw(map[string]any{"category_id": nil, "subtransactions": []map[string]any{
				{"amount": half, "category_id": tennis}, {"amount": b.Amount - half, "category_id": restaurants}}})}}},
		{ID: "04", Tool: "create_transactions", Status: "applied", Changes: []jChange{
			newTx(created.TransactionIDs[0], -1230, "oracle 1"), newTx(created.TransactionIDs[1], -4560, "oracle 2")}},
		{ID: "05", Tool: "undo_operation", Status: "partial", Changes: []jChange{
			{Kind: kindDeleted, ID: created.TransactionIDs[0], Outcome: outcomeNotApplied},
			{Kind: kindDeleted, ID: created.TransactionIDs[1], Outcome: outcomeApplied}}},
		{ID: "06", Tool: "move_money", Status: "failed", Changes: []jChange{{Kind: kindMonth, ID: tennis, Month: month,
			Before: raw(map[string]any{"budgeted": 45000}), After: raw(map[string]any{"budgeted": 15000}), Outcome: outcomeNotApplied}}},
		// A split of a transaction the journal entered, not applied: it stays without lines.
		{ID: "07", Tool: "split_transaction", Status: "failed", Changes: []jChange{{Kind: kindTx, ID: created.TransactionIDs[0],
			Before: raw(map[string]any{"category_id": nil}), Outcome: outcomeNotApplied,
			After: raw(map[string]any{"category_id": nil, "subtransactions": []map[string]any{
				{"amount": -1000, "category_id": tennis}, {"amount": -230, "category_id": restaurants}}})}}},
	}
	if n, ok := assignedNow(initial, "Tennis"); !ok || n != 45000 {
		t.Fatalf("Tennis has %d assigned in the sample (found: %v); the fixture assumes 45000", n, ok)
	}
	return o, sb, ops, c
}

func TestOracleJudgesAJournal(t *testing.T) {
	o, sb, truthful, c := oracleFixture(t)
	now, err := sb.Export(sandbox.PlanID)
	if err != nil {
		t.Fatal(err)
	}
	if v := o.check(truthful, now, false); v.disagreements() != 0 || v.duplicates != 0 || v.unowned != 0 {
		t.Fatalf("a truthful journal: %d disagreements, %d duplicates, %d unowned: %s", v.disagreements(), v.duplicates, v.unowned, v.report(5))
	}
	// An identical retry that found the transactions in YNAB, entered by an earlier
	// operation, owns nothing: it is no second owner.
	retry := truthful[3].Changes[0]
	retry.EnteredBy = truthful[3].ID
	withRetry := append(slices.Clone(truthful), jOp{ID: "08", Tool: "create_transactions", Status: "applied", Changes: []jChange{retry}})
	if v := o.check(withRetry, now, false); v.disagreements() != 0 {
		t.Fatalf("a retry entered by an earlier operation: %s", v.report(5))
	}
	lies := []struct {
		name, kind string
		lie        func(ops []jOp) []jOp
	}{
		{"an applied budget said not applied", "value", func(ops []jOp) []jOp {
			ops[0].Changes[0].Outcome, ops[0].Status = outcomeNotApplied, "failed"
			return ops
		}},
		{"a failed move said applied", "value", func(ops []jOp) []jOp {
			ops[5].Changes[0].Outcome, ops[5].Status = outcomeApplied, "applied"
			return ops
		}},
		{"a stale before", "before", func(ops []jOp) []jOp {
			ops[1].Changes[0].Before = json.RawMessage(`{"category_id":"someone else's"}`)
			return ops
		}},
		{"a split said applied with other lines", "value", func(ops []jOp) []jOp {
			ops[2].Changes[0].After = json.RawMessage(`{"category_id":null,"subtransactions":[{"amount":-10},{"amount":10}]}`)
			return ops
		}},
		{"a delete said applied that YNAB did not make", "exists", func(ops []jOp) []jOp {
			ops[4].Changes[0].Outcome, ops[4].Status = outcomeApplied, "applied"
			return ops
		}},
		{"a status its outcomes contradict", "status", func(ops []jOp) []jOp {
			ops[4].Status = "applied"
			return ops
		}},
		{"an operation left prepared", "left prepared", func(ops []jOp) []jOp {
			ops[5].Status, ops[5].Changes[0].Outcome = "prepared", outcomeUnknown
			return ops
		}},
		{"a change without an outcome", "no outcome", func(ops []jOp) []jOp {
			ops[0].Changes[0].Outcome = ""
			return ops
		}},
		{"an applied create without its id", "no id", func(ops []jOp) []jOp {
			ops[3].Changes[0].ID = ""
			return ops
		}},
		{"two owners of one transaction", "two owners", func(ops []jOp) []jOp {
			return append(ops, jOp{ID: "08", Tool: "create_transactions", Status: "applied", Changes: ops[3].Changes[:1]})
		}},
	}
	for _, l := range lies {
		t.Run(l.name, func(t *testing.T) {
			var ops []jOp // a deep copy, for the lie to change
			mustDecode(t, mustJSON(truthful), &ops)
			if v := o.check(l.lie(ops), now, false); v.byKind[l.kind] == 0 {
				t.Errorf("not caught as %q: %s", l.kind, v.report(5))
			}
		})
	}

	// The same transaction entered again, which no journal entry owns: a duplicate, unowned.
	var first *ynab.TransactionSummary
	for i, tx := range now.Transactions {
		if tx.Memo != nil && *tx.Memo == "oracle 1" && !tx.Deleted {
			first = &now.Transactions[i]
		}
	}
	if _, err := c.CreateTransactions(context.Background(), sandbox.PlanID, []ynab.SaveTransaction{{AccountID: first.AccountID, Date: first.Date,
		Amount: ynab.Some(first.Amount), PayeeID: ynab.Some(*first.PayeeID), Memo: ynab.Some("oracle 1"), Cleared: "uncleared"}}); err != nil {
		t.Fatal(err)
	}
	twice, err := sb.Export(sandbox.PlanID)
	if err != nil {
		t.Fatal(err)
	}
	if v := o.check(truthful, twice, false); v.duplicates != 1 || v.unowned != 1 {
		t.Errorf("a transaction entered twice: %d duplicates, %d unowned; want 1 and 1: %s", v.duplicates, v.unowned, v.report(5))
	}
}
