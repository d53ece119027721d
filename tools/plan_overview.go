package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var planOverviewTool = mcp.Tool{
	Name:        "get_plan_overview",
	Title:       "Plan overview",
	Description: "Best first call: a month at a glance (ready to assign, overspending, balances, what needs attention).",
	Annotations: readOnly,
}

type planOverviewIn struct {
	readArg
	Month string `json:"month,omitempty" jsonschema:"YYYY-MM"`
}

type overspentView struct {
	Category            string `json:"category"`
	AvailableMilliunits int64  `json:"available_milliunits"`
	Available           string `json:"available"`
}

type balanceView struct {
	Account           string `json:"account"`
	BalanceMilliunits int64  `json:"balance_milliunits"`
	Balance           string `json:"balance"`
}

type planOverviewOut struct {
	readResult
	PlanName                string          `json:"plan_name"`
	Month                   string          `json:"month"`
	Currency                string          `json:"currency,omitempty"`
	ReadyToAssignMilliunits int64           `json:"ready_to_assign_milliunits"`
	ReadyToAssign           string          `json:"ready_to_assign"`
	AgeOfMoney              *int            `json:"age_of_money" jsonschema:"in days; null when YNAB cannot tell yet"`
	IncomeMilliunits        int64           `json:"income_milliunits"`
	Income                  string          `json:"income"`
	AssignedMilliunits      int64           `json:"assigned_milliunits"`
	Assigned                string          `json:"assigned"`
	ActivityMilliunits      int64           `json:"activity_milliunits"`
	Activity                string          `json:"activity"`
	Overspent               []overspentView `json:"overspent_categories"`
	AccountBalances         []balanceView   `json:"budget_account_balances"`
	UncategorizedCount      int             `json:"uncategorized_transactions"`
	UnapprovedCount         int             `json:"unapproved_transactions"`
}

func (h *handlers) planOverview(ctx context.Context, _ *mcp.CallToolRequest, in planOverviewIn) (*mcp.CallToolResult, planOverviewOut, error) {
	month, err := h.parseMonth("month", in.Month)
	if err != nil {
		return nil, planOverviewOut{}, err
	}
	p, err := h.plan(ctx, in.PlanID, in.freshness())
	if err != nil {
		return nil, planOverviewOut{}, err
	}
	m, err := h.monthData(ctx, p, month)
	if err != nil {
		return nil, planOverviewOut{}, err
	}
	cf := currency(p)
	out := planOverviewOut{
		readResult: readOf(p), PlanName: p.Name, Month: month, AgeOfMoney: m.AgeOfMoney,
		ReadyToAssignMilliunits: m.ToBeBudgeted, ReadyToAssign: FormatCurrency(m.ToBeBudgeted, cf),
		IncomeMilliunits: m.Income, Income: FormatCurrency(m.Income, cf),
		AssignedMilliunits: m.Budgeted, Assigned: FormatCurrency(m.Budgeted, cf),
		ActivityMilliunits: m.Activity, Activity: FormatCurrency(m.Activity, cf),
		Overspent: []overspentView{}, AccountBalances: []balanceView{},
	}
	if p.CurrencyFormat != nil {
		out.Currency = p.CurrencyFormat.ISOCode
	}
	n := newNamer(p)
	for _, c := range m.Categories {
		if c.Deleted || c.Internal || c.Balance >= 0 {
			continue
		}
		out.Overspent = append(out.Overspent, overspentView{Category: n.category(&c.ID), AvailableMilliunits: c.Balance, Available: FormatCurrency(c.Balance, cf)})
	}
	for i := range p.Accounts {
		a := &p.Accounts[i]
		if a.Deleted || a.Closed || !a.OnBudget {
			continue
		}
		out.AccountBalances = append(out.AccountBalances, balanceView{Account: a.Name, BalanceMilliunits: a.Balance, Balance: FormatCurrency(a.Balance, cf)})
	}
	for i := range p.Transactions {
		t := &p.Transactions[i]
		if t.Deleted {
			continue
		}
		if needsCategory(p, t) {
			out.UncategorizedCount++
		}
		if !t.Approved {
			out.UnapprovedCount++
		}
	}
	return nil, out, nil
}
