package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/avenir-mcp/avenir/ynab"
)

// Writes to transactions. As YNAB does, a save item sets only the fields it carries; on an
// existing split the date, amount and category are ignored, and new lines are refused (YNAB's
// API cannot change a split's lines). A refused write is rolled back whole, a bulk one too, and
// its error names the item: "(index: N)".

func postTransactions(c *call) (int, any, error) {
	var body struct {
		Transaction  *ynab.SaveTransaction   `json:"transaction"`
		Transactions *[]ynab.SaveTransaction `json:"transactions"`
	}
	if err := c.decode(&body); err != nil {
		return 0, nil, err
	}
	switch {
	case body.Transaction != nil && body.Transactions != nil:
		return 0, nil, badRequest("Send either transaction or transactions, not both.")
	case body.Transaction != nil:
		in := *body.Transaction
		if c.p.importTaken(in) {
			return 0, nil, ynabError("409", fmt.Sprintf("A transaction with import_id %q already exists on this account.", *in.ImportID.Value))
		}
		t, err := c.create(in)
		if err != nil {
			return 0, nil, err
		}
		k, err := c.commit()
		if err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, map[string]any{"transaction_ids": []string{t.ID},
			"transaction": c.served(t.ID), "server_knowledge": k}, nil
	case body.Transactions != nil && len(*body.Transactions) > 0:
		ids, duplicates, k, err := c.createMany(*body.Transactions)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, map[string]any{"transaction_ids": ids, "transactions": c.servedAll(ids),
			"duplicate_import_ids": duplicates, "server_knowledge": k}, nil
	}
	return 0, nil, badRequest(`Send a transaction, {"transaction":{…}}, or a non-empty list, {"transactions":[…]}.`)
}

// createMany creates the transactions of a bulk write and commits them: a duplicate import_id
// is skipped and listed, any other problem refuses the whole write.
func (c *call) createMany(items []ynab.SaveTransaction) (ids, duplicates []string, knowledge int64, err error) {
	ids, duplicates = []string{}, []string{}
	for i, in := range items {
		if c.p.importTaken(in) {
			duplicates = append(duplicates, *in.ImportID.Value)
			continue
		}
		t, err := c.create(in)
		if err != nil {
			return nil, nil, 0, withIndex(err, i)
		}
		ids = append(ids, t.ID)
	}
	knowledge, err = c.commit()
	return ids, duplicates, knowledge, err
}

// postBulkTransactions is the deprecated POST /budgets/{budget_id}/transactions/bulk, dropped
// from the spec in 2023 but still shipped by YNAB's JS SDK (DeprecatedApi): the bulk form of
// POST /transactions, answering {"bulk":{transaction_ids, duplicate_import_ids}}.
func postBulkTransactions(c *call) (int, any, error) {
	var body struct {
		Transactions []ynab.SaveTransaction `json:"transactions"`
	}
	if err := c.decode(&body); err != nil {
		return 0, nil, err
	}
	if len(body.Transactions) == 0 {
		return 0, nil, badRequest(`Send a non-empty list of transactions: {"transactions":[…]}.`)
	}
	ids, duplicates, _, err := c.createMany(body.Transactions)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, map[string]any{"bulk": map[string]any{"transaction_ids": ids, "duplicate_import_ids": duplicates}}, nil
}

func patchTransactions(c *call) (int, any, error) {
	var body struct {
		Transactions []ynab.SaveTransaction `json:"transactions"`
	}
	if err := c.decode(&body); err != nil {
		return 0, nil, err
	}
	if len(body.Transactions) == 0 {
		return 0, nil, badRequest(`Send the transactions to update: {"transactions":[{"id":…, …}]}.`)
	}
	ids := []string{}
	for i, in := range body.Transactions {
		t, err := c.target(in)
		if err == nil {
			err = c.update(t, in)
		}
		if err != nil {
			return 0, nil, withIndex(err, i)
		}
		ids = append(ids, t.ID)
	}
	k, err := c.commit()
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"transaction_ids": ids, "transactions": c.servedAll(ids), "server_knowledge": k}, nil
}

func putTransaction(c *call) (int, any, error) {
	var body struct {
		Transaction *ynab.SaveTransaction `json:"transaction"`
	}
	if err := c.decode(&body); err != nil {
		return 0, nil, err
	}
	id := c.params["transaction_id"]
	t := c.p.txn(id)
	if t == nil {
		return 0, nil, c.missingTransaction(id)
	}
	if body.Transaction == nil {
		return 0, nil, badRequest(`The body needs a transaction object: {"transaction":{…}}.`)
	}
	if err := c.update(t, *body.Transaction); err != nil {
		return 0, nil, err
	}
	k, err := c.commit()
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"transaction": c.served(t.ID), "server_knowledge": k}, nil
}

