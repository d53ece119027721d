package ynab

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Reading a plan per collection: what the cache does when YNAB fails to export a plan (a plan of
// many years is tens of MB; YNAB may answer 503 after 30 s). The same plan then comes from the
// collection endpoints — accounts, categories, months, payees, scheduled transactions, and the
// transactions in windows of a year back to the plan's first month — and each collection is
// refreshed with its own last_knowledge_of_server (YNAB does not promise that one counter
// covers every endpoint, so none is used for another).
//
// What the collections do not hold: the categories of each past month (GET /categories has the
// current month's figures; another month is read when a tool asks for it, one request) and
// payee locations (avenir does not use them).

// collectionKnowledge is the server knowledge of each collection of a plan read per collection.
type collectionKnowledge struct {
	accounts, categories, months, payees, scheduled, transactions int64
	since                                                         string // the first date asked for: the plan's first month
}

// transactionWindow is the span of one request for transactions when a plan is read per
// collection: small enough for YNAB to answer well within its time limit.
const transactionWindow = 1 // years

// loadByCollection reads a whole plan from the collection endpoints.
func (c *Client) loadByCollection(ctx context.Context, planID string, start time.Time) (*Plan, *collectionKnowledge, error) {
	var d PlanDetail
	k := &collectionKnowledge{}
	months, mk, err := c.GetMonths(ctx, planID, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the plan's months: %w", err)
	}
	d.Months, k.months = months, mk
	if err := c.collect(ctx, planID, &d, k, false); err != nil {
		return nil, nil, err
	}
	// Transactions: since_date defaults to a year ago, so every window says where it starts.
	first := start.UTC().Format("2006-01") + "-01"
	for _, m := range d.Months {
		if !m.Deleted && m.Month < first {
			first = m.Month
		}
	}
	k.since = first
	today := start.UTC().Format(time.DateOnly)
	k.transactions = -1
	for from := first; from <= today; {
		t, _ := time.Parse(time.DateOnly, from)
		next := t.AddDate(transactionWindow, 0, 0).Format(time.DateOnly)
		until := t.AddDate(transactionWindow, 0, -1).Format(time.DateOnly)
		txs, tk, err := c.GetTransactions(ctx, planID, TransactionQuery{SinceDate: from, UntilDate: until})
		if err != nil {
			return nil, nil, fmt.Errorf("reading the plan's transactions from %s: %w", from, err)
		}
		addTransactions(&d, txs)
		// The earliest knowledge of the windows: a change made while they were read is asked
		// for again by the next delta.
		if k.transactions < 0 || tk < k.transactions {
			k.transactions = tk
		}
		from = next
	}
	if k.transactions < 0 {
		k.transactions = 0
	}
	settings, err := c.GetPlans(ctx, false)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the plan's name and currency: %w", err)
	}
	if s, ok := pickPlan(settings, planID); ok {
		d.ID, d.Name, d.LastModifiedOn, d.FirstMonth, d.LastMonth = s.ID, s.Name, s.LastModifiedOn, s.FirstMonth, s.LastMonth
		d.DateFormat, d.CurrencyFormat = s.DateFormat, s.CurrencyFormat
	} else {
		return nil, nil, fmt.Errorf("YNAB's list of plans does not name the plan %q", planID)
	}
	currentMonth(&d, start)
	p := newPlan(d, k.transactions, start)
	p.monthsPartial = true
	return p, k, nil
}

// pickPlan finds the plan planID names in GET /plans. An alias is resolved as YNAB would where
// the list says (the default plan); "last-used" is otherwise the plan modified last, which is
// the one the person used last as far as the list can tell.
func pickPlan(list Plans, planID string) (PlanSummary, bool) {
	for _, s := range list.Plans {
		if s.ID == planID {
			return s, true
		}
	}
	if planID != "last-used" && planID != "default" {
		return PlanSummary{}, false
	}
	if list.DefaultPlan != nil {
		return *list.DefaultPlan, true
	}
	var last PlanSummary
	for _, s := range list.Plans {
		if s.LastModifiedOn > last.LastModifiedOn || last.ID == "" {
			last = s
		}
	}
	return last, last.ID != ""
}

