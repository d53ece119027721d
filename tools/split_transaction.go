package tools

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var splitTransactionTool = mcp.Tool{
	Name:        "split_transaction",
	Title:       "Split a transaction",
	Description: "Split a transaction into lines adding up to its amount. Cannot be undone: YNAB's API cannot un-split." + confirmDescription,
	Meta:        cardMeta,
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type splitTransactionIn struct {
	planArg
	TransactionID string          `json:"transaction_id"`
	Lines         []splitLineArgs `json:"lines"`
	confirmArg
}

type splitLineArgs struct {
	Amount   Amount `json:"amount" jsonschema:"negative for an outflow"`
	Category string `json:"category"`
	Memo     string `json:"memo,omitempty"`
}

// splitLine is one line of a split as it is confirmed, journaled and sent.
type splitLine struct {
	Amount     int64   `json:"amount"`
	CategoryID string  `json:"category_id"`
	Memo       *string `json:"memo"`
}

// splitSubject is split_transaction's subject: the transaction and its lines.
type splitSubject struct {
	TransactionID string      `json:"transaction_id"`
	Lines         []splitLine `json:"lines"`
}

// maxSplitMemo is the longest memo YNAB takes, in characters.
const maxSplitMemo = 500

func (h *handlers) splitTransaction(ctx context.Context, req *mcp.CallToolRequest, in splitTransactionIn) (*mcp.CallToolResult, writeOut, error) {
	if len(in.Lines) < 2 {
		return nil, writeOut{}, fmt.Errorf("lines: a split needs at least 2 lines, got %d; to give the whole transaction one category, use apply_categories", len(in.Lines))
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		t, err := splittable(p, in.TransactionID)
		if err != nil {
			return nil, err
		}
		digits := Digits(currency(p))
		lines := make([]splitLine, len(in.Lines))
		ed := &edit{plan: p, tool: splitTransactionTool.Name, notes: []string{splitWarning}}
		var sum int64
		for i, l := range in.Lines {
			line, cat, err := readSplitLine(p, i, l)
			if err != nil {
				return nil, err
			}
			var ok bool
			if sum, ok = addMilliunits(sum, line.Amount); !ok {
				return nil, errors.New("lines: the amounts are too large to add up; check them")
			}
			lines[i] = line
			text := fmt.Sprintf("%s %s", cat.Name, FormatFlow(line.Amount, digits))
			if line.Memo != nil {
				text += fmt.Sprintf(" (memo: %s)", *line.Memo)
			}
			ed.lines = append(ed.lines, text)
		}
		if sum != t.Amount {
			return nil, splitSumError(t.Amount, sum, digits)
		}
		ed.subject = splitSubject{TransactionID: t.ID, Lines: lines}
		label := txLabel(p, t)
		ed.first = fmt.Sprintf("Split %s into %d lines?", label, len(lines))
		ed.changes = []journal.Change{{
			Kind: journal.KindTransaction, ID: t.ID, Label: label,
			Before: fieldsJSON(map[string]any{"category_id": t.CategoryID}),
			After:  fieldsJSON(map[string]any{"category_id": nil, "subtransactions": lines}),
		}}
		ed.apply = func(ctx context.Context) (journal.Outcome, error) {
			res, err := h.YNAB.UpdateTransaction(ctx, p.ID, t.ID, splitSave(t, lines))
			if err != nil {
				return journal.Outcome{}, err
			}
			return splitOutcome(p, t, res, len(lines))
		}
		return ed, nil
	}
	args, code := splitCode(in)
	return h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
}

// splitWarning ends every split's preview: the person must know there is no way back here.
const splitWarning = "Only YNAB can undo a split: YNAB's API cannot change or remove a split's lines, so avenir cannot undo this."

// splittable finds the transaction to split: a live one that is neither a split already nor
// a transfer (YNAB's API can do neither).
func splittable(p *ynab.Plan, id string) (*ynab.TransactionSummary, error) {
	id = strings.TrimSpace(id)
	t, ok := p.Transaction(id)
	switch {
	case !ok || t.Deleted:
		return nil, fmt.Errorf("transaction_id: there is no transaction %s in this plan (or it was deleted); list_transactions shows their ids", quoted(id))
	case len(p.Lines(t.ID)) > 0:
		return nil, fmt.Errorf("transaction_id: %s is already a split, and YNAB's API cannot change a split's lines; change them in YNAB's app", txLabel(p, t))
	case t.TransferAccountID != nil:
		return nil, fmt.Errorf("transaction_id: %s is a transfer, which YNAB cannot split", txLabel(p, t))
	}
	return t, nil
}

// readSplitLine checks one line's arguments and converts them.
func readSplitLine(p *ynab.Plan, i int, l splitLineArgs) (splitLine, *ynab.Category, error) {
	arg := fmt.Sprintf("lines[%d]", i)
	amount, err := l.Amount.Milliunits(Digits(currency(p)))
	if err != nil {
		return splitLine{}, nil, fmt.Errorf("%s.amount: %w", arg, err)
	}
	cat, err := transactionCategory(p, arg+".category", l.Category)
	if err != nil {
		return splitLine{}, nil, err
	}
	line := splitLine{Amount: amount, CategoryID: cat.ID}
	if strings.TrimSpace(l.Memo) != "" {
		if n := utf8.RuneCountInString(l.Memo); n > maxSplitMemo {
			return splitLine{}, nil, fmt.Errorf("%s.memo: it is %d characters long; YNAB takes at most %d", arg, n, maxSplitMemo)
		}
		line.Memo = &l.Memo
	}
	return line, cat, nil
}

// splitSumError says by how much the lines miss the transaction's amount, and names the
// likely slip of giving an outflow's lines as positive amounts.
func splitSumError(amount, sum int64, digits int) error {
	if sum == -amount {
		return fmt.Errorf("lines: the lines add up to %s, the opposite of the transaction's %s: give an outflow's lines as negative amounts and an inflow's as positive ones",
			FormatPlain(sum, digits), FormatPlain(amount, digits))
	}
	msg := fmt.Sprintf("lines: the lines add up to %s, but the transaction's amount is %s (negative is an outflow)", FormatPlain(sum, digits), FormatPlain(amount, digits))
	if diff, ok := addMilliunits(amount, -sum); ok && sum != math.MinInt64 { // -MinInt64 overflows
		msg += fmt.Sprintf("; they differ by %s", FormatPlain(max(diff, -diff), digits))
	}
	return errors.New(msg)
}

// splitSave is the PUT that makes t a split. approved is sent as it is, because whether PUT
// keeps a field it is not given is not documented.
func splitSave(t *ynab.TransactionSummary, lines []splitLine) ynab.SaveTransaction {
	subs := make([]ynab.SaveSubTransaction, len(lines))
	for i, l := range lines {
		subs[i] = ynab.SaveSubTransaction{Amount: l.Amount, CategoryID: &l.CategoryID, Memo: l.Memo}
	}
	return ynab.SaveTransaction{CategoryID: ynab.Null[string](), Approved: ynab.Some(t.Approved), Subtransactions: subs}
}

// splitOutcome checks YNAB's answer: turning an existing transaction into a split is what
// YNAB documents, but an answer without the lines means it did not happen. If YNAB took the
// category away all the same, that half is journaled, so undo can put it back.
func splitOutcome(p *ynab.Plan, t *ynab.TransactionSummary, res ynab.Transaction, want int) (journal.Outcome, error) {
	label := txLabel(p, t)
	made := 0
	for _, s := range res.Subtransactions {
		if !s.Deleted {
			made++
		}
	}
	if made == want {
		return journal.Outcome{}, nil
	}
	if sameCategory(res.CategoryID, t.CategoryID) {
		return journal.Outcome{}, fmt.Errorf("YNAB answered without splitting %s, which is unchanged; split it in YNAB's app", label)
	}
	return journal.Outcome{
		Partial: true,
		Note: fmt.Sprintf("YNAB did not split %s, but it took away its category (%s), so it is uncategorized now; undo_operation puts the category back",
			label, categoryShort(p, t.CategoryID)),
		Changes: []journal.Change{editChange(t.ID, label, "category_id", t.CategoryID, res.CategoryID)},
	}, nil
}

func sameCategory(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
