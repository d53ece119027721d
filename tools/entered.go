package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

// Entering transactions as a person would (design.md): avenir sends no import_id, because YNAB
// treats a transaction with one as imported — it matches it to a user-entered transaction of
// the same amount within ten days (so a create can vanish into an unrelated one), and a later
// bank import will not match it (so a linked account gets duplicates). What an attempt entered
// is found by reading YNAB instead: the transactions new on the plan since the server knowledge
// read before the write, with exactly the fields sent. YNAB's answer, a lost answer, recovery
// after a crash and an identical retry all settle the same way, and the journal records the
// ids YNAB gave.

// enterTransactions creates the transactions of cs (changes of kind new_transaction whose
// After holds the fields to send) that have no outcome yet, in one POST, and fills in each
// one's id and outcome from YNAB's answer. On an error nothing is filled in: the write path
// reads YNAB to settle what is there.
func (h *handlers) enterTransactions(ctx context.Context, planID string, cs []journal.Change) (int64, error) {
	res, err := h.enter(ctx, planID, cs)
	return res.ServerKnowledge, err
}

// enter is enterTransactions with YNAB's whole answer, for a caller that needs more of it than
// the ids (the other side of a transfer).
func (h *handlers) enter(ctx context.Context, planID string, cs []journal.Change) (ynab.SaveTransactionsResult, error) {
	var batch []ynab.SaveTransaction
	var at []int
	for i, ch := range cs {
		if ch.Kind != journal.KindNewTransaction || ch.Outcome != "" {
			continue
		}
		tx, err := saveTransaction("", ch.After)
		if err != nil {
			return ynab.SaveTransactionsResult{}, err
		}
		batch = append(batch, tx)
		at = append(at, i)
	}
	if len(batch) == 0 {
		return ynab.SaveTransactionsResult{}, nil
	}
	res, err := h.YNAB.CreateTransactions(ctx, planID, batch)
	if err != nil {
		return ynab.SaveTransactionsResult{}, err
	}
	got := res.Transactions
	if len(got) == 0 && res.Transaction != nil {
		got = []ynab.Transaction{*res.Transaction}
	}
	used := map[string]bool{}
	for _, i := range at {
		for k := range got {
			t := &got[k]
			if !used[t.ID] && !t.Deleted && sentMatches(cs[i].After, t) {
				used[t.ID] = true
				cs[i] = createdChange(cs[i], t)
				cs[i].Outcome = journal.OutcomeApplied
				break
			}
		}
	}
	if res.Transactions == nil {
		res.Transactions = got
	}
	return res, nil
}

// findEntered settles the create changes of op at idx by reading YNAB: each is matched to a
// distinct transaction new since op's knowledge with exactly the fields it sent and owned by
// no other operation, and is applied (with YNAB's id) when one is found, not_applied when none
// is.
func (h *handlers) findEntered(ctx context.Context, op journal.Operation, cs []journal.Change, idx []int) error {
	if op.KnowledgeBefore <= 0 {
		return errors.New("the journal does not say what YNAB knew before the write, so what it created cannot be told apart")
	}
	since := ""
	for _, i := range idx {
		var f struct {
			Date string `json:"date"`
		}
		if json.Unmarshal(cs[i].After, &f) == nil && (since == "" || f.Date < since) {
			since = f.Date
		}
	}
	txs, _, err := h.YNAB.GetTransactions(ctx, op.PlanID, ynab.TransactionQuery{Knowledge: op.KnowledgeBefore, SinceDate: since})
	if err != nil {
		return fmt.Errorf("reading the transactions new since the write: %w", err)
	}
	used, err := h.ownedElsewhere(ctx, op)
	if err != nil {
		return err
	}
	for _, i := range idx {
		cs[i].Outcome = journal.OutcomeNotApplied
		for k := range txs {
			t := &txs[k]
			if used[t.ID] || t.Deleted || !sentMatches(cs[i].After, t) {
				continue
			}
			used[t.ID] = true
			cs[i] = createdChange(cs[i], t)
			cs[i].Outcome = journal.OutcomeApplied
			break
		}
	}
	return nil
}

// ownedElsewhere lists the transactions other operations of op's plan entered around its time:
// they are not op's, however alike.
func (h *handlers) ownedElsewhere(ctx context.Context, op journal.Operation) (map[string]bool, error) {
	ops, err := h.Journal.List(ctx, journal.Filter{PlanID: op.PlanID, Since: op.Time.Add(-24 * time.Hour), Limit: 10000})
	if err != nil {
		return nil, fmt.Errorf("reading the journal: %w", err)
	}
	owned := map[string]bool{}
	for _, o := range ops {
		if o.ID == op.ID {
			continue
		}
		for _, c := range o.Changes {
			if c.Kind == journal.KindNewTransaction && c.ID != "" && c.EnteredBy == "" {
				owned[c.ID] = true
			}
		}
	}
	return owned, nil
}

