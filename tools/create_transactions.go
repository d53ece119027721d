package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var createTransactionsTool = mcp.Tool{
	Name:        "create_transactions",
	Title:       "Enter transactions",
	Description: "Enter 1 to 100 transactions on one account; a retry after a lost answer enters none twice. Undo deletes them." + confirmDescription,
	Meta:        cardMeta,
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
}

type createTransactionsIn struct {
	planArg
	Account      string          `json:"account"`
	Transactions []newTxArgument `json:"transactions"`
	Approved     *bool           `json:"approved,omitempty" jsonschema:"default true"`
	confirmArg
}

type newTxArgument struct {
	Date     string `json:"date"`
	Amount   Amount `json:"amount" jsonschema:"negative for an outflow"`
	Payee    string `json:"payee,omitempty" jsonschema:"name, id or a new name"`
	Transfer string `json:"transfer_account,omitempty" jsonschema:"instead of payee, for a transfer"`
	Category string `json:"category,omitempty"`
	Memo     string `json:"memo,omitempty"`
	Cleared  string `json:"cleared,omitempty" jsonschema:"cleared or uncleared"`
	Flag     string `json:"flag,omitempty" jsonschema:"a YNAB flag colour"`
}

// createdOut is the result of the writes that bring transactions into YNAB.
type createdOut struct {
	writeOut
	TransactionIDs []string `json:"transaction_ids,omitempty" jsonschema:"for applied: the ids of the transactions in YNAB"`
}

// Limits YNAB puts on a new transaction.
const (
	maxCreates     = 100 // per call: the spec's 1 to 100
	maxMemo        = 500
	maxPayeeName   = 200
	maxYearsBack   = 5
	clearedDefault = ynab.Uncleared
)

// createSubject is what create_transactions confirms: the account, the transactions with every
// name resolved, and whether they are approved.
type createSubject struct {
	AccountID    string         `json:"account_id"`
	Transactions []newTxSubject `json:"transactions"`
	Approved     bool           `json:"approved"`
}

// newTxSubject is one transaction of createSubject. A payee YNAB will create is named by
// PayeeName; an existing one by PayeeID.
type newTxSubject struct {
	Date       string `json:"date"`
	Amount     int64  `json:"amount"`
	PayeeID    string `json:"payee_id,omitempty"`
	PayeeName  string `json:"payee_name,omitempty"`
	CategoryID string `json:"category_id,omitempty"`
	Memo       string `json:"memo,omitempty"`
	Cleared    string `json:"cleared"`
	FlagColor  string `json:"flag_color,omitempty"`
}

// plannedTx is one transaction to create, resolved and checked.
type plannedTx struct {
	subject  newTxSubject
	payee    string // the payee's name
	newPayee bool
	category string // as the preview names it
	transfer string // for a transfer: the other account's name
}

func (h *handlers) createTransactions(ctx context.Context, req *mcp.CallToolRequest, in createTransactionsIn) (*mcp.CallToolResult, createdOut, error) {
	if n := len(in.Transactions); n == 0 || n > maxCreates {
		return nil, createdOut{}, fmt.Errorf("transactions: give 1 to %d transactions, not %d; send more in several calls", maxCreates, n)
	}
	var (
		acct *ynab.Account
		ed   *edit
	)
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		var err error
		if acct, err = openAccount(p, "account", in.Account); err != nil {
			return nil, err
		}
		now := h.Now().UTC()
		planned := make([]plannedTx, len(in.Transactions))
		for i, t := range in.Transactions {
			if planned[i], err = planNewTx(p, acct, fmt.Sprintf("transactions[%d]", i), t, now); err != nil {
				return nil, err
			}
		}
		if err := checkNewBalance(p, acct, planned); err != nil {
			return nil, err
		}
		ed, err = h.createWrite(ctx, p, acct, planned, in.Approved == nil || *in.Approved)
		return ed, err
	}
	args, code := splitCode(in)
	res, out, err := h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
	result := createdOut{writeOut: out}
	if op, ok := out.applied(); ok {
		entered, already := 0, map[string]bool{}
		for _, c := range op.Changes {
			if c.ID != "" {
				result.TransactionIDs = append(result.TransactionIDs, c.ID)
			}
			if c.EnteredBy != "" {
				already[c.EnteredBy] = true
			} else {
				entered++
			}
		}
		msg := fmt.Sprintf("Created %d new transaction(s) on %s.", entered, acct.Name)
		if len(already) > 0 {
			msg = fmt.Sprintf("Created %d new transaction(s) on %s; %d were already in YNAB, entered by operation %s, and were not entered again.",
				entered, acct.Name, len(op.Changes)-entered, strings.Join(slices.Sorted(maps.Keys(already)), ", "))
		}
		if op.ReadBack {
			msg += " YNAB's answer was lost; avenir read YNAB and found them there."
		}
		result.Message = msg
	}
	return res, result, err
}

