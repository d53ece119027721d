package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/ynab"
)

var suggestCategoriesTool = mcp.Tool{
	Name:        "suggest_categories",
	Title:       "Suggest categories",
	Description: "Up to 3 categories per transaction from this plan's own history. Writes nothing; apply_categories takes the pick.",
	Annotations: readOnly,
}

const (
	maxSuggestTransactions = 100
	historyDepth           = 20    // the most recent transactions of a payee (or memo word) that vote
	suggestionsPer         = 3     // categories offered per transaction
	suggestBudget          = 40000 // bytes of rows in one result, well inside what clients accept
)

type suggestCategoriesIn struct {
	readArg
	TransactionIDs []string `json:"transaction_ids,omitempty" jsonschema:"default: uncategorized ones"`
}

type categorySuggestion struct {
	Category   string  `json:"category" jsonschema:"'Group: Name', as apply_categories takes it"`
	CategoryID string  `json:"category_id"`
	Times      int     `json:"times" jsonschema:"how many of the history's transactions had this category"`
	Of         int     `json:"of" jsonschema:"how many transactions the history holds"`
	Confidence float64 `json:"confidence" jsonschema:"0 to 1: the category's share of the history, recent and similar ones weighing more, lower when the history is short"`
	Why        string  `json:"why" jsonschema:"the history behind it, to tell the user"`
}

type suggestionRow struct {
	TransactionID    string               `json:"transaction_id"`
	Date             string               `json:"date"`
	Payee            string               `json:"payee,omitempty"`
	AmountMilliunits int64                `json:"amount_milliunits" jsonschema:"negative for an outflow"`
	Amount           string               `json:"amount"`
	Memo             string               `json:"memo,omitempty"`
	Category         string               `json:"category,omitempty" jsonschema:"the category it has now, if any"`
	Suggestions      []categorySuggestion `json:"suggestions" jsonschema:"best first; empty when the plan holds no history to learn from"`
	Note             string               `json:"note,omitempty" jsonschema:"why there is no suggestion"`
}

type suggestCategoriesOut struct {
	readResult
	Transactions  []suggestionRow `json:"transactions"`
	Uncategorized int             `json:"uncategorized,omitempty" jsonschema:"without transaction_ids: how many transactions need a category in all (the newest 100 are here)"`
	OmittedIDs    []string        `json:"omitted_ids,omitempty" jsonschema:"transactions left out to keep the result small: pass them in another call"`
}

func (h *handlers) suggestCategories(ctx context.Context, _ *mcp.CallToolRequest, in suggestCategoriesIn) (*mcp.CallToolResult, suggestCategoriesOut, error) {
	if len(in.TransactionIDs) > maxSuggestTransactions {
		return nil, suggestCategoriesOut{}, fmt.Errorf("transaction_ids: %d ids is more than the %d one call takes; send them in several calls", len(in.TransactionIDs), maxSuggestTransactions)
	}
	p, res, err := h.analysisPlan(ctx, in.readArg)
	if err != nil {
		return nil, suggestCategoriesOut{}, err
	}
	out := suggestCategoriesOut{readResult: res, Transactions: []suggestionRow{}}
	var targets []*ynab.TransactionSummary
	if len(in.TransactionIDs) == 0 {
		for _, t := range p.TransactionsByDate() {
			if needsCategory(p, t) {
				out.Uncategorized++
				if len(targets) < maxSuggestTransactions {
					targets = append(targets, t)
				}
			}
		}
	} else {
		seen := map[string]bool{}
		for _, id := range in.TransactionIDs {
			id = strings.TrimSpace(id)
			if seen[id] {
				continue
			}
			seen[id] = true
			t, ok := p.Transaction(id)
			if !ok || t.Deleted {
				return nil, suggestCategoriesOut{}, fmt.Errorf("transaction_ids: there is no transaction %s in this plan; list_transactions shows their ids", quoted(id))
			}
			targets = append(targets, t)
		}
	}
	hist := newHistory(p, targets)
	size := 0
	for _, t := range targets {
		row := hist.suggest(t)
		b, _ := json.Marshal(row)
		if size += len(b); size > suggestBudget {
			out.OmittedIDs = append(out.OmittedIDs, t.ID)
			continue
		}
		out.Transactions = append(out.Transactions, row)
	}
	return nil, out, nil
}

// history is what the plan's approved, categorised transactions teach: per payee, and per memo
// word, newest first.
type history struct {
	p       *ynab.Plan
	byPayee map[string][]flow
	byWord  map[string][]flow
}

