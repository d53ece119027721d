package sandbox

import (
	"cmp"
	"encoding/json"
	"hash/fnv"
	"slices"

	"github.com/avenir-mcp/avenir/ynab"
)

// view is a plan as served on one day: every entity in its wire form (without the formatted
// amounts), the derived figures computed, deleted entities included. Reads are answered from
// it; writes recompute it and compare it with the plan's marks to learn what changed.
type view struct {
	today   string
	current string   // the current month
	months  []string // ascending

	accounts   []ynab.Account
	payees     []ynab.Payee
	locations  []ynab.PayeeLocation
	groups     []ynab.CategoryGroup
	categories []ynab.Category             // current month
	monthCats  map[string][]ynab.Category  // month → categories, in plan order
	monthSums  map[string]ynab.Month       // without categories
	txns       []ynab.Transaction          // by date, then in order of entry
	scheduled  []ynab.ScheduledTransaction // detail form
	txnByID    map[string]int              // index into txns
	catIndex   map[string]int              // index into categories and each month's categories
	accByID    map[string]int              // index into accounts
	payeeNames map[string]string           // payee id → name, deleted payees included
	catNames   map[string]string           // category id → name, deleted categories included
}

// derive computes the plan's view for the given day. The rules are the package's (see doc.go).
func (p *plan) derive(today string) *view {
	v := &view{today: today, current: monthOf(today)}
	v.derivePayees(p)
	v.months = p.monthRange(v.current)
	flows := p.flows()
	v.deriveCategories(p, flows)
	v.deriveAccounts(p)
	v.deriveTransactions(p)
	v.deriveScheduled(p)
	return v
}

// monthRange returns the months served: from the plan's first month (or an older transaction's)
// to the next month, or the last month anything was assigned in. It never shrinks, so a month
// once served stays served.
func (p *plan) monthRange(current string) []string {
	first, last := p.FirstMonth, max(p.LastMonth, addMonths(current, 1))
	for _, t := range p.Transactions {
		if !t.Deleted {
			first = min(first, monthOf(t.Date))
		}
	}
	for m := range p.Assigned {
		first, last = min(first, m), max(last, m)
	}
	var months []string
	for m := first; m <= last; m = addMonths(m, 1) {
		months = append(months, m)
	}
	return months
}

// flows is what the transactions of on-budget accounts add up to, per month.
type flows struct {
	activity map[string]map[string]int64 // month → category → activity
	income   map[string]int64            // inflows to Ready to Assign
	spending map[string]int64            // categorised outflows, for the age of money
	cash     map[string]int64            // net change of the on-budget accounts
}

func (p *plan) flows() flows {
	f := flows{activity: map[string]map[string]int64{}, income: map[string]int64{},
		spending: map[string]int64{}, cash: map[string]int64{}}
	rta := p.readyToAssign()
	payment := map[string]string{} // card account → its payment category
	for _, c := range p.Categories {
		if c.CardAccountID != "" && !c.Deleted {
			payment[c.CardAccountID] = c.ID
		}
	}
	add := func(month, cat string, amount int64) {
		if f.activity[month] == nil {
			f.activity[month] = map[string]int64{}
		}
		f.activity[month][cat] += amount
	}
	for _, t := range p.Transactions {
		a := p.account(t.AccountID)
		if t.Deleted || a == nil || !a.OnBudget {
			continue
		}
		m := monthOf(t.Date)
		f.cash[m] += t.Amount
		card := payment[a.ID]
		for _, l := range t.lines() {
			switch {
			case l.categoryID != nil && rta != nil && *l.categoryID == rta.ID:
				f.income[m] += l.amount
			case l.categoryID != nil:
				add(m, *l.categoryID, l.amount)
				if card != "" {
					add(m, card, -l.amount)
				}
				if l.amount < 0 {
					f.spending[m] -= l.amount
				}
			case l.transferAccountID != nil && card != "":
				if other := p.account(*l.transferAccountID); other != nil && other.OnBudget {
					add(m, card, -l.amount)
				}
			}
		}
	}
	return f
}

// line is what a transaction, or each line of a split, contributes.
type line struct {
	amount            int64
	categoryID        *string
	transferAccountID *string
}