// createWrite builds create_transactions' write on p. Transactions an earlier identical call
// already entered (its caller may not have heard YNAB's answer) are marked as entered by it and
// are not sent again.
func (h *handlers) createWrite(ctx context.Context, p *ynab.Plan, acct *ynab.Account, planned []plannedTx, approved bool) (*edit, error) {
	subject := createSubject{AccountID: acct.ID, Approved: approved}
	for _, t := range planned {
		subject.Transactions = append(subject.Transactions, t.subject)
	}
	digits := Digits(currency(p))
	ed := &edit{plan: p, tool: createTransactionsTool.Name, subject: subject,
		first: fmt.Sprintf("Create %d transaction(s) on %s?", len(planned), acct.Name)}
	for _, t := range planned {
		label := fmt.Sprintf("%s %s %s", t.subject.Date, t.payee, FormatFlow(t.subject.Amount, digits))
		ed.lines = append(ed.lines, t.line(digits))
		ed.changes = append(ed.changes, newTxChange(t.save(acct.ID, approved), label))
	}
	key := retryKey(p, subject)
	same := func(op journal.Operation) bool {
		var s createSubject
		return json.Unmarshal(op.Subject, &s) == nil && retryKey(p, s) == key
	}
	if err := h.enteredBefore(ctx, p, ed.tool, same, ed.changes); err != nil {
		return nil, err
	}
	if n := countEntered(ed.changes); n > 0 {
		ed.notes = append(ed.notes, fmt.Sprintf("%d of these are already in YNAB: an earlier identical call entered them, and its outcome may not have reached you. They will not be entered twice.", n))
	}
	if !approved {
		ed.notes = append(ed.notes, "They will be left unapproved, for you to approve in YNAB.")
	}
	ed.apply = func(ctx context.Context) (journal.Outcome, error) {
		out := journal.Outcome{Changes: slices.Clone(ed.changes)}
		for i := range out.Changes {
			if out.Changes[i].EnteredBy != "" {
				out.Changes[i].Outcome = journal.OutcomeApplied
			}
		}
		k, err := h.enterTransactions(ctx, p.ID, out.Changes)
		out.ServerKnowledge = k
		return out, err
	}
	return ed, nil
}

// retryKey identifies a create_transactions subject across a retry: the payees by name, since a
// retry finds as an existing payee the one the first attempt created.
func retryKey(p *ynab.Plan, s createSubject) string {
	key := s
	key.Transactions = slices.Clone(s.Transactions)
	for i, t := range key.Transactions {
		name := t.PayeeName
		if t.PayeeID != "" {
			name = payeeName(p, &t.PayeeID)
		}
		key.Transactions[i].PayeeID, key.Transactions[i].PayeeName = "", strings.ToLower(strings.TrimSpace(name))
	}
	fp, err := confirm.Fingerprint(p.ID, key)
	if err != nil {
		return ""
	}
	return fp
}

