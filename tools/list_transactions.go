package tools

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/ynab"
)

var listTransactionsTool = mcp.Tool{
	Name:        "list_transactions",
	Title:       "List transactions",
	Description: "Transactions, newest first, filtered; paged by limit and size (next_cursor). A row without cleared is cleared, without approved approved; no flag, memo or category: none.",
	Annotations: readOnly,
}

const (
	defaultLimit = 100
	maxLimit     = 500
)

type listTransactionsIn struct {
	readArg
	Account   string `json:"account,omitempty"`
	Category  string `json:"category,omitempty" jsonschema:"matches split lines too"`
	Payee     string `json:"payee,omitempty"`
	Since     string `json:"since,omitempty"`
	Until     string `json:"until,omitempty"`
	Status    string `json:"status,omitempty" jsonschema:"uncategorized, unapproved, flagged or uncleared"`
	Text      string `json:"text,omitempty" jsonschema:"in payee or memo"`
	MinAmount Amount `json:"min_amount,omitzero" jsonschema:"size, sign ignored"`
	MaxAmount Amount `json:"max_amount,omitzero" jsonschema:"size, sign ignored"`
	Limit     int    `json:"limit,omitempty" jsonschema:"default 100, at most 500"`
	Cursor    string `json:"cursor,omitempty"`
}

type listTransactionsOut struct {
	readResult
	Transactions []transactionView `json:"transactions"`
	Matched      int               `json:"matched" jsonschema:"how many match in all"`
	NextCursor   string            `json:"next_cursor,omitempty" jsonschema:"pass as cursor for the next page; absent on the last"`
}

var statuses = []string{"uncategorized", "unapproved", "flagged", "uncleared"}

// txFilter is a list_transactions query with every name resolved and every value parsed.
type txFilter struct {
	account, category, payee string
	since, until             string
	status, text             string
	min, max                 int64
	hasMin, hasMax           bool
}

func (h *handlers) listTransactions(ctx context.Context, _ *mcp.CallToolRequest, in listTransactionsIn) (*mcp.CallToolResult, listTransactionsOut, error) {
	limit := in.Limit
	if limit == 0 {
		limit = defaultLimit
	}
	if limit < 1 || limit > maxLimit {
		return nil, listTransactionsOut{}, fmt.Errorf("limit: %d is out of range; give 1 to %d (default %d) and page with cursor", in.Limit, maxLimit, defaultLimit)
	}
	offset, err := decodeCursor(in)
	if err != nil {
		return nil, listTransactionsOut{}, err
	}
	p, err := h.plan(ctx, in.PlanID, in.listed())
	if err != nil {
		return nil, listTransactionsOut{}, err
	}
	f, err := h.transactionFilter(p, in)
	if err != nil {
		return nil, listTransactionsOut{}, err
	}
	var hits []*ynab.TransactionSummary
	for _, t := range p.TransactionsByDate() {
		if f.match(p, t) {
			hits = append(hits, t)
		}
	}
	out := listTransactionsOut{readResult: readOf(p), Matched: len(hits), Transactions: []transactionView{}}
	n := newNamer(p)
	for _, t := range hits[min(offset, len(hits)):min(offset+limit, len(hits))] {
		out.Transactions = append(out.Transactions, n.transaction(t, f.account == ""))
	}
	out.Transactions = out.Transactions[:fit(len(out.Transactions), func(i int) any { return out.Transactions[i] })]
	if end := offset + len(out.Transactions); end < len(hits) {
		out.NextCursor = encodeCursor(in, end)
	}
	return nil, out, nil
}