func deleteTransaction(c *call) (int, any, error) {
	id := c.params["transaction_id"]
	t := c.p.txn(id)
	if t == nil {
		return 0, nil, c.missingTransaction(id)
	}
	if t.TransferTransactionID != nil {
		if mirror := c.p.txn(*t.TransferTransactionID); mirror != nil {
			mirror.remove()
		}
	}
	t.remove()
	k, err := c.commit()
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"transaction": c.served(t.ID), "server_knowledge": k}, nil
}

// importTransactions brings in what the bank holds for the linked accounts: the first time the
// sample's couple of new transactions, then nothing (200 instead of 201).
func importTransactions(c *call) (int, any, error) {
	if len(c.p.BankFeed) == 0 {
		return http.StatusOK, map[string]any{"transaction_ids": []string{}}, nil
	}
	ids := []string{}
	for _, item := range c.p.BankFeed {
		date := addDays(c.v.today, -item.DaysAgo)
		t := &txn{TransactionSummary: ynab.TransactionSummary{ID: c.p.newID("transaction"), Date: date,
			Amount: item.Amount, Cleared: ynab.Cleared, AccountID: item.AccountID,
			ImportID:                ptr(c.p.importID(item.AccountID, item.Amount, date)),
			ImportPayeeName:         ptr(item.PayeeName),
			ImportPayeeNameOriginal: ptr(item.Statement)}}
		if user := c.p.matchFor(t); user != nil {
			user.match(t)
			ids = append(ids, user.ID)
			continue
		}
		t.PayeeID = ptr(c.payeeNamed(item.PayeeName))
		c.p.Transactions = append(c.p.Transactions, t)
		ids = append(ids, t.ID)
	}
	c.p.BankFeed = nil
	if _, err := c.commit(); err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, map[string]any{"transaction_ids": ids}, nil
}

// missingTransaction is the 404 for a transaction id in the path that names no transaction:
// a split's line (a row of type subtransaction in the hybrid lists) is not one.
func (c *call) missingTransaction(id string) error {
	e := notFound("transaction", id)
	if c.p.isLine(id) {
		e.Detail += " It is a line of a split (a subtransaction), which the API cannot write: write its parent."
	}
	return e
}

// isLine reports whether id names a live line of a split.
func (p *plan) isLine(id string) bool {
	for _, t := range p.Transactions {
		for _, s := range t.Subs {
			if s.ID == id && !s.Deleted && !t.Deleted {
				return true
			}
		}
	}
	return false
}

// importID is the id YNAB's direct import gives: YNAB:<milliunits>:<date>:<occurrence>.
func (p *plan) importID(accountID string, amount int64, date string) string {
	prefix := fmt.Sprintf("YNAB:%d:%s:", amount, date)
	n := 1
	for _, t := range p.Transactions {
		if t.AccountID == accountID && t.ImportID != nil && strings.HasPrefix(*t.ImportID, prefix) {
			n++
		}
	}
	return prefix + strconv.Itoa(n)
}

// importTaken reports whether a new transaction's import_id is already on its account (a
// deleted transaction keeps its import_id taken, so an import never brings it back).
func (p *plan) importTaken(in ynab.SaveTransaction) bool {
	if in.ImportID.Value == nil {
		return false
	}
	for _, t := range p.Transactions {
		if t.AccountID == in.AccountID && t.ImportID != nil && *t.ImportID == *in.ImportID.Value {
			return true
		}
	}
	return false
}

// served returns a transaction as the API answers with it, after a commit.
func (c *call) served(id string) ynab.Transaction { return c.f.transaction(c.v.txns[c.v.txnByID[id]]) }

func (c *call) servedAll(ids []string) []ynab.Transaction {
	out := make([]ynab.Transaction, len(ids))
	for i, id := range ids {
		out[i] = c.served(id)
	}
	return out
}

