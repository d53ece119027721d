package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/undo"
	"github.com/avenir-mcp/avenir/ynab"
)

var undoOperationTool = mcp.Tool{
	Name:        "undo_operation",
	Title:       "Undo an operation",
	Description: "Undo a journaled operation, leaving alone what changed since. Undoing an undo redoes it." + confirmDescription,
	Meta:        modelAndApp(cardURI), // the journal view's Undo starts it
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type undoOperationIn struct {
	OperationID string `json:"operation_id"`
	confirmArg
}

type undoSubject struct {
	OperationID string `json:"operation_id"`
}

type undoOut struct {
	writeOut
	LeftAlone  []string `json:"left_alone,omitempty" jsonschema:"changes of the operation that the undo did not touch, and why (someone changed them since)"`
	CreatedIDs []string `json:"created_ids,omitempty" jsonschema:"the ids YNAB gave what the undo entered again (a deleted transaction or scheduled transaction comes back under a new id)"`
}

func (h *handlers) undoOperation(ctx context.Context, req *mcp.CallToolRequest, in undoOperationIn) (*mcp.CallToolResult, undoOut, error) {
	id := strings.TrimSpace(in.OperationID)
	op, err := h.Journal.Get(ctx, id)
	if errors.Is(err, journal.ErrNotFound) {
		return nil, undoOut{}, fmt.Errorf("operation_id: there is no operation %s in the journal; list_operations shows the recent ones", quoted(id))
	}
	if err != nil {
		return nil, undoOut{}, fmt.Errorf("reading the journal: %w", err)
	}
	if err := undo.Refusal(op); err != nil {
		return nil, undoOut{}, err
	}
	var left []string
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		// The journal is read again: under the lock, the operation may have been undone since.
		op, err := h.Journal.Get(ctx, op.ID)
		if err != nil {
			return nil, fmt.Errorf("reading the journal: %w", err)
		}
		if err := undo.Refusal(op); err != nil {
			return nil, err
		}
		inverse, err := undo.Build(ctx, op, stateOf{h: h, p: p})
		if err != nil {
			return nil, err
		}
		w := &edit{
			plan:    p,
			tool:    undoOperationTool.Name,
			subject: undoSubject{OperationID: op.ID},
			first:   inverse.First,
			changes: inverse.Changes,
			undoOf:  op.ID,
		}
		w.lines = undoLines(p, op, inverse.Changes)
		for _, ch := range inverse.Changes {
			if note := targetLoss(p, ch); note != "" {
				w.notes = append(w.notes, note)
			}
		}
		if createdPayees(op) {
			w.notes = append(w.notes, "The payees YNAB created for these transactions stay: YNAB's API cannot delete a payee.")
		}
		w.notes = append(w.notes, undoNotes(inverse.Changes)...)
		left = nil
		for _, l := range inverse.LeftAlone {
			left = append(left, fmt.Sprintf("%s (%s)", l.Change.Label, l.Why))
			w.notes = append(w.notes, fmt.Sprintf("Left alone, %s: %s", l.Why, l.Change.Label))
		}
		w.apply = func(ctx context.Context) (journal.Outcome, error) {
			return h.applyChanges(ctx, p, w.changes)
		}
		return w, nil
	}
	res, out, err := h.confirmAndApply(ctx, req, op.PlanID, build, undoOperationIn{OperationID: op.ID}, in.Confirmation)
	if out.Status == "applied" || out.Status == "confirmation_required" {
		return res, undoOut{writeOut: out, LeftAlone: left, CreatedIDs: enteredAgain(out)}, err
	}
	return res, undoOut{writeOut: out}, err
}

// createdPayees reports whether op entered transactions for a payee YNAB created: one its
// journaled changes, as prepared, name by a new name (payee_name) and that YNAB entered. (The
// applied changes record the payee by the id YNAB gave it, so they no longer tell it was new.)
func createdPayees(op journal.Operation) bool {
	for _, ev := range op.Events {
		var d journal.Draft
		if ev.Type != "prepared" || json.Unmarshal(ev.Data, &d) != nil {
			continue
		}
		for i, ch := range d.Changes {
			var f struct {
				PayeeName *string `json:"payee_name"`
			}
			if ch.Kind != journal.KindNewTransaction || json.Unmarshal(ch.After, &f) != nil || f.PayeeName == nil || *f.PayeeName == "" {
				continue
			}
			if len(op.Changes) != len(d.Changes) {
				return true // an import records what YNAB entered, not what was planned
			}
			if got := op.Changes[i]; got.Outcome == journal.OutcomeApplied && got.EnteredBy == "" {
				return true
			}
		}
	}
	return false
}

// undoLines are the preview's lines: the inverse change by change, except where the kind of undo
// differs from the original: then the kind is said first (created transactions are deleted; a
// reconcile's transactions are marked cleared again and its adjustment deleted).
func undoLines(p *ynab.Plan, op journal.Operation, changes []journal.Change) []string {
	var deletes, reconciled []journal.Change
	var lines []string
	for _, ch := range changes {
		switch {
		case ch.Kind == journal.KindDeletedTransaction:
			deletes = append(deletes, ch)
		case op.Tool == "reconcile_account" && ch.Kind == journal.KindTransaction:
			reconciled = append(reconciled, ch)
		default:
			lines = append(lines, describeChange(p, ch))
		}
	}
	var head []string
	if len(reconciled) > 0 {
		head = append(head, fmt.Sprintf("The %d reconciled transaction(s) are marked cleared again.", len(reconciled)))
	}
	if len(deletes) > 0 {
		what := "The transaction(s) it created are deleted:"
		if op.Tool == "reconcile_account" {
			what = "The adjustment is deleted:"
		}
		head = append(head, what)
		for _, ch := range deletes {
			head = append(head, ch.Label)
		}
	}
	return append(head, lines...)
}

