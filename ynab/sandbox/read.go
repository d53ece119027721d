package sandbox

import (
	"net/http"
	"strconv"

	"github.com/avenir-mcp/avenir/ynab"
)

// A full read serves the live entities; a delta read (last_knowledge_of_server=N) serves the
// entities whose served form changed after N, deleted ones included.

// wanted reports whether an entity belongs in a read: since < 0 is a full read.
func (p *plan) wanted(key string, deleted bool, since int64) bool {
	if since < 0 {
		return !deleted
	}
	return p.changedSince(key, since)
}

func getUser(c *call) (int, any, error) {
	return http.StatusOK, map[string]any{"user": ynab.User{ID: c.w.UserID}}, nil
}

func getPlans(c *call) (int, any, error) {
	withAccounts := false
	if q := c.r.URL.Query().Get("include_accounts"); q != "" {
		var err error
		if withAccounts, err = strconv.ParseBool(q); err != nil {
			return 0, nil, badRequest("include_accounts must be true or false, not %q.", q)
		}
	}
	plans := []ynab.PlanSummary{}
	var last *ynab.PlanSummary
	for _, p := range c.w.Plans {
		v := c.s.view(p)
		sum := summary(p, v)
		if withAccounts {
			f := formatter{p.CurrencyFormat}
			sum.Accounts = []ynab.Account{}
			for _, a := range v.accounts {
				if !a.Deleted {
					sum.Accounts = append(sum.Accounts, f.account(a))
				}
			}
		}
		plans = append(plans, sum)
		if p.ID == c.w.LastUsed {
			last = &plans[len(plans)-1]
		}
	}
	return http.StatusOK, map[string]any{"plans": plans, "default_plan": last}, nil
}

func summary(p *plan, v *view) ynab.PlanSummary {
	return ynab.PlanSummary{ID: p.ID, Name: p.Name, LastModifiedOn: p.LastModifiedOn,
		FirstMonth: v.months[0], LastMonth: v.months[len(v.months)-1],
		DateFormat: ptr(p.DateFormat), CurrencyFormat: ptr(p.CurrencyFormat)}
}

func getPlan(c *call) (int, any, error) {
	since, err := c.knowledge()
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"plan": export(c.p, c.v, since), "server_knowledge": c.p.Knowledge}, nil
}

// export is the plan export, in full (since < 0) or the changes after since. Its entities are
// YNAB's *Base models: no formatted amounts, no names where the export has none.
func export(p *plan, v *view, since int64) ynab.PlanDetail {
	d := ynab.PlanDetail{ID: p.ID, Name: p.Name, LastModifiedOn: p.LastModifiedOn,
		FirstMonth: v.months[0], LastMonth: v.months[len(v.months)-1],
		DateFormat: ptr(p.DateFormat), CurrencyFormat: ptr(p.CurrencyFormat),
		Accounts: []ynab.Account{}, Payees: []ynab.Payee{}, PayeeLocations: []ynab.PayeeLocation{},
		CategoryGroups: []ynab.CategoryGroup{}, Categories: []ynab.Category{}, Months: []ynab.Month{},
		Transactions: []ynab.TransactionSummary{}, Subtransactions: []ynab.SubTransaction{},
		ScheduledTransactions: []ynab.ScheduledTransaction{}, ScheduledSubtransactions: []ynab.ScheduledSubTransaction{}}
	for _, a := range v.accounts {
		if p.wanted(keyAccount(a.ID), a.Deleted, since) {
			d.Accounts = append(d.Accounts, a)
		}
	}
	for _, py := range v.payees {
		if p.wanted(keyPayee(py.ID), py.Deleted, since) {
			d.Payees = append(d.Payees, py)
		}
	}
	for _, l := range v.locations {
		if p.wanted(keyPayeeLocation(l.ID), l.Deleted, since) {
			d.PayeeLocations = append(d.PayeeLocations, l)
		}
	}
	for _, g := range v.groups {
		if p.wanted(keyGroup(g.ID), g.Deleted, since) {
			d.CategoryGroups = append(d.CategoryGroups, g)
		}
	}
	for _, cat := range v.categories {
		if p.wanted(keyCategory(cat.ID), cat.Deleted, since) {
			d.Categories = append(d.Categories, cat)
		}
	}
	for _, m := range v.months {
		sum := v.monthSums[m]
		for _, cat := range v.monthCats[m] {
			if p.wanted(keyMonthCategory(m, cat.ID), cat.Deleted, since) {
				sum.Categories = append(sum.Categories, cat)
			}
		}
		if since < 0 || p.changedSince(keyMonth(m), since) || len(sum.Categories) > 0 {
			if sum.Categories == nil {
				sum.Categories = []ynab.Category{}
			}
			d.Months = append(d.Months, sum)
		}
	}
	for _, t := range v.txns {
		if p.wanted(keyTransaction(t.ID), t.Deleted, since) {
			d.Transactions = append(d.Transactions, t.TransactionSummary)
		}
		for _, s := range t.Subtransactions {
			if p.wanted(keySub(s.ID), s.Deleted, since) {
				d.Subtransactions = append(d.Subtransactions, s)
			}
		}
	}
	for _, st := range v.scheduled {
		for _, s := range st.Subtransactions {
			if p.wanted(keyScheduledSub(s.ID), s.Deleted, since) {
				d.ScheduledSubtransactions = append(d.ScheduledSubtransactions, s)
			}
		}
		if p.wanted(keyScheduled(st.ID), st.Deleted, since) {
			st.AccountName, st.PayeeName, st.CategoryName, st.Subtransactions = "", nil, nil, nil
			d.ScheduledTransactions = append(d.ScheduledTransactions, st)
		}
	}
	return d
}

