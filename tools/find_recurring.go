package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/ynab"
)

var findRecurringTool = mcp.Tool{
	Name:        "find_recurring",
	Title:       "Find recurring payments",
	Description: "Payees paid on a rhythm: typical amount, next date, category, whether scheduled. No extra request.",
	Annotations: readOnly,
}

// rhythm is a frequency a payment may follow, named as YNAB names scheduled frequencies.
type rhythm struct {
	name    string
	days    int // a fixed number of days, or
	months  int // a number of calendar months (the same day of the month, or the month's last)
	slack   int // days a payment may lie off its expected date, besides a weekend's shift
	min     int // payments needed to call it a rhythm
	perYear int
}

var rhythms = []rhythm{
	{name: "weekly", days: 7, slack: 1, min: 4, perYear: 52},
	{name: "everyOtherWeek", days: 14, slack: 1, min: 3, perYear: 26},
	{name: "every4Weeks", days: 28, slack: 1, min: 3, perYear: 13},
	{name: "monthly", months: 1, slack: 2, min: 3, perYear: 12},
	{name: "everyOtherMonth", months: 2, slack: 2, min: 3, perYear: 6},
	{name: "every3Months", months: 3, slack: 2, min: 3, perYear: 4},
	{name: "twiceAYear", months: 6, slack: 3, min: 2, perYear: 2},
	{name: "yearly", months: 12, slack: 5, min: 2, perYear: 1},
}

// onTime reports whether a payment on date keeps an expected date: within the rhythm's slack of
// it, or further when a weekend lies between them (a debit due on a Saturday is taken on the
// Friday before or the Monday after, and a day's slack on top covers a bank holiday). Its cost
// says how well: 0 on the day, 1 moved from a weekend to the Monday after (what debits do), 2 to
// the Friday before (what salaries do), more for a shift no weekend explains.
func onTime(r rhythm, expectedDate, date string) (cost int, ok bool) {
	dev := daysApart(expectedDate, date)
	e := isoDay(expectedDate)
	after, before := 0, 0
	for d := e; isWeekend(d); d = d.AddDate(0, 0, 1) {
		after++
	}
	for d := e; isWeekend(d); d = d.AddDate(0, 0, -1) {
		before++
	}
	switch {
	case dev < -r.slack-before || dev > r.slack+after:
		return 0, false
	case dev == 0:
		return 0, true
	case after > 0 && dev == after:
		return 1, true
	case before > 0 && dev == -before:
		return 2, true
	}
	return 3 + absInt(dev), true
}

func isWeekend(d time.Time) bool { return d.Weekday() == time.Saturday || d.Weekday() == time.Sunday }

const (
	recurringBudget = 40000 // bytes of rows in one result
	maxAnchors      = 16    // the latest payments tried as anchors: a rhythm that holds is kept by them
	amountLink      = 1.3   // amounts within this ratio of each other may be one payment drifting
	twoPointDrift   = 0.05  // a rhythm seen only twice must keep its amount within 5%
)

type findRecurringIn struct {
	readArg
	Since string `json:"since,omitempty" jsonschema:"default a year ago"`
}

type recurringView struct {
	Payee                string `json:"payee"`
	PayeeID              string `json:"payee_id"`
	Rhythm               string `json:"rhythm" jsonschema:"as YNAB names frequencies: weekly, everyOtherWeek, every4Weeks, monthly, everyOtherMonth, every3Months, twiceAYear or yearly"`
	Occurrences          int    `json:"occurrences" jsonschema:"how many payments keep the rhythm"`
	TypicalMilliunits    int64  `json:"typical_milliunits" jsonschema:"the median amount; negative for an outflow"`
	Typical              string `json:"typical"`
	SmallestMilliunits   int64  `json:"smallest_milliunits" jsonschema:"the smallest amount in size"`
	Smallest             string `json:"smallest"`
	LargestMilliunits    int64  `json:"largest_milliunits" jsonschema:"the largest amount in size"`
	Largest              string `json:"largest"`
	LastAmountMilliunits int64  `json:"last_amount_milliunits"`
	LastAmount           string `json:"last_amount"`
	LastDate             string `json:"last_date"`
	NextDate             string `json:"next_date" jsonschema:"when the next one is expected"`
	Missed               bool   `json:"missed" jsonschema:"the expected date has passed without a payment: it may have stopped"`
	Category             string `json:"category,omitempty" jsonschema:"the category most of them had ('Split' for splits); empty when uncategorized"`
	CategoryID           string `json:"category_id,omitempty"`
	Account              string `json:"account"`
	AccountID            string `json:"account_id"`
	Scheduled            bool   `json:"scheduled" jsonschema:"a scheduled transaction to this payee of about this amount exists"`
	ScheduledID          string `json:"scheduled_transaction_id,omitempty"`
}