func (t *txn) lines() []line {
	var ls []line
	for _, s := range t.Subs {
		if !s.Deleted {
			ls = append(ls, line{s.Amount, s.CategoryID, s.TransferAccountID})
		}
	}
	if len(ls) == 0 {
		ls = append(ls, line{t.Amount, t.CategoryID, t.TransferAccountID})
	}
	return ls
}

// isSplit reports whether the transaction has live split lines.
func (t *txn) isSplit() bool {
	for _, s := range t.Subs {
		if !s.Deleted {
			return true
		}
	}
	return false
}

func (v *view) derivePayees(p *plan) {
	v.payeeNames = map[string]string{}
	for _, py := range p.Payees {
		v.payees = append(v.payees, *py)
		v.payeeNames[py.ID] = py.Name
	}
	for _, l := range p.PayeeLocations {
		v.locations = append(v.locations, *l)
	}
	v.catNames = map[string]string{}
	for _, c := range p.Categories {
		v.catNames[c.ID] = c.Name
	}
}

func (v *view) deriveCategories(p *plan, f flows) {
	groupNames := map[string]string{}
	for _, g := range p.Groups {
		groupNames[g.ID] = g.Name
		v.groups = append(v.groups, *g)
	}
	var totalAssigned int64
	for _, byCat := range p.Assigned {
		for id, amount := range byCat {
			if c := p.category(id); c != nil && !c.Internal {
				totalAssigned += amount
			}
		}
	}
	v.catIndex = map[string]int{}
	for i, c := range p.Categories {
		v.catIndex[c.ID] = i
	}
	v.monthCats = map[string][]ynab.Category{}
	v.monthSums = map[string]ynab.Month{}
	balance := map[string]int64{}
	var income, overspentBefore, cash int64
	for _, m := range v.months {
		income += f.income[m]
		cash += f.cash[m]
		toBeBudgeted := income - totalAssigned - overspentBefore
		sum := ynab.Month{Month: m, Income: f.income[m], ToBeBudgeted: toBeBudgeted}
		cats := make([]ynab.Category, len(p.Categories))
		for i, c := range p.Categories {
			wc := ynab.Category{ID: c.ID, CategoryGroupID: c.GroupID, CategoryGroupName: groupNames[c.GroupID],
				Name: c.Name, Hidden: c.Hidden, Internal: c.Internal, Note: c.Note, Deleted: c.Deleted}
			switch {
			case c.Deleted:
			case c.Internal:
				wc.Activity, wc.Balance = f.income[m], toBeBudgeted
			default:
				carry := max(balance[c.ID], 0)
				wc.Budgeted, wc.Activity = p.assigned(m, c.ID), f.activity[m][c.ID]
				wc.Balance = carry + wc.Budgeted + wc.Activity
				balance[c.ID] = wc.Balance
				sum.Budgeted += wc.Budgeted
				if c.CardAccountID == "" {
					sum.Activity += wc.Activity
				}
				if wc.Balance < 0 {
					overspentBefore -= wc.Balance
				}
				if c.Goal != nil {
					c.Goal.progress(&wc, m, carry, wc.Budgeted, p.CurrencyFormat.DecimalDigits)
				}
			}
			cats[i] = wc
		}
		sum.AgeOfMoney = ageOfMoney(m, v.today, cash, f.spending[m])
		v.monthCats[m] = cats
		v.monthSums[m] = sum
	}
	v.categories = v.monthCats[v.current]
}

// ageOfMoney is the sandbox's simple stand-in for YNAB's figure: the money on the on-budget
// accounts at the end of the month (or today), divided by the month's average daily spending,
// in whole days. A month without spending, or still to come, has none.
func ageOfMoney(month, today string, cash, spending int64) *int {
	days := int64(daysBetween(month, min(monthEnd(month), today)) + 1)
	if spending <= 0 || days <= 0 {
		return nil
	}
	aom := int(max(cash, 0) * days / spending)
	return &aom
}

