package tools

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// formatted is an amount in the sample plan's own format: €1.234,56.
var formatted = regexp.MustCompile(`^-?€\d{1,3}(\.\d{3})*,\d{2}$`)

func TestUncategorizedAreExactlyTheSamplesOnes(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	p, err := e.sb.Export(sandbox.PlanID)
	if err != nil {
		t.Fatal(err)
	}
	onBudget := map[string]bool{}
	for _, a := range p.Accounts {
		onBudget[a.ID] = a.OnBudget
	}
	split := map[string]bool{}
	for _, s := range p.Subtransactions {
		split[s.TransactionID] = true
	}
	want := map[string]int64{}
	for _, tx := range p.Transactions {
		transferWithin := tx.TransferAccountID != nil && onBudget[*tx.TransferAccountID]
		if !tx.Deleted && tx.CategoryID == nil && onBudget[tx.AccountID] && !split[tx.ID] && !transferWithin {
			want[tx.ID] = tx.Amount
		}
	}
	if len(want) < 3 {
		t.Fatalf("the sample has %d uncategorized transactions, want at least 3", len(want))
	}
	var out listTransactionsOut
	e.ok("list_transactions", map[string]any{"status": "uncategorized"}, &out)
	if out.Matched != len(want) || len(out.Transactions) != len(want) {
		t.Fatalf("got %d uncategorized (matched %d), want %d", len(out.Transactions), out.Matched, len(want))
	}
	for _, tx := range out.Transactions {
		amount, ok := want[tx.ID]
		if !ok || tx.AmountMilliunits != amount || !formatted.MatchString(tx.Amount) || tx.Category != "" {
			t.Errorf("transaction %+v is not one of the sample's uncategorized ones, or its amount is off", tx)
		}
	}
	if out.PlanID != sandbox.PlanID {
		t.Errorf("plan_id = %q, want the resolved id %s", out.PlanID, sandbox.PlanID)
	}
}

func TestRepeatedReadsCostAtMostOneRequest(t *testing.T) {
	t.Run("within 5 s: none", func(t *testing.T) {
		e := newEnv(t, envOptions{kind: modernNone})
		var first, second listAccountsOut
		e.ok("list_accounts", nil, &first)
		e.sb.ResetCounts()
		e.ok("list_transactions", map[string]any{"limit": 5}, &second)
		if first.YNABRequests != 1 || second.YNABRequests != 0 || e.sb.Counts().Total != 0 {
			t.Fatalf("first read cost %d, second %d (sandbox saw %d); want 1 then 0", first.YNABRequests, second.YNABRequests, e.sb.Counts().Total)
		}
	})
	t.Run("after that: one delta", func(t *testing.T) {
		e := newEnv(t, envOptions{kind: modernNone, maxAge: -1})
		var out listAccountsOut
		e.ok("list_accounts", nil, &out)
		for _, tool := range []string{"get_plan_overview", "list_categories", "list_transactions", "list_payees", "list_scheduled_transactions", "list_accounts"} {
			e.sb.ResetCounts()
			e.ok(tool, nil, &out)
			if c := e.sb.Counts(); out.YNABRequests != 1 || c.Total != 1 || c.ByRoute["GET /plans/{plan_id}"] != 1 {
				t.Errorf("%s on a warm cache cost %d requests (%v), want one delta of the plan", tool, out.YNABRequests, c.ByRoute)
			}
		}
	})
}