type findRecurringOut struct {
	readResult
	Since     string          `json:"since"`
	Recurring []recurringView `json:"recurring" jsonschema:"largest yearly amount first"`
	More      int             `json:"more,omitempty" jsonschema:"how many more were found but left out to keep the result small (the smallest)"`
}

// occurrence is one payment of a payee.
type occurrence struct {
	t    *ynab.TransactionSummary
	date string
}

func (h *handlers) findRecurring(ctx context.Context, _ *mcp.CallToolRequest, in findRecurringIn) (*mcp.CallToolResult, findRecurringOut, error) {
	now := h.Now().UTC()
	today := now.Format(time.DateOnly)
	since := now.AddDate(-1, 0, 0).Format(time.DateOnly)
	if in.Since != "" {
		var err error
		if since, err = parseBound("since", in.Since, now, false); err != nil {
			return nil, findRecurringOut{}, err
		}
	}
	p, res, err := h.analysisPlan(ctx, in.readArg)
	if err != nil {
		return nil, findRecurringOut{}, err
	}
	// A payee's outflows and inflows are apart: a refund is not a rhythm of the bill.
	type key struct {
		payee  string
		inflow bool
	}
	byPayee := map[key][]occurrence{}
	for _, t := range p.TransactionsByDate() {
		if t.Date < since || t.Date > today || t.PayeeID == nil || t.Amount == 0 || !countsInBudget(p, t) {
			continue
		}
		k := key{*t.PayeeID, t.Amount > 0}
		byPayee[k] = append(byPayee[k], occurrence{t: t, date: t.Date})
	}
	var found []recurringView
	for k, occ := range byPayee {
		slices.Reverse(occ) // oldest first
		for _, cluster := range amountClusters(occ) {
			fit, ok := bestFit(cluster)
			if !ok {
				continue
			}
			found = append(found, describe(p, k.payee, fit, today))
		}
	}
	slices.SortFunc(found, func(a, b recurringView) int {
		return cmp.Or(cmp.Compare(yearly(b), yearly(a)), strings.Compare(a.Payee, b.Payee), strings.Compare(a.PayeeID, b.PayeeID),
			strings.Compare(a.Rhythm, b.Rhythm), cmp.Compare(a.TypicalMilliunits, b.TypicalMilliunits))
	})
	out := findRecurringOut{readResult: res, Since: since, Recurring: []recurringView{}}
	size := 0
	for _, v := range found {
		b, _ := json.Marshal(v)
		if size += len(b); size > recurringBudget {
			out.More++
			continue
		}
		out.Recurring = append(out.Recurring, v)
	}
	return nil, out, nil
}

func yearly(v recurringView) int64 {
	for _, r := range rhythms {
		if r.name == v.Rhythm {
			return abs(v.TypicalMilliunits) * int64(r.perYear)
		}
	}
	return 0
}