// countEntered counts the changes an earlier operation entered.
func countEntered(cs []journal.Change) int {
	n := 0
	for _, c := range cs {
		if c.EnteredBy != "" {
			n++
		}
	}
	return n
}

// planNewTx resolves and checks one transaction of create_transactions; arg names it in errors.
func planNewTx(p *ynab.Plan, acct *ynab.Account, arg string, in newTxArgument, now time.Time) (plannedTx, error) {
	var t plannedTx
	var err error
	if t.subject.Date, err = newTxDate(arg+".date", in.Date, now); err != nil {
		return t, err
	}
	if t.subject.Amount, err = in.Amount.Milliunits(Digits(currency(p))); err != nil {
		return t, fmt.Errorf("%s.amount: %w", arg, err)
	}
	if err = t.resolvePayee(p, acct, arg, in); err != nil {
		return t, err
	}
	t.category = categoryShort(p, nil)
	if strings.TrimSpace(in.Category) != "" {
		cat, err := transactionCategory(p, arg+".category", in.Category)
		if err != nil {
			return t, err
		}
		if to, ok := p.Account(str(transferTarget(p, t.subject.PayeeID))); ok && acct.OnBudget && to.OnBudget {
			return t, fmt.Errorf("%s.category: a transfer between two budget accounts (%s to %s) takes no category; leave category out", arg, acct.Name, to.Name)
		}
		t.subject.CategoryID, t.category = cat.ID, cat.Name
	}
	if n := utf8.RuneCountInString(in.Memo); n > maxMemo {
		return t, fmt.Errorf("%s.memo: it is %d characters long; YNAB takes at most %d", arg, n, maxMemo)
	}
	t.subject.Memo = in.Memo
	if t.subject.Cleared, err = newTxCleared(arg+".cleared", in.Cleared); err != nil {
		return t, err
	}
	if strings.TrimSpace(in.Flag) != "" {
		c, err := flagColor(arg+".flag", in.Flag)
		if err != nil {
			return t, err
		}
		t.subject.FlagColor = flagWire(c)
	}
	return t, nil
}

// newTxDate reads a new transaction's date: YNAB takes none in the future or over 5 years ago.
func newTxDate(arg, s string, now time.Time) (string, error) {
	date, err := ParseDate(s, now)
	if err != nil {
		return "", fmt.Errorf("%s: %w", arg, err)
	}
	today := now.Format(time.DateOnly)
	oldest := now.AddDate(-maxYearsBack, 0, 0).Format(time.DateOnly)
	switch {
	case date > today:
		return "", fmt.Errorf("%s: %s is in the future (today is %s); YNAB takes no future transactions: schedule it in YNAB instead", arg, date, today)
	case date < oldest:
		return "", fmt.Errorf("%s: %s is more than %d years ago; YNAB takes no transactions before %s", arg, date, maxYearsBack, oldest)
	}
	return date, nil
}

// newTxCleared reads a new transaction's cleared state: only reconcile_account reconciles.
func newTxCleared(arg, s string) (string, error) {
	switch c := strings.ToLower(strings.TrimSpace(s)); c {
	case "":
		return clearedDefault, nil
	case ynab.Cleared, ynab.Uncleared:
		return c, nil
	}
	return "", fmt.Errorf("%s: %s is not a cleared state: use cleared or uncleared (reconcile_account reconciles)", arg, quoted(s))
}

