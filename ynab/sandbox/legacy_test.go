package sandbox_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// TestBudgetsPathsAnswerWithTheOldKeys checks what clients on YNAB's SDKs before the rename
// (JS ≤ 3.x) rely on: every /budgets path still works, and names its members the old way.
func TestBudgetsPathsAnswerWithTheOldKeys(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	keys := func(path string) map[string]json.RawMessage {
		t.Helper()
		status, _, raw := a.do("GET", path, nil)
		var env struct{ Data map[string]json.RawMessage }
		if status != 200 || json.Unmarshal(raw, &env) != nil {
			t.Fatalf("GET %s: %d %s", path, status, raw)
		}
		return env.Data
	}
	for path, want := range map[string][]string{
		"/budgets":           {"budgets", "default_budget"},
		"/plans":             {"plans", "default_plan"},
		"/budgets/last-used": {"budget", "server_knowledge"},
		"/plans/last-used":   {"plan", "server_knowledge"},
		"/budgets/" + sandbox.PlanID + "/accounts":        {"accounts", "server_knowledge"},
		"/budgets/last-used/settings":                     {"settings"},
		"/budgets/last-used/months/current":               {"month"},
		"/budgets/last-used/scheduled_transactions":       {"scheduled_transactions", "server_knowledge"},
		"/budgets/last-used/transactions?type=unapproved": {"transactions", "server_knowledge"},
	} {
		got := keys(path)
		if len(got) != len(want) {
			t.Errorf("GET %s: members %v, want %v", path, mapKeys(got), want)
		}
		for _, k := range want {
			if _, ok := got[k]; !ok {
				t.Errorf("GET %s: no %q in %v", path, k, mapKeys(got))
			}
		}
	}
	var exported struct {
		Budget ynab.PlanDetail `json:"budget"`
	}
	a.ok(200, "GET", "/budgets/"+sandbox.PlanID, nil, &exported)
	if exported.Budget.Name != "Huishouden" || len(exported.Budget.Transactions) == 0 {
		t.Errorf("GET /budgets/{id}: %s with %d transactions", exported.Budget.Name, len(exported.Budget.Transactions))
	}
	// Writes too, and the request counts name the path the client used.
	n := sampleNames(t, a.sb, sandbox.PlanID)
	a.sb.ResetCounts()
	a.ok(200, "PATCH", "/budgets/last-used/months/current/categories/"+n.id(t, "Huur"), budget(1200000), nil)
	if c := a.sb.Counts(); c.ByRoute["PATCH /budgets/{plan_id}/months/{month}/categories/{category_id}"] != 1 {
		t.Errorf("counts = %v", c.ByRoute)
	}
	if e := a.fail(404, "GET", "/budgetsx", nil); e.ID != "404.1" {
		t.Errorf("/budgetsx: %+v", e)
	}
}

