package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/avenir-mcp/avenir/ynab"
)

// The analysis tools answer "where did my money go", "what is this charge", "what did I forget
// to budget for" from the plan avenir already holds: no YNAB request beyond the usual delta, and
// nothing sent anywhere else. Only list_money_movements asks YNAB, because money movements are
// not part of the plan export.

// analysisPlan reads the plan an analysis is about. An analysis shows no figure YNAB derives,
// only transactions, so it reads as a listing does: from the cache within the freshness window
// or after a write whose answer carried what it wrote, else (or with fresh) with one delta.
func (h *handlers) analysisPlan(ctx context.Context, in readArg) (*ynab.Plan, readResult, error) {
	p, err := h.plan(ctx, in.PlanID, in.listed())
	if err != nil {
		return nil, readResult{}, err
	}
	return p, readOf(p), nil
}

// flow is one amount that moved money into or out of the plan: a transaction, or one line of a
// split. Transfers between two budget accounts move nothing in or out and are no flow; a
// transfer to a tracking account is one (YNAB gives it a category).
type flow struct {
	tx       *ynab.TransactionSummary
	date     string
	amount   int64
	category string // "" when uncategorized
	payee    string // "" when none
	account  string
	memo     string
}

// budgetFlows returns the plan's flows, oldest first as the plan holds them (unsorted): the live
// transactions of budget accounts, closed ones included, split into their lines.
func budgetFlows(p *ynab.Plan) []flow {
	onBudget := func(id *string) bool {
		if id == nil {
			return false
		}
		a, ok := p.Account(*id)
		return ok && a.OnBudget
	}
	out := make([]flow, 0, len(p.Transactions))
	for i := range p.Transactions {
		t := &p.Transactions[i]
		if t.Deleted || !onBudget(&t.AccountID) {
			continue
		}
		lines := p.Lines(t.ID)
		split := false
		for _, s := range lines {
			if s.Deleted {
				continue
			}
			split = true
			if onBudget(s.TransferAccountID) {
				continue
			}
			f := flow{tx: t, date: t.Date, amount: s.Amount, category: str(s.CategoryID), payee: str(s.PayeeID),
				account: t.AccountID, memo: str(s.Memo)}
			if f.payee == "" {
				f.payee = str(t.PayeeID)
			}
			if f.memo == "" {
				f.memo = str(t.Memo)
			}
			out = append(out, f)
		}
		if split || onBudget(t.TransferAccountID) {
			continue
		}
		out = append(out, flow{tx: t, date: t.Date, amount: t.Amount, category: str(t.CategoryID),
			payee: str(t.PayeeID), account: t.AccountID, memo: str(t.Memo)})
	}
	return out
}

// countsInBudget reports whether a transaction moves money into or out of the plan: on a budget
// account and not a transfer to another budget account.
func countsInBudget(p *ynab.Plan, t *ynab.TransactionSummary) bool {
	a, ok := p.Account(t.AccountID)
	if !ok || !a.OnBudget {
		return false
	}
	if t.TransferAccountID != nil {
		if o, ok := p.Account(*t.TransferAccountID); ok && o.OnBudget {
			return false
		}
	}
	return true
}

// isReadyToAssign reports whether a category id is YNAB's income category.
func isReadyToAssign(p *ynab.Plan, id string) bool {
	c, ok := p.Category(id)
	return ok && c.Internal && c.Name == readyToAssign
}

// parseBound reads a since or until argument, which may be a date or a month: a month means its
// first day for since, its last day for until.
func parseBound(arg, s string, now time.Time, last bool) (string, error) {
	word := strings.ToLower(strings.TrimSpace(s))
	if parts, ok := splitISO(word); word == "today" || word == "yesterday" || ok && len(parts) == 3 {
		d, err := ParseDate(s, now)
		if err != nil {
			return "", fmt.Errorf("%s: %w", arg, err)
		}
		return d, nil
	}
	m, err := ParseMonth(s, now)
	if _, iso := splitISO(word); err != nil && !iso {
		return "", fmt.Errorf("%s: %s is neither a date (YYYY-MM-DD, today, yesterday) nor a month (YYYY-MM, current, previous)", arg, quoted(s))
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", arg, err)
	}
	if last {
		return lastDayOf(m), nil
	}
	return m, nil
}