// describeChange is one line of a preview: what happens to one thing.
func describeChange(p *ynab.Plan, ch journal.Change) string {
	switch ch.Kind {
	case journal.KindDeletedTransaction:
		return "Delete " + ch.Label
	case journal.KindNewTransaction:
		return "Create " + ch.Label
	case journal.KindDeletedScheduled:
		return "Delete the scheduled transaction " + ch.Label
	case journal.KindNewScheduled:
		return "Schedule " + ch.Label
	}
	before, _ := decodeFields(ch.Before)
	after, _ := decodeFields(ch.After)
	var parts []string
	if b, a := payeeWords(p, before), payeeWords(p, after); a != "" && a != b {
		parts = append(parts, "payee "+b+" → "+a)
	}
	names := make([]string, 0, len(after))
	for k := range after {
		if k != "payee_id" && k != "payee_name" && k != "transfer" {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		if strings.HasPrefix(k, "goal_") || undo.Holds(map[string]json.RawMessage{k: before[k]}, fieldsJSON(map[string]any{k: after[k]})) {
			continue
		}
		name := fieldNames[k]
		if name != "" && (len(after) > 1 || !slices.Contains(unnamedFields, k)) {
			name += " "
		} else {
			name = ""
		}
		parts = append(parts, name+fieldWords(p, k, before[k])+" → "+fieldWords(p, k, after[k]))
	}
	if _, ok := after["goal_type"]; ok {
		parts = append(parts, "target "+targetWords(p, before)+" → "+targetWords(p, after))
	}
	return ch.Label + ": " + strings.Join(parts, ", ")
}

// fieldNames name the fields of a change in a preview line ("date 2026-12-01 → 2026-11-30").
// A change of one of unnamedFields alone shows its values only, which say what they are.
var (
	fieldNames = map[string]string{"account_id": "account", "amount": "amount", "approved": "approval", "category_id": "category",
		"category_group_id": "group", "cleared": "cleared", "date": "date", "flag_color": "flag", "frequency": "frequency",
		"memo": "memo", "name": "name", "note": "note"}
	unnamedFields = []string{"approved", "budgeted", "category_group_id", "category_id", "flag_color", "name"}
)

// payeeWords names the payee of a change's fields: an existing one by its name, a new one by
// the name it will have; "" when the fields name no payee.
func payeeWords(p *ynab.Plan, f map[string]json.RawMessage) string {
	var s *string
	if raw, ok := f["payee_name"]; ok && json.Unmarshal(raw, &s) == nil && s != nil {
		return *s + " (new payee)"
	}
	raw, ok := f["payee_id"]
	if !ok {
		return ""
	}
	if json.Unmarshal(raw, &s) != nil || s == nil {
		return "no payee"
	}
	if n := payeeName(p, s); n != "" {
		return n
	}
	return *s
}

// fieldWords shows one field's value the way a person reads it.
func fieldWords(p *ynab.Plan, field string, raw json.RawMessage) string {
	var s *string
	switch field {
	case "category_id":
		_ = json.Unmarshal(raw, &s)
		return categoryShort(p, s)
	case "category_group_id":
		_ = json.Unmarshal(raw, &s)
		if s == nil {
			return "no group"
		}
		return groupName(p, *s)
	case "flag_color":
		_ = json.Unmarshal(raw, &s)
		if s == nil || *s == "" {
			return "none"
		}
		return *s
	case "approved":
		var b bool
		_ = json.Unmarshal(raw, &b)
		if b {
			return "approved"
		}
		return "not approved"
	case "budgeted":
		var n int64
		_ = json.Unmarshal(raw, &n)
		return FormatPlain(n, Digits(currency(p)))
	case "name":
		_ = json.Unmarshal(raw, &s)
		return "‘" + str(s) + "’"
	case "amount":
		var n int64
		_ = json.Unmarshal(raw, &n)
		return FormatFlow(n, Digits(currency(p)))
	case "account_id":
		_ = json.Unmarshal(raw, &s)
		return accountName(p, str(s))
	case "memo":
		_ = json.Unmarshal(raw, &s)
		if s == nil || *s == "" {
			return "none"
		}
		return quoted(*s)
	case "note":
		_ = json.Unmarshal(raw, &s)
		return noteWords(s)
	}
	var v any
	if json.Unmarshal(raw, &v) != nil || v == nil {
		return "none"
	}
	return fmt.Sprint(v)
}

// targetWords describes a target from a category's goal fields.
func targetWords(p *ynab.Plan, f map[string]json.RawMessage) string {
	return targetFrom(f).words(Digits(currency(p)))
}

func targetFrom(f map[string]json.RawMessage) target {
	var c ynab.Category
	b, _ := json.Marshal(f)
	_ = json.Unmarshal(b, &c)
	return targetOf(&c)
}

// targetLoss warns when the target an undo puts back is of a kind YNAB's API cannot set and the
// operation changed the kind: the undo then restores its amount and date, not its kind. (When
// only the amount or date changed, sending them back restores the target exactly.)
func targetLoss(p *ynab.Plan, ch journal.Change) string {
	if ch.Kind != journal.KindCategory {
		return ""
	}
	now, _ := decodeFields(ch.Before)
	back, _ := decodeFields(ch.After)
	if _, ok := back["goal_type"]; !ok {
		return ""
	}
	old, cur := targetFrom(back), targetFrom(now)
	if old.restorable() || (old.Type != nil && cur.Type != nil && *old.Type == *cur.Type) {
		return ""
	}
	return fmt.Sprintf("Warning: YNAB's API cannot set a target like %s's old one (%s); the undo sets its amount and date, and YNAB decides its kind.",
		ch.Label, old.words(Digits(currency(p))))
}