// target finds the transaction a PATCH item addresses: by id, else by import_id.
func (c *call) target(in ynab.SaveTransaction) (*txn, error) {
	switch {
	case in.ID != "":
		if t := c.p.txn(in.ID); t != nil {
			return t, nil
		}
		if c.p.isLine(in.ID) {
			return nil, badRequest("Transaction %q does not exist in this plan: it is a line of a split (a subtransaction), which the API cannot write.", in.ID)
		}
		return nil, badRequest("Transaction %q does not exist in this plan.", in.ID)
	case in.ImportID.Value != nil:
		for _, t := range c.p.Transactions {
			if !t.Deleted && t.ImportID != nil && *t.ImportID == *in.ImportID.Value && (in.AccountID == "" || in.AccountID == t.AccountID) {
				return t, nil
			}
		}
		return nil, badRequest("No transaction in this plan has import_id %q.", *in.ImportID.Value)
	}
	return nil, badRequest("Each transaction needs an id, or an import_id to find it by.")
}

// create adds a new transaction from a save item: account_id, date and amount are required,
// and it is uncleared and unapproved unless the item says otherwise.
func (c *call) create(in ynab.SaveTransaction) (*txn, error) {
	switch {
	case in.AccountID == "":
		return nil, badRequest("account_id is required.")
	case in.Date == "":
		return nil, badRequest("date is required.")
	case in.Amount.Value == nil:
		return nil, badRequest("amount is required.")
	}
	t := &txn{TransactionSummary: ynab.TransactionSummary{ID: c.p.newID("transaction"), Cleared: ynab.Uncleared}}
	if in.ImportID.Value != nil {
		if err := validLength("import_id", *in.ImportID.Value, 36); err != nil {
			return nil, err
		}
		t.ImportID = ptr(*in.ImportID.Value)
	}
	c.p.Transactions = append(c.p.Transactions, t)
	if err := c.update(t, in); err != nil {
		return nil, err
	}
	if t.ImportID != nil {
		if user := c.p.matchFor(t); user != nil {
			c.p.Transactions = c.p.Transactions[:len(c.p.Transactions)-1]
			user.match(t)
			return user, nil
		}
	}
	return t, nil
}

// matchWindow is how far apart, in days, an imported transaction and a user-entered one may be
// dated and still match (YNAB's import_id documentation: "+/-10 days").
const matchWindow = 10

// matchFor finds the user-entered transaction an imported one matches, as YNAB does for the
// API's import_id and for its bank imports: on the same account, with the same amount, dated
// within matchWindow days, not imported itself (no import_id) and not matched yet; the closest
// date wins, then the earliest entered. A split or a transfer on either side never matches.
func (p *plan) matchFor(imported *txn) *txn {
	if imported.isSplit() || imported.TransferAccountID != nil {
		return nil
	}
	var best *txn
	bestGap := matchWindow + 1
	for _, t := range p.Transactions {
		if t == imported || t.Deleted || t.AccountID != imported.AccountID || t.Amount != imported.Amount ||
			t.ImportID != nil || t.MatchedTransactionID != nil || t.isSplit() || t.TransferAccountID != nil {
			continue
		}
		if gap := abs(int64(daysBetween(t.Date, imported.Date))); int(gap) < bestGap {
			best, bestGap = t, int(gap)
		}
	}
	return best
}

// match merges an imported transaction into the user-entered one it matched. The pair shows as
// one transaction, as in YNAB's register: the user-entered one, keeping its id, date, payee,
// category, memo, flag and approval, taking the import's import_id and import payee names,
// cleared if the import was (unless already reconciled), and pointing at the import through
// matched_transaction_id. The imported half is hidden: no list or GET serves it.
func (t *txn) match(imported *txn) {
	t.ImportID, t.MatchedTransactionID = imported.ImportID, ptr(imported.ID)
	t.ImportPayeeName, t.ImportPayeeNameOriginal = imported.ImportPayeeName, imported.ImportPayeeNameOriginal
	if imported.Cleared == ynab.Cleared && t.Cleared == ynab.Uncleared {
		t.Cleared = ynab.Cleared
	}
}

// update writes the fields a save item carries onto a transaction.
func (c *call) update(t *txn, in ynab.SaveTransaction) error {
	split := t.isSplit()
	if in.AccountID != "" && in.AccountID != t.AccountID {
		a := c.p.account(in.AccountID)
		switch {
		case a == nil:
			return badRequest("account_id %q is not an account of this plan.", in.AccountID)
		case t.TransferAccountID != nil:
			return badRequest("A transfer cannot be moved to another account: delete it and create it again.")
		}
		t.AccountID = a.ID
	}
	if in.Date != "" && !split {
		if err := c.validDate(in.Date); err != nil {
			return err
		}
		t.Date = in.Date
	}
	if in.Amount.Set && !split {
		if in.Amount.Value == nil {
			return badRequest("amount cannot be null.")
		}
		t.Amount = *in.Amount.Value
	}
	if err := c.updateDetails(t, in); err != nil {
		return err
	}
	if err := c.updatePayee(t, in); err != nil {
		return err
	}
	if in.CategoryID.Set && !split {
		id, err := c.categoryFor(in.CategoryID.Value, t.CategoryID)
		if err != nil {
			return err
		}
		t.CategoryID = id
	}
	if len(in.Subtransactions) > 0 {
		if err := c.makeSplit(t, in); err != nil {
			return err
		}
	}
	return c.syncTransfer(t)
}

