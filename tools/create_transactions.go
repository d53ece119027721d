package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var createTransactionsTool = mcp.Tool{
	Name:  "create_transactions",
	Title: "Enter transactions",
	Description: "Enter 1 to 100 new transactions on one open account in one write. Each has a date (not in the future, at most 5 years " +
		"ago), an amount (negative for an outflow, positive for an inflow), a payee (an existing one by name or id, or a new name, " +
		"which YNAB creates), and optionally a category ('Inflow: Ready to Assign' for income), a memo, cleared (cleared or " +
		"uncleared, default uncleared) and a flag. Each gets an import id, so calling again with the same arguments after a lost " +
		"answer cannot enter anything twice." + confirmDescription,
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type createTransactionsIn struct {
	planArg
	Account      string          `json:"account" jsonschema:"the open account they go on: name or id"`
	Transactions []newTxArgument `json:"transactions" jsonschema:"1 to 100 transactions"`
	Approved     *bool           `json:"approved,omitempty" jsonschema:"whether they are approved; default true"`
	confirmArg
}

type newTxArgument struct {
	Date     string `json:"date" jsonschema:"YYYY-MM-DD, today or yesterday; not in the future, at most 5 years ago"`
	Amount   Amount `json:"amount" jsonschema:"negative for an outflow (-12.50), positive for an inflow"`
	Payee    string `json:"payee" jsonschema:"an existing payee (name or id), or a new name, which YNAB creates"`
	Category string `json:"category,omitempty" jsonschema:"name, 'Group: Name', or id; 'Inflow: Ready to Assign' for income; none leaves it uncategorized"`
	Memo     string `json:"memo,omitempty" jsonschema:"at most 500 characters"`
	Cleared  string `json:"cleared,omitempty" jsonschema:"cleared or uncleared; default uncleared"`
	Flag     string `json:"flag,omitempty" jsonschema:"red, orange, yellow, green, blue or purple; none or absent for no flag"`
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
}

func (h *handlers) createTransactions(ctx context.Context, req *mcp.CallToolRequest, in createTransactionsIn) (*mcp.CallToolResult, createdOut, error) {
	if n := len(in.Transactions); n == 0 || n > maxCreates {
		return nil, createdOut{}, fmt.Errorf("transactions: give 1 to %d transactions, not %d; send more in several calls", maxCreates, n)
	}
	p, err := h.plan(ctx, in.PlanID, ynab.Fresh)
	if err != nil {
		return nil, createdOut{}, err
	}
	acct, err := openAccount(p, "account", in.Account)
	if err != nil {
		return nil, createdOut{}, err
	}
	now := h.Now().UTC()
	planned := make([]plannedTx, len(in.Transactions))
	for i, t := range in.Transactions {
		if planned[i], err = planNewTx(p, acct, fmt.Sprintf("transactions[%d]", i), t, now); err != nil {
			return nil, createdOut{}, err
		}
	}
	w, made, err := h.createWrite(p, acct, planned, in.Approved == nil || *in.Approved)
	if err != nil {
		return nil, createdOut{}, err
	}
	args := in
	args.Confirmation = ""
	res, out, err := h.confirmAndApply(ctx, req, w, args, in.Confirmation)
	result := createdOut{writeOut: out}
	if out.Status == "applied" {
		result.TransactionIDs = made.ids()
		result.Message = strings.TrimSpace(fmt.Sprintf("Created %d new transaction(s) on %s. %s", len(result.TransactionIDs)-made.already, acct.Name, made.note()))
	}
	return res, result, err
}

// createWrite builds create_transactions' write; made receives what the write created once it
// is applied.
func (h *handlers) createWrite(p *ynab.Plan, acct *ynab.Account, planned []plannedTx, approved bool) (*write, *creation, error) {
	subject := createSubject{AccountID: acct.ID, Approved: approved}
	for _, t := range planned {
		subject.Transactions = append(subject.Transactions, t.subject)
	}
	base, err := createImportBase(p.ID, subject, planned)
	if err != nil {
		return nil, nil, err
	}
	digits := Digits(currency(p))
	w := &write{plan: p, tool: createTransactionsTool.Name, subject: subject,
		first: fmt.Sprintf("Create %d transaction(s) on %s?", len(planned), acct.Name)}
	save := make([]ynab.SaveTransaction, len(planned))
	for i, t := range planned {
		save[i] = t.save(acct.ID, approved, fmt.Sprintf("%s:%d", base, i))
		label := fmt.Sprintf("%s %s %s", t.subject.Date, t.payee, FormatFlow(t.subject.Amount, digits))
		w.lines = append(w.lines, t.line(digits))
		w.changes = append(w.changes, newTxChange(save[i], label))
	}
	if n := countHeld(p, save); n > 0 {
		w.notes = append(w.notes, fmt.Sprintf("%d of these are already in YNAB: an earlier call with the same arguments created them, and they will not be created twice.", n))
	}
	if !approved {
		w.notes = append(w.notes, "They will be left unapproved, for you to approve in YNAB.")
	}
	made := new(creation)
	w.apply = func(ctx context.Context) (journal.Outcome, error) {
		c, err := h.createByImportID(ctx, p, save)
		*made = *c
		return c.outcome(w.changes, err)
	}
	return w, made, nil
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
	if err = t.resolvePayee(p, acct, arg+".payee", in.Payee); err != nil {
		return t, err
	}
	t.category = categoryShort(p, nil)
	if strings.TrimSpace(in.Category) != "" {
		cat, err := transactionCategory(p, arg+".category", in.Category)
		if err != nil {
			return t, err
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
// that name, which YNAB creates with the transaction.
func (t *plannedTx) resolvePayee(p *ynab.Plan, acct *ynab.Account, arg, ref string) error {
	name := strings.TrimSpace(ref)
	y, err := existingPayee(p, arg, name)
	switch {
	case err != nil:
		return err
	case y != nil:
		t.subject.PayeeID, t.payee = y.ID, y.Name
		return transferCheck(p, acct, arg, y)
	}
	if n := utf8.RuneCountInString(name); n > maxPayeeName {
		return fmt.Errorf("%s: a payee name is at most %d characters; this one has %d", arg, maxPayeeName, n)
	}
	t.subject.PayeeName, t.payee, t.newPayee = name, name, true
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
	return nil, fmt.Errorf("%s: %d payees are named %q: give the id of the one you mean (%s)", arg, len(hits), ref, strings.Join(ids, ", "))
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

// save is the transaction as YNAB's POST takes it: only the fields set.
func (t plannedTx) save(accountID string, approved bool, importID string) ynab.SaveTransaction {
	s := ynab.SaveTransaction{ImportID: ynab.Some(importID), AccountID: accountID, Date: t.subject.Date,
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

// createImportBase is the stem of the import ids of one create_transactions call:
// "AVENIR:" and 16 hex digits, to which each transaction adds ":" and its index. It is the
// fingerprint of the subject with each payee named by its name, not its id: a retry after a
// lost answer finds the payee the first attempt created, and must still send the same import
// ids, so that YNAB skips what it already has.
func createImportBase(planID string, s createSubject, planned []plannedTx) (string, error) {
	key := s
	key.Transactions = make([]newTxSubject, len(planned))
	for i, t := range planned {
		key.Transactions[i] = t.subject
		key.Transactions[i].PayeeID, key.Transactions[i].PayeeName = "", strings.ToLower(t.payee)
	}
	fp, err := confirm.Fingerprint(planID, key)
	if err != nil {
		return "", fmt.Errorf("create_transactions: import ids: %w", err)
	}
	return importPrefix + fp[:16], nil
}

// importPrefix starts every import id avenir gives; YNAB's own start with "YNAB:".
const importPrefix = "AVENIR:"

// newTxChange is the journal's record of a transaction to create: the fields sent, import id
// included. Its id is filled in from YNAB's answer.
func newTxChange(s ynab.SaveTransaction, label string) journal.Change {
	after, _ := json.Marshal(s) // plain values: it cannot fail
	return journal.Change{Kind: kindNewTx, Label: label, After: after}
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

// Creating transactions so that nothing is ever created twice. Each transaction carries an
// import id; YNAB skips one whose import id it already holds on the account (and lists it in
// duplicate_import_ids). So a POST may be repeated safely, and what a POST did is known by
// looking the import ids up — in YNAB's answer, in the plan read before, or, when YNAB's answer
// was lost, in the plan read again.

// maxImportGenerations bounds how often a transaction is sent again under a new import id
// because YNAB holds its import id only from transactions deleted since.
const maxImportGenerations = 3

// creation is what became of transactions avenir asked YNAB to create.
type creation struct {
	sent      []ynab.SaveTransaction     // as last sent
	held      []*ynab.TransactionSummary // per transaction, the one YNAB holds under its import id; nil if none
	already   int                        // how many YNAB held before this call's first POST
	lost      bool                       // YNAB's answer to a POST was lost, and the plan was read back instead
	knowledge int64                      // YNAB's server knowledge after the POST
}

// createByImportID creates txs (each with an import id) and finds each in YNAB afterwards. A
// transaction YNAB skipped although no live transaction holds its import id — one held it and
// was deleted since, and YNAB never reuses such an id — is sent again under the next
// generation of its import id (":2", ":3"), so that deleting a transaction never keeps the
// same call from creating it anew. The error is nil when YNAB answered, or when its answer was
// lost and reading the plan back showed what it did.
func (h *handlers) createByImportID(ctx context.Context, p *ynab.Plan, txs []ynab.SaveTransaction) (*creation, error) {
	c := &creation{sent: append([]ynab.SaveTransaction(nil), txs...), held: make([]*ynab.TransactionSummary, len(txs))}
	c.holdFrom(p.Transactions)
	c.already = len(txs) - len(c.missing())
	for gen := 1; ; gen++ {
		todo := c.missing()
		if len(todo) == 0 {
			return c, nil
		}
		var err error
		if p, err = h.postRound(ctx, p, c, todo); err != nil || c.lost || gen == maxImportGenerations {
			return c, err
		}
		for _, i := range c.missing() {
			c.sent[i].ImportID = ynab.Some(fmt.Sprintf("%s:%d", *txs[i].ImportID.Value, gen+1))
		}
	}
}

// postRound sends the transactions todo once and finds them afterwards, and returns the plan
// as last read.
func (h *handlers) postRound(ctx context.Context, p *ynab.Plan, c *creation, todo []int) (*ynab.Plan, error) {
	batch := make([]ynab.SaveTransaction, len(todo))
	for k, i := range todo {
		batch[k] = c.sent[i]
	}
	res, postErr := h.YNAB.CreateTransactions(ctx, p.ID, batch)
	var lost *ynab.NetError
	if postErr != nil && !errors.As(postErr, &lost) {
		return p, postErr // YNAB refused the POST: it wrote nothing
	}
	c.lost = postErr != nil
	c.knowledge = max(c.knowledge, res.ServerKnowledge)
	answered := make([]ynab.TransactionSummary, len(res.Transactions))
	for i, t := range res.Transactions {
		answered[i] = t.TransactionSummary
	}
	c.holdFrom(answered)
	if len(c.missing()) == 0 {
		return p, nil
	}
	fresh, err := h.YNAB.Plan(ctx, p.ID, ynab.Fresh)
	switch {
	case err != nil && c.lost:
		return p, fmt.Errorf("YNAB's answer to the transactions was lost (%v), and reading the plan back failed too (%v): whether they were created is not known. "+
			"Calling again with the same arguments is safe: their import ids keep YNAB from creating any of them twice", postErr, err)
	case err != nil:
		return p, fmt.Errorf("YNAB skipped %d transaction(s) as already there, and reading them back failed: %w", len(c.missing()), err)
	}
	c.holdFrom(fresh.Transactions)
	if c.lost && len(c.missing()) == len(todo) {
		return fresh, fmt.Errorf("%w; a read of the plan afterwards shows none of the transactions, so none was created: call again", postErr)
	}
	return fresh, nil
}

// holdFrom records the live transactions of ts that carry a missing transaction's import id
// on its account.
func (c *creation) holdFrom(ts []ynab.TransactionSummary) {
	want := map[string]int{}
	for _, i := range c.missing() {
		want[*c.sent[i].ImportID.Value] = i
	}
	for k := range ts {
		t := &ts[k]
		if t.Deleted || t.ImportID == nil {
			continue
		}
		if i, ok := want[*t.ImportID]; ok && t.AccountID == c.sent[i].AccountID {
			c.held[i] = t
		}
	}
}

// missing lists the transactions not (yet) found in YNAB.
func (c *creation) missing() []int {
	var out []int
	for i, t := range c.held {
		if t == nil {
			out = append(out, i)
		}
	}
	return out
}

// ids lists the ids of the transactions found in YNAB.
func (c *creation) ids() []string {
	var out []string
	for _, t := range c.held {
		if t != nil {
			out = append(out, t.ID)
		}
	}
	return out
}

// note says what a person should know beyond "created": what was there already, and how the
// outcome was learnt when YNAB's answer was lost.
func (c *creation) note() string {
	var parts []string
	if c.already > 0 {
		parts = append(parts, fmt.Sprintf("%d were already in YNAB from an earlier call with the same arguments, and were not created twice.", c.already))
	}
	if c.lost {
		parts = append(parts, "YNAB's answer was lost; avenir read the plan back and found them there.")
	}
	return strings.Join(parts, " ")
}

// outcome is the journal's record of a creation whose planned changes were drafts: each
// transaction found, with its id and its fields as YNAB holds them. When only some were created
// it is partial, and its note names those that were not.
func (c *creation) outcome(drafts []journal.Change, err error) (journal.Outcome, error) {
	out := journal.Outcome{ServerKnowledge: c.knowledge, Note: c.note()}
	for i, t := range c.held {
		if t != nil {
			out.Changes = append(out.Changes, createdChange(drafts[i], t))
			out.CreatedIDs = append(out.CreatedIDs, t.ID)
		}
	}
	missing := c.missing()
	switch {
	case len(missing) == 0:
		return out, nil
	case len(out.Changes) == 0 && err != nil:
		return journal.Outcome{}, err
	case len(out.Changes) == 0:
		return journal.Outcome{}, errors.New("YNAB created none of the transactions: it still holds their import ids from transactions deleted since. " +
			"Change a detail (the memo, say) to enter them anew")
	}
	names := make([]string, len(missing))
	for k, i := range missing {
		names[k] = drafts[i].Label
	}
	out.Partial = true
	out.Note = strings.TrimSpace(fmt.Sprintf("%s %d transaction(s) were not created: %s.", out.Note, len(missing), strings.Join(names, "; ")))
	if err != nil {
		out.Note += fmt.Sprintf(" (%v)", err)
	}
	return out, err
}

// createdChange is the journal's record of a transaction created, from its draft: the fields
// that were sent, with the values YNAB holds (a payee sent by name is recorded by the id YNAB
// gave it, the import id as finally sent), so that undo and recovery compare like with like.
func createdChange(draft journal.Change, t *ynab.TransactionSummary) journal.Change {
	sent, _ := decodeFields(draft.After) // made by newTxChange: always an object
	now, _ := asFields(t)                // plain values: it cannot fail
	after := make(map[string]any, len(sent))
	for k := range sent {
		if k == "payee_name" {
			k = "payee_id"
		}
		after[k] = now[k]
	}
	return journal.Change{Kind: kindNewTx, ID: t.ID, Label: draft.Label, After: fieldsJSON(after)}
}

// countHeld counts the transactions of txs that p already holds under their import ids.
func countHeld(p *ynab.Plan, txs []ynab.SaveTransaction) int {
	c := &creation{sent: txs, held: make([]*ynab.TransactionSummary, len(txs))}
	c.holdFrom(p.Transactions)
	return len(txs) - len(c.missing())
}
