package ynab

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The delta cache. Each plan is kept as YNAB's full export (GET /plans/{id}), refreshed with
// last_knowledge_of_server: one request brings every collection's changes (accounts, payees,
// category groups, categories, months with their categories, transactions and their lines,
// scheduled transactions), deletions included. So a repeated read costs one small request, and
// a read within the freshness window costs none. A plan too large for YNAB to export is read
// per collection instead (collections.go).
//
// A write's own answer is merged into the snapshot where it carries what changed (the typed
// write calls do it themselves): a preview after a write then needs no request, and a read
// needs one only when YNAB derives figures from the write that its answer does not carry
// (balances, activity, available, ready to assign). The snapshot's server knowledge is never
// moved by a write's answer: the answer does not say what else changed up to its knowledge
// (another client's writes, YNAB's derived figures), so the next delta asks from the knowledge
// last read and gets the written entities once more, which merges to the same thing.

// Freshness says how current a read must be; each mode is named for its rule.
type Freshness int

const (
	// WithinPreviewAge is what a write's preview uses: the plan as last read, up to PreviewAge old (or
	// the freshness window, if longer), with this process's own writes merged in. A preview
	// needs no more: the confirming call reads Fresh and refuses a subject that changed.
	WithinPreviewAge Freshness = iota
	// Fresh always asks YNAB for the changes since: what a write reads before it applies, and
	// what a read does when the person says they changed something in YNAB.
	Fresh
	// WithinWindow is what a read tool shows: the plan as read within the freshness window (MaxAge),
	// with every figure this process's writes changed, derived ones included; after a write
	// whose answer does not carry them, that costs one delta request.
	WithinWindow
	// AsHeld is what a confirming call reads before it takes the plan's lock and reads Fresh:
	// the snapshot this process holds, however old (unless a write made it stale), since it
	// serves only to recognise the subject being confirmed. It asks YNAB only when there is none.
	AsHeld
	// EntitiesWithinWindow is what a read that shows no derived figure uses (transactions,
	// payees, scheduled transactions): as WithinWindow, but a write whose answer carried what it wrote costs no
	// request after it, since only derived figures may have moved.
	EntitiesWithinWindow
)

const (
	// PreviewAge is how old the plan a preview shows may be (design.md, "Freshness").
	PreviewAge = 60 * time.Second
	// MaxFreshness bounds the freshness window of reads (design.md, "Freshness").
	MaxFreshness = 60 * time.Second
	// DefaultFreshness is the freshness window of reads when AVENIR_MCP_FRESHNESS is not set,
	// chosen from replayed sessions (BENCHMARKS.md, "Requests per session").
	DefaultFreshness = 30 * time.Second
)

// ParseFreshness reads a freshness window as AVENIR_MCP_FRESHNESS gives it: seconds ("30") or
// a Go duration ("30s", "1m"), from 0 (every read asks YNAB) to MaxFreshness. It returns the
// value for Options.MaxAge ("" gives 0: the default).
func ParseFreshness(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if n, nerr := strconv.Atoi(s); nerr == nil {
		d, err = time.Duration(n)*time.Second, nil
	}
	if err != nil || d < 0 || d > MaxFreshness {
		return 0, fmt.Errorf("AVENIR_MCP_FRESHNESS=%q: give seconds from 0 to %d (e.g. 30) or a duration like 30s", s, int(MaxFreshness.Seconds()))
	}
	if d == 0 {
		return -1, nil // every read asks
	}
	return d, nil
}