// amountClusters splits a payee's payments by size: amounts that chain within amountLink of each
// other are one payment drifting (a price rise), a much larger or smaller one is another (a
// yearly fee beside a monthly one). Each cluster is oldest first.
func amountClusters(occ []occurrence) [][]occurrence {
	bySize := slices.Clone(occ)
	slices.SortStableFunc(bySize, func(a, b occurrence) int { return cmp.Compare(abs(a.t.Amount), abs(b.t.Amount)) })
	var out [][]occurrence
	start := 0
	for i := 1; i <= len(bySize); i++ {
		if i == len(bySize) || float64(abs(bySize[i].t.Amount)) > float64(abs(bySize[i-1].t.Amount))*amountLink {
			c := slices.Clone(bySize[start:i])
			slices.SortStableFunc(c, func(a, b occurrence) int { return strings.Compare(a.date, b.date) })
			out = append(out, c)
			start = i
		}
	}
	return out
}

// rhythmFit is a rhythm found in a cluster of payments: the ones that keep it, and the anchor their
// expected dates are counted from.
type rhythmFit struct {
	r      rhythm
	anchor string
	kept   []occurrence // oldest first
	firstK int
	lastK  int
	cost   int // the sum of the kept payments' onTime costs
}

// bestFit finds the rhythm a cluster keeps best, if any. Each of the latest payments in turn is
// tried as the anchor the expected dates are counted from; a payment keeps the rhythm when it is
// onTime for its expected date. A rhythm holds when at least its minimum of payments keep it,
// they are at least three quarters of the cluster (a one-off at the same payee does not spoil
// it), and at most one in four of the expected dates between the first and the last went
// without a payment. Of the rhythms that hold, the one most payments keep wins, then the one
// they keep most exactly.
func bestFit(cluster []occurrence) (rhythmFit, bool) {
	var best rhythmFit
	found := false
	spanDays := daysApart(cluster[0].date, cluster[len(cluster)-1].date)
	for _, r := range rhythms {
		period := r.days
		if period == 0 {
			period = 28 * r.months // the shortest the months can be
		}
		// More payments than the rhythm has dates in the span cannot be three quarters its.
		if len(cluster) < r.min || 4*(spanDays/period+2) < 3*len(cluster) {
			continue
		}
		for _, a := range cluster[max(0, len(cluster)-maxAnchors):] {
			f := tryFit(r, a.date, cluster)
			n := len(f.kept)
			if n < r.min || 4*n < 3*len(cluster) {
				continue
			}
			if missing := f.lastK - f.firstK + 1 - n; missing > n/4 {
				continue
			}
			if n < 3 && !steadyAmount(f.kept) {
				continue
			}
			if !found || n > len(best.kept) || n == len(best.kept) && f.cost < best.cost {
				best, found = f, true
			}
		}
	}
	return best, found
}

