package sandbox

import (
	"net/http"
	"time"

	"github.com/avenir-mcp/avenir/ynab"
)

// txQuery is what every transaction list takes: since_date (default: a year ago, as YNAB does
// since spec 1.85), until_date, type and last_knowledge_of_server.
type txQuery struct {
	since, until, kind string
	knowledge          int64
}

func (c *call) txQuery() (txQuery, error) {
	q := c.r.URL.Query()
	tq := txQuery{since: q.Get("since_date"), until: q.Get("until_date"), kind: q.Get("type")}
	if tq.since == "" {
		tq.since = dateOf(dayTime(c.v.today).AddDate(-1, 0, 0))
	}
	for name, d := range map[string]string{"since_date": tq.since, "until_date": tq.until} {
		if _, ok := parseDate(d); d != "" && !ok {
			return txQuery{}, badRequest("%s must be a date like 2026-09-01, not %q.", name, d)
		}
	}
	if tq.kind != "" && tq.kind != "uncategorized" && tq.kind != "unapproved" {
		return txQuery{}, badRequest("type must be \"uncategorized\" or \"unapproved\", not %q.", tq.kind)
	}
	var err error
	tq.knowledge, err = c.knowledge()
	return tq, err
}

// dayTime is a date the sandbox wrote itself, as a time.
func dayTime(date string) time.Time {
	t, _ := time.Parse(dateLayout, date)
	return t
}

// selects reports whether a transaction passes the query's filters.
func (c *call) selects(tq txQuery, t ynab.Transaction) bool {
	switch {
	case !c.p.wanted(keyTransaction(t.ID), t.Deleted, tq.knowledge):
		return false
	case t.Date < tq.since, tq.until != "" && t.Date > tq.until:
		return false
	case tq.kind == "unapproved":
		return !t.Approved
	case tq.kind == "uncategorized":
		return c.p.uncategorized(t)
	}
	return true
}

// uncategorized reports whether a transaction on an on-budget account still needs a category:
// it, or a line of its split, has none and is not a transfer within the budget.
func (p *plan) uncategorized(t ynab.Transaction) bool {
	a := p.account(t.AccountID)
	if a == nil || !a.OnBudget {
		return false
	}
	needs := func(category, transferAccount *string) bool {
		if category != nil {
			return false
		}
		if transferAccount == nil {
			return true
		}
		other := p.account(*transferAccount)
		return other != nil && !other.OnBudget
	}
	if len(t.Subtransactions) == 0 {
		return needs(t.CategoryID, t.TransferAccountID)
	}
	for _, s := range t.Subtransactions {
		if !s.Deleted && needs(s.CategoryID, s.TransferAccountID) {
			return true
		}
	}
	return false
}

// transactions answers a TransactionDetail list of the transactions that keep says belong.
func (c *call) transactions(keep func(ynab.Transaction) bool) (int, any, error) {
	tq, err := c.txQuery()
	if err != nil {
		return 0, nil, err
	}
	list := []ynab.Transaction{}
	for _, t := range c.v.txns {
		if keep(t) && c.selects(tq, t) {
			list = append(list, c.f.transaction(t))
		}
	}
	return http.StatusOK, map[string]any{"transactions": list, "server_knowledge": c.p.Knowledge}, nil
}

func getTransactions(c *call) (int, any, error) {
	return c.transactions(func(ynab.Transaction) bool { return true })
}

func getAccountTransactions(c *call) (int, any, error) {
	a, err := c.liveAccount()
	if err != nil {
		return 0, nil, err
	}
	return c.transactions(func(t ynab.Transaction) bool { return t.AccountID == a.ID })
}

func getMonthTransactions(c *call) (int, any, error) {
	month, err := c.month()
	if err != nil {
		return 0, nil, err
	}
	return c.transactions(func(t ynab.Transaction) bool { return monthOf(t.Date) == month })
}

// hybrids answers a HybridTransaction list: transactions as rows, and the lines of a split as
// rows of their own; parent and line say which rows belong.
func (c *call) hybrids(parent func(ynab.Transaction) bool, line func(ynab.SubTransaction) bool) (int, any, error) {
	tq, err := c.txQuery()
	if err != nil {
		return 0, nil, err
	}
	list := []ynab.HybridTransaction{}
	for _, t := range c.v.txns {
		if !c.selects(tq, t) {
			continue
		}
		if parent(t) {
			list = append(list, c.f.hybrid(ynab.HybridTransaction{TransactionSummary: t.TransactionSummary,
				Type: "transaction", AccountName: t.AccountName, PayeeName: t.PayeeName, CategoryName: hybridCategory(t.CategoryName)}))
		}
		for _, s := range t.Subtransactions {
			if line(s) && (tq.knowledge >= 0 || !s.Deleted) {
				list = append(list, c.f.hybrid(lineRow(t, s)))
			}
		}
	}
	return http.StatusOK, map[string]any{"transactions": list, "server_knowledge": c.p.Knowledge}, nil
}

// hybridCategory is a row's category_name: the spec makes it a string on HybridTransaction
// (null is not allowed), and YNAB names a row without a category "Uncategorized".
func hybridCategory(name *string) *string {
	if name == nil {
		return ptr("Uncategorized")
	}
	return name
}

// lineRow is a split line as a row of a hybrid list: the parent's fields, the line's own.
func lineRow(t ynab.Transaction, s ynab.SubTransaction) ynab.HybridTransaction {
	row := ynab.HybridTransaction{TransactionSummary: t.TransactionSummary, Type: "subtransaction",
		ParentTransactionID: ptr(t.ID), AccountName: t.AccountName, PayeeName: t.PayeeName, CategoryName: hybridCategory(s.CategoryName)}
	row.ID, row.Amount, row.Memo, row.CategoryID = s.ID, s.Amount, s.Memo, s.CategoryID
	row.TransferAccountID, row.TransferTransactionID, row.Deleted = s.TransferAccountID, s.TransferTransactionID, s.Deleted
	if s.PayeeID != nil {
		row.PayeeID, row.PayeeName = s.PayeeID, s.PayeeName
	}
	return row
}

func getCategoryTransactions(c *call) (int, any, error) {
	id := c.params["category_id"]
	if c.p.category(id) == nil {
		return 0, nil, notFound("category", id)
	}
	is := func(cat *string) bool { return cat != nil && *cat == id }
	return c.hybrids(
		func(t ynab.Transaction) bool { return len(t.Subtransactions) == 0 && is(t.CategoryID) },
		func(s ynab.SubTransaction) bool { return is(s.CategoryID) })
}

func getPayeeTransactions(c *call) (int, any, error) {
	id := c.params["payee_id"]
	if c.p.payee(id) == nil {
		return 0, nil, notFound("payee", id)
	}
	is := func(py *string) bool { return py != nil && *py == id }
	return c.hybrids(
		func(t ynab.Transaction) bool { return is(t.PayeeID) },
		func(s ynab.SubTransaction) bool { return is(s.PayeeID) })
}

func getTransaction(c *call) (int, any, error) {
	t, err := c.liveTransaction(c.params["transaction_id"])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"transaction": c.f.transaction(t), "server_knowledge": c.p.Knowledge}, nil
}

// liveTransaction returns the served form of a live transaction (not a split line).
func (c *call) liveTransaction(id string) (ynab.Transaction, error) {
	if i, ok := c.v.txnByID[id]; ok && !c.v.txns[i].Deleted {
		return c.v.txns[i], nil
	}
	return ynab.Transaction{}, notFound("transaction", id)
}
