package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/ynab"
)

var planOverviewTool = mcp.Tool{
	Name:  "get_plan_overview",
	Title: "Plan overview",
	Description: "A month at a glance: ready to assign, age of money, the month's income, assigned and activity, " +
		"overspent categories, the balances of the budget accounts, and how many transactions are uncategorized or unapproved.",
	Annotations: readOnly,
}

type planOverviewIn struct {
	planArg
	Month string `json:"month,omitempty" jsonschema:"YYYY-MM, YYYY-MM-DD, current, next or previous; default current"`
}

type money struct {
	Milliunits int64  `json:"milliunits"`
	Formatted  string `json:"formatted"`
}

func (h *handlers) money(p *ynab.Plan, m int64) money {
	return money{Milliunits: m, Formatted: FormatCurrency(m, currency(p))}
}

type overspentView struct {
	Category   string `json:"category"`
	CategoryID string `json:"category_id"`
	Available  money  `json:"available"`
}

type balanceView struct {
	Account   string `json:"account"`
	AccountID string `json:"account_id"`
	Balance   money  `json:"balance"`
}

type planOverviewOut struct {
	result
	PlanName           string          `json:"plan_name"`
	Month              string          `json:"month"`
	Currency           string          `json:"currency,omitempty"`
	ReadyToAssign      money           `json:"ready_to_assign"`
	AgeOfMoney         *int            `json:"age_of_money" jsonschema:"in days; null when YNAB cannot tell yet"`
	Income             money           `json:"income"`
	Assigned           money           `json:"assigned"`
	Activity           money           `json:"activity"`
	Overspent          []overspentView `json:"overspent_categories"`
	AccountBalances    []balanceView   `json:"budget_account_balances"`
	UncategorizedCount int             `json:"uncategorized_transactions"`
	UnapprovedCount    int             `json:"unapproved_transactions"`
}

func (h *handlers) planOverview(ctx context.Context, _ *mcp.CallToolRequest, in planOverviewIn) (*mcp.CallToolResult, planOverviewOut, error) {
	month, err := h.parseMonth("month", in.Month)
	if err != nil {
		return nil, planOverviewOut{}, err
	}
	p, err := h.plan(ctx, in.PlanID, ynab.Recent)
	if err != nil {
		return nil, planOverviewOut{}, err
	}
	m, err := h.monthData(ctx, p, month)
	if err != nil {
		return nil, planOverviewOut{}, err
	}
	out := planOverviewOut{
		result: result{PlanID: p.ID}, PlanName: p.Name, Month: month,
		ReadyToAssign: h.money(p, m.ToBeBudgeted), AgeOfMoney: m.AgeOfMoney,
		Income: h.money(p, m.Income), Assigned: h.money(p, m.Budgeted), Activity: h.money(p, m.Activity),
		Overspent: []overspentView{}, AccountBalances: []balanceView{},
	}
	if p.CurrencyFormat != nil {
		out.Currency = p.CurrencyFormat.ISOCode
	}
	for _, c := range m.Categories {
		if c.Deleted || c.Internal || c.Balance >= 0 {
			continue
		}
		out.Overspent = append(out.Overspent, overspentView{Category: categoryLabel(p, c.ID), CategoryID: c.ID, Available: h.money(p, c.Balance)})
	}
	for i := range p.Accounts {
		a := &p.Accounts[i]
		if a.Deleted || a.Closed || !a.OnBudget {
			continue
		}
		out.AccountBalances = append(out.AccountBalances, balanceView{Account: a.Name, AccountID: a.ID, Balance: h.money(p, a.Balance)})
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
