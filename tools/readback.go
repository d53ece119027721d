package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/undo"
	"github.com/avenir-mcp/avenir/ynab"
)

// Reading a journaled change back from YNAB: what the fields it names hold now. Recovery uses
// it to tell whether an interrupted write reached YNAB; undo uses it to see what someone
// changed since.

// current returns the present values of the fields ch names (the keys of its After, else its
// Before), and whether the thing exists at all.
func (h *handlers) current(ctx context.Context, p *ynab.Plan, ch journal.Change) (map[string]json.RawMessage, bool, error) {
	var entity any
	switch ch.Kind {
	case journal.KindTransaction, journal.KindDeletedTransaction:
		t, ok := p.Transaction(ch.ID)
		if !ok || t.Deleted {
			return nil, false, nil
		}
		entity = transactionFields(p, t)
	case journal.KindNewTransaction:
		t, ok := p.Transaction(ch.ID)
		if !ok {
			t = findByImportID(p, ch)
		}
		if t == nil || t.Deleted {
			return nil, false, nil
		}
		entity = transactionFields(p, t)
	case journal.KindScheduled, journal.KindNewScheduled, journal.KindDeletedScheduled:
		s := scheduledByID(p, ch.ID)
		if s == nil {
			return nil, false, nil
		}
		entity = scheduledFields(p, s)
	case journal.KindPayee:
		y, ok := p.Payee(ch.ID)
		if !ok || y.Deleted {
			return nil, false, nil
		}
		entity = y
	case journal.KindCategoryGroup, journal.KindNewCategoryGroup:
		g := findGroup(p, ch)
		if g == nil {
			return nil, false, nil
		}
		entity = g
	case journal.KindNewAccount:
		a := findAccount(p, ch)
		if a == nil {
			return nil, false, nil
		}
		entity = a
	case journal.KindCategory:
		c, ok := p.Category(ch.ID)
		if !ok || c.Deleted {
			return nil, false, nil
		}
		entity = c
	case journal.KindNewCategory:
		c := findCategory(p, ch)
		if c == nil {
			return nil, false, nil
		}
		entity = c
	case journal.KindMonthCategory:
		b, err := h.assigned(ctx, p, ch.Month, ch.ID)
		if err != nil {
			return nil, false, err
		}
		entity = map[string]int64{"budgeted": b}
	default:
		return nil, false, fmt.Errorf("a journaled change of kind %q cannot be read back", ch.Kind)
	}
	all, err := asFields(entity)
	if err != nil {
		return nil, false, err
	}
	names := ch.After
	if len(names) == 0 || string(names) == "null" {
		names = ch.Before
	}
	want, err := decodeFields(names)
	if err != nil {
		return nil, false, err
	}
	out := make(map[string]json.RawMessage, len(want))
	for k := range want {
		v, ok := all[k]
		if !ok {
			v = json.RawMessage("null")
		}
		out[k] = v
	}
	return out, true, nil
}

// transactionFields are a transaction's fields as its journaled changes name them: YNAB's own,
// and three that the plan keeps elsewhere: its split lines as YNAB takes them
// (subtransactions), its payee's name (payee_name, for a payee a write named by its name), and
// for a transfer the fields of its other side that YNAB does not set itself (transfer).
func transactionFields(p *ynab.Plan, t *ynab.TransactionSummary) map[string]any {
	all, _ := asFields(t) // plain values: it cannot fail
	m := make(map[string]any, len(all)+3)
	for k, v := range all {
		m[k] = v
	}
	if lines := splitLines(p.Lines(t.ID)); len(lines) > 0 {
		m["subtransactions"] = lines
	}
	if y, ok := p.Payee(str(t.PayeeID)); ok {
		m["payee_name"] = y.Name
	}
	if t.TransferTransactionID != nil {
		if o, ok := p.Transaction(*t.TransferTransactionID); ok && !o.Deleted {
			m["transfer"] = otherSide(o)
		}
	}
	return m
}

// splitLines are a split's live lines as YNAB takes them in a write: amount, category and memo,
// and a payee where a line has its own.
func splitLines(subs []ynab.SubTransaction) []map[string]any {
	var lines []map[string]any
	for _, s := range subs {
		if s.Deleted {
			continue
		}
		l := map[string]any{"amount": s.Amount, "category_id": s.CategoryID, "memo": s.Memo}
		if s.PayeeID != nil {
			l["payee_id"] = *s.PayeeID
		}
		lines = append(lines, l)
	}
	return lines
}

// otherSide is what a transfer's other side holds of its own: YNAB sets its date, amount and
// payee from this side, and nothing else.
func otherSide(o *ynab.TransactionSummary) map[string]any {
	return map[string]any{"approved": o.Approved, "category_id": o.CategoryID, "cleared": o.Cleared,
		"flag_color": o.FlagColor, "memo": o.Memo}
}

