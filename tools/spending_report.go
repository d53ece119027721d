package tools

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/tools/ui"
	"github.com/avenir-mcp/avenir/ynab"
)

var spendingReportTool = mcp.Tool{
	Name:        "spending_report",
	Title:       "Spending report",
	Description: "Outflow and inflow per category (or group_by) and month against the period before; exact, no extra request. Default: the last 3 full months and now.",
	Annotations: readOnly,
	Meta:        pictureMeta(ui.SpendingURI),
}

const (
	defaultTop = 20
	maxTop     = 100
	maxMonths  = 60 // months listed in one report: with 100 groups, still well within a result's size
)

var groupings = []string{"category", "category_group", "payee", "month", "account"}

type spendingReportIn struct {
	readArg
	Since    string `json:"since,omitempty" jsonschema:"date or month"`
	Until    string `json:"until,omitempty" jsonschema:"date or month"`
	GroupBy  string `json:"group_by,omitempty" jsonschema:"category, category_group, payee, month or account"`
	Account  string `json:"account,omitempty"`
	Category string `json:"category,omitempty"`
	Payee    string `json:"payee,omitempty"`
	Top      int    `json:"top,omitempty"`
}

// spendingTotals are the figures of a whole period. Outflow and inflow are sizes (never
// negative); net is inflow − outflow, the sum of the counted amounts.
type spendingTotals struct {
	Transactions      int    `json:"transactions" jsonschema:"how many transactions the figures count (a split once)"`
	OutflowMilliunits int64  `json:"outflow_milliunits" jsonschema:"money out, as a positive figure"`
	Outflow           string `json:"outflow"`
	InflowMilliunits  int64  `json:"inflow_milliunits" jsonschema:"money in, income included"`
	Inflow            string `json:"inflow"`
	NetMilliunits     int64  `json:"net_milliunits" jsonschema:"inflow minus outflow: the sum of the counted transactions' amounts"`
	Net               string `json:"net"`
	IncomeMilliunits  int64  `json:"income_milliunits" jsonschema:"inflow to Ready to Assign (part of inflow)"`
	Income            string `json:"income"`
}

type spendingPeriod struct {
	Since string `json:"since"`
	Until string `json:"until"`
	spendingTotals
}

type spendingGroup struct {
	Name string `json:"name" jsonschema:"the category as 'Group: Name', the group, payee, account, or month (YYYY-MM); Uncategorized for none"`
	ID   string `json:"id,omitempty" jsonschema:"the category, group, payee or account id"`
	spendingGroupFigures
}

type spendingOther struct {
	Groups int `json:"groups" jsonschema:"how many smaller groups are summed here"`
	spendingGroupFigures
}

// spendingGroupFigures are a group's figures, and the change against the period before.
type spendingGroupFigures struct {
	Transactions            int    `json:"transactions" jsonschema:"how many transactions count here (a split in each group its lines are in)"`
	OutflowMilliunits       int64  `json:"outflow_milliunits" jsonschema:"money out, as a positive figure"`
	Outflow                 string `json:"outflow"`
	InflowMilliunits        int64  `json:"inflow_milliunits"`
	Inflow                  string `json:"inflow"`
	OutflowChangeMilliunits int64  `json:"outflow_change_milliunits" jsonschema:"outflow minus the previous period's (for a month: the month before's); positive means more money out"`
	OutflowChange           string `json:"outflow_change"`
	InflowChangeMilliunits  int64  `json:"inflow_change_milliunits" jsonschema:"inflow minus the previous period's (for a month: the month before's)"`
	InflowChange            string `json:"inflow_change"`
}

type spendingMonth struct {
	Month             string `json:"month" jsonschema:"YYYY-MM"`
	Transactions      int    `json:"transactions"`
	OutflowMilliunits int64  `json:"outflow_milliunits"`
	Outflow           string `json:"outflow"`
	InflowMilliunits  int64  `json:"inflow_milliunits"`
	Inflow            string `json:"inflow"`
}

