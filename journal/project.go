package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"
)

// What every Store shares: the projection, and the events the Store methods append, each made
// and checked here, so that the bbolt file and journal/pg record the same events, refuse the
// same things with the same words and read them back into the same Operation.

// Project replays events, in the order they were appended, into the operation they add up to.
// It refuses an event that does not fit the operation's state, which is how a Store checks an
// event before it appends it: Project the stored events and the new one.
func Project(events []Event) (Operation, error) {
	var op Operation
	for _, ev := range events {
		if err := op.apply(ev); err != nil {
			return Operation{}, err
		}
	}
	return op, nil
}

// An Entry is one fact about an operation before a Store gives it its id and time: an event's
// type and data.
type Entry struct {
	Type string
	data any
}

// Event makes e the event id, recorded at t, of the operation op.
func (e Entry) Event(id string, t time.Time, op string) (Event, error) {
	raw, err := json.Marshal(e.data)
	if err != nil {
		return Event{}, fmt.Errorf("encoding a %s event: %w", e.Type, err)
	}
	return Event{ID: id, Time: t, Operation: op, Type: e.Type, Data: raw}, nil
}

// PrepareEntry checks d, fills in its defaults and returns it with its "prepared" entry. The
// caller's d, its changes included, is left as given.
func PrepareEntry(d Draft) (Draft, Entry, error) {
	d.Changes = slices.Clone(d.Changes)
	if err := d.normalize(); err != nil {
		return Draft{}, Entry{}, err
	}
	return d, Entry{eventPrepared, d}, nil
}

// AppliedEntry is the "applied" entry of YNAB's answer o.
func AppliedEntry(o Outcome) (Entry, error) {
	o.Changes = slices.Clone(o.Changes)
	if err := normalizeChanges(o.Changes); err != nil {
		return Entry{}, err
	}
	return Entry{eventApplied, o}, nil
}

// FailedEntry is the "failed" entry of a write YNAB did not apply, and why.
func FailedEntry(reason string, requests int) (Entry, error) {
	if reason == "" {
		return Entry{}, errors.New("the reason is missing")
	}
	return Entry{eventFailed, failure{Error: reason, Requests: requests}}, nil
}

// RecoveredEntry is the "recovered" entry of what a read of YNAB showed, change by change, about
// an operation whose writer stopped before it recorded the outcome. Each change must carry its
// outcome, applied or not_applied: recovery records only what it read.
func RecoveredEntry(changes []Change) (Entry, error) {
	r := recovery{Changes: slices.Clone(changes)}
	for _, c := range changes {
		switch c.Outcome {
		case OutcomeApplied:
			r.Applied = true
		case OutcomeNotApplied:
		default:
			return Entry{}, fmt.Errorf("change %s has outcome %q, not applied or not_applied", c.Label, c.Outcome)
		}
	}
	if err := normalizeChanges(r.Changes); err != nil {
		return Entry{}, err
	}
	if !r.Applied {
		r.Error = notApplied
	} else if slices.ContainsFunc(changes, func(c Change) bool { return c.Outcome == OutcomeNotApplied }) {
		r.Error = "partly applied: avenir stopped before YNAB answered, and YNAB has only part of the change"
	}
	return Entry{eventRecovered, r}, nil
}

// ResolvedEntry is the "resolved" entry of what a person decided (applied or not) for an
// operation recovery cannot settle, and how it was decided (by).
func ResolvedEntry(applied bool, by string) (Entry, error) {
	if by == "" {
		return Entry{}, errors.New("say how it was decided")
	}
	r := resolution{Decision: OutcomeNotApplied, By: by}
	if applied {
		r.Decision = OutcomeApplied
	}
	return Entry{eventResolved, r}, nil
}

// UndoneEntry is the "undone" entry of an operation that the operation by undid: a Store
// appends it to the undone operation when by's outcome (applied or partial) is recorded.
func UndoneEntry(by string) Entry { return Entry{eventUndone, undoLink{By: by}} }

// AnsweredEntry is the "answered" entry: the outcome's answer reached the client.
func AnsweredEntry() Entry { return Entry{eventAnswered, nil} }

// CheckUndo refuses an undo of target that cannot be recorded: target is not applied, is
// already undone, or is being undone now by one of the prepared operations undoing (their ids).
func CheckUndo(target Operation, undoing []string) error {
	if err := target.undoable(); err != nil {
		return err
	}
	if len(undoing) > 0 {
		return fmt.Errorf("operation %s is already being undone by %s, whose outcome is not known yet", target.ID, undoing[0])
	}
	return nil
}

// RefuseByHand says why op cannot be resolved by hand (ResolveByHand), or nil if it can:
// it is not prepared (ErrNotPrepared), a running avenir is still writing it (writing:
// ErrWriting), or it recorded changes a read of YNAB can check (ErrSelfSettling).
func RefuseByHand(op Operation, writing bool) error {
	switch {
	case op.Status != StatusPrepared:
		return fmt.Errorf("operation %s is %s: %w, so there is nothing to resolve", op.ID, op.Status, ErrNotPrepared)
	case writing:
		return fmt.Errorf("operation %s (%s): %w; it records the outcome when YNAB answers, and nothing was recorded here", op.ID, op.Tool, ErrWriting)
	case len(op.Changes) > 0:
		return fmt.Errorf("operation %s (%s) recorded its %d change(s) before YNAB was called, so %w: the next avenir server to start reads YNAB and records what it holds. Nothing was recorded here",
			op.ID, op.Tool, len(op.Changes), ErrSelfSettling)
	}
	return nil
}

// ParseID reads an operation id as people see it (26 letters and digits); anything else is
// ErrNotFound, with a message that says what an id looks like.
func ParseID(id string) (ulid.ULID, error) {
	u, err := ulid.ParseStrict(id)
	if err != nil {
		return ulid.ULID{}, fmt.Errorf("operation %q: %w (an operation id is 26 letters and digits, like 01JD3Q6V5G8Y2ZQ4M7N9P0R1ST)", id, ErrNotFound)
	}
	return u, nil
}