func getSettings(c *call) (int, any, error) {
	return http.StatusOK, map[string]any{"settings": ynab.PlanSettings{
		DateFormat: ptr(c.p.DateFormat), CurrencyFormat: ptr(c.p.CurrencyFormat)}}, nil
}

func getAccounts(c *call) (int, any, error) {
	since, err := c.knowledge()
	if err != nil {
		return 0, nil, err
	}
	accounts := []ynab.Account{}
	for _, a := range c.v.accounts {
		if c.p.wanted(keyAccount(a.ID), a.Deleted, since) {
			accounts = append(accounts, c.f.account(a))
		}
	}
	return http.StatusOK, map[string]any{"accounts": accounts, "server_knowledge": c.p.Knowledge}, nil
}

// liveAccount resolves the {account_id} path parameter.
func (c *call) liveAccount() (ynab.Account, error) {
	id := c.params["account_id"]
	if i, ok := c.v.accByID[id]; ok && !c.v.accounts[i].Deleted {
		return c.v.accounts[i], nil
	}
	return ynab.Account{}, notFound("account", id)
}

func getAccount(c *call) (int, any, error) {
	a, err := c.liveAccount()
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"account": c.f.account(a)}, nil
}

func getCategories(c *call) (int, any, error) {
	since, err := c.knowledge()
	if err != nil {
		return 0, nil, err
	}
	groups := []ynab.CategoryGroup{}
	for _, g := range c.v.groups {
		g.Categories = []ynab.Category{}
		for _, cat := range c.v.categories {
			if cat.CategoryGroupID == g.ID && c.p.wanted(keyCategory(cat.ID), cat.Deleted, since) {
				g.Categories = append(g.Categories, c.f.category(cat))
			}
		}
		if c.p.wanted(keyGroup(g.ID), g.Deleted, since) || (since >= 0 && len(g.Categories) > 0) {
			groups = append(groups, g)
		}
	}
	return http.StatusOK, map[string]any{"category_groups": groups, "server_knowledge": c.p.Knowledge}, nil
}

// monthView returns a view that holds the month: the call's own, or (for a future month the
// plan does not serve yet) one computed through that month.
func (c *call) monthView(month string) *view {
	if _, ok := c.v.monthSums[month]; ok {
		return c.v
	}
	ahead := *c.p
	ahead.LastMonth = month
	return ahead.derive(c.v.today)
}

// liveCategory resolves the {category_id} path parameter in a month's categories.
func (c *call) liveCategory(v *view, month string) (ynab.Category, error) {
	id := c.params["category_id"]
	if i, ok := v.catIndex[id]; ok && !v.monthCats[month][i].Deleted {
		return v.monthCats[month][i], nil
	}
	return ynab.Category{}, notFound("category", id)
}

