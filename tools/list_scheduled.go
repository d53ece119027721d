package tools

import (
	"cmp"
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var listScheduledTool = mcp.Tool{
	Name:        "list_scheduled_transactions",
	Title:       "List scheduled transactions",
	Description: "Scheduled transactions, soonest first. No flag, memo or category in a row means none.",
	Annotations: readOnly,
}

type listScheduledIn struct {
	readArg
}

type scheduledView struct {
	ID               string     `json:"id"`
	DateFirst        string     `json:"date_first"`
	DateNext         string     `json:"date_next"`
	Frequency        string     `json:"frequency" jsonschema:"YNAB's frequency, e.g. monthly, everyOtherWeek"`
	Account          string     `json:"account"`
	Payee            string     `json:"payee,omitempty"`
	Transfer         string     `json:"transfer_account,omitempty" jsonschema:"for a transfer: the other account (instead of a payee)"`
	AmountMilliunits int64      `json:"amount_milliunits" jsonschema:"negative for an outflow"`
	Amount           string     `json:"amount"`
	Category         string     `json:"category,omitempty"`
	Memo             string     `json:"memo,omitempty"`
	Flag             string     `json:"flag,omitempty"`
	SplitLines       []lineView `json:"split_lines,omitempty"`
}

type listScheduledOut struct {
	readResult
	Scheduled []scheduledView `json:"scheduled_transactions"`
}

func (h *handlers) listScheduled(ctx context.Context, _ *mcp.CallToolRequest, in listScheduledIn) (*mcp.CallToolResult, listScheduledOut, error) {
	p, err := h.plan(ctx, in.PlanID, in.listed())
	if err != nil {
		return nil, listScheduledOut{}, err
	}
	cf := currency(p)
	n := newNamer(p)
	lines := map[string][]lineView{}
	for _, s := range p.ScheduledSubtransactions {
		if s.Deleted {
			continue
		}
		lines[s.ScheduledTransactionID] = append(lines[s.ScheduledTransactionID], n.line(s.Amount, s.CategoryID, s.PayeeID, s.Memo))
	}
	out := listScheduledOut{readResult: readOf(p), Scheduled: []scheduledView{}}
	for _, s := range p.ScheduledTransactions {
		if s.Deleted {
			continue
		}
		v := scheduledView{ID: s.ID, DateFirst: s.DateFirst, DateNext: s.DateNext, Frequency: s.Frequency,
			Account: accountName(p, s.AccountID), AmountMilliunits: s.Amount, Amount: FormatCurrency(s.Amount, cf),
			Category: n.category(s.CategoryID), Memo: str(s.Memo), Flag: str(s.FlagColor), SplitLines: lines[s.ID]}
		if s.TransferAccountID != nil {
			v.Transfer = accountName(p, *s.TransferAccountID)
		} else {
			v.Payee = payeeName(p, s.PayeeID)
		}
		out.Scheduled = append(out.Scheduled, v)
	}
	slices.SortFunc(out.Scheduled, func(a, b scheduledView) int {
		return cmp.Or(cmp.Compare(a.DateNext, b.DateNext), cmp.Compare(a.ID, b.ID))
	})
	return nil, out, nil
}