// progress fills in the goal fields of a category for one month, given what it carried into
// the month and what was assigned in it.
func (g *goal) progress(c *ynab.Category, month string, carry, budgeted int64, decimalDigits int) {
	c.GoalType, c.GoalTarget = ptr(g.Type), ptr(g.Target)
	c.GoalNeedsWholeAmount, c.GoalDay, c.GoalCadence, c.GoalCadenceFrequency = g.NeedsWholeAmount, g.Day, g.Cadence, g.CadenceFrequency
	c.GoalCreationMonth, c.GoalTargetDate = ptr(g.CreationMonth), g.TargetDate
	target, funded := g.Target, max(carry+budgeted, 0)
	var monthsLeft *int
	switch {
	case g.Type == ynab.GoalTargetBalance:
	case g.TargetDate != nil:
		n := max(monthsBetween(month, monthOf(*g.TargetDate))+1, 1)
		monthsLeft = &n
		need := roundUp(ceilDiv(max(target-carry, 0), int64(n)), decimalDigits)
		under := max(need-budgeted, 0)
		c.GoalMonthsToBudget, c.GoalUnderFunded = monthsLeft, &under
		c.GoalOverallFunded, c.GoalOverallLeft = ptr(funded), ptr(max(target-funded, 0))
		c.GoalPercentageComplete = ptr(percent(funded, target))
		return
	case g.Type == ynab.GoalMonthlyFunding || (g.NeedsWholeAmount != nil && *g.NeedsWholeAmount):
		funded = max(budgeted, 0)
		fallthrough
	default:
		if g.Cadence != nil && *g.Cadence == cadenceWeekly && g.Day != nil {
			target *= int64(weekdaysIn(month, *g.Day))
		}
		one := 1
		monthsLeft = &one
	}
	left := max(target-funded, 0)
	c.GoalMonthsToBudget, c.GoalUnderFunded, c.GoalOverallFunded, c.GoalOverallLeft = monthsLeft, &left, ptr(funded), ptr(left)
	c.GoalPercentageComplete = ptr(percent(funded, target))
}

// YNAB's goal cadences that the API can set (through goal_frequency).
const (
	cadenceNone    = 0
	cadenceMonthly = 1
	cadenceWeekly  = 2
	cadenceYearly  = 13
)