func tryFit(r rhythm, anchor string, cluster []occurrence) rhythmFit {
	type slot struct {
		o    occurrence
		cost int
	}
	slots := map[int]slot{}
	for _, o := range cluster {
		k := kOf(r, anchor, o.date)
		cost, ok := onTime(r, expected(r, anchor, k), o.date)
		if !ok {
			continue
		}
		if s, ok := slots[k]; !ok || cost < s.cost {
			slots[k] = slot{o, cost}
		}
	}
	f := rhythmFit{r: r, anchor: anchor}
	ks := make([]int, 0, len(slots))
	for k := range slots {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	if len(ks) > 0 {
		f.firstK = ks[0]
	}
	for _, k := range ks {
		f.kept = append(f.kept, slots[k].o)
		f.cost += slots[k].cost
		f.lastK = k
	}
	return f
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// kOf is the number of the expected date (counted from the anchor, 0) nearest to date.
func kOf(r rhythm, anchor, date string) int {
	if r.days > 0 {
		return int(math.Round(float64(daysApart(anchor, date)) / float64(r.days)))
	}
	a, d := isoDay(anchor), isoDay(date)
	months := (d.Year()-a.Year())*12 + int(d.Month()-a.Month())
	k0 := int(math.Floor(float64(months) / float64(r.months)))
	best, bestDev := k0, math.MaxInt
	for k := k0 - 1; k <= k0+1; k++ {
		if dev := absInt(daysApart(expected(r, anchor, k), date)); dev < bestDev {
			best, bestDev = k, dev
		}
	}
	return best
}

// expected is the k-th expected date from the anchor: k periods of days later, or k periods of
// months later on the anchor's day of the month (or the month's last day when it has fewer).
func expected(r rhythm, anchor string, k int) string {
	a := isoDay(anchor)
	if r.days > 0 {
		return a.AddDate(0, 0, k*r.days).Format(time.DateOnly)
	}
	first := time.Date(a.Year(), a.Month()+time.Month(k*r.months), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	return time.Date(first.Year(), first.Month(), min(a.Day(), last), 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
}

// steadyAmount reports whether the payments stay within twoPointDrift of their median.
func steadyAmount(occ []occurrence) bool {
	m := medianAmount(occ)
	for _, o := range occ {
		if float64(abs(o.t.Amount-m)) > twoPointDrift*float64(abs(m)) {
			return false
		}
	}
	return true
}

// medianAmount is the middle amount by size (the smaller of the two middle ones): an amount that
// was really paid, exact.
func medianAmount(occ []occurrence) int64 {
	a := make([]int64, len(occ))
	for i, o := range occ {
		a[i] = o.t.Amount
	}
	slices.SortFunc(a, func(x, y int64) int { return cmp.Compare(abs(x), abs(y)) })
	return a[(len(a)-1)/2]
}

func describe(p *ynab.Plan, payee string, f rhythmFit, today string) recurringView {
	cf := currency(p)
	last := f.kept[len(f.kept)-1]
	typical := medianAmount(f.kept)
	small, large := f.kept[0].t.Amount, f.kept[0].t.Amount
	catKey := func(o occurrence) string {
		if o.t.CategoryID == nil && isSplit(p, o.t) {
			return "split"
		}
		return str(o.t.CategoryID)
	}
	accountKey := func(o occurrence) string { return o.t.AccountID }
	for _, o := range f.kept {
		if abs(o.t.Amount) < abs(small) {
			small = o.t.Amount
		}
		if abs(o.t.Amount) > abs(large) {
			large = o.t.Amount
		}
	}
	next := expected(f.r, f.anchor, f.lastK+1)
	v := recurringView{Payee: payeeName(p, &payee), PayeeID: payee, Rhythm: f.r.name, Occurrences: len(f.kept),
		TypicalMilliunits: typical, Typical: FormatCurrency(typical, cf),
		SmallestMilliunits: small, Smallest: FormatCurrency(small, cf),
		LargestMilliunits: large, Largest: FormatCurrency(large, cf),
		LastAmountMilliunits: last.t.Amount, LastAmount: FormatCurrency(last.t.Amount, cf),
		LastDate: last.date, NextDate: next}
	if _, ok := onTime(f.r, next, today); !ok && today > next {
		v.Missed = true
	}
	switch cat := mostCommon(f.kept, catKey); {
	case cat == "split":
		v.Category = "Split"
	case cat != "":
		v.Category, v.CategoryID = suggestionLabel(p, cat), cat
	}
	v.AccountID = mostCommon(f.kept, accountKey)
	v.Account = accountName(p, v.AccountID)
	for _, s := range p.ScheduledTransactions {
		if s.Deleted || str(s.PayeeID) != payee || (s.Amount > 0) != (typical > 0) {
			continue
		}
		if float64(abs(s.Amount)) <= float64(abs(typical))*1.5 && float64(abs(typical)) <= float64(abs(s.Amount))*1.5 {
			v.Scheduled, v.ScheduledID = true, s.ID
			break
		}
	}
	return v
}

// mostCommon is the key of the most payments; a tie goes to the latest payment's.
func mostCommon(occ []occurrence, keyOf func(occurrence) string) string {
	counts := map[string]int{}
	for _, o := range occ {
		counts[keyOf(o)]++
	}
	best, bestN := "", -1
	for i := len(occ) - 1; i >= 0; i-- {
		if k := keyOf(occ[i]); counts[k] > bestN {
			best, bestN = k, counts[k]
		}
	}
	return best
}
