package undo

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/journal"
)

func TestFirstLine(t *testing.T) {
	tests := []struct{ summary, want string }{
		{"Recategorise 2 transaction(s)?", "Undo: recategorise 2 transaction(s)?"},
		{"Approve 3 transaction(s)?", "Undo: approve 3 transaction(s)?"},
		{"Undo: recategorise 2 transaction(s)?", "Redo: recategorise 2 transaction(s)?"},
		{"Redo: recategorise 2 transaction(s)?", "Undo: recategorise 2 transaction(s)?"},
		{"Élan?", "Undo: élan?"},
	}
	for _, tt := range tests {
		if got := FirstLine(journal.Operation{Summary: tt.summary}); got != tt.want {
			t.Errorf("FirstLine(%q) = %q, want %q", tt.summary, got, tt.want)
		}
	}
}

// fakeState answers Current from a map of change id → present fields (absent: the thing is gone).
type fakeState map[string]string

func (f fakeState) Current(_ context.Context, ch journal.Change) (map[string]json.RawMessage, bool, error) {
	s, ok := f[ch.ID]
	if !ok {
		return nil, false, nil
	}
	var m map[string]json.RawMessage
	return m, true, json.Unmarshal([]byte(s), &m)
}

func TestBuildLeavesAloneWhatChangedSince(t *testing.T) {
	op := journal.Operation{ID: "OP", Tool: "flag_transactions", Status: journal.StatusApplied, Summary: "Change the flag of 3 transaction(s)?",
		Changes: []journal.Change{
			{Kind: KindTransaction, ID: "a", Label: "A", Before: json.RawMessage(`{"flag_color":null}`), After: json.RawMessage(`{"flag_color":"red"}`)},
			{Kind: KindTransaction, ID: "b", Label: "B", Before: json.RawMessage(`{"flag_color":"blue"}`), After: json.RawMessage(`{"flag_color":null}`)},
			{Kind: KindTransaction, ID: "c", Label: "C", Before: json.RawMessage(`{"flag_color":null}`), After: json.RawMessage(`{"flag_color":"green"}`)},
			{Kind: KindCreated, ID: "d", Label: "D", After: json.RawMessage(`{"amount":-1000,"import_id":"X"}`)},
		}}
	st := fakeState{"a": `{"flag_color":"red"}`, "b": `{"flag_color":""}`, "c": `{"flag_color":"purple"}`, "d": `{"amount":-1000,"import_id":"Y"}`}
	p, err := Build(context.Background(), op, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 3 || p.Changes[0].ID != "a" || string(p.Changes[0].After) != `{"flag_color":null}` ||
		p.Changes[1].ID != "b" || p.Changes[2].Kind != KindDeleted {
		t.Fatalf("inverse = %+v", p.Changes)
	}
	if len(p.LeftAlone) != 1 || p.LeftAlone[0].Change.ID != "c" || p.LeftAlone[0].Why != "changed since" {
		t.Fatalf("left alone = %+v", p.LeftAlone)
	}

	_, err = Build(context.Background(), op, fakeState{})
	if !errors.Is(err, ErrNothingToUndo) || !strings.Contains(err.Error(), "A (deleted since)") {
		t.Fatalf("everything gone: err = %v", err)
	}
}

func TestRefusals(t *testing.T) {
	tests := []struct {
		op   journal.Operation
		want string
	}{
		{journal.Operation{ID: "1", Tool: "create_category", Status: journal.StatusApplied}, "no way to delete or hide a category"},
		{journal.Operation{ID: "1", Tool: "split_transaction", Status: journal.StatusApplied}, "only YNAB can"},
		{journal.Operation{ID: "1", Tool: "import_transactions", Status: journal.StatusApplied}, "cannot be undone"},
		{journal.Operation{ID: "1", Tool: "apply_categories", Status: journal.StatusFailed}, "nothing to undo"},
		{journal.Operation{ID: "1", Tool: "apply_categories", Status: journal.StatusApplied, UndoneBy: "2"}, "already undone by 2"},
	}
	for _, tt := range tests {
		if err := Refusal(tt.op); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Refusal(%s, %s) = %v, want %q", tt.op.Tool, tt.op.Status, err, tt.want)
		}
	}
	if err := Refusal(journal.Operation{Tool: "apply_categories", Status: journal.StatusPartial}); err != nil {
		t.Errorf("a partly applied operation can be undone, got %v", err)
	}
}