type spendingReportOut struct {
	readResult
	Since   string `json:"since"`
	Until   string `json:"until"`
	GroupBy string `json:"group_by"`
	spendingTotals
	Previous spendingPeriod  `json:"previous" jsonschema:"the period of the same length just before: the same number of months when the period is whole months, else of days"`
	Groups   []spendingGroup `json:"groups" jsonschema:"largest outflow first (months in order); with other they add up to the totals"`
	Other    *spendingOther  `json:"other,omitempty" jsonschema:"the groups beyond top, summed"`
	Months   []spendingMonth `json:"months,omitempty" jsonschema:"the totals per month, from the first month of the period with a transaction to the last (absent when grouping by month)"`
}

// tally sums flows: outflow and inflow as sizes, and the transactions they came from.
type tally struct {
	out, in, income int64
	txs             map[string]struct{}
}

func (t *tally) add(p *ynab.Plan, f flow) {
	if t.txs == nil {
		t.txs = map[string]struct{}{}
	}
	if f.amount < 0 {
		t.out -= f.amount
	} else {
		t.in += f.amount
		if f.category != "" && isReadyToAssign(p, f.category) {
			t.income += f.amount
		}
	}
	t.txs[f.tx.ID] = struct{}{}
}

// spendingQuery is a spending_report call with every argument resolved.
type spendingQuery struct {
	since, until         string
	prevSince, prevUntil string
	groupBy              string
	account, category    string
	payee                string
	top                  int
}

func (h *handlers) spendingReport(ctx context.Context, _ *mcp.CallToolRequest, in spendingReportIn) (*mcp.CallToolResult, spendingReportOut, error) {
	q, err := h.spendingQuery(in)
	if err != nil {
		return nil, spendingReportOut{}, err
	}
	p, res, err := h.analysisPlan(ctx, in.readArg)
	if err != nil {
		return nil, spendingReportOut{}, err
	}
	if err := q.resolve(p, in); err != nil {
		return nil, spendingReportOut{}, err
	}
	monthBefore := addMonthsTo(q.since[:8]+"01", -1)[:7]
	var cur, prev, before []flow
	for _, f := range budgetFlows(p) {
		if !q.match(f) {
			continue
		}
		switch {
		case f.date >= q.since && f.date <= q.until:
			cur = append(cur, f)
		case f.date >= q.prevSince && f.date <= q.prevUntil:
			prev = append(prev, f)
		}
		if f.date[:7] == monthBefore {
			before = append(before, f)
		}
	}
	out := spendingReportOut{readResult: res, Since: q.since, Until: q.until, GroupBy: q.groupBy,
		Previous: spendingPeriod{Since: q.prevSince, Until: q.prevUntil}, Groups: []spendingGroup{}}
	var total, prevTotal tally
	for _, f := range cur {
		total.add(p, f)
	}
	for _, f := range prev {
		prevTotal.add(p, f)
	}
	cf := currency(p)
	out.spendingTotals = totalsOf(total, cf)
	out.Previous.spendingTotals = totalsOf(prevTotal, cf)

	months, err := monthTallies(p, cur)
	if err != nil {
		return nil, spendingReportOut{}, err
	}
	if q.groupBy == "month" {
		out.Groups = monthGroups(p, months, before)
		return nil, out, nil
	}
	for _, m := range months {
		out.Months = append(out.Months, spendingMonth{Month: m.month[:7], Transactions: len(m.t.txs),
			OutflowMilliunits: m.t.out, Outflow: FormatCurrency(m.t.out, cf),
			InflowMilliunits: m.t.in, Inflow: FormatCurrency(m.t.in, cf)})
	}
	out.Groups, out.Other = groupTallies(p, cur, prev, q)
	return nil, out, nil
}

