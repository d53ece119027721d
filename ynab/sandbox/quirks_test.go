package sandbox_test

import (
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// The tests of this file assert YNAB's answers where they differ from the obvious (see the
// package doc for the sources). Transfers are in TestTransfersKeepBothSides, targets
// (goal_frequency, a null goal_target) in TestUpdateCategoryTargets.

func TestAnExistingSplitCannotBeChanged(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	var created saved
	a.ok(201, "POST", plan+"/transactions", one(map[string]any{"account_id": n.id(t, "Betaalrekening"), "date": "2026-09-14",
		"amount": -30000, "payee_name": "Blokker", "category_id": nil, "subtransactions": []map[string]any{
			{"amount": -20000, "category_id": n.id(t, "Onderhoud huis")}, {"amount": -10000, "category_id": n.id(t, "Cadeaus")}}}), &created)
	split := *created.Transaction
	if len(split.Subtransactions) != 2 || *split.CategoryName != "Split" {
		t.Fatalf("split = %+v", split)
	}
	path := plan + "/transactions/" + split.ID

	e := a.fail(400, "PUT", path, one(map[string]any{"subtransactions": []map[string]any{{"amount": -30000}}}))
	if e.Detail != "Updating subtransactions on an existing split transaction is not supported." {
		t.Errorf("new lines on a split: %q", e.Detail)
	}
	// The parent's category, date and amount are ignored; its memo is not.
	var got struct{ Transaction ynab.Transaction }
	a.ok(200, "PUT", path, one(map[string]any{"category_id": n.id(t, "Huur"), "date": "2026-09-01", "amount": -1, "memo": "Lamp en vaas"}), &got)
	if g := got.Transaction; g.CategoryID != nil || g.Date != "2026-09-14" || g.Amount != -30000 || *g.Memo != "Lamp en vaas" || len(g.Subtransactions) != 2 {
		t.Errorf("after a PUT of category, date, amount and memo: %+v", g)
	}

	// A line of the split is a row of its own in the hybrid lists, and cannot be written.
	var rows struct{ Transactions []ynab.HybridTransaction }
	a.ok(200, "GET", plan+"/categories/"+n.id(t, "Cadeaus")+"/transactions", nil, &rows)
	var line ynab.HybridTransaction
	for _, r := range rows.Transactions {
		if r.ParentTransactionID != nil && *r.ParentTransactionID == split.ID {
			line = r
		}
	}
	if line.Type != "subtransaction" || line.Amount != -10000 {
		t.Fatalf("the split's Cadeaus row = %+v", line)
	}
	for _, w := range []struct {
		method, path string
		body         any
		status       int
	}{
		{"PUT", plan + "/transactions/" + line.ID, one(map[string]any{"memo": "x"}), 404},
		{"DELETE", plan + "/transactions/" + line.ID, nil, 404},
		{"PATCH", plan + "/transactions", many(map[string]any{"id": line.ID, "memo": "x"}), 400},
	} {
		if e := a.fail(w.status, w.method, w.path, w.body); !strings.Contains(e.Detail, "subtransaction") {
			t.Errorf("%s of a split's line: %q does not say it is a subtransaction", w.method, e.Detail)
		}
	}

	// A plain transaction becomes a split with a PUT.
	var plain saved
	a.ok(201, "POST", plan+"/transactions", one(map[string]any{"account_id": n.id(t, "Contant"), "date": "2026-09-13",
		"amount": -5000, "category_id": n.id(t, "Uitjes")}), &plain)
	a.ok(200, "PUT", plan+"/transactions/"+plain.Transaction.ID, one(map[string]any{"category_id": nil, "subtransactions": []map[string]any{
		{"amount": -3000, "category_id": n.id(t, "Uitjes")}, {"amount": -2000, "category_id": n.id(t, "Restaurants")}}}), &got)
	if len(got.Transaction.Subtransactions) != 2 || got.Transaction.CategoryID != nil {
		t.Errorf("a plain transaction PUT with lines: %+v", got.Transaction)
	}

	// Deleting a split deletes its lines.
	k := a.knowledge()
	a.ok(200, "DELETE", path, nil, nil)
	a.fail(404, "GET", path, nil)
	var delta struct {
		Plan ynab.PlanDetail `json:"plan"`
	}
	a.ok(200, "GET", plan+"?last_knowledge_of_server="+itoa(k), nil, &delta)
	if len(delta.Plan.Subtransactions) != 2 || !delta.Plan.Subtransactions[0].Deleted || !delta.Plan.Subtransactions[1].Deleted {
		t.Errorf("the delta after deleting the split has lines %+v, want both deleted", delta.Plan.Subtransactions)
	}
	a.ok(200, "GET", plan+"/categories/"+n.id(t, "Cadeaus")+"/transactions", nil, &rows)
	for _, r := range rows.Transactions {
		if r.ID == line.ID {
			t.Errorf("the deleted split's line is still listed")
		}
	}
}

func TestTransactionListsDefaultToTheLastYear(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	var old saved
	a.ok(201, "POST", plan+"/transactions", one(map[string]any{"account_id": n.id(t, "Contant"), "date": "2025-09-14",
		"amount": -100, "payee_name": "Oud", "category_id": n.id(t, "Uitjes")}), &old)
	has := func(path string) bool {
		var got struct{ Transactions []ynab.Transaction }
		a.ok(200, "GET", path, nil, &got)
		for _, tx := range got.Transactions {
			if tx.ID == old.Transaction.ID {
				return true
			}
		}
		return false
	}
	for _, path := range []string{
		plan + "/transactions", plan + "/accounts/" + n.id(t, "Contant") + "/transactions",
		plan + "/categories/" + n.id(t, "Uitjes") + "/transactions", plan + "/payees/" + *old.Transaction.PayeeID + "/transactions",
	} {
		if has(path) {
			t.Errorf("GET %s lists a transaction of a year and a day ago", path)
		}
		if !has(path + "?since_date=2025-01-01") {
			t.Errorf("GET %s?since_date=2025-01-01 does not list it", path)
		}
	}
}

func TestRateLimitHeaderIsNotOnThe429(t *testing.T) {
	a := newAPI(t, sandbox.Options{RateLimit: 2})
	for i := range 2 {
		if _, h, _ := a.do("GET", "/user", nil); h.Get("X-Rate-Limit") != []string{"1/2", "2/2"}[i] {
			t.Errorf("request %d: X-Rate-Limit = %q", i+1, h.Get("X-Rate-Limit"))
		}
	}
	status, h, _ := a.do("GET", "/user", nil)
	if status != 429 || h.Get("X-Rate-Limit") != "" {
		t.Errorf("the refused request: status %d, X-Rate-Limit %q, want 429 without the header", status, h.Get("X-Rate-Limit"))
	}
}

func TestPlanDeltaCarriesOnlyWhatChanged(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	k := a.knowledge()
	a.ok(200, "PATCH", plan+"/months/2026-10-01/categories/"+n.id(t, "Huur"), budget(1150000), nil)
	var delta struct {
		Plan            ynab.PlanDetail `json:"plan"`
		ServerKnowledge int64           `json:"server_knowledge"`
	}
	a.ok(200, "GET", plan+"?last_knowledge_of_server="+itoa(k), nil, &delta)
	d := delta.Plan
	if delta.ServerKnowledge != k+1 || len(d.Transactions) != 0 || len(d.Accounts) != 0 || len(d.Payees) != 0 || len(d.ScheduledTransactions) != 0 {
		t.Errorf("delta after assigning in October: knowledge %d, %d transactions, %d accounts, %d payees",
			delta.ServerKnowledge, len(d.Transactions), len(d.Accounts), len(d.Payees))
	}
	for _, m := range d.Months {
		for _, c := range m.Categories {
			if c.ID != n.id(t, "Huur") && !c.Internal {
				t.Errorf("month %s of the delta carries %s, which did not change", m.Month, c.Name)
			}
		}
	}
	if len(d.Months) == 0 {
		t.Error("the delta carries no month")
	}
	// Deleted entities appear only in deltas.
	market := transaction(t, mustExport(t, a.sb), n, "Betaalrekening", "Market", -86400)
	k = a.knowledge()
	a.ok(200, "DELETE", plan+"/transactions/"+market.ID, nil, nil)
	a.ok(200, "GET", plan+"?last_knowledge_of_server="+itoa(k), nil, &delta)
	if len(delta.Plan.Transactions) != 1 || !delta.Plan.Transactions[0].Deleted {
		t.Errorf("delta transactions = %+v, want the deleted one", delta.Plan.Transactions)
	}
	var full struct {
		Plan ynab.PlanDetail `json:"plan"`
	}
	a.ok(200, "GET", plan, nil, &full)
	for _, tx := range full.Plan.Transactions {
		if tx.ID == market.ID || tx.Deleted {
			t.Errorf("a full read lists a deleted transaction: %+v", tx)
		}
	}
}

func mustExport(t *testing.T, sb *sandbox.Sandbox) ynab.PlanDetail {
	t.Helper()
	d, err := sb.Export(sandbox.PlanID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