// collect reads (or, with delta, refreshes) the collections other than months and transactions
// into d: accounts, categories, payees, scheduled transactions.
func (c *Client) collect(ctx context.Context, planID string, d *PlanDetail, k *collectionKnowledge, delta bool) error {
	since := func(n int64) int64 {
		if delta {
			return n
		}
		return 0
	}
	accounts, ak, err := c.GetAccounts(ctx, planID, since(k.accounts))
	if err != nil {
		return fmt.Errorf("reading the plan's accounts: %w", err)
	}
	groups, ck, err := c.GetCategories(ctx, planID, since(k.categories))
	if err != nil {
		return fmt.Errorf("reading the plan's categories: %w", err)
	}
	payees, pk, err := c.GetPayees(ctx, planID, since(k.payees))
	if err != nil {
		return fmt.Errorf("reading the plan's payees: %w", err)
	}
	scheduled, sk, err := c.GetScheduledTransactions(ctx, planID, since(k.scheduled))
	if err != nil {
		return fmt.Errorf("reading the plan's scheduled transactions: %w", err)
	}
	k.accounts, k.categories, k.payees, k.scheduled = ak, ck, pk, sk
	d.Accounts = mergeByID(d.Accounts, accounts, func(a Account) (string, bool) { return a.ID, a.Deleted })
	d.Payees = mergeByID(d.Payees, payees, func(p Payee) (string, bool) { return p.ID, p.Deleted })
	var cats []Category
	plainGroups := make([]CategoryGroup, 0, len(groups))
	for _, g := range groups {
		for _, cat := range g.Categories {
			cats = append(cats, plainCategory(cat))
		}
		g.Categories = nil
		plainGroups = append(plainGroups, g)
	}
	d.CategoryGroups = mergeByID(d.CategoryGroups, plainGroups, func(g CategoryGroup) (string, bool) { return g.ID, g.Deleted })
	d.Categories = mergeByID(d.Categories, cats, categoryKey)

	var sums []ScheduledTransaction
	ids := map[string]bool{}
	var lines []ScheduledSubTransaction
	for _, s := range scheduled {
		ids[s.ID] = true
		for _, l := range s.Subtransactions {
			if !l.Deleted && !s.Deleted {
				l.AmountFormatted, l.AmountCurrency = "", nil
				lines = append(lines, l)
			}
		}
		s.Subtransactions, s.AccountName, s.PayeeName, s.CategoryName = nil, "", nil, nil
		s.AmountFormatted, s.AmountCurrency = "", nil
		sums = append(sums, s)
	}
	d.ScheduledTransactions = mergeByID(d.ScheduledTransactions, sums, func(s ScheduledTransaction) (string, bool) { return s.ID, s.Deleted })
	kept := make([]ScheduledSubTransaction, 0, len(d.ScheduledSubtransactions)+len(lines))
	for _, l := range d.ScheduledSubtransactions {
		if !ids[l.ScheduledTransactionID] {
			kept = append(kept, l)
		}
	}
	d.ScheduledSubtransactions = append(kept, lines...)
	return nil
}

// addTransactions merges TransactionDetails into d, their lines as the export keeps them.
func addTransactions(d *PlanDetail, txs []Transaction) {
	if len(txs) == 0 {
		return
	}
	ids := make(map[string]bool, len(txs))
	sums := make([]TransactionSummary, 0, len(txs))
	var lines []SubTransaction
	for _, t := range txs {
		ids[t.ID] = true
		s := t.TransactionSummary
		s.AmountFormatted, s.AmountCurrency = "", nil
		sums = append(sums, s)
		for _, l := range t.Subtransactions {
			if !l.Deleted && !t.Deleted {
				l.AmountFormatted, l.AmountCurrency = "", nil
				lines = append(lines, l)
			}
		}
	}
	d.Transactions = mergeByID(d.Transactions, sums, func(t TransactionSummary) (string, bool) { return t.ID, t.Deleted })
	kept := make([]SubTransaction, 0, len(d.Subtransactions)+len(lines))
	for _, s := range d.Subtransactions {
		if !ids[s.TransactionID] {
			kept = append(kept, s)
		}
	}
	d.Subtransactions = append(kept, lines...)
}

// currentMonth gives the current month (UTC, as YNAB's "current") the categories' figures of
// GET /categories, which are that month's: the month the read tools show by default.
func currentMonth(d *PlanDetail, now time.Time) {
	month := now.UTC().Format("2006-01") + "-01"
	d.Months = append([]Month(nil), d.Months...)
	for i := range d.Months {
		if d.Months[i].Month == month {
			d.Months[i].Categories = append([]Category(nil), d.Categories...)
		}
	}
}

// refreshByCollection brings a plan read per collection up to date: one delta request per
// collection, transactions from the plan's first month (a delta without since_date would miss
// a change to a transaction older than a year).
func (c *Client) refreshByCollection(ctx context.Context, pc *planCache, start time.Time) (*Plan, error) {
	k := *pc.byCollection
	d := pc.plan.PlanDetail
	months, mk, err := c.GetMonths(ctx, d.ID, k.months)
	if err != nil {
		return nil, fmt.Errorf("reading the plan's months: %w", err)
	}
	// A month's summary replaces the old one, keeping the categories it had.
	cats := map[string][]Category{}
	for _, m := range d.Months {
		cats[m.Month] = m.Categories
	}
	for i := range months {
		months[i].Categories = cats[months[i].Month]
	}
	d.Months = mergeByID(d.Months, months, func(m Month) (string, bool) { return m.Month, m.Deleted })
	k.months = mk
	if err := c.collect(ctx, d.ID, &d, &k, true); err != nil {
		return nil, err
	}
	txs, tk, err := c.GetTransactions(ctx, d.ID, TransactionQuery{SinceDate: k.since, Knowledge: k.transactions})
	if err != nil {
		return nil, fmt.Errorf("reading the plan's transactions: %w", err)
	}
	addTransactions(&d, txs)
	k.transactions = tk
	currentMonth(&d, start)
	*pc.byCollection = k
	p := newPlan(d, k.transactions, start)
	p.monthsPartial = true
	return p, nil
}

// isTimeout reports whether err is a request that ran out of time waiting for YNAB.
func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
