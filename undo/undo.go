package undo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/avenir-mcp/avenir/journal"
)

// State reads what YNAB holds now for the thing a journaled change is about: the present values
// of the fields the change names, and whether the thing exists at all. The tools package
// implements it over the YNAB client; undo needs nothing else of YNAB. Today is the plan's date
// (YYYY-MM-DD): a scheduled transaction can be put back only on a date after it.
type State interface {
	Current(ctx context.Context, ch journal.Change) (fields map[string]json.RawMessage, exists bool, err error)
	Today() string
}

// Inverse is the undo of one operation: the changes that take it back, and the ones left alone.
type Inverse struct {
	Of        journal.Operation
	First     string           // the preview's first line: "Undo: recategorise 2 transaction(s)?" or "Redo: …"
	Changes   []journal.Change // the inverse changes, each with Before = what is there now
	LeftAlone []LeftAlone      // the operation's changes that are not taken back, and why
}

// LeftAlone is a change of the operation that the undo does not touch.
type LeftAlone struct {
	Change journal.Change
	Why    string // "changed since", "deleted since", "never applied"
}

// ErrNothingToUndo: every change of the operation was changed since (or never applied).
var ErrNothingToUndo = errors.New("nothing is left to undo")

// Build works out the undo of op: each change whose thing still holds the value op left is
// reversed; every other one is left alone and named. It refuses, with a reason, an operation that
// cannot be undone (see Refusal), and returns ErrNothingToUndo (wrapped, with the names) when
// nothing would be written.
func Build(ctx context.Context, op journal.Operation, st State) (Inverse, error) {
	if err := Refusal(op); err != nil {
		return Inverse{}, err
	}
	back := Inverse{Of: op, First: FirstLine(op)}
	for _, ch := range op.Changes {
		switch {
		case ch.EnteredBy != "":
			back.LeftAlone = append(back.LeftAlone, LeftAlone{Change: ch, Why: "entered by operation " + ch.EnteredBy})
			continue
		case ch.Outcome == journal.OutcomeNotApplied:
			back.LeftAlone = append(back.LeftAlone, LeftAlone{Change: ch, Why: "never applied"})
			continue
		}
		inv, why, err := inverse(ctx, ch, st)
		if err != nil {
			return Inverse{}, err
		}
		if why != "" {
			back.LeftAlone = append(back.LeftAlone, LeftAlone{Change: ch, Why: why})
			continue
		}
		back.Changes = append(back.Changes, inv)
	}
	if len(back.Changes) == 0 {
		var names []string
		for _, l := range back.LeftAlone {
			names = append(names, l.Change.Label+" ("+l.Why+")")
		}
		return back, fmt.Errorf("operation %s: %w: %s. Nothing was written", op.ID, ErrNothingToUndo, strings.Join(names, "; "))
	}
	return back, nil
}

// inverse returns the change that takes ch back, or why it is left alone.
func inverse(ctx context.Context, ch journal.Change, st State) (journal.Change, string, error) {
	now, exists, err := st.Current(ctx, ch)
	if err != nil {
		return journal.Change{}, "", fmt.Errorf("reading %s from YNAB: %w", ch.Label, err)
	}
	inv := journal.Change{Kind: ch.Kind, ID: ch.ID, Month: ch.Month, Label: ch.Label, Before: ch.After, After: ch.Before}
	switch ch.Kind {
	case journal.KindTransaction, journal.KindMonthCategory, journal.KindCategory, journal.KindCategoryGroup, journal.KindPayee, journal.KindScheduled:
		if !exists {
			return inv, "deleted since", nil
		}
		if !Holds(now, ch.After) {
			return inv, "changed since", nil
		}
	case journal.KindNewTransaction, journal.KindNewScheduled:
		if !exists {
			return inv, "deleted since", nil
		}
		if !Holds(now, withoutImportID(ch.After)) {
			return inv, "changed since", nil
		}
		inv.Kind = deletionOf[ch.Kind]
	case journal.KindDeletedTransaction, journal.KindDeletedScheduled:
		if exists {
			return inv, "there again", nil
		}
		// Entered again, it gets a new id from YNAB: the write path finds it by what it sent.
		inv.Kind, inv.ID = creationOf[ch.Kind], ""
	default:
		return inv, "", fmt.Errorf("avenir does not know how to undo a change of kind %q", ch.Kind)
	}
	if err := scheduleDate(inv, st.Today()); err != nil {
		return inv, "", err
	}
	return inv, "", nil
}