type planCache struct {
	mu   sync.Mutex // one refresh or merge at a time per plan
	plan *Plan
	// stale: a write's effect is not in the snapshot (its answer was lost, or carries only
	// ids); every read asks YNAB first.
	stale bool
	// derived: the snapshot holds this process's writes, but figures YNAB derives from them
	// may have moved since; a WithinWindow read asks YNAB first, a WithinPreviewAge one need not.
	derived bool
	// byCollection is set once the plan export failed: the plan is then read and refreshed
	// per collection (collections.go), each with its own server knowledge.
	byCollection *collectionKnowledge
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
	if p := pc.plan; p != nil && c.reusable(pc, f) {
		return p, nil
	}
	start := c.now()
	var (
		p   *Plan
		err error
	)
	switch {
	case pc.plan == nil:
		p, err = c.loadPlan(ctx, pc, planID, start)
	case pc.byCollection != nil:
		p, err = c.refreshByCollection(ctx, pc, start)
	default:
		var detail PlanDetail
		var k int64
		detail, k, err = c.GetPlan(ctx, planID, pc.plan.Knowledge)
		if err == nil {
			p = newPlan(mergePlan(pc.plan.PlanDetail, detail), k, start)
		}
	}
	if err != nil {
		return nil, err
	}
	pc.plan, pc.stale, pc.derived = p, false, false
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

// reusable reports whether the snapshot may answer a read of freshness f without asking YNAB.
func (c *Client) reusable(pc *planCache, f Freshness) bool {
	age := c.now().Sub(pc.plan.Fetched)
	switch {
	case pc.stale, f == Fresh, c.maxAge < 0:
		return false
	case f == WithinPreviewAge:
		return age < max(c.maxAge, PreviewAge)
	case f == AsHeld:
		return true
	case f == EntitiesWithinWindow:
		return age < c.maxAge
	default:
		return !pc.derived && age < c.maxAge
	}
}

// loadPlan reads a plan in full: the export in one request, or per collection when YNAB cannot
// export it in time. A plan of many years is tens of MB, and YNAB may then answer 503 after
// half a minute, or not before avenir stops waiting: such a failure (a timeout, or a 5xx that
// took more than half the time avenir waits for an answer) is not retried, which would only
// wait as long again, but read per collection. A quick 5xx is YNAB failing, retried as any read.
func (c *Client) loadPlan(ctx context.Context, pc *planCache, planID string, start time.Time) (*Plan, error) {
	var d struct {
		Plan            PlanDetail `json:"plan"`
		ServerKnowledge int64      `json:"server_knowledge"`
	}
	var err error
	for attempt := 0; ; attempt++ {
		began := time.Now()
		err = c.do(ctx, http.MethodGet, planPath(planID), nil, &d)
		if err == nil {
			return newPlan(d.Plan, d.ServerKnowledge, start), nil
		}
		if ctx.Err() == nil && (isTimeout(err) || retryable(err) && c.http.Timeout > 0 && time.Since(began) > c.http.Timeout/2) {
			break
		}
		if !retryable(err) || attempt >= c.retries {
			return nil, err
		}
		wait := c.backoff(attempt + 1)
		c.log.Warn("ynab read failed; retrying", "path", planPath(planID), "attempt", attempt+1, "wait", wait, "err", err)
		select {
		case <-ctx.Done():
			return nil, errors.Join(err, ctx.Err())
		case <-time.After(wait):
		}
	}
	c.log.Warn("YNAB could not export the plan in time; reading it per collection instead", "err", err)
	p, k, cerr := c.loadByCollection(ctx, planID, start)
	if cerr != nil {
		return nil, errors.Join(err, cerr)
	}
	pc.byCollection = k
	return p, nil
}

// Invalidate makes the next read of the plan ask YNAB for the changes, so that a process
// always reads its own writes, derived figures included.
func (c *Client) Invalidate(planID string) {
	if pc := c.cacheOf(planID); pc != nil {
		pc.mu.Lock()
		pc.stale = true
		pc.mu.Unlock()
	}
}

func (c *Client) cacheOf(planID string) *planCache {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id, ok := c.alias[planID]; ok {
		planID = id
	}
	return c.plans[planID]
}

// effect says what a write's answer leaves out.
type effect int

const (
	carried effect = iota // the answer holds every change the write made
	derives               // YNAB derives figures from the change that the answer does not hold
)

// absorb merges what a write's answer carries into the plan's snapshot, as a new snapshot
// (those handed out stay as they were). edit gets a copy of the export to change.
func (c *Client) absorb(planID string, e effect, edit func(d *PlanDetail)) {
	pc := c.cacheOf(planID)
	if pc == nil {
		return
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.plan == nil {
		return
	}
	old := pc.plan
	d := old.PlanDetail
	edit(&d)
	pc.plan = newPlan(d, old.Knowledge, old.Fetched)
	pc.plan.monthsPartial = old.monthsPartial
	if e == derives {
		pc.derived = true
	}
}

// absorbTransactions merges transactions from a write's answer: each replaces the one with its
// id (lines included), a deleted one drops out, and a payee YNAB created for it by name is added.
func (c *Client) absorbTransactions(planID string, txs []Transaction, e effect) {
	if len(txs) == 0 {
		return
	}
	c.absorb(planID, e, func(d *PlanDetail) {
		addTransactions(d, txs)
		known := make(map[string]bool, len(d.Payees))
		for _, y := range d.Payees {
			known[y.ID] = true
		}
		var payees []Payee
		for _, t := range txs {
			if t.PayeeID != nil && t.PayeeName != nil && !known[*t.PayeeID] {
				known[*t.PayeeID] = true
				payees = append(payees, Payee{ID: *t.PayeeID, Name: *t.PayeeName})
			}
		}
		if len(payees) > 0 {
			d.Payees = append(slices.Clip(d.Payees), payees...)
		}
	})
}

// absorbMonthCategory merges a category's figures for one month from a write's answer.
func (c *Client) absorbMonthCategory(planID, month string, cat Category) {
	cat = plainCategory(cat)
	c.absorb(planID, derives, func(d *PlanDetail) {
		d.Months = slices.Clone(d.Months)
		for i := range d.Months {
			if d.Months[i].Month == month {
				d.Months[i].Categories = mergeByID(d.Months[i].Categories, []Category{cat}, categoryKey)
			}
		}
	})
}

// absorbCategory merges a category's own fields (name, group, note, target) from a write's
// answer; its figures are the current month's, as in the export's flat list.
func (c *Client) absorbCategory(planID string, cat Category) {
	cat = plainCategory(cat)
	c.absorb(planID, derives, func(d *PlanDetail) {
		d.Categories = mergeByID(d.Categories, []Category{cat}, categoryKey)
	})
}

// plainCategory drops what the export does not carry: the display forms of amounts and the
// group's name.
func plainCategory(c Category) Category {
	c.CategoryGroupName = ""
	c.BalanceFormatted, c.BalanceCurrency = "", nil
	c.ActivityFormatted, c.ActivityCurrency = "", nil
	c.BudgetedFormatted, c.BudgetedCurrency = "", nil
	c.GoalTargetFormatted, c.GoalTargetCurrency = nil, nil
	c.GoalUnderFundedFormatted, c.GoalUnderFundedCurrency = nil, nil
	c.GoalOverallFundedFormatted, c.GoalOverallFundedCurrency = nil, nil
	c.GoalOverallLeftFormatted, c.GoalOverallLeftCurrency = nil, nil
	return c
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
	Knowledge int64     // the server_knowledge it reflects (with the export: see collectionKnowledge otherwise)
	Fetched   time.Time // when it was last brought up to date: YNAB was asked at this time

	accounts   map[string]*Account
	groups     map[string]*CategoryGroup
	categories map[string]*Category
	payees     map[string]*Payee
	txs        map[string]*TransactionSummary
	subs       map[string][]SubTransaction // by transaction id
	months     map[string]*Month
	monthCats  map[string]map[string]*Category // month → category id

	// monthsPartial: the plan was read per collection, and only the current month has its
	// categories; Month reports the others as absent, so that a tool reads them from YNAB.
	monthsPartial bool

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

// Month returns the plan month (YYYY-MM-01) with its categories.
func (p *Plan) Month(month string) (*Month, bool) {
	m, ok := p.months[month]
	if ok && p.monthsPartial && m.Categories == nil {
		return nil, false
	}
	return m, ok
}

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
