package ynab

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// The delta cache. Each plan is kept as YNAB's full export (GET /plans/{id}), refreshed with
// last_knowledge_of_server: one request brings every collection's changes (accounts, payees,
// category groups, categories, months with their categories, transactions and their lines,
// scheduled transactions), deletions included. So a repeated read costs one small request, and
// a read within MaxAge of the last one costs none.

// Freshness says how current a read must be.
type Freshness int

const (
	// Recent may reuse what this process fetched within MaxAge, unless a write made it stale.
	Recent Freshness = iota
	// Fresh always asks YNAB for the changes since: what a write reads before it applies.
	Fresh
)

type planCache struct {
	mu    sync.Mutex // one refresh at a time per plan
	plan  *Plan
	stale bool
}

// Plan returns a snapshot of the plan planID (an id, or an alias YNAB knows such as
// "last-used"). The snapshot is shared and read-only: never modify it.
func (c *Client) Plan(ctx context.Context, planID string, f Freshness) (*Plan, error) {
	c.mu.Lock()
	if id, ok := c.alias[planID]; ok {
		planID = id
	}
	pc := c.plans[planID]
	if pc == nil {
		pc = &planCache{}
		c.plans[planID] = pc
	}
	c.mu.Unlock()

	pc.mu.Lock()
	defer pc.mu.Unlock()
	if p := pc.plan; p != nil && f == Recent && !pc.stale && c.maxAge > 0 && c.now().Sub(p.Fetched) < c.maxAge {
		return p, nil
	}
	var knowledge int64
	if pc.plan != nil {
		knowledge = pc.plan.Knowledge
	}
	detail, k, err := c.GetPlan(ctx, planID, knowledge)
	if err != nil {
		return nil, err
	}
	if pc.plan != nil {
		detail = mergePlan(pc.plan.PlanDetail, detail)
	}
	p := newPlan(detail, k, c.now())
	pc.plan, pc.stale = p, false
	if p.ID != planID && p.ID != "" {
		// An alias: remember which plan it named, and keep the cache under the id.
		c.mu.Lock()
		c.alias[planID] = p.ID
		delete(c.plans, planID)
		// The alias's read is the newest: it replaces an entry under the id that is older
		// (never one another call is refreshing: that holds its own lock and is not stale).
		if existing := c.plans[p.ID]; existing == nil || existing.plan == nil || existing.plan.Knowledge <= p.Knowledge {
			c.plans[p.ID] = pc
		}
		c.mu.Unlock()
	}
	return p, nil
}

// Invalidate makes the next read of the plan ask YNAB for the changes, so that a process
// always reads its own writes, derived figures included.
func (c *Client) Invalidate(planID string) {
	c.mu.Lock()
	if id, ok := c.alias[planID]; ok {
		planID = id
	}
	pc := c.plans[planID]
	c.mu.Unlock()
	if pc != nil {
		pc.mu.Lock()
		pc.stale = true
		pc.mu.Unlock()
	}
}

// mergePlan applies a delta export to a full one and returns the new full export. Neither input
// is modified: snapshots handed out before stay as they were.
func mergePlan(full, delta PlanDetail) PlanDetail {
	out := full
	out.ID, out.Name = delta.ID, delta.Name
	if delta.LastModifiedOn != "" {
		out.LastModifiedOn = delta.LastModifiedOn
	}
	if delta.FirstMonth != "" {
		out.FirstMonth = delta.FirstMonth
	}
	if delta.LastMonth != "" {
		out.LastMonth = delta.LastMonth
	}
	if delta.DateFormat != nil {
		out.DateFormat = delta.DateFormat
	}
	if delta.CurrencyFormat != nil {
		out.CurrencyFormat = delta.CurrencyFormat
	}
	out.Accounts = mergeByID(full.Accounts, delta.Accounts, func(a Account) (string, bool) { return a.ID, a.Deleted })
	out.Payees = mergeByID(full.Payees, delta.Payees, func(p Payee) (string, bool) { return p.ID, p.Deleted })
	out.PayeeLocations = mergeByID(full.PayeeLocations, delta.PayeeLocations, func(p PayeeLocation) (string, bool) { return p.ID, p.Deleted })
	out.CategoryGroups = mergeByID(full.CategoryGroups, delta.CategoryGroups, func(g CategoryGroup) (string, bool) { return g.ID, g.Deleted })
	out.Categories = mergeByID(full.Categories, delta.Categories, categoryKey)
	out.Transactions = mergeByID(full.Transactions, delta.Transactions, func(t TransactionSummary) (string, bool) { return t.ID, t.Deleted })
	out.Subtransactions = mergeByID(full.Subtransactions, delta.Subtransactions, func(s SubTransaction) (string, bool) { return s.ID, s.Deleted })
	out.ScheduledTransactions = mergeByID(full.ScheduledTransactions, delta.ScheduledTransactions, func(s ScheduledTransaction) (string, bool) { return s.ID, s.Deleted })
	out.ScheduledSubtransactions = mergeByID(full.ScheduledSubtransactions, delta.ScheduledSubtransactions, func(s ScheduledSubTransaction) (string, bool) { return s.ID, s.Deleted })

	// Months: by month; a month in the delta carries only its categories that changed.
	old := make(map[string]Month, len(full.Months))
	for _, m := range full.Months {
		old[m.Month] = m
	}
	changed := make(map[string]Month, len(delta.Months))
	for _, m := range delta.Months {
		if prev, ok := old[m.Month]; ok && !m.Deleted {
			m.Categories = mergeByID(prev.Categories, m.Categories, categoryKey)
		}
		changed[m.Month] = m
	}
	out.Months = mergeByID(full.Months, delta.Months, func(m Month) (string, bool) { return m.Month, m.Deleted })
	for i, m := range out.Months {
		if cm, ok := changed[m.Month]; ok {
			out.Months[i].Categories = cm.Categories
		}
	}
	return out
}

