package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/undo"
	"github.com/avenir-mcp/avenir/ynab"
)

var updateTransactionsTool = mcp.Tool{
	Name:        "update_transactions",
	Title:       "Change transactions",
	Description: "Change fields of 1 to 1000 transactions in one write; others are kept. Undoable." + confirmDescription,
	Meta:        cardMeta,
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type updateTransactionsIn struct {
	planArg
	Changes []txUpdate `json:"changes"`
	confirmArg
}

type txUpdate struct {
	TransactionID string  `json:"transaction_id"`
	Date          string  `json:"date,omitempty"`
	Amount        Amount  `json:"amount,omitzero" jsonschema:"negative for an outflow"`
	Payee         string  `json:"payee,omitempty" jsonschema:"name, id or a new name"`
	Memo          *string `json:"memo,omitempty" jsonschema:"\"\" removes it"`
	Cleared       string  `json:"cleared,omitempty" jsonschema:"cleared or uncleared"`
	Approved      *bool   `json:"approved,omitempty"`
	Flag          string  `json:"flag,omitempty" jsonschema:"a YNAB flag colour, or none"`
	Category      string  `json:"category,omitempty"`
	Account       string  `json:"account,omitempty" jsonschema:"moves it there"`
}

// txEdit is one element of update_transactions' subject: a transaction and the fields it has
// after, every one the call names, as they are sent.
type txEdit struct {
	TransactionID string  `json:"transaction_id"`
	AccountID     string  `json:"account_id,omitempty"`
	Date          string  `json:"date,omitempty"`
	Amount        *int64  `json:"amount,omitempty"`
	PayeeID       string  `json:"payee_id,omitempty"`
	PayeeName     string  `json:"payee_name,omitempty"`
	Memo          *string `json:"memo,omitempty"` // "" removes it
	Cleared       string  `json:"cleared,omitempty"`
	Approved      *bool   `json:"approved,omitempty"`
	Flag          string  `json:"flag,omitempty"` // "none" clears it
	CategoryID    string  `json:"category_id,omitempty"`
}

func (h *handlers) updateTransactions(ctx context.Context, req *mcp.CallToolRequest, in updateTransactionsIn) (*mcp.CallToolResult, writeOut, error) {
	if err := checkEditCount("changes", len(in.Changes)); err != nil {
		return nil, writeOut{}, err
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		ids := make([]string, len(in.Changes))
		for i, c := range in.Changes {
			ids[i] = c.TransactionID
		}
		txs, err := transactionRows(p, "changes", ids)
		if err != nil {
			return nil, err
		}
		ed := &edit{plan: p, tool: updateTransactionsTool.Name}
		subject := make([]txEdit, 0, len(txs))
		now := h.Now().UTC()
		for i, t := range txs {
			e, err := planTxEdit(p, fmt.Sprintf("changes[%d]", i), t, in.Changes[i], now)
			if err != nil {
				return nil, err
			}
			subject = append(subject, e.subject)
			if len(e.after) == 0 {
				if !confirming(ctx, req, in.Confirmation) {
					return nil, fmt.Errorf("changes[%d]: %s already has the values given: nothing to change", i, txLabel(p, t))
				}
				continue // agreed to already, and YNAB holds it since: writing it again harms nothing
			}
			ch := journal.Change{Kind: journal.KindTransaction, ID: t.ID, Label: txLabel(p, t), Before: fieldsJSON(e.before), After: fieldsJSON(e.after)}
			ed.changes = append(ed.changes, ch)
			ed.lines = append(ed.lines, describeChange(p, ch))
			ed.notes = append(ed.notes, e.notes...)
		}
		ed.subject = subject
		ed.first = fmt.Sprintf("Change %d transaction(s)?", len(ed.changes))
		return h.appliedAsJournaled(ed)
	}
	args, code := splitCode(in)
	return h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
}

// txEditPlan is one transaction's change, resolved and checked: the subject's element, the
// fields that change (before and after), and the warnings for the preview.
type txEditPlan struct {
	subject txEdit
	fieldEdit
	notes []string
}

// fieldEdit is the fields of one thing that a change changes, before and after.
type fieldEdit struct {
	before, after map[string]any
}

func newFieldEdit() fieldEdit { return fieldEdit{before: map[string]any{}, after: map[string]any{}} }

// set records a field that changes; one that already has the value is left out.
func (e *fieldEdit) set(field string, before, after any) {
	if !sameValue(before, after) {
		e.before[field], e.after[field] = before, after
	}
}

// planTxEdit resolves and checks one change of update_transactions; arg names it in errors.
func planTxEdit(p *ynab.Plan, arg string, t *ynab.TransactionSummary, c txUpdate, now time.Time) (txEditPlan, error) {
	e := txEditPlan{subject: txEdit{TransactionID: t.ID}, fieldEdit: newFieldEdit()}
	if c.Date == "" && c.Amount.IsZero() && c.Payee == "" && c.Memo == nil && c.Cleared == "" && c.Approved == nil &&
		c.Flag == "" && c.Category == "" && c.Account == "" {
		return e, fmt.Errorf("%s: give at least one field to change: date, amount, payee, memo, cleared, approved, flag, category or account", arg)
	}
	label := txLabel(p, t)
	split := len(p.Lines(t.ID)) > 0
	for _, f := range []struct {
		field string
		given bool
	}{{"date", c.Date != ""}, {"amount", !c.Amount.IsZero()}, {"category", c.Category != ""}} {
		if field := f.field; split && f.given {
			return e, fmt.Errorf("%s.%s: %s is a split, and YNAB ignores a split's %s: only YNAB's apps can change it (or delete the split and enter it anew)", arg, field, label, field)
		}
	}
	acct, _ := p.Account(t.AccountID)
	if c.Account != "" {
		a, err := openAccount(p, arg+".account", c.Account)
		if err != nil {
			return e, err
		}
		if a.ID != t.AccountID && t.TransferAccountID != nil {
			return e, fmt.Errorf("%s.account: %s is a transfer, which YNAB cannot move to another account: delete it and enter it anew", arg, label)
		}
		acct, e.subject.AccountID = a, a.ID
		e.set("account_id", t.AccountID, a.ID)
	}
	if c.Date != "" {
		d, err := newTxDate(arg+".date", c.Date, now)
		if err != nil {
			return e, err
		}
		e.subject.Date = d
		e.set("date", t.Date, d)
	}
	if !c.Amount.IsZero() {
		m, err := c.Amount.Milliunits(Digits(currency(p)))
		if err != nil {
			return e, fmt.Errorf("%s.amount: %w", arg, err)
		}
		e.subject.Amount = &m
		e.set("amount", t.Amount, m)
	}
	if err := e.payee(p, arg, t, acct, c); err != nil {
		return e, err
	}
	if c.Memo != nil {
		memo, err := memoArg(arg+".memo", *c.Memo)
		if err != nil {
			return e, err
		}
		e.subject.Memo = &memo
		e.set("memo", t.Memo, noteAfter(memo))
	}
	if c.Cleared != "" {
		cl, err := newTxCleared(arg+".cleared", c.Cleared)
		if err != nil {
			return e, err
		}
		e.subject.Cleared = cl
		e.set("cleared", t.Cleared, cl)
	}
	if c.Approved != nil {
		e.subject.Approved = c.Approved
		e.set("approved", t.Approved, *c.Approved)
	}
	if c.Flag != "" {
		f, err := flagColor(arg+".flag", c.Flag)
		if err != nil {
			return e, err
		}
		e.subject.Flag = f
		e.set("flag_color", flagJournal(flagOf(t)), flagJournal(f))
	}
	if c.Category != "" {
		cat, err := transactionCategory(p, arg+".category", c.Category)
		if err != nil {
			return e, err
		}
		if err := recategorisable(p, t, arg+".category"); err != nil {
			return e, err
		}
		e.subject.CategoryID = cat.ID
		e.set("category_id", t.CategoryID, cat.ID)
	}
	if t.Cleared == ynab.Reconciled && (e.after["amount"] != nil || e.after["date"] != nil || e.after["account_id"] != nil) {
		e.notes = append(e.notes, fmt.Sprintf("Warning: %s is reconciled: changing its amount, date or account moves the reconciled balance of its account.", label))
	}
	return e, nil
}

// payee resolves a change's payee: an existing payee, or a new name, which YNAB creates. A
// payee that is an account's transfer payee makes the transaction a transfer; between two
// budget accounts YNAB then takes its category away, which the change records, so that undo
// puts it back.
func (e *txEditPlan) payee(p *ynab.Plan, arg string, t *ynab.TransactionSummary, acct *ynab.Account, c txUpdate) error {
	if c.Payee == "" {
		return nil
	}
	arg += ".payee"
	y, name, err := payeeFor(p, acct, arg, c.Payee)
	if err != nil {
		return err
	}
	if t.TransferAccountID != nil && (y == nil || str(t.PayeeID) != y.ID) {
		return fmt.Errorf("%s: %s is a transfer; changing its payee would delete its other side, which an undo could not give back as it was: "+
			"delete it (delete_transactions) and enter it anew instead", arg, txLabel(p, t))
	}
	if y == nil {
		e.subject.PayeeName = name
		e.before["payee_id"], e.after["payee_name"] = t.PayeeID, name
		return nil
	}
	e.subject.PayeeID = y.ID
	e.set("payee_id", t.PayeeID, y.ID)
	if y.TransferAccountID == nil || str(t.PayeeID) == y.ID {
		return nil
	}
	switch {
	case len(p.Lines(t.ID)) > 0:
		return fmt.Errorf("%s: %s is a split, and a split cannot be a transfer", arg, txLabel(p, t))
	case acct.OnBudget && onBudget(p, *y.TransferAccountID):
		if c.Category != "" {
			return fmt.Errorf("%s: a transfer between two budget accounts takes no category; leave category out", arg)
		}
		e.set("category_id", t.CategoryID, nil)
	}
	return nil
}

// newPayeeName checks the name of a payee YNAB is to create: not too long, and not one of the
// names YNAB keeps for itself (an account's transfer payee, its balance adjustments).
func newPayeeName(arg, name string) error {
	if n := utf8.RuneCountInString(name); n > maxPayeeName {
		return fmt.Errorf("%s: a payee name is at most %d characters; this one has %d", arg, maxPayeeName, n)
	}
	if reservedPayee(name) {
		return fmt.Errorf("%s: %q is a payee name YNAB keeps for itself; choose another name (a transfer names its account: use transfer_account where a tool takes it)", arg, name)
	}
	return nil
}

// reservedPayees are the names of the payees YNAB keeps for itself; "Transfer : " starts the
// name of every account's transfer payee. YNAB creates no payee of such a name, nor renames one
// to it.
var reservedPayees = []string{"Starting Balance", "Manual Balance Adjustment", "Reconciliation Balance Adjustment"}

func reservedPayee(name string) bool {
	name = strings.TrimSpace(name)
	if strings.HasPrefix(strings.ToLower(name), "transfer :") {
		return true
	}
	return slices.ContainsFunc(reservedPayees, func(r string) bool { return strings.EqualFold(r, name) })
}

// sameValue reports whether two field values are the same as YNAB holds them (an empty string
// is null).
func sameValue(a, b any) bool {
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	return undo.Holds(map[string]json.RawMessage{"v": ab}, fieldsJSON(map[string]any{"v": json.RawMessage(bb)}))
}

// transactionRows finds the transactions a call names, as transactionsByID does, and says so
// plainly when an id is one of a split's lines: YNAB's API cannot address those.
func transactionRows(p *ynab.Plan, arg string, ids []string) ([]*ynab.TransactionSummary, error) {
	for i, id := range ids {
		id = strings.TrimSpace(id)
		if _, ok := p.Transaction(id); ok {
			continue
		}
		for _, s := range p.Subtransactions {
			if s.ID == id && !s.Deleted {
				parent, ok := p.Transaction(s.TransactionID)
				if !ok {
					break
				}
				return nil, fmt.Errorf("%s[%d]: %s is a line of the split %s, and YNAB's API cannot change a split's lines; name the split itself (%s)",
					arg, i, id, txLabel(p, parent), parent.ID)
			}
		}
	}
	txs, err := transactionsByID(p, arg, ids)
	if err != nil {
		return nil, err
	}
	return txs, nil
}
