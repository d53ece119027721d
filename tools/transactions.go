package tools

import (
	"fmt"
	"strings"

	"github.com/avenir-mcp/avenir/ynab"
)

// Helpers the transaction writes share: finding the transactions a call names, and naming them
// the way the preview does (§7: date, payee, amount as YNAB's outflow/inflow columns show it).

// txLabel names a transaction for a person: "2026-11-28 Market 86.40" (an inflow as "+2500.00").
func txLabel(p *ynab.Plan, t *ynab.TransactionSummary) string {
	payee := payeeName(p, t.PayeeID)
	if payee == "" {
		payee = "(no payee)"
	}
	return fmt.Sprintf("%s %s %s", t.Date, payee, FormatFlow(t.Amount, Digits(currency(p))))
}

// categoryShort names a category as the preview shows it: its name, or "Uncategorized".
func categoryShort(p *ynab.Plan, id *string) string {
	if id == nil {
		return "Uncategorized"
	}
	if c, ok := p.Category(*id); ok {
		return c.Name
	}
	return *id
}

// transactionsByID finds each id in the plan: every id must name a live transaction, and none
// may come twice. arg names the argument for the error.
func transactionsByID(p *ynab.Plan, arg string, ids []string) ([]*ynab.TransactionSummary, error) {
	seen := make(map[string]int, len(ids))
	out := make([]*ynab.TransactionSummary, 0, len(ids))
	for i, id := range ids {
		id = strings.TrimSpace(id)
		if j, dup := seen[id]; dup {
			return nil, fmt.Errorf("%s[%d]: transaction %s is already in %s[%d]; name each transaction once", arg, i, id, arg, j)
		}
		seen[id] = i
		t, ok := p.Transaction(id)
		if !ok || t.Deleted {
			return nil, fmt.Errorf("%s[%d]: there is no transaction %s in this plan (or it was deleted); list_transactions shows their ids", arg, i, quoted(id))
		}
		out = append(out, t)
	}
	return out, nil
}
