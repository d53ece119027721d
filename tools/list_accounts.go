package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/ynab"
)

var listAccountsTool = mcp.Tool{
	Name:        "list_accounts",
	Title:       "List accounts",
	Description: "Accounts: type, balances, last reconciled.",
	Annotations: readOnly,
}

type listAccountsIn struct {
	readArg
	IncludeClosed bool `json:"include_closed,omitempty"`
}

type accountView struct {
	ID                         string `json:"id"`
	Name                       string `json:"name"`
	Type                       string `json:"type" jsonschema:"YNAB's account type, e.g. checking, savings, creditCard"`
	OnBudget                   bool   `json:"on_budget"`
	Closed                     bool   `json:"closed,omitempty"`
	BalanceMilliunits          int64  `json:"balance_milliunits"`
	Balance                    string `json:"balance"`
	ClearedBalanceMilliunits   int64  `json:"cleared_balance_milliunits"`
	ClearedBalance             string `json:"cleared_balance"`
	UnclearedBalanceMilliunits int64  `json:"uncleared_balance_milliunits"`
	UnclearedBalance           string `json:"uncleared_balance"`
	LastReconciledAt           string `json:"last_reconciled_at,omitempty"`
	Note                       string `json:"note,omitempty"`
}

type listAccountsOut struct {
	readResult
	Accounts []accountView `json:"accounts"`
}

func (h *handlers) listAccounts(ctx context.Context, _ *mcp.CallToolRequest, in listAccountsIn) (*mcp.CallToolResult, listAccountsOut, error) {
	p, err := h.plan(ctx, in.PlanID, in.freshness())
	if err != nil {
		return nil, listAccountsOut{}, err
	}
	out := listAccountsOut{readResult: readOf(p), Accounts: []accountView{}}
	for i := range p.Accounts {
		a := &p.Accounts[i]
		if a.Deleted || (a.Closed && !in.IncludeClosed) {
			continue
		}
		out.Accounts = append(out.Accounts, viewAccount(p, a))
	}
	return nil, out, nil
}

func viewAccount(p *ynab.Plan, a *ynab.Account) accountView {
	cf := currency(p)
	return accountView{
		ID: a.ID, Name: a.Name, Type: a.Type, OnBudget: a.OnBudget, Closed: a.Closed,
		BalanceMilliunits: a.Balance, Balance: FormatCurrency(a.Balance, cf),
		ClearedBalanceMilliunits: a.ClearedBalance, ClearedBalance: FormatCurrency(a.ClearedBalance, cf),
		UnclearedBalanceMilliunits: a.UnclearedBalance, UnclearedBalance: FormatCurrency(a.UnclearedBalance, cf),
		LastReconciledAt: str(a.LastReconciledAt), Note: str(a.Note),
	}
}
