package tools

import (
	"cmp"
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/ynab"
)

var listScheduledTool = mcp.Tool{
	Name:        "list_scheduled_transactions",
	Title:       "List scheduled transactions",
	Description: "List the plan's scheduled (upcoming, repeating) transactions, soonest first.",
	Annotations: readOnly,
}

type listScheduledIn struct {
	planArg
}

type scheduledView struct {
	ID               string     `json:"id"`
	DateFirst        string     `json:"date_first"`
	DateNext         string     `json:"date_next"`
	Frequency        string     `json:"frequency" jsonschema:"YNAB's frequency, e.g. monthly, everyOtherWeek"`
	Account          string     `json:"account"`
	AccountID        string     `json:"account_id"`
	Payee            string     `json:"payee,omitempty"`
	AmountMilliunits int64      `json:"amount_milliunits" jsonschema:"negative for an outflow"`
	Amount           string     `json:"amount"`
	Category         string     `json:"category,omitempty"`
	CategoryID       string     `json:"category_id,omitempty"`
	Memo             string     `json:"memo,omitempty"`
	Flag             string     `json:"flag,omitempty"`
	SplitLines       []lineView `json:"split_lines,omitempty"`
}

type listScheduledOut struct {
	result
	Scheduled []scheduledView `json:"scheduled_transactions"`
}

func (h *handlers) listScheduled(ctx context.Context, _ *mcp.CallToolRequest, in listScheduledIn) (*mcp.CallToolResult, listScheduledOut, error) {
	p, err := h.plan(ctx, in.PlanID, ynab.Recent)
	if err != nil {
		return nil, listScheduledOut{}, err
	}
	cf := currency(p)
	lines := map[string][]lineView{}
	for _, s := range p.ScheduledSubtransactions {
		if s.Deleted {
			continue
		}
		lines[s.ScheduledTransactionID] = append(lines[s.ScheduledTransactionID], viewLine(p, s.ID, s.Amount, s.CategoryID, s.PayeeID, s.Memo))
	}
	out := listScheduledOut{result: result{PlanID: p.ID}, Scheduled: []scheduledView{}}
	for _, s := range p.ScheduledTransactions {
		if s.Deleted {
			continue
		}
		v := scheduledView{ID: s.ID, DateFirst: s.DateFirst, DateNext: s.DateNext, Frequency: s.Frequency,
			Account: accountName(p, s.AccountID), AccountID: s.AccountID, Payee: payeeName(p, s.PayeeID),
			AmountMilliunits: s.Amount, Amount: FormatCurrency(s.Amount, cf), CategoryID: str(s.CategoryID),
			Memo: str(s.Memo), Flag: str(s.FlagColor), SplitLines: lines[s.ID]}
		if s.CategoryID != nil {
			v.Category = categoryLabel(p, *s.CategoryID)
		} else if len(v.SplitLines) > 0 {
			v.Category = "Split"
		}
		out.Scheduled = append(out.Scheduled, v)
	}
	slices.SortFunc(out.Scheduled, func(a, b scheduledView) int {
		return cmp.Or(cmp.Compare(a.DateNext, b.DateNext), cmp.Compare(a.ID, b.ID))
	})
	return nil, out, nil
}
