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
			{Kind: journal.KindTransaction, ID: "a", Label: "A", Before: json.RawMessage(`{"flag_color":null}`), After: json.RawMessage(`{"flag_color":"red"}`)},
			{Kind: journal.KindTransaction, ID: "b", Label: "B", Before: json.RawMessage(`{"flag_color":"blue"}`), After: json.RawMessage(`{"flag_color":null}`)},
			{Kind: journal.KindTransaction, ID: "c", Label: "C", Before: json.RawMessage(`{"flag_color":null}`), After: json.RawMessage(`{"flag_color":"green"}`)},
			{Kind: journal.KindNewTransaction, ID: "d", Label: "D", After: json.RawMessage(`{"amount":-1000,"import_id":"X"}`)},
		}}
	st := fakeState{"a": `{"flag_color":"red"}`, "b": `{"flag_color":""}`, "c": `{"flag_color":"purple"}`, "d": `{"amount":-1000,"import_id":"Y"}`}
	p, err := Build(context.Background(), op, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 3 || p.Changes[0].ID != "a" || string(p.Changes[0].After) != `{"flag_color":null}` ||
		p.Changes[1].ID != "b" || p.Changes[2].Kind != journal.KindDeletedTransaction {
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
		{name: "a renamed payee", ch: journal.Change{Kind: journal.KindPayee, ID: "p", Before: raw(`{"name":"AH 1234"}`), After: raw(`{"name":"Albert Heijn"}`)},
			now: fakeState{"p": `{"name":"Albert Heijn"}`}, wantKind: journal.KindPayee},
		{name: "a payee renamed again since", ch: journal.Change{Kind: journal.KindPayee, ID: "p", Before: raw(`{"name":"AH 1234"}`), After: raw(`{"name":"Albert Heijn"}`)},
			now: fakeState{"p": `{"name":"AH"}`}, left: "changed since"},
		{name: "a renamed group", ch: journal.Change{Kind: journal.KindCategoryGroup, ID: "g", Before: raw(`{"name":"Vrije tijd"}`), After: raw(`{"name":"Hobby"}`)},
			now: fakeState{"g": `{"name":"Hobby"}`}, wantKind: journal.KindCategoryGroup},
		{name: "a changed schedule", ch: journal.Change{Kind: journal.KindScheduled, ID: "s", Before: raw(`{"date":"2027-01-05"}`), After: raw(`{"date":"2027-02-05"}`)},
			now: fakeState{"s": `{"date":"2027-02-05"}`}, wantKind: journal.KindScheduled},
		{name: "a schedule whose old date has passed", ch: journal.Change{Kind: journal.KindScheduled, ID: "s", Label: "Tennisclub -45.00", Before: raw(`{"date":"2026-12-01"}`), After: raw(`{"date":"2027-02-05"}`)},
			now: fakeState{"s": `{"date":"2027-02-05"}`}, wantErr: "Tennisclub -45.00 cannot be put back: its date, 2026-12-01, has passed (today is 2026-12-02)"},
		{name: "a created schedule", ch: journal.Change{Kind: journal.KindNewScheduled, ID: "s", After: raw(sched)},
			now: fakeState{"s": sched}, wantKind: journal.KindDeletedScheduled},
		{name: "a deleted schedule", ch: journal.Change{Kind: journal.KindDeletedScheduled, ID: "s", Before: raw(sched)},
			now: fakeState{}, wantKind: journal.KindNewScheduled},
		{name: "a deleted schedule whose date has passed", ch: journal.Change{Kind: journal.KindDeletedScheduled, ID: "s", Label: "Netflix", Before: raw(`{"date":"2026-12-02","frequency":"monthly"}`)},
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

// Undo refuses by the kind of each change, whatever the tool that recorded it, and says what
// to do in YNAB instead; every other kind (and a change never applied or owned by another
// operation) is undoable.
func TestRefusals(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	applied := func(chs ...journal.Change) journal.Operation {
		return journal.Operation{ID: "1", Tool: "some_tool", Status: journal.StatusApplied, Changes: chs}
	}
	unasked := func(chs ...journal.Change) journal.Operation {
		op := applied(chs...)
		op.ConfirmedVia = "none"
		return op
	}
	month := journal.Change{Kind: journal.KindMonthCategory, ID: "c", Month: "2026-11-01", Before: raw(`{"budgeted":0}`), After: raw(`{"budgeted":1000}`)}
	tests := []struct {
		name string
		op   journal.Operation
		want string // "" when it can be undone
	}{
		{"a created category", applied(journal.Change{Kind: journal.KindNewCategory, ID: "c", After: raw(`{"name":"Hond"}`)}), "no way to delete or hide a category"},
		{"a created group", applied(journal.Change{Kind: journal.KindNewCategoryGroup, ID: "g", After: raw(`{"name":"Dieren"}`)}), "cannot delete or hide a group"},
		{"a created account", applied(journal.Change{Kind: journal.KindNewAccount, ID: "a", After: raw(`{"name":"Kluis"}`)}), "cannot delete or close an account"},
		{"a split", applied(journal.Change{Kind: journal.KindTransaction, ID: "t",
			Before: raw(`{"category_id":"c"}`), After: raw(`{"category_id":null,"subtransactions":[{"amount":-1000},{"amount":-2000}]}`)}), "only YNAB can"},
		{"a bank import", unasked(journal.Change{Kind: journal.KindNewTransaction, ID: "t",
			After: raw(`{"amount":-86400,"import_id":"YNAB:-86400:2026-11-27:1"}`)}), "imported transactions from the bank; an import cannot be undone"},
		{"a statement's line the person confirmed", applied(journal.Change{Kind: journal.KindNewTransaction, ID: "t",
			After: raw(`{"amount":-86400,"import_id":"YNAB:-86400:2026-11-27:1"}`)}), ""},
		{"an import whose fields were not read back", applied(journal.Change{Kind: journal.KindNewTransaction, ID: "t", Label: "t"}), "the journal does not hold what it entered"},
		{"a schedule deleted that repeats every 3 months", applied(journal.Change{Kind: journal.KindDeletedScheduled, Label: "Smash", Before: raw(`{"frequency":"every3Months"}`)}),
			"cannot create it again: it repeats every3Months, and the API writes only never, daily, weekly, monthly, yearly"},
		{"a split schedule deleted", applied(journal.Change{Kind: journal.KindDeletedScheduled, Label: "Huur", Before: raw(`{"frequency":"monthly","subtransactions":[{"amount":-1}]}`)}),
			"it is a split, and the API cannot create a split scheduled transaction"},
		{"one irreversible change among others", applied(month, journal.Change{Kind: journal.KindNewAccount, ID: "a"}), "cannot delete or close an account"},
		{"nothing recorded", applied(), "records no change in YNAB"},
		{"failed", journal.Operation{ID: "1", Status: journal.StatusFailed, Changes: []journal.Change{month}}, "nothing to undo"},
		{"not finished", journal.Operation{ID: "1", Status: journal.StatusPrepared, Changes: []journal.Change{month}}, "is not finished: whether YNAB applied it is not known yet (avenir checks at its next start)"},
		{"an import cut off", journal.Operation{ID: "1", Status: journal.StatusPrepared}, "avenir cannot tell by reading YNAB what it did"},
		{"undone already", journal.Operation{ID: "1", Status: journal.StatusApplied, UndoneBy: "2", Changes: []journal.Change{month}}, "already undone by 2"},

		{"an assigned amount", applied(month), ""},
		{"a created transaction", applied(journal.Change{Kind: journal.KindNewTransaction, ID: "t", After: raw(`{"amount":-1000}`)}), ""},
		{"a created transaction with an import id avenir gave", applied(journal.Change{Kind: journal.KindNewTransaction, ID: "t", After: raw(`{"amount":-1000,"import_id":"AVENIR:1f2e:1"}`)}), ""},
		{"a transaction edit", applied(journal.Change{Kind: journal.KindTransaction, ID: "t", Before: raw(`{"flag_color":null}`), After: raw(`{"flag_color":"red"}`)}), ""},
		{"a deleted monthly schedule", applied(journal.Change{Kind: journal.KindDeletedScheduled, Before: raw(`{"frequency":"monthly"}`)}), ""},
		{"a created account that never got into YNAB", journal.Operation{ID: "1", Status: journal.StatusPartial, Changes: []journal.Change{
			month, {Kind: journal.KindNewAccount, Outcome: journal.OutcomeNotApplied}}}, ""},
		{"a bank import another operation owns", applied(month, journal.Change{Kind: journal.KindNewTransaction, ID: "t", EnteredBy: "0",
			After: raw(`{"import_id":"YNAB:-1:2026-11-27:1"}`)}), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Refusal(tt.op)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Refusal = %v, want %q", err, tt.want)
			}
		})
	}
}