// resolvePayee finds the payee a new transaction names: an existing payee, else a new payee of
// that name, which YNAB creates with the transaction; or for transfer_account, that account's
// transfer payee.
func (t *plannedTx) resolvePayee(p *ynab.Plan, acct *ynab.Account, arg string, in newTxArgument) error {
	if strings.TrimSpace(in.Transfer) != "" {
		if strings.TrimSpace(in.Payee) != "" {
			return fmt.Errorf("%s: give payee or transfer_account, not both: a transfer's payee is the other account", arg)
		}
		to, err := openAccount(p, arg+".transfer_account", in.Transfer)
		if err != nil {
			return err
		}
		y, ok := p.Payee(str(to.TransferPayeeID))
		switch {
		case to.ID == acct.ID:
			return fmt.Errorf("%s.transfer_account: %s is the account the transaction is on; a transfer needs another account", arg, to.Name)
		case !ok || y.Deleted:
			return fmt.Errorf("%s.transfer_account: %s has no transfer payee in this plan as avenir read it; try again in a moment", arg, to.Name)
		}
		t.subject.PayeeID, t.payee, t.transfer = y.ID, y.Name, to.Name
		return nil
	}
	y, name, err := payeeFor(p, acct, arg+".payee", in.Payee)
	switch {
	case err != nil:
		return err
	case y != nil:
		t.subject.PayeeID, t.payee = y.ID, y.Name
		return nil
	}
	t.subject.PayeeName, t.payee, t.newPayee = name, name, true
	return nil
}

// payeeFor resolves the payee a write gives a transaction (or a scheduled one) on acct: an
// existing payee — a transfer payee only of another open account — or else a new name, which
// YNAB creates with the write.
func payeeFor(p *ynab.Plan, acct *ynab.Account, arg, ref string) (*ynab.Payee, string, error) {
	name := strings.TrimSpace(ref)
	y, err := existingPayee(p, arg, name)
	switch {
	case err != nil:
		return nil, "", err
	case y != nil:
		return y, "", transferCheck(p, acct, arg, y)
	}
	return nil, name, newPayeeName(arg, name)
}

// transferTarget is the account a payee transfers to, or nil for a payee that is no transfer.
func transferTarget(p *ynab.Plan, payeeID string) *string {
	if y, ok := p.Payee(payeeID); ok {
		return y.TransferAccountID
	}
	return nil
}

// existingPayee finds the payee ref names, by id or by name (case-insensitive), or nil when its
// name is new. An id that names no payee is an error, never a new payee's name.
func existingPayee(p *ynab.Plan, arg, ref string) (*ynab.Payee, error) {
	switch {
	case ref == "":
		return nil, fmt.Errorf("%s: give a payee: an existing one (list_payees shows them) or the name of a new one", arg)
	case uuidLike.MatchString(ref):
		if y, ok := p.Payee(ref); ok && !y.Deleted {
			return y, nil
		}
		return nil, fmt.Errorf("%s: there is no payee with id %s in this plan; list_payees shows them", arg, ref)
	}
	var hits []*ynab.Payee
	var ids []string
	for i := range p.Payees {
		if y := &p.Payees[i]; !y.Deleted && strings.EqualFold(y.Name, ref) {
			hits, ids = append(hits, y), append(ids, y.ID)
		}
	}
	switch len(hits) {
	case 0:
		return nil, nil
	case 1:
		return hits[0], nil
	}
	return nil, fmt.Errorf("%s: %d payees are named %s: give the id of the one you mean (%s)", arg, len(hits), quoted(ref), strings.Join(ids, ", "))
}

// transferCheck refuses a transfer payee that YNAB would refuse: one for the account itself,
// or for a closed account.
func transferCheck(p *ynab.Plan, acct *ynab.Account, arg string, y *ynab.Payee) error {
	if y.TransferAccountID == nil {
		return nil
	}
	to, ok := p.Account(*y.TransferAccountID)
	switch {
	case *y.TransferAccountID == acct.ID:
		return fmt.Errorf("%s: %s is a transfer to %s itself; a transfer needs another account", arg, y.Name, acct.Name)
	case !ok || to.Deleted || to.Closed:
		return fmt.Errorf("%s: %s is a transfer to a closed account; reopen it in YNAB first", arg, y.Name)
	}
	return nil
}