// sentMatches reports whether t is what a create sent (the fields of sent, as journaled): the
// same account, date, amount, payee (by id, or by name for a new one), category, memo,
// cleared, approval and flag.
func sentMatches(sent json.RawMessage, t *ynab.Transaction) bool {
	var f struct {
		AccountID  string  `json:"account_id"`
		Date       string  `json:"date"`
		Amount     int64   `json:"amount"`
		PayeeID    *string `json:"payee_id"`
		PayeeName  *string `json:"payee_name"`
		CategoryID *string `json:"category_id"`
		Memo       *string `json:"memo"`
		Cleared    string  `json:"cleared"`
		Approved   *bool   `json:"approved"`
		FlagColor  *string `json:"flag_color"`
	}
	if json.Unmarshal(sent, &f) != nil {
		return false
	}
	switch {
	case t.AccountID != f.AccountID || t.Date != f.Date || t.Amount != f.Amount:
		return false
	case f.PayeeID != nil && str(t.PayeeID) != *f.PayeeID:
		return false
	case f.PayeeName != nil && !strings.EqualFold(strings.TrimSpace(str(t.PayeeName)), strings.TrimSpace(*f.PayeeName)):
		return false
	case f.CategoryID != nil && str(t.CategoryID) != *f.CategoryID:
		return false
	case str(t.Memo) != str(f.Memo):
		return false
	case f.Cleared != "" && t.Cleared != f.Cleared:
		return false
	case f.Approved != nil && t.Approved != *f.Approved:
		return false
	}
	return str(t.FlagColor) == str(f.FlagColor)
}

// enteredBefore looks for an earlier attempt at the same create (the same tool and subject on
// the same plan, in the last day) whose caller may not have heard how it ended: its answer was
// never written to the client (it is still prepared, was settled at a restart, ended in an
// error, or avenir stopped before answering), or it was settled by reading YNAB after YNAB's
// answer was lost. The
// changes of cs that such an attempt entered, and that YNAB still holds as entered, are marked
// as entered by it: this operation does not enter them again and does not own them. An attempt
// still prepared is settled first, by reading YNAB (the caller holds the plan's lock, so no
// other writer is at work on it).
func (h *handlers) enteredBefore(ctx context.Context, p *ynab.Plan, tool string, same func(journal.Operation) bool, cs []journal.Change) error {
	ops, err := h.Journal.List(ctx, journal.Filter{PlanID: p.ID, Tool: tool, Since: h.Now().Add(-24 * time.Hour), Limit: 1000})
	if err != nil {
		return fmt.Errorf("reading the journal: %w", err)
	}
	for _, op := range ops {
		if op.UndoneBy != "" || !same(op) {
			continue
		}
		if op.Status == journal.StatusPrepared {
			if !holdsLock(ctx, p.ID) {
				continue // its writer may still be at work: the write under the lock settles it
			}
			checked, err := h.readOutcomes(ctx, op)
			if err != nil {
				return fmt.Errorf("an earlier identical call (journal entry %s) has no known outcome, and reading YNAB to settle it failed: %w", op.ID, err)
			}
			if op, err = h.Journal.Resolve(ctx, op.ID, checked); err != nil {
				return err
			}
		}
		if op.Answered && !op.ReadBack {
			continue // the caller heard YNAB's answer: an identical call now is a new one
		}
		for _, prior := range op.Changes {
			if prior.Outcome != journal.OutcomeApplied || prior.EnteredBy != "" || !stillEntered(p, prior) {
				continue
			}
			for i := range cs {
				if cs[i].EnteredBy == "" && cs[i].Kind == prior.Kind && sameSent(cs[i].After, prior.After, p) {
					cs[i].ID, cs[i].EnteredBy, cs[i].After = prior.ID, op.ID, prior.After
					break
				}
			}
		}
	}
	return nil
}

// stillEntered reports whether YNAB still holds what a change created: a transaction or a
// scheduled transaction (the creates an identical call may retry).
func stillEntered(p *ynab.Plan, ch journal.Change) bool {
	switch ch.Kind {
	case journal.KindNewTransaction:
		t, ok := p.Transaction(ch.ID)
		return ok && !t.Deleted
	case journal.KindNewScheduled:
		return scheduledByID(p, ch.ID) != nil
	}
	return false
}

// sameSent reports whether a planned create (its fields to send) is what an earlier create
// recorded. The payee is compared by name: a new payee's name one of them sent may be the
// payee YNAB created for it that the other names by id.
func sameSent(planned, recorded json.RawMessage, p *ynab.Plan) bool {
	var a, b map[string]json.RawMessage
	if json.Unmarshal(planned, &a) != nil || json.Unmarshal(recorded, &b) != nil {
		return false
	}
	if payeeOf(a, p) != payeeOf(b, p) {
		return false
	}
	for _, m := range []map[string]json.RawMessage{a, b} {
		delete(m, "payee_id")
		delete(m, "payee_name")
	}
	delete(a, "import_id")
	delete(b, "import_id")
	for k, v := range a {
		if !sameJSONValue(v, b[k]) {
			return false
		}
	}
	return true
}

// payeeOf is the name, in lower case, of the payee the fields of a create name by id or by
// name; "" for none.
func payeeOf(fields map[string]json.RawMessage, p *ynab.Plan) string {
	var name, id string
	if json.Unmarshal(fields["payee_name"], &name) == nil && name != "" {
		return strings.ToLower(strings.TrimSpace(name))
	}
	if json.Unmarshal(fields["payee_id"], &id) == nil && id != "" {
		return strings.ToLower(strings.TrimSpace(payeeName(p, &id)))
	}
	return ""
}

func sameJSONValue(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