// updateDetails writes the memo, cleared state, approval and flag.
func (c *call) updateDetails(t *txn, in ynab.SaveTransaction) error {
	if in.Memo.Set {
		if in.Memo.Value != nil {
			if err := validLength("memo", *in.Memo.Value, 500); err != nil {
				return err
			}
		}
		t.Memo = in.Memo.Value
	}
	if in.Cleared != "" {
		if !slices.Contains([]string{ynab.Cleared, ynab.Uncleared, ynab.Reconciled}, in.Cleared) {
			return badRequest("cleared must be cleared, uncleared or reconciled, not %q.", in.Cleared)
		}
		t.Cleared = in.Cleared
	}
	if in.Approved.Set {
		if in.Approved.Value == nil {
			return badRequest("approved must be true or false, not null.")
		}
		t.Approved = *in.Approved.Value
	}
	if in.FlagColor.Set {
		flag, err := validFlag(in.FlagColor.Value)
		if err != nil {
			return err
		}
		t.FlagColor = flag
	}
	return nil
}

func validFlag(color *string) (*string, error) {
	if color == nil || *color == "" {
		return nil, nil
	}
	if !slices.Contains(ynab.FlagColors, *color) {
		return nil, badRequest("flag_color must be one of %s, or empty, not %q.", strings.Join(ynab.FlagColors, ", "), *color)
	}
	return ptr(*color), nil
}

// updatePayee sets the payee: payee_id, else payee_name (an existing payee of that name, or a
// new one), else a null payee_id clears it.
func (c *call) updatePayee(t *txn, in ynab.SaveTransaction) error {
	switch {
	case in.PayeeID.Value != nil:
		py := c.p.payee(*in.PayeeID.Value)
		if py == nil {
			return badRequest("payee_id %q is not a payee of this plan.", *in.PayeeID.Value)
		}
		t.PayeeID = ptr(py.ID)
	case in.PayeeName.Value != nil:
		id, err := c.payeeByName("payee_name", *in.PayeeName.Value)
		if err != nil {
			return err
		}
		t.PayeeID = ptr(id)
	case in.PayeeID.Set:
		t.PayeeID = nil
	}
	return nil
}

// payeeNamed returns the id of the payee with this name, creating the payee if there is none.
func (c *call) payeeNamed(name string) string {
	if py := c.p.payeeNamed(name); py != nil {
		return py.ID
	}
	py := &ynab.Payee{ID: c.p.newID("payee"), Name: name}
	c.p.Payees = append(c.p.Payees, py)
	return py.ID
}

// payeeByName resolves a payee_name as YNAB does: the payee of that name, else a new one; a
// name YNAB reserves (see reservedPayee) makes no new payee.
func (c *call) payeeByName(field, name string) (string, error) {
	if err := validName(field, name, 200); err != nil {
		return "", err
	}
	if py := c.p.payeeNamed(name); py != nil {
		return py.ID, nil
	}
	if reservedPayee(name) {
		return "", badRequest("%s %q is a payee name YNAB reserves for itself: choose another name.", field, name)
	}
	return c.payeeNamed(name), nil
}

// categoryFor resolves a category_id from a body. A credit card payment category is ignored,
// as YNAB does: the category stays what it was.
func (c *call) categoryFor(id, current *string) (*string, error) {
	if id == nil {
		return nil, nil
	}
	cat := c.p.category(*id)
	switch {
	case cat == nil:
		return nil, badRequest("category_id %q is not a category of this plan.", *id)
	case cat.CardAccountID != "":
		return current, nil
	}
	return ptr(cat.ID), nil
}