// scheduledFields are a scheduled transaction's fields as YNAB's write takes them (date is its
// next date), with its payee's name (payee_name) and its split lines, if any.
func scheduledFields(p *ynab.Plan, s *ynab.ScheduledTransaction) map[string]any {
	m := map[string]any{"account_id": s.AccountID, "date": s.DateNext, "frequency": s.Frequency, "amount": s.Amount,
		"payee_id": s.PayeeID, "category_id": s.CategoryID, "memo": s.Memo, "flag_color": s.FlagColor}
	if y, ok := p.Payee(str(s.PayeeID)); ok {
		m["payee_name"] = y.Name
	}
	var lines []map[string]any
	for _, l := range p.ScheduledSubtransactions {
		if l.ScheduledTransactionID == s.ID && !l.Deleted {
			lines = append(lines, map[string]any{"amount": l.Amount, "category_id": l.CategoryID, "memo": l.Memo, "payee_id": l.PayeeID})
		}
	}
	if len(lines) > 0 {
		m["subtransactions"] = lines
	}
	return m
}

// scheduledByID finds a live scheduled transaction.
func scheduledByID(p *ynab.Plan, id string) *ynab.ScheduledTransaction {
	for i := range p.ScheduledTransactions {
		if s := &p.ScheduledTransactions[i]; s.ID == id && id != "" && !s.Deleted {
			return s
		}
	}
	return nil
}

// findGroup finds a category group: by its id, else (a created one whose id the journal does
// not know) by its name.
func findGroup(p *ynab.Plan, ch journal.Change) *ynab.CategoryGroup {
	if g, ok := p.Group(ch.ID); ok && !g.Deleted {
		return g
	}
	if ch.Kind != journal.KindNewCategoryGroup {
		return nil
	}
	return findNamed(p.CategoryGroups, createdName(ch), func(g *ynab.CategoryGroup) (string, bool) { return g.Name, g.Deleted })
}

// findAccount finds a created account: by its id once YNAB gave one, else by its name.
func findAccount(p *ynab.Plan, ch journal.Change) *ynab.Account {
	if a, ok := p.Account(ch.ID); ok && !a.Deleted {
		return a
	}
	return findNamed(p.Accounts, createdName(ch), func(a *ynab.Account) (string, bool) { return a.Name, a.Deleted })
}

// createdName is the name a create's change sent, or "".
func createdName(ch journal.Change) string {
	var f struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(ch.After, &f)
	return f.Name
}

// findNamed finds the live item of that name (case aside); names are unique where a create
// relies on it (avenir refuses a name taken).
func findNamed[T any](items []T, name string, of func(*T) (string, bool)) *T {
	if name == "" {
		return nil
	}
	for i := range items {
		if n, deleted := of(&items[i]); !deleted && strings.EqualFold(n, name) {
			return &items[i]
		}
	}
	return nil
}

// findCategory finds a created category: by its id once YNAB gave one, else by its name and group.
func findCategory(p *ynab.Plan, ch journal.Change) *ynab.Category {
	if c, ok := p.Category(ch.ID); ok && !c.Deleted {
		return c
	}
	var f struct {
		Name            string `json:"name"`
		CategoryGroupID string `json:"category_group_id"`
	}
	if json.Unmarshal(ch.After, &f) != nil {
		return nil
	}
	for i := range p.Categories {
		c := &p.Categories[i]
		if !c.Deleted && c.CategoryGroupID == f.CategoryGroupID && strings.EqualFold(c.Name, f.Name) {
			return c
		}
	}
	return nil
}

// findByImportID finds a created transaction by the import_id avenir gave it.
func findByImportID(p *ynab.Plan, ch journal.Change) *ynab.TransactionSummary {
	after, err := decodeFields(ch.After)
	if err != nil {
		return nil
	}
	var importID string
	if json.Unmarshal(after["import_id"], &importID) != nil || importID == "" {
		return nil
	}
	for i := range p.Transactions {
		t := &p.Transactions[i]
		if !t.Deleted && t.ImportID != nil && *t.ImportID == importID {
			return t
		}
	}
	return nil
}

func asFields(v any) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeFields(b)
}

func decodeFields(b json.RawMessage) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(b) == 0 || string(b) == "null" {
		return m, nil
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("a journaled change's fields are not a JSON object: %w", err)
	}
	return m, nil
}

// stateOf reads journaled changes back from one plan snapshot, for undo.
type stateOf struct {
	h *handlers
	p *ynab.Plan
}

func (s stateOf) Current(ctx context.Context, ch journal.Change) (map[string]json.RawMessage, bool, error) {
	return s.h.current(ctx, s.p, ch)
}

// Today is the date a scheduled transaction put back must come after.
func (s stateOf) Today() string { return s.h.Now().UTC().Format(time.DateOnly) }

