package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Status is where an operation stands. It is derived from the operation's events.
type Status string

// The statuses of an operation. prepared is written before YNAB is called, so an operation
// that stays prepared is one whose outcome is not known yet.
const (
	StatusPrepared Status = "prepared"
	StatusApplied  Status = "applied"
	StatusPartial  Status = "partial"
	StatusFailed   Status = "failed"
)

// The outcome of one change: whether YNAB holds it. An operation's status is what its
// changes' outcomes add up to: all applied, some (partial), none (failed), or not known
// (prepared, each change unknown).
const (
	OutcomeApplied    = "applied"
	OutcomeNotApplied = "not_applied"
	OutcomeUnknown    = "unknown"
)

// Ways a write can have been confirmed by the person (see the confirmation spec); "none" is
// for the tools that need no confirmation.
var confirmations = map[string]bool{"mrtr": true, "elicit": true, "code": true, "app": true, "none": true}

// Change is one field-level change of one thing in YNAB. Before/After are JSON objects of the
// fields changed, named as YNAB names them ({"category_id": "…"}, {"budgeted": 120000}); Before
// is null for a create and After is null for a delete. The journal stores them as given.
type Change struct {
	Kind   string          `json:"kind"`            // "transaction", "month_category", "category", …
	ID     string          `json:"id,omitempty"`    // YNAB id of the thing ("" for a create until YNAB answered)
	Month  string          `json:"month,omitempty"` // for month categories
	Label  string          `json:"label,omitempty"` // how a person would name it: "2026-11-28 Market 86.40"
	Before json.RawMessage `json:"before,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
	// Outcome says whether YNAB holds the change: applied, not_applied, or unknown while the
	// operation is prepared. The journal fills it in from the operation's events.
	Outcome string `json:"outcome,omitempty"`
	// EnteredBy names the earlier operation that had already entered this change in YNAB
	// (an identical retry after a lost answer): this operation does not own it, and undoing
	// this operation leaves it alone.
	EnteredBy string `json:"entered_by,omitempty"`
}

// Client is the MCP client that asked for an operation, as it named itself.
type Client struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Draft is what Prepare records, durably, before YNAB is called.
type Draft struct {
	PlanID      string          `json:"plan_id"`
	Tool        string          `json:"tool"`
	Subject     json.RawMessage `json:"subject,omitempty"`
	Fingerprint string          `json:"fingerprint,omitempty"`
	// Preview is the whole text the person saw (or would have, for unconfirmed tools).
	Preview string `json:"preview,omitempty"`
	// Summary is the preview's first line; it defaults to that when left empty.
	Summary string `json:"summary"`
	// Changes hold, before, the state as read when applying and, after, what will be written.
	Changes      []Change `json:"changes"`
	ConfirmedVia string   `json:"confirmed_via"` // "mrtr", "elicit", "app" (the card of an MCP Apps host), "code", "none"
	Client       Client   `json:"client"`
	// UndoOf is set when this operation undoes (or redoes) another.
	UndoOf string `json:"undo_of,omitempty"`
	// KnowledgeBefore is YNAB's server knowledge of the plan as read just before the write:
	// what the write creates is new since then, which is how avenir finds it after a lost
	// answer or a crash.
	KnowledgeBefore int64 `json:"knowledge_before,omitempty"`
}

// Outcome is what Settle records: what YNAB holds of the operation.
type Outcome struct {
	// Changes, if not empty, replace the recorded changes (e.g. with the ids YNAB gave to
	// the things it created). When they carry outcomes, those decide the status: all applied
	// is applied, some is partial, none is failed.
	Changes         []Change `json:"changes,omitempty"`
	CreatedIDs      []string `json:"created_ids,omitempty"`
	ServerKnowledge int64    `json:"server_knowledge,omitempty"`
	Requests        int      `json:"requests"` // YNAB requests the whole tool call cost
	// Partial says only part was applied, and Note says exactly which part. Note may also
	// carry any other remark.
	Partial bool   `json:"partial,omitempty"`
	Note    string `json:"note,omitempty"`
	// Error says why what is not applied was not: YNAB's refusal or the failure.
	Error string `json:"error,omitempty"`
	// ReadBack says the outcome was learnt by reading YNAB, because its answer was lost.
	ReadBack bool `json:"read_back,omitempty"`
}

// Operation is one write as the journal knows it: the projection of its events.
type Operation struct {
	ID              string          `json:"id"`
	Time            time.Time       `json:"time"`
	PlanID          string          `json:"plan_id"`
	Tool            string          `json:"tool"`
	Summary         string          `json:"summary"`
	Preview         string          `json:"preview,omitempty"`
	Fingerprint     string          `json:"fingerprint,omitempty"`
	Subject         json.RawMessage `json:"subject,omitempty"`
	Changes         []Change        `json:"changes"`
	ConfirmedVia    string          `json:"confirmed_via"`
	Client          Client          `json:"client"`
	Status          Status          `json:"status"`
	Error           string          `json:"error,omitempty"`
	Note            string          `json:"note,omitempty"`
	CreatedIDs      []string        `json:"created_ids,omitempty"`
	ServerKnowledge int64           `json:"server_knowledge,omitempty"`
	Requests        int             `json:"requests"`
	UndoOf          string          `json:"undo_of,omitempty"`
	UndoneBy        string          `json:"undone_by,omitempty"`
	KnowledgeBefore int64           `json:"knowledge_before,omitempty"`
	ReadBack        bool            `json:"read_back,omitempty"`
	// ResolvedBy says who decided the outcome, and how, when a person did (ResolveByHand):
	// "by the person, with avenir journal resolve".
	ResolvedBy string  `json:"resolved_by,omitempty"`
	Answered   bool    `json:"answered,omitempty"`
	Events     []Event `json:"events"`
}

// Event is one fact the journal recorded about an operation. Events are the journal's truth:
// they are appended, never rewritten or deleted, and an Operation is what they add up to.
type Event struct {
	ID        string          `json:"id"`
	Time      time.Time       `json:"time"`
	Operation string          `json:"operation"`
	Type      string          `json:"type"` // one of the event types below
	Data      json.RawMessage `json:"data"`
}

// Event types.
const (
	eventPrepared  = "prepared"  // data: Draft
	eventApplied   = "applied"   // data: Outcome
	eventFailed    = "failed"    // data: failure
	eventRecovered = "recovered" // data: recovery
	eventResolved  = "resolved"  // data: resolution
	eventUndone    = "undone"    // data: undoLink
	eventAnswered  = "answered"  // data: null; the outcome's answer reached the client
)

// failure is the data of a "failed" event.
type failure struct {
	Error    string `json:"error"`
	Requests int    `json:"requests"`
}

// recovery is the data of a "recovered" event: what YNAB showed at the next start about an
// operation whose writer stopped before it recorded the outcome. Changes, with an outcome each,
// say it change by change; journals written before per-change outcomes have only Applied.
type recovery struct {
	Applied bool     `json:"applied"`
	Error   string   `json:"error,omitempty"`
	Changes []Change `json:"changes,omitempty"`
}

// resolution is the data of a "resolved" event: the outcome a person decided, after looking in
// YNAB, for a prepared operation that recovery cannot settle, and how it was decided.
type resolution struct {
	Decision string `json:"decision"` // OutcomeApplied or OutcomeNotApplied
	By       string `json:"by"`       // "by the person, with avenir journal resolve"
}

// undoLink is the data of an "undone" event.
type undoLink struct {
	By string `json:"by"`
}

var (
	// ErrNotPrepared is returned when an outcome is recorded for an operation whose outcome
	// is already known.
	ErrNotPrepared = errors.New("its outcome is already recorded")
	// ErrAlreadyUndone is returned when an operation would be undone a second time.
	ErrAlreadyUndone = errors.New("it has already been undone")
)

// apply adds ev to op: this is the projection. It refuses an event that does not fit the
// operation's state, which is how the journal keeps its invariants (the same function checks
// a new event before it is written and replays the stored ones).
func (op *Operation) apply(ev Event) error {
	if ev.Type != eventPrepared && op.ID == "" {
		return fmt.Errorf("event %s (%s) comes before its operation was prepared", ev.ID, ev.Type)
	}
	switch ev.Type {
	case eventPrepared:
		if op.ID != "" {
			return fmt.Errorf("operation %s: prepared twice", ev.Operation)
		}
		var d Draft
		if err := decode(ev.Data, &d); err != nil {
			return fmt.Errorf("event %s: %w", ev.ID, err)
		}
		*op = Operation{
			ID: ev.Operation, Time: ev.Time, PlanID: d.PlanID, Tool: d.Tool, Summary: d.Summary,
			Preview: d.Preview, Fingerprint: d.Fingerprint, Subject: d.Subject, Changes: d.Changes,
			ConfirmedVia: d.ConfirmedVia, Client: d.Client, Status: StatusPrepared, UndoOf: d.UndoOf,
			KnowledgeBefore: d.KnowledgeBefore,
		}
		op.Changes = withOutcome(op.Changes, OutcomeUnknown)
	case eventApplied:
		var o Outcome
		if err := op.settle(ev, &o); err != nil {
			return err
		}
		if len(o.Changes) > 0 {
			op.Changes = o.Changes
		}
		op.Status = StatusApplied
		if hasOutcomes(o.Changes) {
			op.Changes = op.settleChanges("")
		} else {
			// Written before per-change outcomes: a partial outcome that listed changes listed only
			// those applied; one that did not leaves each change's outcome unknown.
			op.Changes = withOutcome(op.Changes, OutcomeApplied)
			if o.Partial {
				op.Status = StatusPartial
				if len(o.Changes) == 0 {
					op.Changes = withOutcome(op.Changes, OutcomeUnknown)
				}
			}
		}
		op.CreatedIDs, op.ServerKnowledge, op.Requests, op.Note = o.CreatedIDs, o.ServerKnowledge, o.Requests, o.Note
		op.Error, op.ReadBack = o.Error, o.ReadBack
	case eventFailed:
		var f failure
		if err := op.settle(ev, &f); err != nil {
			return err
		}
		op.Status, op.Error, op.Requests = StatusFailed, f.Error, f.Requests
		op.Changes = withOutcome(op.Changes, OutcomeNotApplied)
	case eventRecovered:
		var r recovery
		if err := op.settle(ev, &r); err != nil {
			return err
		}
		op.ReadBack = true
		if len(r.Changes) > 0 {
			op.Changes = r.Changes
			op.Status = StatusApplied
			op.Changes = op.settleChanges("")
			op.Error = r.Error
			break
		}
		op.Status, op.Error = StatusApplied, ""
		op.Changes = withOutcome(op.Changes, OutcomeApplied)
		if !r.Applied {
			op.Status, op.Error = StatusFailed, r.Error
			op.Changes = withOutcome(op.Changes, OutcomeNotApplied)
		}
	case eventResolved:
		var r resolution
		if err := op.settle(ev, &r); err != nil {
			return err
		}
		op.ResolvedBy = r.By
		switch r.Decision {
		case OutcomeApplied:
			op.Status, op.Note = StatusApplied, "applied, as decided "+r.By+"; what it changed in YNAB is not recorded"
			op.Changes = withOutcome(op.Changes, OutcomeApplied)
		case OutcomeNotApplied:
			op.Status, op.Error = StatusFailed, "not applied, as decided "+r.By
			op.Changes = withOutcome(op.Changes, OutcomeNotApplied)
		default:
			return fmt.Errorf("event %s: the decision %q is neither %s nor %s", ev.ID, r.Decision, OutcomeApplied, OutcomeNotApplied)
		}
	case eventUndone:
		var l undoLink
		if err := decode(ev.Data, &l); err != nil {
			return fmt.Errorf("event %s: %w", ev.ID, err)
		}
		if err := op.undoable(); err != nil {
			return err
		}
		op.UndoneBy = l.By
	case eventAnswered:
		if op.Status == StatusPrepared {
			return fmt.Errorf("operation %s: answered before its outcome was recorded", ev.Operation)
		}
		op.Answered = true
	default:
		return fmt.Errorf("event %s has type %q, which this avenir does not know", ev.ID, ev.Type)
	}
	op.Events = append(op.Events, ev)
	return nil
}

// hasOutcomes reports whether any of cs carries an outcome.
func hasOutcomes(cs []Change) bool {
	return slices.ContainsFunc(cs, func(c Change) bool { return c.Outcome != "" })
}

// withOutcome returns cs with every change's outcome set to o.
func withOutcome(cs []Change, o string) []Change {
	out := slices.Clone(cs)
	for i := range out {
		out[i].Outcome = o
	}
	return out
}

// settleChanges derives the status from the changes' outcomes: all applied is applied, none
// is failed, a mix is partial. A change without an outcome takes def; with def empty it counts
// as unknown, and so makes the operation partial at best.
func (op *Operation) settleChanges(def string) []Change {
	cs := slices.Clone(op.Changes)
	var applied, notApplied, unknown int
	for i := range cs {
		if cs[i].Outcome == "" || cs[i].Outcome == OutcomeUnknown && def != "" {
			cs[i].Outcome = def
		}
		switch cs[i].Outcome {
		case OutcomeApplied:
			applied++
		case OutcomeNotApplied:
			notApplied++
		default:
			cs[i].Outcome = OutcomeUnknown
			unknown++
		}
	}
	switch {
	case len(cs) == 0:
	case applied == len(cs):
		op.Status = StatusApplied
	case applied == 0 && unknown == 0:
		op.Status = StatusFailed
	case op.Status == StatusApplied:
		op.Status = StatusPartial
	}
	return cs
}

// undoable says why op cannot be undone, if it cannot: it is undone at most once, and only
// once it is known to be (at least partly) applied.
func (op *Operation) undoable() error {
	if op.UndoneBy != "" {
		return fmt.Errorf("operation %s: %w (by %s)", op.ID, ErrAlreadyUndone, op.UndoneBy)
	}
	if op.Status != StatusApplied && op.Status != StatusPartial {
		return fmt.Errorf("operation %s is %s: only an applied operation can be undone", op.ID, op.Status)
	}
	return nil
}

// settle checks that op still waits for its outcome and decodes the outcome event's data.
func (op *Operation) settle(ev Event, data any) error {
	if op.Status != StatusPrepared {
		return fmt.Errorf("operation %s cannot be marked %s: %w (it is %s)", op.ID, ev.Type, ErrNotPrepared, op.Status)
	}
	if err := decode(ev.Data, data); err != nil {
		return fmt.Errorf("event %s: %w", ev.ID, err)
	}
	return nil
}

func decode(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decoding event data: %w", err)
	}
	return nil
}

// normalize checks d and fills in its defaults, so that only well-formed drafts are recorded.
func (d *Draft) normalize() error {
	switch {
	case d.PlanID == "":
		return errors.New("the draft names no plan")
	case d.Tool == "":
		return errors.New("the draft names no tool")
	case !confirmations[d.ConfirmedVia]:
		return fmt.Errorf("the draft's confirmation %q is not one of mrtr, elicit, app, code, none", d.ConfirmedVia)
	}
	if d.Summary == "" {
		d.Summary = firstLine(d.Preview)
	}
	if d.Summary == "" {
		return errors.New("the draft has neither a summary nor a preview")
	}
	var err error
	if d.Subject, err = normalizeJSON(d.Subject, false); err != nil {
		return fmt.Errorf("the draft's subject: %w", err)
	}
	return normalizeChanges(d.Changes)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}

// normalizeChanges checks each change and turns a JSON null before/after into "absent", so
// that a change reads back exactly as it was stored.
func normalizeChanges(cs []Change) error {
	for i := range cs {
		c := &cs[i]
		if c.Kind == "" {
			return fmt.Errorf("change %d has no kind", i+1)
		}
		var err error
		if c.Before, err = normalizeJSON(c.Before, true); err != nil {
			return fmt.Errorf("change %d (%s %s), before: %w", i+1, c.Kind, c.ID, err)
		}
		if c.After, err = normalizeJSON(c.After, true); err != nil {
			return fmt.Errorf("change %d (%s %s), after: %w", i+1, c.Kind, c.ID, err)
		}
	}
	return nil
}

// normalizeJSON returns raw compacted, or nil for null or nothing; with object set, anything
// but a JSON object is refused.
func normalizeJSON(raw json.RawMessage, object bool) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if object && raw[0] != '{' {
		return nil, errors.New("not a JSON object of field names and values")
	}
	return buf.Bytes(), nil
}
