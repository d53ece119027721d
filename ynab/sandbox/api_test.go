package sandbox_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

func TestAuthorization(t *testing.T) {
	tests := []struct {
		name, token, sent string
		want              int
	}{
		{"any bearer token when none is set", "", "whatever", http.StatusOK},
		{"no Authorization header", "", "", http.StatusUnauthorized},
		{"the configured token", "s3cret", "s3cret", http.StatusOK},
		{"another token", "s3cret", "guess", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAPI(t, sandbox.Options{Token: tt.token})
			a.token = tt.sent
			status, _, raw := a.do("GET", "/user", nil)
			if status != tt.want {
				t.Fatalf("status %d, want %d: %s", status, tt.want, raw)
			}
			if tt.want == http.StatusUnauthorized {
				e := a.fail(http.StatusUnauthorized, "GET", "/user", nil)
				if e.ID != "401" || e.Name != "not_authorized" {
					t.Errorf("error = %+v", e)
				}
			}
		})
	}
}

func TestRoutingErrors(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	tests := []struct {
		method, path string
		status       int
		id           string
	}{
		{"GET", "/nothing/here", 404, "404.1"},
		{"GET", "/plans/" + sandbox.PlanID + "/budgets", 404, "404.1"},
		{"GET", "/plans/0f0f0f0f-0000-4000-8000-000000000000/accounts", 404, "404.2"},
		{"GET", "/plans/default/accounts", 404, "404.2"},
		{"GET", plan + "/accounts/0f0f0f0f-0000-4000-8000-000000000000", 404, "404.2"},
		{"GET", plan + "/transactions/0f0f0f0f-0000-4000-8000-000000000000", 404, "404.2"},
		{"GET", plan + "/months/2026-09-15", 400, "400"},
		{"GET", plan + "/months/1999-01-01", 404, "404.2"},
		{"DELETE", plan + "/accounts", 405, "405"},
		{"GET", plan + "/transactions?type=flagged", 400, "400"},
		{"GET", plan + "/transactions?since_date=yesterday", 400, "400"},
		{"GET", plan + "/accounts?last_knowledge_of_server=-3", 400, "400"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			e := a.fail(tt.status, tt.method, tt.path, nil)
			if e.ID != tt.id || e.Detail == "" {
				t.Errorf("error = %+v, want id %s", e, tt.id)
			}
		})
	}
	_, h, _ := a.do("PUT", plan+"/accounts", nil)
	if h.Get("Allow") != "GET, POST" {
		t.Errorf("Allow = %q, want GET, POST", h.Get("Allow"))
	}
}

func TestPlansListsBothAndTheLastUsedAsDefault(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	var got struct {
		Plans       []ynab.PlanSummary `json:"plans"`
		DefaultPlan *ynab.PlanSummary  `json:"default_plan"`
	}
	a.ok(200, "GET", "/plans?include_accounts=true", nil, &got)
	if len(got.Plans) != 2 || got.DefaultPlan == nil || got.DefaultPlan.ID != sandbox.PlanID {
		t.Fatalf("plans = %+v, default %+v", got.Plans, got.DefaultPlan)
	}
	if got.Plans[1].ID != sandbox.SecondPlanID || got.Plans[1].Name != "Vakantiehuis" {
		t.Errorf("second plan = %+v", got.Plans[1])
	}
	if len(got.Plans[0].Accounts) != 5 || got.Plans[0].Accounts[0].BalanceFormatted == "" {
		t.Errorf("include_accounts: %d accounts, first %+v", len(got.Plans[0].Accounts), got.Plans[0].Accounts)
	}
	if got.DefaultPlan.FirstMonth != "2026-07-01" || got.DefaultPlan.LastMonth != "2026-10-01" {
		t.Errorf("months %s…%s, want 2026-07-01…2026-10-01", got.DefaultPlan.FirstMonth, got.DefaultPlan.LastMonth)
	}
	var settings struct{ Settings ynab.PlanSettings }
	a.ok(200, "GET", "/plans/last-used/settings", nil, &settings)
	if settings.Settings.CurrencyFormat.CurrencySymbol != "€" || settings.Settings.DateFormat.Format != "DD-MM-YYYY" {
		t.Errorf("settings = %+v", settings.Settings)
	}
}