// createdID is the id YNAB gave a created thing that the journal does not know the id of.
func createdID(p *ynab.Plan, ch journal.Change) string {
	switch ch.Kind {
	case journal.KindNewTransaction:
		if t := findByImportID(p, ch); t != nil {
			return t.ID
		}
	case journal.KindNewCategory:
		if c := findCategory(p, ch); c != nil {
			return c.ID
		}
	case journal.KindNewCategoryGroup:
		if g := findGroup(p, ch); g != nil {
			return g.ID
		}
	case journal.KindNewAccount:
		if a := findAccount(p, ch); a != nil {
			return a.ID
		}
	}
	return ""
}

// findScheduled looks for the scheduled transaction a create of op made, whose answer was lost:
// one that is new or changed since op's knowledge and holds exactly the fields sent. It returns
// "" when there is none.
func (h *handlers) findScheduled(ctx context.Context, op journal.Operation, ch journal.Change) (string, error) {
	if op.KnowledgeBefore <= 0 {
		return "", nil
	}
	list, _, err := h.YNAB.GetScheduledTransactions(ctx, op.PlanID, op.KnowledgeBefore)
	if err != nil {
		return "", fmt.Errorf("reading the scheduled transactions new since the write: %w", err)
	}
	p, err := h.YNAB.Plan(ctx, op.PlanID, ynab.WithinPreviewAge)
	if err != nil {
		return "", err
	}
	for i := range list {
		s := &list[i]
		if s.Deleted {
			continue
		}
		now, err := asFields(scheduledFields(p, s))
		if err != nil {
			return "", err
		}
		if undo.Holds(now, ch.After) {
			return s.ID, nil
		}
	}
	return "", nil
}

// Recovery settles, at server start, the operations a crash left prepared: it reads the plan
// from YNAB and checks, change by change, whether each is there. It implements journal.Checker.
type Recovery struct{ h *handlers }

// NewRecovery returns the journal's checker for d's YNAB client.
func NewRecovery(d Deps) *Recovery { return &Recovery{h: &handlers{Deps: d, log: d.Logger}} }

// Check returns op's changes, each with its outcome as YNAB shows it now.
func (r *Recovery) Check(ctx context.Context, op journal.Operation) ([]journal.Change, error) {
	return r.h.readOutcomes(ctx, op)
}

// readOutcomes reads YNAB fresh and returns op's changes, each with its outcome: applied where YNAB
// holds it, not_applied where it does not. A change that already has one (YNAB's answer said
// so) keeps it. Nothing is inferred: a change is applied only if YNAB shows it, and a created
// transaction is found by what it sent (findEntered), never assumed.
func (h *handlers) readOutcomes(ctx context.Context, op journal.Operation) ([]journal.Change, error) {
	if op.Tool == importTransactionsTool.Name && len(op.Changes) == 0 {
		// What an import brought in is known only against the plan it was made on, which a
		// restart has lost (importedSince): reading YNAB now cannot tell it from what was
		// imported or edited since.
		return nil, errors.New("an import cut off before YNAB's answer cannot be told apart from what YNAB imported or what was edited since; list_transactions shows what is there")
	}
	p, err := h.YNAB.Plan(ctx, op.PlanID, ynab.Fresh)
	if err != nil {
		return nil, err
	}
	cs := slices.Clone(op.Changes)
	var creates []int
	for i, ch := range cs {
		if ch.Outcome == journal.OutcomeApplied || ch.Outcome == journal.OutcomeNotApplied {
			continue
		}
		if ch.Kind == journal.KindNewTransaction && ch.ID == "" && findByImportID(p, ch) == nil {
			creates = append(creates, i)
			continue
		}
		if ch.Kind == journal.KindNewScheduled && ch.ID == "" {
			if ch.ID, err = h.findScheduled(ctx, op, ch); err != nil {
				return nil, err
			}
		}
		now, exists, err := h.current(ctx, p, ch)
		if err != nil {
			return nil, err
		}
		var in bool
		switch {
		case ch.Kind == journal.KindNewTransaction || ch.Kind == journal.KindNewCategory || ch.Kind == journal.KindNewCategoryGroup || ch.Kind == journal.KindNewAccount || ch.Kind == journal.KindNewScheduled:
			in = exists
			if ch.ID == "" && exists {
				cs[i].ID = createdID(p, ch)
			} else if exists {
				cs[i].ID = ch.ID
			}
		case len(ch.After) == 0 || string(ch.After) == "null":
			in = !exists
		default:
			in = exists && undo.Holds(now, ch.After)
		}
		cs[i].Outcome = journal.OutcomeNotApplied
		if in {
			cs[i].Outcome = journal.OutcomeApplied
		}
	}
	if len(creates) > 0 {
		if err := h.findEntered(ctx, op, cs, creates); err != nil {
			return nil, err
		}
	}
	return cs, nil
}