// spendingQuery checks the arguments that need no plan, before any YNAB request.
func (h *handlers) spendingQuery(in spendingReportIn) (spendingQuery, error) {
	now := h.Now().UTC()
	q := spendingQuery{groupBy: strings.ToLower(strings.TrimSpace(in.GroupBy)), top: in.Top}
	if q.groupBy == "" {
		q.groupBy = "category"
	}
	if !slices.Contains(groupings, q.groupBy) {
		return q, fmt.Errorf("group_by: %s is not one of %s", quoted(in.GroupBy), strings.Join(groupings, ", "))
	}
	if q.top == 0 {
		q.top = defaultTop
	}
	if q.top < 1 || q.top > maxTop {
		return q, fmt.Errorf("top: %d is out of range; give 1 to %d (default %d)", in.Top, maxTop, defaultTop)
	}
	var err error
	q.until = now.Format(time.DateOnly)
	if in.Until != "" {
		if q.until, err = parseBound("until", in.Until, now, true); err != nil {
			return q, err
		}
	}
	q.since = firstOfMonth(isoDay(q.until).Year(), isoDay(q.until).Month()-3)
	if in.Since != "" {
		if q.since, err = parseBound("since", in.Since, now, false); err != nil {
			return q, err
		}
	}
	if q.since > q.until {
		return q, fmt.Errorf("since (%s) is after until (%s): give a since on or before until", q.since, q.until)
	}
	q.prevSince, q.prevUntil = previousPeriod(q.since, q.until)
	return q, nil
}

// resolve finds the account, category and payee the report is narrowed to.
func (q *spendingQuery) resolve(p *ynab.Plan, in spendingReportIn) error {
	if in.Account != "" {
		c, err := resolve("account", "account", in.Account, accountCandidates(p, true))
		if err != nil {
			return err
		}
		if a, _ := p.Account(c.id); !a.OnBudget {
			return fmt.Errorf("account: %s is a tracking account; the report counts the money of budget accounts only", a.Name)
		}
		q.account = c.id
	}
	if in.Category != "" {
		c, err := resolve("category", "category", in.Category, categoryCandidates(p))
		if err != nil {
			return err
		}
		q.category = c.id
	}
	if in.Payee != "" {
		c, err := resolve("payee", "payee", in.Payee, payeeCandidates(p))
		if err != nil {
			return err
		}
		q.payee = c.id
	}
	return nil
}

func (q spendingQuery) match(f flow) bool {
	return (q.account == "" || f.account == q.account) && (q.category == "" || f.category == q.category) &&
		(q.payee == "" || f.payee == q.payee)
}

// previousPeriod is the period of the same length just before since..until: the same number of
// calendar months when both ends are whole months (March is compared with February, not with
// the 31 days before it), else the same number of days.
func previousPeriod(since, until string) (string, string) {
	s, u := isoDay(since), isoDay(until)
	before := s.AddDate(0, 0, -1).Format(time.DateOnly)
	if s.Day() == 1 && until == lastDayOf(until) {
		months := (u.Year()-s.Year())*12 + int(u.Month()-s.Month()) + 1
		return s.AddDate(0, -months, 0).Format(time.DateOnly), before
	}
	n := daysApart(since, until) + 1
	return s.AddDate(0, 0, -n).Format(time.DateOnly), before
}

func totalsOf(t tally, cf *ynab.CurrencyFormat) spendingTotals {
	net := t.in - t.out
	return spendingTotals{Transactions: len(t.txs),
		OutflowMilliunits: t.out, Outflow: FormatCurrency(t.out, cf),
		InflowMilliunits: t.in, Inflow: FormatCurrency(t.in, cf),
		NetMilliunits: net, Net: FormatCurrency(net, cf),
		IncomeMilliunits: t.income, Income: FormatCurrency(t.income, cf)}
}

type monthTally struct {
	month string // YYYY-MM-01
	t     tally
}

// monthTallies sums the flows per calendar month, listing every month from the first with a
// flow to the last (an empty month in between shows as zero).
func monthTallies(p *ynab.Plan, flows []flow) ([]monthTally, error) {
	if len(flows) == 0 {
		return nil, nil
	}
	first, last := flows[0].date[:7], flows[0].date[:7]
	for _, f := range flows {
		first, last = min(first, f.date[:7]), max(last, f.date[:7])
	}
	var out []monthTally
	index := map[string]int{}
	for m := first + "-01"; m[:7] <= last; m = addMonthsTo(m, 1) {
		if len(out) == maxMonths {
			return nil, fmt.Errorf("since: the period holds transactions over more than %d months (%s to %s); give a shorter period", maxMonths, first, last)
		}
		index[m[:7]] = len(out)
		out = append(out, monthTally{month: m, t: tally{txs: map[string]struct{}{}}})
	}
	for _, f := range flows {
		out[index[f.date[:7]]].t.add(p, f)
	}
	return out, nil
}

