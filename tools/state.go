package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/undo"
	"github.com/avenir-mcp/avenir/ynab"
)

// Reading a journaled change back from YNAB: what the fields it names hold now. Recovery uses
// it to tell whether an interrupted write reached YNAB; undo uses it to see what someone
// changed since.

// Kinds of journaled change (the undo package reverses them).
const (
	kindTransaction   = undo.KindTransaction
	kindMonthCategory = undo.KindMonth
	kindCategory      = undo.KindCategory
	kindNewTx         = undo.KindCreated // Before null; After holds the fields sent, import_id included
	kindDeletedTx     = undo.KindDeleted // Before the fields it had; After null
	kindNewCategory   = "new_category"   // Before null; After its name and group (YNAB cannot delete one)
)

// current returns the present values of the fields ch names (the keys of its After, else its
// Before), and whether the thing exists at all.
func (h *handlers) current(ctx context.Context, p *ynab.Plan, ch journal.Change) (map[string]json.RawMessage, bool, error) {
	var entity any
	switch ch.Kind {
	case kindTransaction, kindDeletedTx:
		t, ok := p.Transaction(ch.ID)
		if !ok || t.Deleted {
			return nil, false, nil
		}
		entity = t
	case kindNewTx:
		t, ok := p.Transaction(ch.ID)
		if !ok {
			t = findByImportID(p, ch)
		}
		if t == nil || t.Deleted {
			return nil, false, nil
		}
		entity = t
	case kindCategory:
		c, ok := p.Category(ch.ID)
		if !ok || c.Deleted {
			return nil, false, nil
		}
		entity = c
	case kindNewCategory:
		c := findCategory(p, ch)
		if c == nil {
			return nil, false, nil
		}
		entity = c
	case kindMonthCategory:
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
	if t, ok := entity.(*ynab.TransactionSummary); ok {
		// The snapshot keeps split lines apart; a split's change names them as YNAB takes them.
		lines := []map[string]any{}
		for _, s := range p.Lines(t.ID) {
			if !s.Deleted {
				lines = append(lines, map[string]any{"amount": s.Amount, "category_id": s.CategoryID, "memo": s.Memo})
			}
		}
		if len(lines) > 0 {
			b, _ := json.Marshal(lines)
			all["subtransactions"] = b
		}
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

// Recovery settles, at server start, the operations a crash left prepared: it reads the plan
// from YNAB and checks, change by change, whether each is there. It implements journal.Checker.
type Recovery struct{ h *handlers }

// NewRecovery returns the journal's checker for d's YNAB client.
func NewRecovery(d Deps) *Recovery { return &Recovery{h: &handlers{Deps: d, log: d.Logger}} }

// Check returns op's changes, each with its outcome as YNAB shows it now.
func (r *Recovery) Check(ctx context.Context, op journal.Operation) ([]journal.Change, error) {
	return r.h.check(ctx, op)
}

// check reads YNAB fresh and returns op's changes, each with its outcome: applied where YNAB
// holds it, not_applied where it does not. A change that already has one (YNAB's answer said
// so) keeps it. Nothing is inferred: a change is applied only if YNAB shows it, and a created
// transaction is found by what it sent (findEntered), never assumed.
func (h *handlers) check(ctx context.Context, op journal.Operation) ([]journal.Change, error) {
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
		if ch.Kind == kindNewTx && ch.ID == "" && findByImportID(p, ch) == nil {
			creates = append(creates, i)
			continue
		}
		now, exists, err := h.current(ctx, p, ch)
		if err != nil {
			return nil, err
		}
		var in bool
		switch {
		case ch.Kind == kindNewTx || ch.Kind == kindNewCategory:
			in = exists
			if t := findByImportID(p, ch); t != nil && ch.ID == "" {
				cs[i].ID = t.ID
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
