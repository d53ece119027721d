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
		if got := FirstLine(journal.Operation{Preview: tt.summary + "\n2026-12-01 Market 86.40: none → red"}); got != tt.want {
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

func (f fakeState) Today() string { return "2026-12-02" }

func TestBuildLeavesAloneWhatChangedSince(t *testing.T) {
	op := journal.Operation{ID: "OP", Tool: "flag_transactions", Status: journal.StatusApplied, Preview: "Change the flag of 3 transaction(s)?",
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

// The kinds of the writes of payees, groups and scheduled transactions reverse like the others:
// an edit field by field, a creation by a deletion and a deletion by a creation.
func TestBuildReversesEachKind(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	sched := `{"account_id":"A","amount":-45000,"date":"2027-01-05","frequency":"monthly"}`
	tests := []struct {
		name     string
		ch       journal.Change
		now      fakeState
		wantKind string
		wantErr  string
		left     string
	}{
		{name: "a renamed payee", ch: journal.Change{Kind: KindPayee, ID: "p", Before: raw(`{"name":"AH 1234"}`), After: raw(`{"name":"Albert Heijn"}`)},
			now: fakeState{"p": `{"name":"Albert Heijn"}`}, wantKind: KindPayee},
		{name: "a payee renamed again since", ch: journal.Change{Kind: KindPayee, ID: "p", Before: raw(`{"name":"AH 1234"}`), After: raw(`{"name":"Albert Heijn"}`)},
			now: fakeState{"p": `{"name":"AH"}`}, left: "changed since"},
		{name: "a renamed group", ch: journal.Change{Kind: KindGroup, ID: "g", Before: raw(`{"name":"Vrije tijd"}`), After: raw(`{"name":"Hobby"}`)},
			now: fakeState{"g": `{"name":"Hobby"}`}, wantKind: KindGroup},
		{name: "a changed schedule", ch: journal.Change{Kind: KindScheduled, ID: "s", Before: raw(`{"date":"2027-01-05"}`), After: raw(`{"date":"2027-02-05"}`)},
			now: fakeState{"s": `{"date":"2027-02-05"}`}, wantKind: KindScheduled},
		{name: "a schedule whose old date has passed", ch: journal.Change{Kind: KindScheduled, ID: "s", Label: "Tennisclub -45.00", Before: raw(`{"date":"2026-12-01"}`), After: raw(`{"date":"2027-02-05"}`)},
			now: fakeState{"s": `{"date":"2027-02-05"}`}, wantErr: "Tennisclub -45.00 cannot be put back: its date, 2026-12-01, has passed (today is 2026-12-02)"},
		{name: "a created schedule", ch: journal.Change{Kind: KindNewScheduled, ID: "s", After: raw(sched)},
			now: fakeState{"s": sched}, wantKind: KindDeletedScheduled},
		{name: "a deleted schedule", ch: journal.Change{Kind: KindDeletedScheduled, ID: "s", Before: raw(sched)},
			now: fakeState{}, wantKind: KindNewScheduled},
		{name: "a deleted schedule whose date has passed", ch: journal.Change{Kind: KindDeletedScheduled, ID: "s", Label: "Netflix", Before: raw(`{"date":"2026-12-02","frequency":"monthly"}`)},
			now: fakeState{}, wantErr: "Netflix cannot be put back: its date, 2026-12-02, has passed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := journal.Operation{ID: "OP", Tool: "x", Status: journal.StatusApplied, Preview: "X?", Changes: []journal.Change{tt.ch}}
			p, err := Build(context.Background(), op, tt.now)
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			case tt.left != "":
				if !errors.Is(err, ErrNothingToUndo) || len(p.LeftAlone) != 1 || p.LeftAlone[0].Why != tt.left {
					t.Fatalf("err = %v, left alone %+v; want it left alone (%s)", err, p.LeftAlone, tt.left)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if len(p.Changes) != 1 || p.Changes[0].Kind != tt.wantKind || string(p.Changes[0].After) != string(tt.ch.Before) {
				t.Fatalf("inverse = %+v, want a %s putting back %s", p.Changes, tt.wantKind, tt.ch.Before)
			}
		})
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
		{journal.Operation{ID: "1", Tool: "create_account", Status: journal.StatusApplied}, "cannot delete or close an account"},
		{journal.Operation{ID: "1", Tool: "create_category_group", Status: journal.StatusApplied}, "cannot delete or hide a group"},
		{journal.Operation{ID: "1", Tool: "delete_scheduled_transaction", Status: journal.StatusApplied, Changes: []journal.Change{
			{Kind: KindDeletedScheduled, Label: "Smash", Before: json.RawMessage(`{"frequency":"every3Months"}`)}}},
			"cannot create it again: it repeats every3Months, and the API writes only never, daily, weekly, monthly, yearly"},
		{journal.Operation{ID: "1", Tool: "delete_scheduled_transaction", Status: journal.StatusApplied, Changes: []journal.Change{
			{Kind: KindDeletedScheduled, Label: "Huur", Before: json.RawMessage(`{"frequency":"monthly","subtransactions":[{"amount":-1}]}`)}}},
			"it is a split, and the API cannot create a split scheduled transaction"},
	}
	for _, tt := range tests {
		if err := Refusal(tt.op); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Refusal(%s, %s) = %v, want %q", tt.op.Tool, tt.op.Status, err, tt.want)
		}
	}
	monthly := journal.Operation{Tool: "delete_scheduled_transaction", Status: journal.StatusApplied, Changes: []journal.Change{
		{Kind: KindDeletedScheduled, Before: json.RawMessage(`{"frequency":"monthly"}`)}}}
	if err := Refusal(monthly); err != nil {
		t.Errorf("a deleted monthly schedule can be created again, got %v", err)
	}
	if err := Refusal(journal.Operation{Tool: "apply_categories", Status: journal.StatusPartial}); err != nil {
		t.Errorf("a partly applied operation can be undone, got %v", err)
	}
}
