package ynab_test

import (
	"context"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// Each write of accounts, payees, scheduled transactions and groups reaches YNAB as one request,
// answers what YNAB holds, and the next read of the plan (even a "recent" one) shows it.
func TestWritesOfAccountsPayeesSchedulesAndGroups(t *testing.T) {
	sb, url := startSandbox(t)
	ctx := context.Background()
	c := ynab.New(ynab.Options{BaseURL: url, Token: "t", MaxAge: time.Hour})
	p, err := c.Plan(ctx, sandbox.PlanID, ynab.WithinPreviewAge)
	if err != nil {
		t.Fatal(err)
	}
	var betaal, market string
	for _, a := range p.Accounts {
		if a.Name == "Betaalrekening" {
			betaal = a.ID
		}
	}
	for _, y := range p.Payees {
		if y.Name == "Market" {
			market = y.ID
		}
	}
	sb.ResetCounts()
	writes := 0
	step := func(what string, err error) {
		t.Helper()
		writes++
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if c := sb.Counts(); c.Writes != writes {
			t.Fatalf("%s: %d write requests in all, want %d", what, c.Writes, writes)
		}
	}

	acct, err := c.CreateAccount(ctx, sandbox.PlanID, ynab.SaveAccount{Name: "Spaarpot", Type: ynab.AccountSavings, Balance: 500000})
	step("create account", err)
	if acct.Account.Name != "Spaarpot" || acct.Account.Balance != 500000 || acct.Account.ID == "" {
		t.Fatalf("created account = %+v", acct.Account)
	}
	py, err := c.UpdatePayee(ctx, sandbox.PlanID, market, ynab.SavePayee{Name: "Markt"})
	step("rename payee", err)
	if py.Payee.Name != "Markt" || py.ServerKnowledge == 0 {
		t.Fatalf("renamed payee = %+v", py)
	}
	st, err := c.CreateScheduledTransaction(ctx, sandbox.PlanID, ynab.SaveScheduledTransaction{AccountID: betaal, Date: "2027-01-05",
		Frequency: "monthly", Amount: ynab.Some[int64](-45000), PayeeName: ynab.Some("Tennisclub")})
	step("create scheduled", err)
	if st.ID == "" || st.DateNext != "2027-01-05" || st.Frequency != "monthly" || st.Amount != -45000 {
		t.Fatalf("created scheduled transaction = %+v", st)
	}
	up, err := c.UpdateScheduledTransaction(ctx, sandbox.PlanID, st.ID, ynab.SaveScheduledTransaction{AccountID: betaal, Date: "2027-01-06",
		Frequency: "yearly", Amount: ynab.Some[int64](-50000)})
	step("update scheduled", err)
	if up.DateNext != "2027-01-06" || up.Frequency != "yearly" || up.Amount != -50000 {
		t.Fatalf("updated scheduled transaction = %+v", up)
	}
	g, err := c.CreateCategoryGroup(ctx, sandbox.PlanID, ynab.SaveCategoryGroup{Name: "Huisdieren"})
	step("create group", err)
	if g.CategoryGroup.Name != "Huisdieren" || g.CategoryGroup.ID == "" {
		t.Fatalf("created group = %+v", g)
	}
	g2, err := c.UpdateCategoryGroup(ctx, sandbox.PlanID, g.CategoryGroup.ID, ynab.SaveCategoryGroup{Name: "Dieren"})
	step("rename group", err)
	if g2.CategoryGroup.Name != "Dieren" {
		t.Fatalf("renamed group = %+v", g2)
	}

	// Every write made the cached plan stale: the next read shows them all.
	p, err = c.Plan(ctx, sandbox.PlanID, ynab.WithinPreviewAge)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := p.Account(acct.Account.ID); !ok || a.Name != "Spaarpot" {
		t.Fatal("the read after the writes does not show the new account")
	}
	if y, _ := p.Payee(market); y.Name != "Markt" {
		t.Fatalf("the read after the writes shows the payee as %q", y.Name)
	}
	if gr, ok := p.Group(g.CategoryGroup.ID); !ok || gr.Name != "Dieren" {
		t.Fatal("the read after the writes does not show the renamed group")
	}
	found := false
	for _, s := range p.ScheduledTransactions {
		found = found || s.ID == st.ID && s.DateNext == "2027-01-06"
	}
	if !found {
		t.Fatal("the read after the writes does not show the scheduled transaction")
	}

	_, err = c.DeleteScheduledTransaction(ctx, sandbox.PlanID, st.ID)
	step("delete scheduled", err)
	p, err = c.Plan(ctx, sandbox.PlanID, ynab.WithinPreviewAge)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range p.ScheduledTransactions {
		if s.ID == st.ID {
			t.Fatal("the read after the delete still shows the scheduled transaction")
		}
	}
}