func categoryKey(c Category) (string, bool) { return c.ID, c.Deleted }

// mergeByID returns old with the delta applied: changed entities replaced in place, new ones
// appended in the delta's order, deleted ones dropped.
func mergeByID[T any](old, delta []T, key func(T) (string, bool)) []T {
	if len(delta) == 0 {
		return old
	}
	upd := make(map[string]T, len(delta))
	for _, d := range delta {
		id, _ := key(d)
		upd[id] = d
	}
	out := make([]T, 0, len(old)+len(delta))
	for _, o := range old {
		id, _ := key(o)
		if d, ok := upd[id]; ok {
			delete(upd, id)
			if _, deleted := key(d); deleted {
				continue
			}
			out = append(out, d)
			continue
		}
		out = append(out, o)
	}
	for _, d := range delta {
		id, deleted := key(d)
		if _, pending := upd[id]; pending && !deleted {
			out = append(out, d)
			delete(upd, id)
		}
	}
	return out
}

// Plan is a snapshot of one plan with lookups by id. Read-only.
type Plan struct {
	PlanDetail
	Knowledge int64     // the server_knowledge it reflects
	Fetched   time.Time // when it was last brought up to date

	accounts   map[string]*Account
	groups     map[string]*CategoryGroup
	categories map[string]*Category
	payees     map[string]*Payee
	txs        map[string]*TransactionSummary
	subs       map[string][]SubTransaction // by transaction id
	months     map[string]*Month
	monthCats  map[string]map[string]*Category // month → category id

	byDateOnce sync.Once
	byDate     []*TransactionSummary
}

// TransactionsByDate returns the live transactions newest first (ties by id), sorted once per
// snapshot: listing pages of a large plan then costs a scan, not a sort.
func (p *Plan) TransactionsByDate() []*TransactionSummary {
	p.byDateOnce.Do(func() {
		p.byDate = make([]*TransactionSummary, 0, len(p.Transactions))
		for i := range p.Transactions {
			if !p.Transactions[i].Deleted {
				p.byDate = append(p.byDate, &p.Transactions[i])
			}
		}
		slices.SortFunc(p.byDate, func(a, b *TransactionSummary) int {
			return cmp.Or(strings.Compare(b.Date, a.Date), strings.Compare(a.ID, b.ID))
		})
	})
	return p.byDate
}

func newPlan(d PlanDetail, knowledge int64, now time.Time) *Plan {
	p := &Plan{PlanDetail: d, Knowledge: knowledge, Fetched: now,
		accounts: map[string]*Account{}, groups: map[string]*CategoryGroup{}, categories: map[string]*Category{},
		payees: map[string]*Payee{}, txs: map[string]*TransactionSummary{}, subs: map[string][]SubTransaction{},
		months: map[string]*Month{}, monthCats: map[string]map[string]*Category{}}
	for i := range p.Accounts {
		p.accounts[p.Accounts[i].ID] = &p.Accounts[i]
	}
	for i := range p.CategoryGroups {
		p.groups[p.CategoryGroups[i].ID] = &p.CategoryGroups[i]
	}
	for i := range p.Categories {
		p.categories[p.Categories[i].ID] = &p.Categories[i]
	}
	for i := range p.Payees {
		p.payees[p.Payees[i].ID] = &p.Payees[i]
	}
	for i := range p.Transactions {
		p.txs[p.Transactions[i].ID] = &p.Transactions[i]
	}
	for _, s := range p.Subtransactions {
		p.subs[s.TransactionID] = append(p.subs[s.TransactionID], s)
	}
	for i := range p.Months {
		m := &p.Months[i]
		p.months[m.Month] = m
		cats := make(map[string]*Category, len(m.Categories))
		for j := range m.Categories {
			cats[m.Categories[j].ID] = &m.Categories[j]
		}
		p.monthCats[m.Month] = cats
	}
	return p
}

// Account returns the account with id.
func (p *Plan) Account(id string) (*Account, bool) { a, ok := p.accounts[id]; return a, ok }

// Group returns the category group with id.
func (p *Plan) Group(id string) (*CategoryGroup, bool) { g, ok := p.groups[id]; return g, ok }

// Category returns the category with id (the export's flat entry).
func (p *Plan) Category(id string) (*Category, bool) { c, ok := p.categories[id]; return c, ok }

// Payee returns the payee with id.
func (p *Plan) Payee(id string) (*Payee, bool) { y, ok := p.payees[id]; return y, ok }

// Transaction returns the transaction with id.
func (p *Plan) Transaction(id string) (*TransactionSummary, bool) { t, ok := p.txs[id]; return t, ok }

// Lines returns the split lines of a transaction (none for a plain one).
func (p *Plan) Lines(transactionID string) []SubTransaction { return p.subs[transactionID] }

// Month returns the plan month (YYYY-MM-01).
func (p *Plan) Month(month string) (*Month, bool) { m, ok := p.months[month]; return m, ok }

// MonthCategory returns a category's figures for a month (YYYY-MM-01).
func (p *Plan) MonthCategory(month, categoryID string) (*Category, bool) {
	c, ok := p.monthCats[month][categoryID]
	return c, ok
}

// String names the snapshot for logs.
func (p *Plan) String() string { return fmt.Sprintf("plan %s at knowledge %d", p.ID, p.Knowledge) }

// PlanIDOf returns the plan id an alias such as "last-used" named when it was last read, or
// ref itself when it is no alias this client has resolved.
func (c *Client) PlanIDOf(ref string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.alias[ref]
	return id, ok
}