// makeSplit turns a transaction into a split with the lines of the save item.
func (c *call) makeSplit(t *txn, in ynab.SaveTransaction) error {
	if t.isSplit() {
		return badRequest("Updating subtransactions on an existing split transaction is not supported.")
	}
	if in.CategoryID.Value != nil {
		return badRequest("A split's category_id must be null: its categories go on its subtransactions.")
	}
	var sum int64
	subs := make([]ynab.SubTransaction, len(in.Subtransactions))
	for i, s := range in.Subtransactions {
		l := ynab.SubTransaction{ID: uuidFor(t.ID, "line", strconv.Itoa(i)), TransactionID: t.ID, Amount: s.Amount}
		if s.Memo != nil {
			if err := validLength("memo", *s.Memo, 500); err != nil {
				return err
			}
			l.Memo = ptr(*s.Memo)
		}
		switch {
		case s.PayeeID != nil:
			if c.p.payee(*s.PayeeID) == nil {
				return badRequest("subtransaction payee_id %q is not a payee of this plan.", *s.PayeeID)
			}
			l.PayeeID = ptr(*s.PayeeID)
		case s.PayeeName != nil:
			id, err := c.payeeByName("payee_name", *s.PayeeName)
			if err != nil {
				return err
			}
			l.PayeeID = ptr(id)
		}
		if l.PayeeID != nil && c.p.accountOfTransferPayee(*l.PayeeID) != nil {
			return badRequest("A transfer on a line of a split is not supported by the sandbox.")
		}
		cat, err := c.categoryFor(s.CategoryID, nil)
		if err != nil {
			return err
		}
		l.CategoryID = cat
		subs[i] = l
		sum += s.Amount
	}
	if sum != t.Amount {
		return badRequest("amount must equal the sum of subtransaction amounts: the lines add up to %d milliunits, the transaction is %d.", sum, t.Amount)
	}
	t.Subs, t.CategoryID = subs, nil
	return nil
}

// syncTransfer keeps the two sides of a transfer together. A transaction whose payee is an
// account's transfer payee has a mirror on that account, with the opposite amount on the same
// date; a transaction that stops being a transfer loses its mirror.
func (c *call) syncTransfer(t *txn) error {
	var target *account
	if t.PayeeID != nil {
		target = c.p.accountOfTransferPayee(*t.PayeeID)
	}
	var mirror *txn
	if t.TransferTransactionID != nil {
		mirror = c.p.txn(*t.TransferTransactionID)
	}
	if target == nil {
		if mirror != nil {
			mirror.remove()
		}
		t.TransferAccountID, t.TransferTransactionID = nil, nil
		return nil
	}
	own := c.p.account(t.AccountID)
	switch {
	case target.ID == own.ID:
		return badRequest("A transfer needs another account: this is the transfer payee of the transaction's own account.")
	case t.isSplit():
		return badRequest("A split cannot be a transfer.")
	}
	if own.OnBudget && target.OnBudget {
		t.CategoryID = nil // money moving within the budget has no category
	}
	if mirror != nil && mirror.AccountID != target.ID {
		mirror.remove()
		mirror = nil
	}
	if mirror == nil {
		mirror = &txn{TransactionSummary: ynab.TransactionSummary{ID: c.p.newID("transaction"), Memo: t.Memo,
			Cleared: ynab.Uncleared, Approved: true, AccountID: target.ID, PayeeID: ptr(own.TransferPayeeID),
			TransferAccountID: ptr(own.ID), TransferTransactionID: ptr(t.ID)}}
		c.p.Transactions = append(c.p.Transactions, mirror)
	}
	mirror.Date, mirror.Amount = t.Date, -t.Amount
	t.TransferAccountID, t.TransferTransactionID = ptr(target.ID), ptr(mirror.ID)
	return nil
}

// remove deletes a transaction the way YNAB does: it stays, marked deleted, for delta requests.
func (t *txn) remove() {
	t.Deleted = true
	for i := range t.Subs {
		t.Subs[i].Deleted = true
	}
}

func (c *call) validDate(date string) error {
	if _, ok := parseDate(date); !ok {
		return badRequest("date must be a date like 2026-09-01, not %q.", date)
	}
	if date > c.v.today {
		return badRequest("date %s is in the future: YNAB takes no future-dated transactions (schedule them instead).", date)
	}
	if date < dateOf(dayTime(c.v.today).AddDate(-5, 0, 0)) {
		return badRequest("date %s is over 5 years ago: YNAB takes no transactions that old.", date)
	}
	return nil
}

func validLength(field, value string, limit int) error {
	if n := utf8.RuneCountInString(value); n > limit {
		return badRequest("%s is %d characters long; YNAB allows at most %d.", field, n, limit)
	}
	return nil
}

// withIndex names the item of a bulk write an error is about, as YNAB does.
func withIndex(err error, i int) error {
	var ae *apiError
	if !errors.As(err, &ae) {
		return err
	}
	named := *ae
	named.Detail = fmt.Sprintf("%s (index: %d)", named.Detail, i)
	return &named
}
