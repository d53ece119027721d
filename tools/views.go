package tools

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/avenir-mcp/avenir/ynab"
)

// Views: how the read tools show YNAB's data to a model, which pays for every character. One
// amount shape everywhere: a flat pair, `X_milliunits` (exact, for arithmetic) and `X` (in the
// plan's currency format, for people). A row names what it refers to by name and carries an id
// only where a later call needs one (a transaction's own id, not its account's next to the
// account's name); fields that say nothing (no memo, no flag, approved) are left out.

func currency(p *ynab.Plan) *ynab.CurrencyFormat { return p.CurrencyFormat }

// readArg is what every read of the plan takes besides its own arguments.
type readArg struct {
	planArg
	Fresh bool `json:"fresh,omitempty"`
}

// freshness is how current the plan read for a call that shows figures YNAB derives
// (balances, activity, available) must be.
func (a readArg) freshness() ynab.Freshness {
	if a.Fresh {
		return ynab.Fresh
	}
	return ynab.WithinWindow
}

// listed is how current the plan read for a call that shows no derived figure must be.
func (a readArg) listed() ynab.Freshness {
	if a.Fresh {
		return ynab.Fresh
	}
	return ynab.EntitiesWithinWindow
}

// readResult is embedded in every read tool's output: the plan, the cost, and how old the data is.
type readResult struct {
	result
	AsOf string `json:"as_of" jsonschema:"when avenir last asked YNAB for this data (RFC 3339)"`
}

func readOf(p *ynab.Plan) readResult {
	return readResult{result: result{PlanID: p.ID}, AsOf: p.Fetched.UTC().Format(time.RFC3339)}
}

// pageBytes bounds the rows of one page of a list, so that a result stays well inside what
// clients accept (about 60 KB of JSON; Claude Code refuses a result over 25,000 tokens).
const pageBytes = 48 << 10

// fit returns how many of n rows, shown by row(i), fit in pageBytes (at least one).
func fit(n int, row func(i int) any) int {
	size := 0
	for i := range n {
		b, err := json.Marshal(row(i))
		if err != nil {
			panic(err) // views hold plain values only
		}
		if size += len(b) + 1; size > pageBytes && i > 0 {
			return i
		}
	}
	return n
}

type transactionView struct {
	ID               string     `json:"id"`
	Date             string     `json:"date"`
	Account          string     `json:"account,omitempty" jsonschema:"left out when the call named the account"`
	Payee            string     `json:"payee,omitempty"`
	Transfer         string     `json:"transfer_account,omitempty" jsonschema:"for a transfer: the other account (instead of a payee)"`
	AmountMilliunits int64      `json:"amount_milliunits" jsonschema:"negative for an outflow"`
	Amount           string     `json:"amount"`
	Category         string     `json:"category,omitempty" jsonschema:"absent when uncategorized or split"`
	Memo             string     `json:"memo,omitempty"`
	Cleared          string     `json:"cleared,omitempty" jsonschema:"uncleared or reconciled; absent when cleared"`
	Approved         *bool      `json:"approved,omitempty" jsonschema:"false when it awaits approval; absent when approved"`
	Flag             string     `json:"flag,omitempty"`
	SplitLines       []lineView `json:"split_lines,omitempty"`
}

type lineView struct {
	AmountMilliunits int64  `json:"amount_milliunits"`
	Amount           string `json:"amount"`
	Category         string `json:"category,omitempty"`
	Payee            string `json:"payee,omitempty"`
	Memo             string `json:"memo,omitempty"`
}

// namer names categories for one result: by name alone where that is unambiguous in the plan
// (every tool takes it back), else as "Group: Name".
type namer struct {
	p     *ynab.Plan
	count map[string]int // lower-case name → live categories of that name
}

func newNamer(p *ynab.Plan) *namer {
	n := &namer{p: p, count: map[string]int{}}
	for _, c := range p.Categories {
		if !c.Deleted {
			n.count[strings.ToLower(c.Name)]++
		}
	}
	return n
}

func (n *namer) category(id *string) string {
	if id == nil {
		return ""
	}
	c, ok := n.p.Category(*id)
	if !ok {
		return ""
	}
	switch {
	case c.Internal && c.Name == readyToAssign:
		return readyToAssignShort
	case n.count[strings.ToLower(c.Name)] > 1:
		return categoryLabel(n.p, c.ID)
	}
	return c.Name
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

// viewTransaction shows a transaction; withAccount is false when the call named its account.
func (n *namer) transaction(t *ynab.TransactionSummary, withAccount bool) transactionView {
	p := n.p
	v := transactionView{
		ID: t.ID, Date: t.Date, AmountMilliunits: t.Amount, Amount: FormatCurrency(t.Amount, currency(p)),
		Category: n.category(t.CategoryID), Memo: str(t.Memo), Flag: str(t.FlagColor),
	}
	if t.Cleared != ynab.Cleared {
		v.Cleared = t.Cleared
	}
	if withAccount {
		v.Account = accountName(p, t.AccountID)
	}
	if !t.Approved {
		v.Approved = ptr(false)
	}
	if t.TransferAccountID != nil {
		v.Transfer = accountName(p, *t.TransferAccountID)
	} else {
		v.Payee = payeeName(p, t.PayeeID)
	}
	for _, s := range p.Lines(t.ID) {
		if !s.Deleted {
			v.SplitLines = append(v.SplitLines, n.line(s.Amount, s.CategoryID, s.PayeeID, s.Memo))
		}
	}
	return v
}

// line shows one line of a split, of a transaction or of a scheduled transaction.
func (n *namer) line(amount int64, categoryID, payeeID, memo *string) lineView {
	return lineView{AmountMilliunits: amount, Amount: FormatCurrency(amount, currency(n.p)),
		Category: n.category(categoryID), Payee: payeeName(n.p, payeeID), Memo: str(memo)}
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

// A page's cursor is the offset of the next page and a digest of the query it belongs to, so
// that a cursor passed with another query is refused rather than silently skipping rows.
func encodeOffset(offset int, query ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(query, "\x00")))
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(offset) + "." + hex.EncodeToString(sum[:6])))
}

func decodeOffset(cursor string, query ...string) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	bad := fmt.Errorf("cursor: %q is not a cursor of this query; pass next_cursor from a call with the same arguments, or leave cursor out to start again", cursor)
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, bad
	}
	n, err := strconv.Atoi(strings.SplitN(string(raw), ".", 2)[0])
	if err != nil || n < 0 || encodeOffset(n, query...) != cursor {
		return 0, bad
	}
	return n, nil
}