func getCategory(c *call) (int, any, error) {
	cat, err := c.liveCategory(c.v, c.v.current)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"category": c.f.category(cat)}, nil
}

func getMonthCategory(c *call) (int, any, error) {
	month, err := c.month()
	if err != nil {
		return 0, nil, err
	}
	cat, err := c.liveCategory(c.monthView(month), month)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"category": c.f.category(cat)}, nil
}

func getMonths(c *call) (int, any, error) {
	since, err := c.knowledge()
	if err != nil {
		return 0, nil, err
	}
	months := []ynab.Month{}
	for _, m := range c.v.months {
		sum := c.v.monthSums[m]
		if c.p.wanted(keyMonth(m), sum.Deleted, since) {
			months = append(months, c.f.month(sum))
		}
	}
	return http.StatusOK, map[string]any{"months": months, "server_knowledge": c.p.Knowledge}, nil
}

func getMonth(c *call) (int, any, error) {
	month, err := c.month()
	if err != nil {
		return 0, nil, err
	}
	v := c.monthView(month)
	detail := v.monthSums[month]
	detail.Categories = []ynab.Category{}
	for _, cat := range v.monthCats[month] {
		if !cat.Deleted {
			detail.Categories = append(detail.Categories, cat)
		}
	}
	return http.StatusOK, map[string]any{"month": c.f.month(detail)}, nil
}

func getPayees(c *call) (int, any, error) {
	since, err := c.knowledge()
	if err != nil {
		return 0, nil, err
	}
	payees := []ynab.Payee{}
	for _, py := range c.v.payees {
		if c.p.wanted(keyPayee(py.ID), py.Deleted, since) {
			payees = append(payees, py)
		}
	}
	return http.StatusOK, map[string]any{"payees": payees, "server_knowledge": c.p.Knowledge}, nil
}

func getPayee(c *call) (int, any, error) {
	id := c.params["payee_id"]
	py := c.p.payee(id)
	if py == nil {
		return 0, nil, notFound("payee", id)
	}
	return http.StatusOK, map[string]any{"payee": *py}, nil
}

func getPayeeLocations(c *call) (int, any, error) {
	return c.payeeLocations(func(ynab.PayeeLocation) bool { return true })
}

func getPayeeLocationsByPayee(c *call) (int, any, error) {
	id := c.params["payee_id"]
	if c.p.payee(id) == nil {
		return 0, nil, notFound("payee", id)
	}
	return c.payeeLocations(func(l ynab.PayeeLocation) bool { return l.PayeeID == id })
}

// payeeLocations answers the live payee locations that keep selects (these lists have no
// delta requests).
func (c *call) payeeLocations(keep func(ynab.PayeeLocation) bool) (int, any, error) {
	list := []ynab.PayeeLocation{}
	for _, l := range c.v.locations {
		if !l.Deleted && keep(l) {
			list = append(list, l)
		}
	}
	return http.StatusOK, map[string]any{"payee_locations": list}, nil
}

func getPayeeLocation(c *call) (int, any, error) {
	id := c.params["payee_location_id"]
	for _, l := range c.v.locations {
		if l.ID == id && !l.Deleted {
			return http.StatusOK, map[string]any{"payee_location": l}, nil
		}
	}
	return 0, nil, notFound("payee location", id)
}

func getScheduledTransactions(c *call) (int, any, error) {
	since, err := c.knowledge()
	if err != nil {
		return 0, nil, err
	}
	list := []scheduledDetail{}
	for _, st := range c.v.scheduled {
		if c.p.wanted(keyScheduled(st.ID), st.Deleted, since) {
			list = append(list, c.f.scheduled(st))
		}
	}
	return http.StatusOK, map[string]any{"scheduled_transactions": list, "server_knowledge": c.p.Knowledge}, nil
}

func getScheduledTransaction(c *call) (int, any, error) {
	id := c.params["scheduled_transaction_id"]
	for _, st := range c.v.scheduled {
		if st.ID == id && !st.Deleted {
			return http.StatusOK, map[string]any{"scheduled_transaction": c.f.scheduled(st)}, nil
		}
	}
	return 0, nil, notFound("scheduled transaction", id)
}