// The plan export carries YNAB's *Base models, the other endpoints the formatted amounts too;
// empty fields are null, not missing.
func TestShapesFollowYNAB(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	_, _, export := a.do("GET", plan, nil)
	if strings.Contains(string(export), "_formatted") || strings.Contains(string(export), "_currency\"") {
		t.Error("the plan export carries formatted amounts")
	}
	_, _, list := a.do("GET", plan+"/transactions", nil)
	var body struct {
		Data struct {
			Transactions []map[string]json.RawMessage `json:"transactions"`
		} `json:"data"`
	}
	if err := json.Unmarshal(list, &body); err != nil || len(body.Data.Transactions) == 0 {
		t.Fatalf("transactions: %v %s", err, list[:min(len(list), 200)])
	}
	first := body.Data.Transactions[0]
	for _, field := range []string{"memo", "flag_color", "import_id", "matched_transaction_id", "transfer_account_id"} {
		if string(first[field]) != "null" {
			t.Errorf("%s = %s, want null", field, first[field])
		}
	}
	if string(first["subtransactions"]) != "[]" || string(first["amount_formatted"]) != `"€1.850,00"` {
		t.Errorf("subtransactions = %s, amount_formatted = %s", first["subtransactions"], first["amount_formatted"])
	}
	var acct struct{ Account ynab.Account }
	n := sampleNames(t, a.sb, sandbox.PlanID)
	a.ok(200, "GET", plan+"/accounts/"+n.id(t, "Creditcard"), nil, &acct)
	if acct.Account.BalanceFormatted != "-€735,24" || *acct.Account.BalanceCurrency != -735.24 {
		t.Errorf("Creditcard balance %q %v", acct.Account.BalanceFormatted, *acct.Account.BalanceCurrency)
	}
}

func TestTransactionLists(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	count := func(path string) int {
		var got struct{ Transactions []json.RawMessage }
		a.ok(200, "GET", path, nil, &got)
		return len(got.Transactions)
	}
	tests := []struct {
		path string
		want int
	}{
		{plan + "/transactions", 83},
		{plan + "/transactions?type=uncategorized", 4},
		{plan + "/transactions?type=unapproved", 5},
		{plan + "/transactions?since_date=2026-09-01", 22},
		{plan + "/transactions?since_date=2026-09-01&until_date=2026-09-05", 9},
		{plan + "/accounts/" + n.id(t, "Betaalrekening") + "/transactions", 63},
		{plan + "/accounts/" + n.id(t, "Betaalrekening") + "/transactions?type=uncategorized", 3},
		{plan + "/months/current/transactions", 22},
		{plan + "/months/2026-08-01/transactions", 30},
		// Hybrid lists: the split's Boodschappen line is a row of its own.
		{plan + "/categories/" + n.id(t, "Boodschappen") + "/transactions", 21},
		{plan + "/payees/" + n.id(t, "payee:Albert Heijn") + "/transactions", 9},
		{plan + "/transactions?since_date=2000-01-01&last_knowledge_of_server=1000", 0},
	}
	for _, tt := range tests {
		if got := count(tt.path); got != tt.want {
			t.Errorf("GET %s: %d transactions, want %d", tt.path, got, tt.want)
		}
	}
	var hybrid struct{ Transactions []ynab.HybridTransaction }
	a.ok(200, "GET", plan+"/categories/"+n.id(t, "Persoonlijke verzorging")+"/transactions", nil, &hybrid)
	lines := 0
	for _, h := range hybrid.Transactions {
		if h.Type == "subtransaction" {
			lines++
			if h.ParentTransactionID == nil || h.Amount != -30000 || *h.CategoryName != "Persoonlijke verzorging" {
				t.Errorf("split line row = %+v", h)
			}
		}
	}
	if lines != 1 {
		t.Errorf("%d split line rows, want 1", lines)
	}
}

func TestMonthsAndCategories(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	var month struct{ Month ynab.Month }
	a.ok(200, "GET", plan+"/months/current", nil, &month)
	if month.Month.Month != "2026-09-01" || month.Month.ToBeBudgeted != 727830 || month.Month.ToBeBudgetedFormatted != "€727,83" {
		t.Errorf("current month = %s, to be budgeted %d %q", month.Month.Month, month.Month.ToBeBudgeted, month.Month.ToBeBudgetedFormatted)
	}
	if len(month.Month.Categories) != 21 {
		t.Errorf("%d categories in the month, want 21 (hidden and internal included)", len(month.Month.Categories))
	}
	var cat struct{ Category ynab.Category }
	a.ok(200, "GET", plan+"/months/2026-08-01/categories/"+n.id(t, "Restaurants"), nil, &cat)
	if cat.Category.Budgeted != 120000 || cat.Category.Activity != -35500 || cat.Category.BudgetedFormatted != "€120,00" {
		t.Errorf("Restaurants in August = %+v", cat.Category)
	}
	// A future month not served yet still answers, with what carries into it.
	a.ok(200, "GET", plan+"/months/2027-03-01/categories/"+n.id(t, "Restaurants"), nil, &cat)
	if cat.Category.Budgeted != 0 || cat.Category.Balance != 153150 {
		t.Errorf("Restaurants in March 2027 = %d assigned, %d available", cat.Category.Budgeted, cat.Category.Balance)
	}
	var groups struct {
		CategoryGroups []ynab.CategoryGroup `json:"category_groups"`
	}
	a.ok(200, "GET", plan+"/categories", nil, &groups)
	if len(groups.CategoryGroups) != 6 || !groups.CategoryGroups[0].Internal {
		t.Fatalf("%d groups, first %+v", len(groups.CategoryGroups), groups.CategoryGroups[0])
	}
	for _, g := range groups.CategoryGroups {
		if g.Name == "Vrije tijd" && len(g.Categories) != 4 {
			t.Errorf("Vrije tijd has %d categories, want 4 (Fotografie hidden but listed)", len(g.Categories))
		}
	}
}
