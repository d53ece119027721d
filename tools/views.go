package tools

import (
	"github.com/avenir-mcp/avenir/ynab"
)

// Views: how the read tools show YNAB's data. Amounts come twice, as milliunits (exact, for
// arithmetic) and formatted in the plan's currency format (for people).

func currency(p *ynab.Plan) *ynab.CurrencyFormat { return p.CurrencyFormat }

type transactionView struct {
	ID                string     `json:"id"`
	Date              string     `json:"date"`
	Account           string     `json:"account"`
	AccountID         string     `json:"account_id"`
	Payee             string     `json:"payee,omitempty"`
	PayeeID           string     `json:"payee_id,omitempty"`
	AmountMilliunits  int64      `json:"amount_milliunits" jsonschema:"negative for an outflow"`
	Amount            string     `json:"amount" jsonschema:"the amount in the plan's currency format"`
	Category          string     `json:"category,omitempty" jsonschema:"Group: Name; 'Split' for a split; empty when uncategorized"`
	CategoryID        string     `json:"category_id,omitempty"`
	Memo              string     `json:"memo,omitempty"`
	Cleared           string     `json:"cleared" jsonschema:"cleared, uncleared or reconciled"`
	Approved          bool       `json:"approved"`
	Flag              string     `json:"flag,omitempty" jsonschema:"red, orange, yellow, green, blue or purple; empty for none"`
	TransferAccount   string     `json:"transfer_account,omitempty" jsonschema:"for a transfer: the other account"`
	TransferAccountID string     `json:"transfer_account_id,omitempty"`
	SplitLines        []lineView `json:"split_lines,omitempty"`
}

type lineView struct {
	ID               string `json:"id"`
	AmountMilliunits int64  `json:"amount_milliunits"`
	Amount           string `json:"amount"`
	Category         string `json:"category,omitempty"`
	CategoryID       string `json:"category_id,omitempty"`
	Payee            string `json:"payee,omitempty"`
	Memo             string `json:"memo,omitempty"`
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// categoryLabel is "Group: Name", the form that is never ambiguous.
func categoryLabel(p *ynab.Plan, id string) string {
	c, ok := p.Category(id)
	if !ok {
		return ""
	}
	if g := groupName(p, c.CategoryGroupID); g != "" {
		return g + ": " + c.Name
	}
	return c.Name
}

func accountName(p *ynab.Plan, id string) string {
	if a, ok := p.Account(id); ok {
		return a.Name
	}
	return ""
}

func payeeName(p *ynab.Plan, id *string) string {
	if id == nil {
		return ""
	}
	if y, ok := p.Payee(*id); ok {
		return y.Name
	}
	return ""
}

func viewTransaction(p *ynab.Plan, t *ynab.TransactionSummary) transactionView {
	cf := currency(p)
	v := transactionView{
		ID: t.ID, Date: t.Date, Account: accountName(p, t.AccountID), AccountID: t.AccountID,
		Payee: payeeName(p, t.PayeeID), PayeeID: str(t.PayeeID),
		AmountMilliunits: t.Amount, Amount: FormatCurrency(t.Amount, cf),
		CategoryID: str(t.CategoryID), Memo: str(t.Memo), Cleared: t.Cleared, Approved: t.Approved,
		Flag: str(t.FlagColor), TransferAccountID: str(t.TransferAccountID),
	}
	if t.CategoryID != nil {
		v.Category = categoryLabel(p, *t.CategoryID)
	}
	if t.TransferAccountID != nil {
		v.TransferAccount = accountName(p, *t.TransferAccountID)
	}
	for _, s := range p.Lines(t.ID) {
		if s.Deleted {
			continue
		}
		v.SplitLines = append(v.SplitLines, viewLine(p, s.ID, s.Amount, s.CategoryID, s.PayeeID, s.Memo))
	}
	if len(v.SplitLines) > 0 && v.Category == "" {
		v.Category = "Split"
	}
	return v
}

// viewLine shows one line of a split, of a transaction or of a scheduled transaction.
func viewLine(p *ynab.Plan, id string, amount int64, categoryID, payeeID, memo *string) lineView {
	l := lineView{ID: id, AmountMilliunits: amount, Amount: FormatCurrency(amount, currency(p)),
		CategoryID: str(categoryID), Payee: payeeName(p, payeeID), Memo: str(memo)}
	if categoryID != nil {
		l.Category = categoryLabel(p, *categoryID)
	}
	return l
}

// isSplit reports whether a transaction has split lines.
func isSplit(p *ynab.Plan, t *ynab.TransactionSummary) bool {
	for _, s := range p.Lines(t.ID) {
		if !s.Deleted {
			return true
		}
	}
	return false
}

// needsCategory reports whether YNAB would list the transaction as uncategorized: on a budget
// account, no category, not a split, and not a transfer between two budget accounts (those
// need none).
func needsCategory(p *ynab.Plan, t *ynab.TransactionSummary) bool {
	a, ok := p.Account(t.AccountID)
	if !ok || !a.OnBudget || t.CategoryID != nil || isSplit(p, t) {
		return false
	}
	if t.TransferAccountID != nil {
		if other, ok := p.Account(*t.TransferAccountID); ok && other.OnBudget {
			return false
		}
	}
	return true
}
