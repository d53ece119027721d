package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
		ed := &edit{
			plan:    p,
			tool:    undoOperationTool.Name,
			subject: undoSubject{OperationID: op.ID},
			first:   inverse.First,
			changes: inverse.Changes,
			undoOf:  op.ID,
		}
		ed.lines = undoLines(p, op, inverse.Changes)
		for _, ch := range inverse.Changes {
			if note := targetLoss(p, ch); note != "" {
				ed.notes = append(ed.notes, note)
			}
		}
		if createdPayees(op) {
			ed.notes = append(ed.notes, "The payees YNAB created for these transactions stay: YNAB's API cannot delete a payee.")
		}
		ed.notes = append(ed.notes, undoNotes(inverse.Changes)...)
		left = nil
		for _, l := range inverse.LeftAlone {
			left = append(left, fmt.Sprintf("%s (%s)", l.Change.Label, l.Why))
			ed.notes = append(ed.notes, fmt.Sprintf("Left alone, %s: %s", l.Why, l.Change.Label))
		}
		ed.apply = func(ctx context.Context) (journal.Outcome, error) {
			return h.applyChanges(ctx, p, ed.changes)
		}
		return ed, nil
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