func mapKeys(m map[string]json.RawMessage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestLegacyBulkCreate checks POST /budgets/{id}/transactions/bulk, gone from the spec but
// still in YNAB's JS SDK 4.1.0 (DeprecatedApi).
func TestLegacyBulkCreate(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	tx := func(importID string, amount int64) map[string]any {
		return map[string]any{"account_id": n.id(t, "Contant"), "date": "2026-09-13", "amount": amount, "import_id": importID}
	}
	var got struct {
		Bulk struct {
			TransactionIDs     []string `json:"transaction_ids"`
			DuplicateImportIDs []string `json:"duplicate_import_ids"`
		} `json:"bulk"`
	}
	a.ok(201, "POST", "/budgets/last-used/transactions/bulk", many(tx("kas:1", -500), tx("kas:2", -700)), &got)
	if len(got.Bulk.TransactionIDs) != 2 || len(got.Bulk.DuplicateImportIDs) != 0 {
		t.Fatalf("first bulk = %+v", got.Bulk)
	}
	a.ok(201, "POST", "/budgets/last-used/transactions/bulk", many(tx("kas:2", -700), tx("kas:3", -900)), &got)
	if len(got.Bulk.TransactionIDs) != 1 || len(got.Bulk.DuplicateImportIDs) != 1 || got.Bulk.DuplicateImportIDs[0] != "kas:2" {
		t.Errorf("second bulk = %+v, want kas:3 created and kas:2 a duplicate", got.Bulk)
	}
	var read struct{ Transaction ynab.Transaction }
	a.ok(200, "GET", plan+"/transactions/"+got.Bulk.TransactionIDs[0], nil, &read)
	if read.Transaction.Amount != -900 || read.Transaction.AccountName != "Contant" {
		t.Errorf("the bulk-created transaction reads %+v", read.Transaction)
	}
	// YNAB serves it only under /budgets: under /plans "bulk" is a transaction id, which
	// takes no POST.
	if e := a.fail(405, "POST", plan+"/transactions/bulk", many(tx("kas:4", -1))); e.ID != "405" {
		t.Errorf("POST /plans/…/transactions/bulk: %+v", e)
	}
}

func TestPayeeLocations(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	var all struct {
		PayeeLocations []ynab.PayeeLocation `json:"payee_locations"`
	}
	a.ok(200, "GET", plan+"/payee_locations", nil, &all)
	if len(all.PayeeLocations) != 4 {
		t.Fatalf("%d payee locations, want the sample's 4", len(all.PayeeLocations))
	}
	var ah struct {
		PayeeLocations []ynab.PayeeLocation `json:"payee_locations"`
	}
	a.ok(200, "GET", plan+"/payees/"+n.id(t, "payee:Albert Heijn")+"/payee_locations", nil, &ah)
	if len(ah.PayeeLocations) != 2 || ah.PayeeLocations[0].PayeeID != n.id(t, "payee:Albert Heijn") {
		t.Errorf("Albert Heijn's locations = %+v", ah.PayeeLocations)
	}
	var one struct {
		PayeeLocation ynab.PayeeLocation `json:"payee_location"`
	}
	a.ok(200, "GET", plan+"/payee_locations/"+all.PayeeLocations[3].ID, nil, &one)
	if one.PayeeLocation != all.PayeeLocations[3] || one.PayeeLocation.Latitude == "" {
		t.Errorf("one location = %+v, want %+v", one.PayeeLocation, all.PayeeLocations[3])
	}
	var none struct {
		PayeeLocations []ynab.PayeeLocation `json:"payee_locations"`
	}
	a.ok(200, "GET", plan+"/payees/"+n.id(t, "payee:Netflix")+"/payee_locations", nil, &none)
	if none.PayeeLocations == nil || len(none.PayeeLocations) != 0 {
		t.Errorf("Netflix's locations = %#v, want an empty list", none.PayeeLocations)
	}
	e := a.fail(404, "GET", plan+"/payee_locations/0f0f0f0f-0000-4000-8000-000000000000", nil)
	if e.ID != "404.2" || !strings.Contains(e.Detail, "No payee location") {
		t.Errorf("an unknown location: %+v", e)
	}
	d, _ := a.sb.Export(sandbox.PlanID)
	if len(d.PayeeLocations) != 4 {
		t.Errorf("the export has %d payee locations", len(d.PayeeLocations))
	}
}

// TestPayeeTransactionsNameEveryCategory checks the hybrid lists' category_name, a string in
// the spec: an uncategorized row is "Uncategorized", never null.
func TestPayeeTransactionsNameEveryCategory(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	for _, payee := range []string{"Bol.com", "Tikkie", "Transfer : Spaarrekening", "Albert Heijn"} {
		status, _, raw := a.do("GET", plan+"/payees/"+n.id(t, "payee:"+payee)+"/transactions?since_date=2026-01-01", nil)
		var env struct {
			Data struct {
				Transactions []map[string]json.RawMessage `json:"transactions"`
			}
		}
		if status != 200 || json.Unmarshal(raw, &env) != nil || len(env.Data.Transactions) == 0 {
			t.Fatalf("%s: %d %s", payee, status, raw)
		}
		for _, row := range env.Data.Transactions {
			var name *string
			if err := json.Unmarshal(row["category_name"], &name); err != nil || name == nil {
				t.Errorf("%s: row %s has category_name %s", payee, row["id"], row["category_name"])
			}
		}
	}
	var rows struct{ Transactions []ynab.HybridTransaction }
	a.ok(200, "GET", plan+"/payees/"+n.id(t, "payee:Bol.com")+"/transactions", nil, &rows)
	for _, r := range rows.Transactions {
		if r.CategoryID == nil && *r.CategoryName != "Uncategorized" {
			t.Errorf("an uncategorized row is named %q", *r.CategoryName)
		}
	}
}

// TestNotFoundNamesWhatIsMissing checks the two 404s apart: 404.1 only for a path YNAB's API
// does not have, 404.2 naming the kind and id of what is missing.
func TestNotFoundNamesWhatIsMissing(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	missing := "0f0f0f0f-0000-4000-8000-000000000000"
	for path, want := range map[string]string{
		"/plans/" + missing:                                   `No plan with id "` + missing + `"`,
		plan + "/payees/" + missing + "/transactions":         `No payee with id "` + missing + `"`,
		plan + "/scheduled_transactions/" + missing:           `No scheduled transaction with id "` + missing + `"`,
		plan + "/categories/" + missing:                       `No category with id "` + missing + `"`,
		"/budgets/" + sandbox.PlanID + "/accounts/" + missing: `No account with id "` + missing + `"`,
	} {
		if e := a.fail(404, "GET", path, nil); e.ID != "404.2" || !strings.Contains(e.Detail, want) {
			t.Errorf("GET %s: %+v, want 404.2 saying %s", path, e, want)
		}
	}
	for _, path := range []string{"/plans/last-used/budgets", "/v2/user", plan + "/money_movements/x"} {
		if e := a.fail(404, "GET", path, nil); e.ID != "404.1" || !strings.Contains(e.Detail, "in YNAB's API") {
			t.Errorf("GET %s: %+v, want 404.1", path, e)
		}
	}
}