// line is the transaction as the preview shows it: "2026-12-02 Coolblue (new payee) 19.99,
// Elektronica", then whatever else is set.
func (t plannedTx) line(digits int) string {
	payee := t.payee
	if t.newPayee {
		payee += " (new payee)"
	}
	parts := []string{fmt.Sprintf("%s %s %s", t.subject.Date, payee, FormatFlow(t.subject.Amount, digits)), t.category}
	if t.transfer != "" {
		parts[1] = "a transfer: YNAB enters the other side on " + t.transfer
		if t.subject.CategoryID != "" {
			parts = append(parts, t.category)
		}
	}
	if t.subject.Memo != "" {
		parts = append(parts, "memo "+quoted(t.subject.Memo))
	}
	if t.subject.Cleared == ynab.Cleared {
		parts = append(parts, ynab.Cleared)
	}
	if t.subject.FlagColor != "" {
		parts = append(parts, t.subject.FlagColor+" flag")
	}
	return strings.Join(parts, ", ")
}

// save is the transaction as YNAB's POST takes it: only the fields set, and no import id (it is
// entered as a person would enter it).
func (t plannedTx) save(accountID string, approved bool) ynab.SaveTransaction {
	s := ynab.SaveTransaction{AccountID: accountID, Date: t.subject.Date,
		Amount: ynab.Some(t.subject.Amount), Cleared: t.subject.Cleared, Approved: ynab.Some(approved)}
	if t.newPayee {
		s.PayeeName = ynab.Some(t.subject.PayeeName)
	} else {
		s.PayeeID = ynab.Some(t.subject.PayeeID)
	}
	if t.subject.CategoryID != "" {
		s.CategoryID = ynab.Some(t.subject.CategoryID)
	}
	if t.subject.Memo != "" {
		s.Memo = ynab.Some(t.subject.Memo)
	}
	if t.subject.FlagColor != "" {
		s.FlagColor = ynab.Some(t.subject.FlagColor)
	}
	return s
}

// newTxChange is the journal's record of a transaction to create: the fields sent. Its id is
// filled in from YNAB's answer, or from reading YNAB (findEntered).
func newTxChange(s ynab.SaveTransaction, label string) journal.Change {
	after, _ := json.Marshal(s) // plain values: it cannot fail
	return journal.Change{Kind: journal.KindNewTransaction, Label: label, After: after}
}

// openAccount resolves an account a write puts transactions on: it must exist and be open.
func openAccount(p *ynab.Plan, arg, ref string) (*ynab.Account, error) {
	c, err := resolve("account", arg, ref, accountCandidates(p, true))
	if err != nil {
		return nil, err
	}
	a, _ := p.Account(c.id)
	if a.Closed {
		return nil, fmt.Errorf("%s: %s is closed; reopen it in YNAB first, or choose an open account (list_accounts shows them)", arg, a.Name)
	}
	return a, nil
}

// createdChange is the journal's record of a transaction created, from its draft: the fields
// that were sent, with the values YNAB holds (a payee sent by name is recorded by the id YNAB
// gave it, the import id as finally sent), so that undo and recovery compare like with like.
func createdChange(draft journal.Change, t *ynab.Transaction) journal.Change {
	sent, _ := decodeFields(draft.After)     // made by newTxChange: always an object
	now, _ := asFields(t.TransactionSummary) // plain values: it cannot fail
	if lines := splitLines(t.Subtransactions); len(lines) > 0 {
		b, _ := json.Marshal(lines) // plain values: it cannot fail
		now["subtransactions"] = b
	}
	after := make(map[string]any, len(sent))
	for k := range sent {
		switch k {
		case "payee_name":
			k = "payee_id"
		case "transfer":
			continue // the other side's own fields: recorded once they are written (restoreOtherSides)
		}
		after[k] = now[k]
	}
	return journal.Change{Kind: journal.KindNewTransaction, ID: t.ID, Label: draft.Label, After: fieldsJSON(after)}
}