func (h *handlers) transactionFilter(p *ynab.Plan, in listTransactionsIn) (txFilter, error) {
	f := txFilter{text: strings.ToLower(strings.TrimSpace(in.Text))}
	if in.Account != "" {
		c, err := resolve("account", "account", in.Account, accountCandidates(p, true))
		if err != nil {
			return f, err
		}
		f.account = c.id
	}
	if in.Category != "" {
		c, err := resolve("category", "category", in.Category, categoryCandidates(p))
		if err != nil {
			return f, err
		}
		f.category = c.id
	}
	if in.Payee != "" {
		c, err := resolve("payee", "payee", in.Payee, payeeCandidates(p))
		if err != nil {
			return f, err
		}
		f.payee = c.id
	}
	now := h.Now().UTC()
	var err error
	if in.Since != "" {
		if f.since, err = ParseDate(in.Since, now); err != nil {
			return f, fmt.Errorf("since: %w", err)
		}
	}
	if in.Until != "" {
		if f.until, err = ParseDate(in.Until, now); err != nil {
			return f, fmt.Errorf("until: %w", err)
		}
	}
	if f.since != "" && f.until != "" && f.since > f.until {
		return f, fmt.Errorf("since (%s) is after until (%s): no transaction can match", f.since, f.until)
	}
	if in.Status != "" {
		f.status = strings.ToLower(strings.TrimSpace(in.Status))
		if !slices.Contains(statuses, f.status) {
			return f, fmt.Errorf("status: %s is not one of %s", quoted(in.Status), strings.Join(statuses, ", "))
		}
	}
	digits := Digits(currency(p))
	if !in.MinAmount.IsZero() {
		if f.min, err = in.MinAmount.Milliunits(digits); err != nil {
			return f, fmt.Errorf("min_amount: %w", err)
		}
		f.min, f.hasMin = abs(f.min), true
	}
	if !in.MaxAmount.IsZero() {
		if f.max, err = in.MaxAmount.Milliunits(digits); err != nil {
			return f, fmt.Errorf("max_amount: %w", err)
		}
		f.max, f.hasMax = abs(f.max), true
	}
	return f, nil
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func (f txFilter) match(p *ynab.Plan, t *ynab.TransactionSummary) bool {
	if f.account != "" && t.AccountID != f.account {
		return false
	}
	if f.since != "" && t.Date < f.since || f.until != "" && t.Date > f.until {
		return false
	}
	if f.hasMin && abs(t.Amount) < f.min || f.hasMax && abs(t.Amount) > f.max {
		return false
	}
	switch f.status {
	case "uncategorized":
		if !needsCategory(p, t) {
			return false
		}
	case "unapproved":
		if t.Approved {
			return false
		}
	case "flagged":
		if str(t.FlagColor) == "" {
			return false
		}
	case "uncleared":
		if t.Cleared != ynab.Uncleared {
			return false
		}
	}
	lines := p.Lines(t.ID)
	if f.category != "" && str(t.CategoryID) != f.category && !slices.ContainsFunc(lines, func(s ynab.SubTransaction) bool {
		return !s.Deleted && str(s.CategoryID) == f.category
	}) {
		return false
	}
	if f.payee != "" && str(t.PayeeID) != f.payee && !slices.ContainsFunc(lines, func(s ynab.SubTransaction) bool {
		return !s.Deleted && str(s.PayeeID) == f.payee
	}) {
		return false
	}
	if f.text != "" && !strings.Contains(strings.ToLower(payeeName(p, t.PayeeID)), f.text) &&
		!strings.Contains(strings.ToLower(str(t.Memo)), f.text) {
		return false
	}
	return true
}

// A cursor is the offset of the next page and a digest of the query it belongs to, so that a
// cursor passed with other filters is refused rather than silently skipping transactions.
func queryDigest(in listTransactionsIn) string {
	in.Cursor, in.Limit, in.Fresh = "", 0, false
	b, _ := json.Marshal(in)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

func encodeCursor(in listTransactionsIn, offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(offset) + "." + queryDigest(in)))
}

func decodeCursor(in listTransactionsIn) (int, error) {
	if in.Cursor == "" {
		return 0, nil
	}
	bad := fmt.Errorf("cursor: %s is not a cursor of this query; pass next_cursor from a call with the same filters, or leave cursor out to start again", quoted(in.Cursor))
	raw, err := base64.RawURLEncoding.DecodeString(in.Cursor)
	if err != nil {
		return 0, bad
	}
	off, digest, ok := strings.Cut(string(raw), ".")
	n, err := strconv.Atoi(off)
	if !ok || err != nil || n < 0 || digest != queryDigest(in) {
		return 0, bad
	}
	return n, nil
}