func percent(funded, target int64) int {
	if target <= 0 {
		return 100
	}
	return int(min(funded*100/target, 100))
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// roundUp rounds milliunits up to the currency's smallest unit.
func roundUp(milliunits int64, decimalDigits int) int64 {
	unit := int64(1)
	for range 3 - min(max(decimalDigits, 0), 3) {
		unit *= 10
	}
	return ceilDiv(milliunits, unit) * unit
}

func (v *view) deriveAccounts(p *plan) {
	v.accByID = map[string]int{}
	for i, a := range p.Accounts {
		wa := ynab.Account{ID: a.ID, Name: a.Name, Type: a.Type, OnBudget: a.OnBudget, Closed: a.Closed,
			Note: a.Note, TransferPayeeID: ptr(a.TransferPayeeID), DirectImportLinked: a.DirectImportLinked,
			LastReconciledAt: a.LastReconciledAt, Deleted: a.Deleted}
		for _, t := range p.Transactions {
			if t.Deleted || t.AccountID != a.ID {
				continue
			}
			wa.Balance += t.Amount
			if t.Cleared == ynab.Uncleared {
				wa.UnclearedBalance += t.Amount
			} else {
				wa.ClearedBalance += t.Amount
			}
		}
		v.accounts = append(v.accounts, wa)
		v.accByID[a.ID] = i
	}
}

func (v *view) deriveTransactions(p *plan) {
	byDate := slices.Clone(p.Transactions)
	slices.SortStableFunc(byDate, func(a, b *txn) int { return cmp.Compare(a.Date, b.Date) })
	v.txns = make([]ynab.Transaction, 0, len(byDate))
	for _, t := range byDate {
		v.txns = append(v.txns, v.detail(p, t))
	}
	v.txnByID = map[string]int{}
	for i, t := range v.txns {
		v.txnByID[t.ID] = i
	}
}

// detail is a transaction in its TransactionDetail form.
func (v *view) detail(p *plan, t *txn) ynab.Transaction {
	d := ynab.Transaction{TransactionSummary: t.TransactionSummary, Subtransactions: []ynab.SubTransaction{}}
	if a := p.accountAny(t.AccountID); a != nil {
		d.AccountName = a.Name
	}
	d.PayeeName = v.payeeName(t.PayeeID)
	d.CategoryName = v.categoryName(t.CategoryID)
	if t.isSplit() {
		d.CategoryName = ptr("Split")
	}
	for _, s := range t.Subs {
		s.PayeeName = v.payeeName(s.PayeeID)
		s.CategoryName = v.categoryName(s.CategoryID)
		s.Deleted = s.Deleted || t.Deleted
		d.Subtransactions = append(d.Subtransactions, s)
	}
	return d
}

func (v *view) payeeName(id *string) *string {
	if id == nil {
		return nil
	}
	if name, ok := v.payeeNames[*id]; ok {
		return &name
	}
	return nil
}

func (v *view) categoryName(id *string) *string {
	if id == nil {
		return nil
	}
	if name, ok := v.catNames[*id]; ok {
		return &name
	}
	return nil
}

func (v *view) deriveScheduled(p *plan) {
	for _, st := range p.Scheduled {
		d := *st
		if a := p.accountAny(st.AccountID); a != nil {
			d.AccountName = a.Name
		}
		d.PayeeName = v.payeeName(st.PayeeID)
		d.CategoryName = v.categoryName(st.CategoryID)
		d.Subtransactions = []ynab.ScheduledSubTransaction{}
		for _, s := range st.Subtransactions {
			s.PayeeName, s.CategoryName = v.payeeName(s.PayeeID), v.categoryName(s.CategoryID)
			s.Deleted = s.Deleted || st.Deleted
			d.Subtransactions = append(d.Subtransactions, s)
		}
		if len(st.Subtransactions) > 0 {
			d.CategoryName = ptr("Split")
		}
		v.scheduled = append(v.scheduled, d)
	}
}

// accountAny finds an account by id, deleted or not: names are shown for old entities too.
func (p *plan) accountAny(id string) *account {
	for _, a := range p.Accounts {
		if a.ID == id {
			return a
		}
	}
	return nil
}

// Keys under which plan.Marks records the served entities.
func keyAccount(id string) string          { return "a/" + id }
func keyPayee(id string) string            { return "p/" + id }
func keyPayeeLocation(id string) string    { return "pl/" + id }
func keyGroup(id string) string            { return "g/" + id }
func keyCategory(id string) string         { return "c/" + id }
func keyMonth(m string) string             { return "m/" + m }
func keyMonthCategory(m, id string) string { return "mc/" + m + "/" + id }
func keyTransaction(id string) string      { return "t/" + id }
func keySub(id string) string              { return "s/" + id }
func keyScheduled(id string) string        { return "st/" + id }
func keyScheduledSub(id string) string     { return "ss/" + id }

// each calls fn with every served entity and its key.
func (v *view) each(fn func(key string, entity any)) {
	for _, a := range v.accounts {
		fn(keyAccount(a.ID), a)
	}
	for _, py := range v.payees {
		fn(keyPayee(py.ID), py)
	}
	for _, l := range v.locations {
		fn(keyPayeeLocation(l.ID), l)
	}
	for _, g := range v.groups {
		fn(keyGroup(g.ID), g)
	}
	for _, c := range v.categories {
		fn(keyCategory(c.ID), c)
	}
	for _, m := range v.months {
		fn(keyMonth(m), v.monthSums[m])
		for _, c := range v.monthCats[m] {
			fn(keyMonthCategory(m, c.ID), c)
		}
	}
	for _, t := range v.txns {
		fn(keyTransaction(t.ID), t)
		for _, s := range t.Subtransactions {
			fn(keySub(s.ID), s)
		}
	}
	for _, st := range v.scheduled {
		fn(keyScheduled(st.ID), st)
		for _, s := range st.Subtransactions {
			fn(keyScheduledSub(s.ID), s)
		}
	}
}

// remark records, at the given knowledge, every entity whose served form differs from the one
// last recorded, and reports whether any did.
func (p *plan) remark(v *view, knowledge int64) bool {
	if p.Marks == nil {
		p.Marks = map[string]mark{}
	}
	changed := false
	v.each(func(key string, entity any) {
		h := hashOf(entity)
		if m, ok := p.Marks[key]; !ok || m.Hash != h {
			p.Marks[key] = mark{Hash: h, Knowledge: knowledge}
			changed = true
		}
	})
	return changed
}

// changedSince reports whether the entity under key changed after knowledge n.
func (p *plan) changedSince(key string, n int64) bool { return p.Marks[key].Knowledge > n }

func hashOf(entity any) uint64 {
	h := fnv.New64a()
	if err := json.NewEncoder(h).Encode(entity); err != nil {
		// The served forms hold strings, integers and booleans only: they always encode.
		panic("sandbox: cannot encode a served entity: " + err.Error())
	}
	return h.Sum64()
}

func ptr[T any](v T) *T { return &v }