// The kinds that undo one another: a creation is undone by a deletion, and the other way round.
var (
	deletionOf = map[string]string{journal.KindNewTransaction: journal.KindDeletedTransaction, journal.KindNewScheduled: journal.KindDeletedScheduled}
	creationOf = map[string]string{journal.KindDeletedTransaction: journal.KindNewTransaction, journal.KindDeletedScheduled: journal.KindNewScheduled}
)

// scheduleDate refuses an inverse that would give a scheduled transaction a date YNAB refuses:
// its next date must be after today (YNAB's API takes no past date, and moves none forward).
func scheduleDate(inv journal.Change, today string) error {
	if inv.Kind != journal.KindScheduled && inv.Kind != journal.KindNewScheduled {
		return nil
	}
	var f struct {
		Date *string `json:"date"`
	}
	if json.Unmarshal(inv.After, &f) != nil || f.Date == nil || *f.Date > today {
		return nil
	}
	return fmt.Errorf("%s cannot be put back: its date, %s, has passed (today is %s), and YNAB's API takes only a future date for a scheduled transaction. "+
		"Nothing was written; change it in YNAB, or with update_scheduled_transaction and a new date", inv.Label, *f.Date, today)
}

// withoutImportID drops import_id from a created transaction's fields: YNAB keeps it, but a
// redo gives the transaction a new one, so it says nothing about whether someone changed it.
func withoutImportID(fields json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(fields, &m) != nil {
		return fields
	}
	delete(m, "import_id")
	b, _ := json.Marshal(m)
	return b
}

// Holds reports whether the present fields hold the wanted ones. JSON values are compared by
// meaning, and an empty string equals null (YNAB writes "no flag" both ways).
func Holds(now map[string]json.RawMessage, want json.RawMessage) bool {
	var w map[string]json.RawMessage
	if len(want) == 0 || string(want) == "null" {
		return true
	}
	if json.Unmarshal(want, &w) != nil {
		return false
	}
	for k, v := range w {
		if !sameJSON(now[k], v) {
			return false
		}
	}
	return true
}

func sameJSON(a, b json.RawMessage) bool {
	return bytes.Equal(normJSON(a), normJSON(b))
}

func normJSON(r json.RawMessage) []byte {
	if len(r) == 0 || string(r) == `""` {
		return []byte("null")
	}
	var v any
	if json.Unmarshal(r, &v) != nil {
		return r
	}
	b, _ := json.Marshal(v)
	return b
}

// FirstLine is the first line of the undo's preview: "Undo: " and the operation's own first line
// with a lower-case first letter. Undoing an undo redoes ("Redo: …"), and undoing a redo undoes
// again, whatever the chain's length.
func FirstLine(op journal.Operation) string {
	s := firstLine(op.Preview) // the question as the person saw it; the summary says what happened
	switch {
	case strings.HasPrefix(s, "Undo: "):
		return "Redo: " + strings.TrimPrefix(s, "Undo: ")
	case strings.HasPrefix(s, "Redo: "):
		return "Undo: " + strings.TrimPrefix(s, "Redo: ")
	}
	return "Undo: " + lowerFirst(s)
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// firstLine is a preview's first line.
func firstLine(preview string) string {
	line, _, _ := strings.Cut(preview, "\n")
	return line
}