func TestBadInputIsAToolError(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	// A second "Boodschappen", in another group, makes the name ambiguous.
	p, err := e.client.Plan(context.Background(), sandbox.PlanID, ynab.Fresh)
	if err != nil {
		t.Fatal(err)
	}
	var sparen string
	for _, g := range p.CategoryGroups {
		if g.Name == "Sparen" {
			sparen = g.ID
		}
	}
	if _, err := e.client.CreateCategory(context.Background(), sandbox.PlanID, ynab.SaveCategory{Name: ynab.Some("Boodschappen"), CategoryGroupID: sparen}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_accounts", map[string]any{"plan_id": "Bestaat niet"}, `there is no plan named "Bestaat niet"; the plans are: `},
		{"list_accounts", map[string]any{"plan_id": "00000000-0000-4000-8000-000000000000"}, "there is no plan"},
		{"list_transactions", map[string]any{"category": "boodschappen"}, `category: "boodschappen" is ambiguous: it names 2 categories: `},
		{"list_transactions", map[string]any{"category": "Restaurantz"}, `the closest are: Dagelijks: Restaurants`},
		{"list_categories", map[string]any{"month": "2026-13"}, `month: "2026-13" has no month 13`},
		{"list_transactions", map[string]any{"min_amount": "12.345"}, "min_amount: \"12.345\" has more decimals than the plan's currency allows (2)"},
		{"list_transactions", map[string]any{"limit": 10000}, "limit: 10000 is out of range; give 1 to 500"},
		{"list_transactions", map[string]any{"status": "pending"}, `status: "pending" is not one of uncategorized, unapproved, flagged, uncleared`},
		{"list_transactions", map[string]any{"since": "2026-02-30"}, "since: "},
		{"list_transactions", map[string]any{"cursor": "bm9wZQ"}, "is not a cursor of this query"},
		{"set_category_budget", map[string]any{"category": "Restaurants", "amount": "12.345"}, "amount: "},
		{"set_category_budget", map[string]any{"category": "Restaurants", "amount": "1.234,56"}, `amount: "1.234,56" is not an amount`},
		{"create_transactions", map[string]any{"account": "Betaalrekening", "transactions": []map[string]any{
			{"date": "today", "amount": "12,50", "payee": "Market"}}}, `transactions[0].amount: "12,50" is not an amount`},
		{"set_category_budget", map[string]any{"category": "Fotografie", "amount": "10"}, "is hidden"},
		{"set_category_budget", map[string]any{"category": "Inflow: Ready to Assign", "amount": "10"}, "internal categories"},
		{"get_operation", map[string]any{"operation_id": "nope"}, `there is no operation "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.want, func(t *testing.T) {
			e.fails(tt.tool, tt.args, tt.want)
		})
	}
	if e.writes() != 1 {
		t.Fatalf("bad input wrote to YNAB (%d writes besides the test's own)", e.writes()-1)
	}
}

func TestFaultsGiveMessagesAPersonCanActOn(t *testing.T) {
	tests := []struct {
		name     string
		fault    sandbox.Fault
		want     string
		requests int
	}{
		{"401", sandbox.Fault{Status: 401}, "YNAB refused the access token: it is invalid, expired or revoked. Make a new personal access token at https://app.ynab.com/settings/developer", 1},
		{"429", sandbox.Fault{Status: 429}, "YNAB's limit of 200 requests an hour for this token is reached. Try again", 1},
		{"503 for good", sandbox.Fault{Status: 503, Count: 10}, "YNAB is failing right now (HTTP 503", 4},
		{"403.1", sandbox.Fault{ErrorID: "403.1"}, "subscription of this YNAB account has lapsed", 1},
		{"403.3", sandbox.Fault{ErrorID: "403.3", Method: "PATCH"}, "the access token is read-only", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{kind: noElicit})
			e.sb.InjectFault(tt.fault)
			e.sb.ResetCounts()
			tool, args := "list_accounts", map[string]any(nil)
			if tt.fault.Method == "PATCH" {
				var first writeOut
				e.ok("set_category_budget", budgetArgs, &first)
				e.sb.ResetCounts()
				tool, args = "set_category_budget", withArg(budgetArgs, "confirmation", first.Confirmation)
			}
			msg := e.fails(tool, args, tt.want)
			if got := e.sb.Counts().Total; got != tt.requests {
				t.Errorf("YNAB got %d requests, want %d", got, tt.requests)
			}
			if strings.Contains(msg, testToken) || strings.Contains(e.logText(), testToken) {
				t.Fatal("the token leaked into an error or the log")
			}
		})
	}
	t.Run("503 twice, then fine: retried", func(t *testing.T) {
		e := newEnv(t, envOptions{kind: noElicit})
		e.sb.InjectFault(sandbox.Fault{Status: 503, Count: 2})
		var out listAccountsOut
		e.ok("list_accounts", nil, &out)
		if out.YNABRequests != 3 || len(out.Accounts) == 0 {
			t.Fatalf("after two 503s: %d requests, %d accounts; want 3 requests and the accounts", out.YNABRequests, len(out.Accounts))
		}
	})
}

func TestOverviewMatchesTheMonth(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	p, err := e.sb.Export(sandbox.PlanID)
	if err != nil {
		t.Fatal(err)
	}
	var month ynab.Month
	for _, m := range p.Months {
		if m.Month == "2026-12-01" {
			month = m
		}
	}
	var out planOverviewOut
	e.ok("get_plan_overview", nil, &out)
	if out.Month != "2026-12-01" || out.PlanName != "Huishouden" || out.ReadyToAssignMilliunits != month.ToBeBudgeted ||
		out.AssignedMilliunits != month.Budgeted || out.IncomeMilliunits != month.Income || out.ActivityMilliunits != month.Activity ||
		out.ReadyToAssign != FormatCurrency(month.ToBeBudgeted, p.CurrencyFormat) {
		t.Fatalf("overview = %+v, month = %+v", out, month)
	}
	var uncategorized listTransactionsOut
	e.ok("list_transactions", map[string]any{"status": "uncategorized"}, &uncategorized)
	if out.UncategorizedCount != uncategorized.Matched || out.UnapprovedCount == 0 || len(out.AccountBalances) != 4 {
		t.Fatalf("overview counts = %d uncategorized (list says %d), %d unapproved, %d budget accounts",
			out.UncategorizedCount, uncategorized.Matched, out.UnapprovedCount, len(out.AccountBalances))
	}
}

func TestCategoriesShowTargetsAndHideHidden(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	find := func(out listCategoriesOut, name string) *categoryView {
		for _, g := range out.Groups {
			for i, c := range g.Categories {
				if c.Name == name {
					return &g.Categories[i]
				}
			}
		}
		return nil
	}
	var out listCategoriesOut
	e.ok("list_categories", nil, &out)
	if c := find(out, "Vakantie"); c == nil || c.Target != nil {
		t.Errorf("Vakantie = %+v, want it listed without a target", c)
	}
	p, err := e.sb.Export(sandbox.PlanID)
	if err != nil {
		t.Fatal(err)
	}
	var target int64
	for _, c := range p.Categories {
		if c.Name == "Noodfonds" && c.GoalTarget != nil {
			target = *c.GoalTarget
		}
	}
	if c := find(out, "Noodfonds"); c == nil || c.Target == nil || c.Target.Type != "TB" || c.Target.AmountMilliunits == nil ||
		*c.Target.AmountMilliunits != target || c.Target.Amount != FormatCurrency(target, p.CurrencyFormat) {
		t.Errorf("Noodfonds = %+v, want a savings balance target of %d", c, target)
	}
	if c := find(out, "Restaurants"); c == nil || c.AssignedMilliunits != 120000 || c.Assigned != "€120,00" {
		t.Errorf("Restaurants = %+v, want 120.00 assigned", c)
	}
	if find(out, "Fotografie") != nil || find(out, "Inflow: Ready to Assign") != nil {
		t.Error("a hidden or internal category is listed without include_hidden")
	}
	e.ok("list_categories", map[string]any{"include_hidden": true}, &out)
	if find(out, "Fotografie") == nil {
		t.Error("include_hidden does not list the hidden category")
	}
}

func TestTransactionPagesCoverEverythingOnce(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	var all listTransactionsOut
	e.ok("list_transactions", map[string]any{"limit": 500}, &all)
	var seen []string
	cursor := ""
	for range 100 {
		args := map[string]any{"limit": 7}
		if cursor != "" {
			args["cursor"] = cursor
		}
		var page listTransactionsOut
		e.ok("list_transactions", args, &page)
		for _, tx := range page.Transactions {
			seen = append(seen, tx.ID)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if len(seen) != all.Matched || len(seen) < 60 {
		t.Fatalf("paging saw %d transactions, the plan has %d (want at least 60)", len(seen), all.Matched)
	}
	slices.Sort(seen)
	if len(slices.Compact(seen)) != all.Matched {
		t.Fatal("paging returned a transaction twice")
	}
}
