package tools

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestToolAnnotationsAndClaims pins what every tool tells a client about itself (the one table of
// hints: other tests leave them to it): whether it
// only reads, whether it may overwrite what is there, whether an identical second call has no
// further effect, and the undo and cost claims of its description. Clients act on the hints (a
// client that trusts idempotentHint may retry), so each row says why it is what it is.
func TestToolAnnotationsAndClaims(t *testing.T) {
	type row struct {
		readOnly, destructive, idempotent bool
		undo                              string // "undoable", "cannot", or "" for a read
		cost                              string // a phrase the description must hold, "" when it claims none
	}
	const (
		undoable = "undoable"
		cannot   = "cannot"
	)
	read := row{readOnly: true}
	want := map[string]row{
		"list_plans": read, "get_plan_overview": read, "list_accounts": read, "list_categories": read,
		"list_transactions": read, "list_payees": read, "list_scheduled_transactions": read,
		"list_operations":      {readOnly: true, cost: "No YNAB request"},
		"get_operation":        {readOnly: true, cost: "No YNAB request"},
		"spending_report":      {readOnly: true, cost: "no extra request"},
		"find_recurring":       {readOnly: true, cost: "No extra request"},
		"suggest_categories":   read,
		"list_money_movements": {readOnly: true, cost: "One YNAB request, plus the plan's usual delta read"},

		// Setting a value: the same call again sets the same value.
		"apply_categories":             {destructive: true, idempotent: true, undo: undoable},
		"set_category_budget":          {destructive: true, idempotent: true, undo: undoable},
		"flag_transactions":            {destructive: true, idempotent: true, undo: undoable},
		"approve_transactions":         {destructive: true, idempotent: true, undo: undoable},
		"set_category_target":          {destructive: true, idempotent: true, undo: undoable},
		"update_category":              {destructive: true, idempotent: true, undo: undoable},
		"update_category_group":        {destructive: true, idempotent: true, undo: undoable},
		"update_transactions":          {destructive: true, idempotent: true, undo: undoable},
		"update_scheduled_transaction": {destructive: true, idempotent: true, undo: undoable},
		"rename_payee":                 {destructive: true, idempotent: true, undo: undoable},
		"merge_payees":                 {destructive: true, idempotent: true, undo: undoable},
		// The second reconcile finds nothing left to reconcile and no difference.
		"reconcile_account": {destructive: true, idempotent: true, undo: undoable},
		// The second call finds the transaction split already, and refuses.
		"split_transaction": {destructive: true, idempotent: true, undo: cannot},
		// The second call finds the things gone, and refuses.
		"delete_transactions":          {destructive: true, idempotent: true, undo: undoable, cost: "a request each"},
		"delete_scheduled_transaction": {destructive: true, idempotent: true, undo: undoable},
		// The second undo of one operation is refused: it was undone already.
		"undo_operation": {destructive: true, idempotent: true, undo: undoable},
		// Moving is relative: the same move again moves the amount again.
		"move_money": {destructive: true, undo: undoable},
		// An identical call after its answer was heard enters the transactions again: that is a
		// second purchase, not a retry (a retry whose answer was lost enters nothing twice).
		"create_transactions":          {undo: undoable},
		"create_scheduled_transaction": {undo: undoable},
		// A second create of the same name is refused: the name is taken.
		"create_category":       {idempotent: true, undo: cannot},
		"create_category_group": {idempotent: true, undo: cannot},
		"create_account":        {idempotent: true, undo: cannot},
		// YNAB imports each bank line once.
		"import_transactions": {idempotent: true, undo: cannot},
		// It marks existing transactions cleared (and reconciled); the same statement again
		// enters nothing: YNAB takes each import id once on an account.
		"import_statement": {destructive: true, idempotent: true, undo: undoable},
		// The card's own tools (app-only): an answer runs the write it confirms, once (its token
		// is spent); an open writes nothing to YNAB, though each gives the card a new token.
		"answer_confirmation": {destructive: true, idempotent: true},
		"open_confirmation":   {},
	}
	e := newEnv(t, envOptions{kind: modernNone})
	res, err := e.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tool := range res.Tools {
		seen[tool.Name] = true
		w, ok := want[tool.Name]
		if !ok {
			t.Errorf("%s: not in this table; pin its annotations and claims here", tool.Name)
			continue
		}
		a := tool.Annotations
		if a == nil {
			t.Errorf("%s: no annotations", tool.Name)
			continue
		}
		if a.ReadOnlyHint != w.readOnly {
			t.Errorf("%s: readOnlyHint = %v, want %v", tool.Name, a.ReadOnlyHint, w.readOnly)
		}
		if a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint must be false: a tool works on the person's own plan", tool.Name)
		}
		if !w.readOnly {
			if a.DestructiveHint == nil || *a.DestructiveHint != w.destructive {
				t.Errorf("%s: destructiveHint = %v, want %v", tool.Name, deref(a.DestructiveHint), w.destructive)
			}
			if a.IdempotentHint != w.idempotent {
				t.Errorf("%s: idempotentHint = %v, want %v", tool.Name, a.IdempotentHint, w.idempotent)
			}
		}
		if _, card := tool.Meta["ui"]; card && !w.readOnly && !appOnly(tool) && !strings.HasSuffix(tool.Description, confirmDescription) {
			t.Errorf("%s: a confirmed write's description must end with the rule on codes: %q", tool.Name, tool.Description)
		}
		d := strings.ToLower(tool.Description)
		says := strings.Contains(d, "undoable") || strings.Contains(d, "undo deletes") || strings.Contains(d, "undo enters") ||
			strings.Contains(d, "undo schedules") || strings.Contains(d, "undoing an undo")
		saysNot := strings.Contains(d, "cannot be undone")
		switch w.undo {
		case undoable:
			if !says || saysNot {
				t.Errorf("%s: the description must say how it is undone: %q", tool.Name, tool.Description)
			}
		case cannot:
			if !saysNot {
				t.Errorf("%s: the description must say it cannot be undone: %q", tool.Name, tool.Description)
			}
		default:
			if says || saysNot {
				t.Errorf("%s: a read makes no undo claim: %q", tool.Name, tool.Description)
			}
		}
		claimsCost := strings.Contains(d, "request")
		switch {
		case w.cost != "" && !strings.Contains(tool.Description, w.cost):
			t.Errorf("%s: the description must claim %q: %q", tool.Name, w.cost, tool.Description)
		case w.cost == "" && claimsCost:
			t.Errorf("%s: the description claims a cost this table does not pin: %q", tool.Name, tool.Description)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("%s: in the table but not offered", name)
		}
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestDescribedReadCosts measures what the read tools' descriptions claim: the journal's tools
// ask YNAB nothing, the analyses nothing beyond the plan avenir holds, and list_money_movements
// one request beyond the plan's delta read — two when that read is due.
func TestDescribedReadCosts(t *testing.T) {
	window := 20 * time.Second
	e, clk := clockedEnv(t, window)
	e.spent("get_plan_overview", nil, nil) // the plan is held from here on
	for _, s := range []struct {
		tool string
		args map[string]any
		want int
	}{
		{"list_operations", nil, 0},
		{"get_operation", map[string]any{"operation_id": "nope"}, 0},
		{"spending_report", nil, 0},
		{"find_recurring", nil, 0},
		{"suggest_categories", nil, 0},
		{"list_money_movements", nil, 1},
	} {
		if got := e.spent(s.tool, s.args, nil); got != s.want {
			t.Errorf("%s with the plan held: %d requests, want %d", s.tool, got, s.want)
		}
	}
	clk.advance(window)
	if got := e.spent("list_money_movements", nil, nil); got != 2 {
		t.Errorf("list_money_movements with the plan due for its delta: %d requests, want 2", got)
	}
}