func newHistory(p *ynab.Plan, exclude []*ynab.TransactionSummary) *history {
	skip := map[string]bool{}
	for _, t := range exclude {
		skip[t.ID] = true
	}
	h := &history{p: p, byPayee: map[string][]flow{}, byWord: map[string][]flow{}}
	for _, f := range budgetFlows(p) {
		if skip[f.tx.ID] || !f.tx.Approved || f.category == "" {
			continue
		}
		if f.payee != "" {
			h.byPayee[f.payee] = append(h.byPayee[f.payee], f)
		}
		for _, w := range memoWords(f.memo) {
			h.byWord[w] = append(h.byWord[w], f)
		}
	}
	for _, fs := range h.byPayee {
		slices.SortFunc(fs, newestFirst)
	}
	for _, fs := range h.byWord {
		slices.SortFunc(fs, newestFirst)
	}
	return h
}

// memoWords are the words of a memo worth matching: lower case, at least 4 letters or digits,
// not a number.
func memoWords(memo string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(memo), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= 4 && strings.IndexFunc(w, unicode.IsLetter) >= 0 && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// suggest returns the row for one transaction.
func (h *history) suggest(t *ynab.TransactionSummary) suggestionRow {
	p := h.p
	cf := currency(p)
	row := suggestionRow{TransactionID: t.ID, Date: t.Date, Payee: payeeName(p, t.PayeeID),
		AmountMilliunits: t.Amount, Amount: FormatCurrency(t.Amount, cf), Memo: str(t.Memo), Suggestions: []categorySuggestion{}}
	if t.CategoryID != nil {
		row.Category = suggestionLabel(p, *t.CategoryID)
	}
	switch a, _ := p.Account(t.AccountID); {
	case a == nil || !a.OnBudget:
		row.Note = "on a tracking account: it takes no category"
		return row
	case isSplit(p, t):
		row.Note = "a split: each of its lines has its own category"
		return row
	case !countsInBudget(p, t):
		row.Note = "a transfer between budget accounts: it needs no category"
		return row
	}
	words := memoWords(str(t.Memo))
	unusable := false
	if t.PayeeID != nil {
		all := h.byPayee[*t.PayeeID]
		if votes, same := sameSign(all, t.Amount); len(votes) > 0 {
			row.Suggestions = h.rank(t, votes, words, directionScale(same), evidence{
				one: row.Payee + " transaction", many: row.Payee + " transactions", total: len(votes)})
			if len(row.Suggestions) > 0 {
				return row
			}
			unusable = true
		}
	}
	// No payee history to go by: the memo's words, where earlier memos had them.
	var votes []flow
	seen := map[string]bool{}
	var matched []string
	for _, w := range words {
		if len(h.byWord[w]) > 0 {
			matched = append(matched, "‘"+w+"’")
		}
		for _, f := range h.byWord[w] {
			key := fmt.Sprintf("%s/%s/%d", f.tx.ID, f.category, f.amount)
			if !seen[key] {
				seen[key] = true
				votes = append(votes, f)
			}
		}
	}
	slices.SortFunc(votes, newestFirst)
	if votes, same := sameSign(votes, t.Amount); len(votes) > 0 {
		in := "with " + strings.Join(matched, " or ") + " in the memo"
		row.Suggestions = h.rank(t, votes, nil, memoScale*directionScale(same), evidence{
			one: "transaction " + in, many: "transactions " + in, total: len(votes)})
	}
	switch {
	case len(row.Suggestions) > 0:
	case unusable:
		row.Note = fmt.Sprintf("the earlier %s transactions are in hidden or internal categories, which apply_categories cannot give", row.Payee)
	default:
		who := "this payee"
		if row.Payee != "" {
			who = row.Payee
		}
		row.Note = fmt.Sprintf("no history: no earlier approved %s transaction has a category, and no memo word matches one that has", who)
	}
	return row
}

// memoScale weighs memo words below a payee's own history: a word is weaker evidence.
const memoScale = 0.75

func newestFirst(a, b flow) int {
	return cmp.Or(strings.Compare(b.date, a.date), strings.Compare(a.tx.ID, b.tx.ID))
}

// sameSign keeps the history of the same direction as amount (an inflow learns from inflows), or
// all of it when there is none of that direction (and says so).
func sameSign(fs []flow, amount int64) ([]flow, bool) {
	var same []flow
	for _, f := range fs {
		if (f.amount < 0) == (amount < 0) {
			same = append(same, f)
		}
	}
	if len(same) == 0 {
		return fs, false
	}
	return same, true
}

// directionScale halves the confidence of history that went the other way: a refund from a shop
// says less about a purchase there than another purchase would.
func directionScale(same bool) float64 {
	if same {
		return 1
	}
	return 0.5
}

// evidence names the history a suggestion comes from, for its why.
type evidence struct {
	one, many string // "Albert Heijn transaction", "Albert Heijn transactions"
	total     int    // how many there are in all, before the newest historyDepth are taken
}

// rank turns the newest historyDepth votes into at most 3 suggestions. A vote weighs less the
// older it is, more when its amount is within 10% of the transaction's and when its memo shares
// a word with the transaction's. Confidence is the category's share of the weight, scaled by
// n/(n+1) so that one earlier transaction never reads as certain, and by scale for weaker
// evidence. Categories apply_categories would refuse (hidden, internal, deleted) are not offered.
func (h *history) rank(t *ynab.TransactionSummary, votes []flow, words []string, scale float64, ev evidence) []categorySuggestion {
	p := h.p
	votes = votes[:min(historyDepth, len(votes))]
	n := len(votes)
	type vote struct {
		id                   string
		weight               float64
		times, similar, memo int
		latest               string
		rank                 int // of its newest vote
	}
	byCat := map[string]*vote{}
	var total float64
	for i, f := range votes {
		w := 1 / (1 + float64(i)/5)
		similar := abs(f.amount-t.Amount)*10 <= abs(t.Amount)
		if similar {
			w *= 1.5
		}
		shares := slices.ContainsFunc(memoWords(f.memo), func(fw string) bool { return slices.Contains(words, fw) })
		if shares {
			w *= 2
		}
		total += w
		c := byCat[f.category]
		if c == nil {
			c = &vote{id: f.category, latest: f.date, rank: i}
			byCat[f.category] = c
		}
		c.weight += w
		c.times++
		if similar {
			c.similar++
		}
		if shares {
			c.memo++
		}
	}
	cats := make([]*vote, 0, len(byCat))
	for _, c := range byCat {
		if suggestable(p, c.id) {
			cats = append(cats, c)
		}
	}
	slices.SortFunc(cats, func(a, b *vote) int {
		return cmp.Or(cmp.Compare(b.weight, a.weight), cmp.Compare(b.times, a.times), cmp.Compare(a.rank, b.rank))
	})
	opposite := (votes[0].amount < 0) != (t.Amount < 0)
	out := []categorySuggestion{}
	for _, c := range cats[:min(suggestionsPer, len(cats))] {
		label := suggestionLabel(p, c.id)
		var why string
		switch {
		case n == 1:
			why = fmt.Sprintf("The one earlier %s was %s, on %s", ev.one, label, c.latest)
		case c.times == n && ev.total == n:
			why = fmt.Sprintf("All %d earlier %s were %s, the latest on %s", n, ev.many, label, c.latest)
		case c.times == n:
			why = fmt.Sprintf("All of the last %d %s were %s, the latest on %s", n, ev.many, label, c.latest)
		case ev.total == n:
			why = fmt.Sprintf("%d of the %d earlier %s were %s, the latest on %s", c.times, n, ev.many, label, c.latest)
		default:
			why = fmt.Sprintf("%d of the last %d %s were %s, the latest on %s", c.times, n, ev.many, label, c.latest)
		}
		if c.similar > 0 && n > 1 {
			why += fmt.Sprintf("; %d of them within 10%% of this amount", c.similar)
		}
		if c.memo > 0 {
			why += fmt.Sprintf("; %d with a memo word in common", c.memo)
		}
		if opposite {
			why += " (" + plainDirection(votes[0].amount, n) + ")"
		}
		conf := c.weight / total * float64(n) / float64(n+1) * scale
		out = append(out, categorySuggestion{Category: label, CategoryID: c.id, Times: c.times, Of: n,
			Confidence: math.Round(conf*100) / 100, Why: why})
	}
	return out
}

// plainDirection says which way the history went when it went the other way.
func plainDirection(history int64, n int) string {
	switch {
	case history < 0 && n == 1:
		return "that was an outflow, this is an inflow"
	case history < 0:
		return "those were outflows, this is an inflow"
	case n == 1:
		return "that was an inflow, this is an outflow"
	}
	return "those were inflows, this is an outflow"
}

// suggestable reports whether apply_categories takes the category: Ready to Assign, or one of
// the person's own visible categories outside the credit card payments.
func suggestable(p *ynab.Plan, id string) bool {
	c, ok := p.Category(id)
	if !ok || c.Deleted {
		return false
	}
	if isReadyToAssign(p, id) {
		return true
	}
	g, _ := p.Group(c.CategoryGroupID)
	return !c.Internal && !c.Hidden && (g == nil || !g.Internal && !g.Hidden && !g.Deleted && g.Name != cardPaymentsGroup)
}

func suggestionLabel(p *ynab.Plan, id string) string {
	if isReadyToAssign(p, id) {
		return readyToAssign
	}
	return categoryLabel(p, id)
}