// monthGroups shows the months as the report's groups, each against the calendar month before
// it (the first against the flows of the month before the period).
func monthGroups(p *ynab.Plan, months []monthTally, beforeFlows []flow) []spendingGroup {
	cf := currency(p)
	out := []spendingGroup{}
	var before tally
	for _, f := range beforeFlows {
		before.add(p, f)
	}
	for _, m := range months {
		out = append(out, spendingGroup{Name: m.month[:7], spendingGroupFigures: figures(m.t, before, cf)})
		before = m.t
	}
	return out
}

func figures(now, before tally, cf *ynab.CurrencyFormat) spendingGroupFigures {
	return spendingGroupFigures{Transactions: len(now.txs),
		OutflowMilliunits: now.out, Outflow: FormatCurrency(now.out, cf),
		InflowMilliunits: now.in, Inflow: FormatCurrency(now.in, cf),
		OutflowChangeMilliunits: now.out - before.out, OutflowChange: FormatCurrency(now.out-before.out, cf),
		InflowChangeMilliunits: now.in - before.in, InflowChange: FormatCurrency(now.in-before.in, cf)}
}

// groupKey is what a flow is grouped by, and how the group is named.
func groupKey(p *ynab.Plan, f flow, by string) (id, name string) {
	switch by {
	case "category_group":
		if f.category == "" {
			return "", "Uncategorized"
		}
		if isReadyToAssign(p, f.category) {
			return f.category, readyToAssign
		}
		c, ok := p.Category(f.category)
		if !ok {
			return f.category, "Unknown category"
		}
		return c.CategoryGroupID, groupName(p, c.CategoryGroupID)
	case "payee":
		if f.payee == "" {
			return "", "(no payee)"
		}
		return f.payee, payeeName(p, &f.payee)
	case "account":
		return f.account, accountName(p, f.account)
	default:
		if f.category == "" {
			return "", "Uncategorized"
		}
		if isReadyToAssign(p, f.category) {
			return f.category, readyToAssign
		}
		return f.category, categoryLabel(p, f.category)
	}
}

// groupTallies sums the period's and the previous period's flows per group, lists the top
// groups by outflow and sums the rest in other, so that groups and other add up to the totals.
func groupTallies(p *ynab.Plan, cur, prev []flow, q spendingQuery) ([]spendingGroup, *spendingOther) {
	type group struct {
		id, name  string
		now, then tally
	}
	groups := map[string]*group{}
	get := func(f flow) *group {
		id, name := groupKey(p, f, q.groupBy)
		g := groups[id]
		if g == nil {
			g = &group{id: id, name: name}
			groups[id] = g
		}
		return g
	}
	for _, f := range cur {
		get(f).now.add(p, f)
	}
	for _, f := range prev {
		get(f).then.add(p, f)
	}
	list := make([]*group, 0, len(groups))
	for _, g := range groups {
		list = append(list, g)
	}
	slices.SortFunc(list, func(a, b *group) int {
		return cmp.Or(cmp.Compare(b.now.out, a.now.out), cmp.Compare(b.now.in, a.now.in),
			cmp.Compare(b.then.out, a.then.out), strings.Compare(a.name, b.name), strings.Compare(a.id, b.id))
	})
	cf := currency(p)
	out := []spendingGroup{}
	for _, g := range list[:min(q.top, len(list))] {
		out = append(out, spendingGroup{Name: g.name, ID: g.id, spendingGroupFigures: figures(g.now, g.then, cf)})
	}
	if len(list) <= q.top {
		return out, nil
	}
	var now, then tally
	for _, g := range list[q.top:] {
		for id := range g.now.txs {
			if now.txs == nil {
				now.txs = map[string]struct{}{}
			}
			now.txs[id] = struct{}{}
		}
		now.out, now.in = now.out+g.now.out, now.in+g.now.in
		then.out, then.in = then.out+g.then.out, then.in+g.then.in
	}
	return out, &spendingOther{Groups: len(list) - q.top, spendingGroupFigures: figures(now, then, cf)}
}
