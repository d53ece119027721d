package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/undo"
	"github.com/avenir-mcp/avenir/ynab"
)

// The path of every write (design.md, "One write, end to end"): a tool resolves its arguments
// and gives a builder, which makes the write from a plan snapshot: the subject the person
// confirms, the preview they see, the journal's field-level changes and the YNAB request(s)
// that make them. confirmAndApply builds it on the plan as last read and asks through
// confirm.Ask — holding no lock while a person is asked. Once the person agreed, it takes the
// plan's write lock (one writer per plan across every avenir process), reads YNAB fresh,
// builds again, refuses a changed subject, journals "prepared" (write-ahead), calls YNAB, and
// journals what YNAB holds, change by change. The preview recorded is the one the person saw.

// edit is one write of a plan as the person confirms it and the journal records it: the
// subject, the preview, the field-level changes and the YNAB request(s) that make them. (The
// YNAB plan it changes is plan; the journal's record of it, an Operation; its undo, an
// undo.Inverse.)
type edit struct {
	plan    *ynab.Plan
	tool    string
	subject any
	first   string   // the preview's first line, e.g. "Budget Restaurants for 2026-09-01: 120.00 → 150.00?"
	lines   []string // the preview's change lines (at most 20 are shown)
	notes   []string // warnings shown after the lines
	changes []journal.Change
	undoOf  string
	// apply makes the change in YNAB. Its outcome's Changes, when set, are ed.changes index by
	// index, each marked applied once YNAB's answer showed it (with the id YNAB gave a created
	// thing) and left without an outcome otherwise; the write path settles those. apply stops
	// at the first request that fails and returns that error: it never retries, and never puts
	// anything back.
	apply func(ctx context.Context) (journal.Outcome, error)
	// readBack, for a write with no planned changes (an import), finds what it did by reading
	// YNAB when its answer was lost: what a read finds is recorded, each change applied.
	readBack func(ctx context.Context) (journal.Outcome, error)
}

// builder makes an edit from a plan snapshot. The write path calls it on the plan as last
// read, for the preview, and again on a fresh read under the plan's lock, for what is applied.
// Its errors are the person's to act on (bad arguments, a thing that does not exist).
type builder func(ctx context.Context, p *ynab.Plan) (*edit, error)

// maxPreviewLines is how many change lines a preview shows before "… and N more".
const maxPreviewLines = 20

// lockWait bounds how long a write waits for another writer of the same plan.
const lockWait = 30 * time.Second

// settleTimeout bounds the read that settles a write's outcome when YNAB's answer was lost.
// It runs even when the call itself was cancelled (the client went away, the server is
// stopping), so that the journal learns what happened.
const settleTimeout = 30 * time.Second

// recordTimeout bounds a journal write made after YNAB answered (the outcome, that the answer
// reached the client). Like the settling read it runs even when the call was cancelled: a
// client that goes away must not leave what YNAB did unrecorded. It is generous: the bound is
// for a store that stops answering, while recording a large operation (a statement of 10,000
// lines) on a busy machine takes seconds, and a record cut short leaves the entry prepared.
const recordTimeout = time.Minute

// preview is the text the person sees: the first line, the change lines (at most 20, then
// "… and N more"), then any warnings.
func (ed *edit) preview() string {
	var b strings.Builder
	b.WriteString(ed.first)
	for i, l := range ed.lines {
		if i == maxPreviewLines {
			fmt.Fprintf(&b, "\n… and %d more", len(ed.lines)-maxPreviewLines)
			break
		}
		b.WriteString("\n" + l)
	}
	for _, n := range ed.notes {
		b.WriteString("\n" + n)
	}
	return b.String()
}

// writeOut is the result of every write tool.
type writeOut struct {
	result
	Status           string `json:"status" jsonschema:"applied, declined, confirmation_required, or confirmation_pending (the user is asked on a card)"`
	OperationID      string `json:"operation_id,omitempty" jsonschema:"the journal id of the applied operation (undo_operation takes it)"`
	Summary          string `json:"summary,omitempty" jsonschema:"what was written, in one line"`
	Preview          string `json:"preview,omitempty" jsonschema:"for confirmation_required and declined: the change as the user must see it"`
	Confirmation     string `json:"confirmation,omitempty" jsonschema:"for confirmation_required: the one-time code to pass back, only after the user agreed"`
	ExpiresInSeconds int    `json:"expires_in_seconds,omitempty" jsonschema:"for confirmation_required: how long the code stays valid"`
	Message          string `json:"message,omitempty" jsonschema:"what happened and what to do next"`
	Undoable         *bool  `json:"undoable,omitempty" jsonschema:"for applied: whether undo_operation can take it back"`
	// Reason is the outcome as data (reason.go): set on every result that is neither applied
	// nor asks the person, declined ones and failed calls alike.
	Reason string `json:"reason,omitempty" jsonschema:"why nothing or only part was written, as a stable token (declined, plan_changed, code_refused, partial, ynab_refused, not_settled, invalid_argument, …)"`

	// The card's data, for confirmation_pending (and, for a write confirmed on the card, each
	// change's outcome): what the host draws for the user, every line.
	Title    string     `json:"title,omitempty" jsonschema:"for confirmation_pending: the change in one line"`
	Changes  []cardLine `json:"changes,omitempty" jsonschema:"for confirmation_pending: every change; after a card's answer: each with its outcome"`
	Notes    []string   `json:"notes,omitempty" jsonschema:"for confirmation_pending: warnings"`
	PlanName string     `json:"plan_name,omitempty"`
	Tool     string     `json:"tool,omitempty" jsonschema:"for confirmation_pending: the tool whose change is asked"`
	Card     *cardRef   `json:"card,omitempty" jsonschema:"for confirmation_pending: the card's handle (it confirms nothing by itself)"`

	// recorded is the operation as the journal holds it once the write was applied: what a
	// tool says of the outcome (the ids YNAB gave, what an earlier call entered) comes from
	// here, never from reading the journal again.
	recorded *journal.Operation
}

// applied returns the operation an applied write recorded.
func (o *writeOut) applied() (journal.Operation, bool) {
	if o.Status != "applied" || o.recorded == nil {
		return journal.Operation{}, false
	}
	return *o.recorded, true
}

// cardRef names a pending change's card: the handle the card opens it with (open_confirmation),
// and the version of the exchange, so that a card of another version refuses rather than guess.
type cardRef struct {
	Handle  string `json:"handle"`
	Version int    `json:"version"`
}

// textTrailer is the line a pending result's text ends with: the handle again, for a host that
// hands its view the content without the structured content (Claude Desktop with a local server:
// modelcontextprotocol/ext-apps#696, apify/apify-mcp-server#1187).
func (o *writeOut) textTrailer() string {
	if o.Card == nil {
		return ""
	}
	return fmt.Sprintf("Card: %s (v%d)", o.Card.Handle, o.Card.Version)
}

// writeStatus is the write's status, for [Deps].OnCall.
func (o *writeOut) writeStatus() string { return o.Status }

// answeredOp is the operation whose outcome this result tells the client, if any.
func (o *writeOut) answeredOp() string {
	if o.Status != "applied" {
		return ""
	}
	return o.OperationID
}

// confirmDescription ends every confirmed tool's description.
var confirmDescription = " " + confirm.ToolRule

// confirmAndApply takes a write through confirmation, the journal and YNAB. planRef is the
// plan_id argument; args are the tool's arguments without `confirmation`; code is the
// `confirmation` argument.
func (h *handlers) confirmAndApply(ctx context.Context, req *mcp.CallToolRequest, planRef string, build builder, args any, code string) (*mcp.CallToolResult, writeOut, error) {
	// A confirming call builds only to recognise the subject the person saw; applyLocked reads
	// fresh under the plan's lock before anything is written. So however long the person took
	// to answer, this build costs no request.
	f := ynab.WithinPreviewAge
	if confirming(ctx, req, code) {
		f = ynab.AsHeld
	}
	p, err := h.plan(ctx, planRef, f)
	if err != nil {
		return nil, writeOut{}, err
	}
	ed, err := build(ctx, p)
	if err != nil {
		return nil, writeOut{result: result{PlanID: p.ID}}, err
	}
	out := writeOut{result: result{PlanID: ed.plan.ID}}
	preview := ed.preview()
	dec, err := h.Confirm.Ask(ctx, req, confirm.Question{
		Tool: ed.tool, PlanID: ed.plan.ID, Subject: ed.subject, Preview: preview, Args: args, Confirmation: code,
		Card: ed.cardPreview(),
	})
	switch {
	case err != nil:
		return nil, out, err // a *jsonrpc.Error must reach the SDK unwrapped
	case dec.Input != nil:
		return dec.Input, out, nil
	case dec.Reply != nil && dec.Reply.Handle != "":
		// The handle confirms nothing alone (the card opens it through an app-only tool), so it
		// goes where every host hands it to the card: the structured content and the text's last
		// line, which a view given content only reads (modelcontextprotocol/ext-apps#696).
		out.Status, out.Preview, out.Message = dec.Reply.Status, dec.Reply.Preview, dec.Reply.Message
		out.Title, out.Changes, out.Notes, out.PlanName, out.Tool = ed.first, ed.cardLines(), ed.notes, ed.plan.Name, ed.tool
		out.Card = &cardRef{Handle: dec.Reply.Handle, Version: confirm.CardVersion}
		return nil, out, nil
	case dec.Reply != nil:
		out.Status, out.Preview, out.Message = dec.Reply.Status, dec.Reply.Preview, dec.Reply.Message
		out.Confirmation, out.ExpiresInSeconds = dec.Reply.Confirmation, dec.Reply.ExpiresInSeconds
		if out.Status == reasonDeclined {
			out.Reason = reasonDeclined
		}
		return nil, out, nil
	case !dec.Proceed:
		return nil, out, errors.New("the confirmation gave no answer; nothing was written") // fail closed
	}
	return h.applyLocked(ctx, req, ed, build, preview, dec.Fingerprint, string(dec.Mode))
}

// applyUnconfirmed journals and applies a write that needs no confirmation
// (approve_transactions, import_transactions): under the plan's lock like every write, built
// once, on a read of freshness f (fresh, unless the write depends on no before-state).
func (h *handlers) applyUnconfirmed(ctx context.Context, req *mcp.CallToolRequest, planRef string, build builder, f ynab.Freshness) (*mcp.CallToolResult, writeOut, error) {
	id, err := h.planID(ctx, planRef)
	if err != nil {
		return nil, writeOut{}, err
	}
	out := writeOut{result: result{PlanID: id}}
	unlock, err := h.Journal.LockPlan(ctx, id, lockWait)
	if err != nil {
		return nil, out, because(reasonError, "", err)
	}
	defer unlock()
	ctx = context.WithValue(ctx, lockKey{}, id)
	p, err := h.plan(ctx, id, f)
	if err != nil {
		return nil, out, err
	}
	ed, err := build(ctx, p)
	if err != nil {
		return nil, out, err
	}
	fp, err := confirm.Fingerprint(ed.plan.ID, ed.subject)
	if err != nil {
		return nil, out, fmt.Errorf("%s: %w", ed.tool, err)
	}
	return h.journalAndApply(ctx, req, ed, agreed{preview: ed.preview(), fingerprint: fp, via: "none"})
}

// applyLocked applies what the person agreed to (shown, whose preview they saw and whose
// subject has the fingerprint agreed) under the plan's write lock: it reads YNAB fresh,
// builds the write again, and records it. A subject that changed since the preview is the
// confirmation contract's "The plan changed between the preview and the answer": nothing is
// written. A before-state that moved while the subject held is applied, and said.
func (h *handlers) applyLocked(ctx context.Context, req *mcp.CallToolRequest, shown *edit, build builder, preview, fingerprint, via string) (*mcp.CallToolResult, writeOut, error) {
	out := writeOut{result: result{PlanID: shown.plan.ID}}
	unlock, err := h.Journal.LockPlan(ctx, shown.plan.ID, lockWait)
	if err != nil {
		return nil, out, because(reasonError, "", err)
	}
	defer unlock()
	ctx = context.WithValue(ctx, lockKey{}, shown.plan.ID)
	p, err := h.YNAB.Plan(ctx, shown.plan.ID, ynab.Fresh)
	if err != nil {
		return nil, out, fmt.Errorf("reading the plan before writing: %w; nothing was written", err)
	}
	ed, err := build(ctx, p)
	if err != nil {
		// What the person agreed to can no longer be built: the plan moved under it.
		return nil, out, fmt.Errorf("%w What changed: %v", confirm.ErrPlanChanged, err)
	}
	if fp, err := confirm.Fingerprint(ed.plan.ID, ed.subject); err != nil || fp != fingerprint {
		return nil, out, confirm.ErrPlanChanged
	}
	if preview == "" {
		preview = ed.preview()
	}
	var moved string
	if now := ed.preview(); now != preview && via != "none" {
		moved = "Since the preview, the plan changed before this write: it was applied to the plan as it is now:\n" + now
	}
	return h.journalAndApply(ctx, req, ed, agreed{preview: preview, fingerprint: fingerprint, via: via, moved: moved})
}

// lockKey marks a context whose call holds the write lock of the plan it names.
type lockKey struct{}

// holdsLock reports whether ctx's call holds planID's write lock: then no other writer is at
// work on the plan, and an operation of it left prepared can be settled by reading YNAB.
func holdsLock(ctx context.Context, planID string) bool {
	id, _ := ctx.Value(lockKey{}).(string)
	return id != "" && id == planID
}

// agreed is what the journal records of the person's agreement with a write: the preview they
// saw, the fingerprint of the subject they agreed to, how they confirmed ("none" for the tools
// that ask nobody), and moved, when the before-state changed since the preview, how.
type agreed struct {
	preview, fingerprint, via, moved string
}

// journalAndApply writes ed as the person agreed to it: applied under the journal, then its
// outcome recorded, change by change.
func (h *handlers) journalAndApply(ctx context.Context, req *mcp.CallToolRequest, ed *edit, a agreed) (*mcp.CallToolResult, writeOut, error) {
	op, outcome, applyErr, err := h.applyJournaled(ctx, req, ed, a)
	if err != nil {
		return nil, writeOut{result: result{PlanID: ed.plan.ID}}, err
	}
	return h.recordOutcome(ctx, ed, a, op, outcome, applyErr)
}

// applyJournaled journals the write ahead ("prepared"), applies it, and, when YNAB's answer
// leaves its outcome in doubt, reads YNAB to learn what is there. It returns the prepared
// operation, what YNAB holds change by change and why a request failed (nil when none did);
// err, when the outcome could not be learnt (the entry stays prepared) or nothing was written.
func (h *handlers) applyJournaled(ctx context.Context, req *mcp.CallToolRequest, ed *edit, a agreed) (op journal.Operation, outcome journal.Outcome, applyErr, err error) {
	subject, err := json.Marshal(ed.subject)
	if err != nil {
		return op, outcome, nil, fmt.Errorf("%s: recording the change: %w", ed.tool, err)
	}
	op, err = h.Journal.Prepare(ctx, journal.Draft{
		PlanID: ed.plan.ID, Tool: ed.tool, Subject: subject, Fingerprint: a.fingerprint, Preview: a.preview,
		Summary: happened(ed.first), Changes: ed.changes, ConfirmedVia: a.via, Client: clientOf(req), UndoOf: ed.undoOf,
		KnowledgeBefore: ed.plan.Knowledge,
	})
	if err != nil {
		return op, outcome, nil, because(reasonError, "", fmt.Errorf("avenir could not record the change in its journal, so nothing was written to YNAB: %w", err))
	}
	outcome, applyErr = ed.apply(ctx)
	outcome.Changes = alignChanges(ed.changes, outcome.Changes)
	if a.moved != "" {
		outcome.Note = strings.TrimSpace(outcome.Note + "\n" + a.moved)
	}
	switch {
	case applyErr == nil:
		mark(outcome.Changes, journal.OutcomeApplied)
	case !inDoubt(applyErr):
		mark(outcome.Changes, journal.OutcomeNotApplied)
		outcome.Error = applyErr.Error()
	case len(outcome.Changes) == 0:
		// Nothing was planned that a read could look for (an import): the write reads what YNAB
		// did its own way, or the outcome stays unknown.
		if ed.readBack == nil {
			return op, outcome, applyErr, because(reasonNotSettled, op.ID, fmt.Errorf("whether YNAB did anything is not known: %v, and avenir has no read that tells. "+
				"Journal entry %s stays prepared; check in YNAB before trying again", applyErr, op.ID))
		}
		settleCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
		outcome, err = ed.readBack(settleCtx)
		cancel()
		if err != nil {
			h.log.Warn("could not check what a write did", "operation", op.ID, "err", err)
			return op, outcome, applyErr, because(reasonNotSettled, op.ID, fmt.Errorf("whether YNAB did anything is not known: %v, and reading YNAB to see failed too (%v). "+
				"Journal entry %s stays prepared; list_transactions shows what is there", applyErr, err, op.ID))
		}
		outcome.ReadBack, outcome.Error = true, applyErr.Error()
	default:
		// YNAB may or may not have done what was asked: read it, and record what is there.
		settleCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
		op.Changes = outcome.Changes
		checked, err := h.readOutcomes(settleCtx, op)
		cancel()
		if err != nil {
			h.log.Warn("could not check what a write did", "operation", op.ID, "err", err)
			var known []string
			for _, c := range outcome.Changes {
				if c.Outcome == journal.OutcomeApplied {
					known = append(known, c.Label+describeAfter(c, Digits(currency(ed.plan))))
				}
			}
			shown := ""
			if len(known) > 0 {
				shown = fmt.Sprintf(" YNAB's answers showed this part in YNAB: %s; the rest is not known.", strings.Join(known, "; "))
			}
			return op, outcome, applyErr, because(reasonNotSettled, op.ID, fmt.Errorf("whether the change was made is not known: %v, and reading YNAB to see what it holds failed too (%v).%s "+
				"Journal entry %s stays prepared; avenir settles it by reading YNAB when it next starts. Check in YNAB before trying again", applyErr, err, shown, op.ID))
		}
		outcome.Changes, outcome.ReadBack, outcome.Error = checked, true, applyErr.Error()
	}
	return op, outcome, applyErr, nil
}

// recordOutcome records in the journal what YNAB holds of the prepared operation op (outcome, and
// applyErr, why a request failed), and makes the write's result from what was recorded: applied,
// or an error that says what is in YNAB and what is not.
func (h *handlers) recordOutcome(ctx context.Context, ed *edit, a agreed, op journal.Operation, outcome journal.Outcome, applyErr error) (*mcp.CallToolResult, writeOut, error) {
	out := writeOut{result: result{PlanID: ed.plan.ID}}
	counter := ynab.CounterFrom(ctx)
	outcome.Requests = counter.N()
	if len(outcome.CreatedIDs) == 0 {
		for _, c := range outcome.Changes {
			if c.Kind == journal.KindNewTransaction && c.ID != "" && c.EnteredBy == "" && c.Outcome == journal.OutcomeApplied {
				outcome.CreatedIDs = append(outcome.CreatedIDs, c.ID)
			}
		}
	}
	// YNAB has answered: what it did is recorded even if the client has gone away meanwhile.
	recordCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	var recorded journal.Operation
	var err error
	if countOutcome(outcome.Changes, journal.OutcomeApplied) == 0 && (len(outcome.Changes) > 0 || outcome.ReadBack) {
		recorded, err = h.Journal.Failed(recordCtx, op.ID, applyErr.Error(), counter.N())
	} else {
		recorded, err = h.Journal.Applied(recordCtx, op.ID, outcome)
	}
	cancel()
	if err != nil {
		// YNAB's state is as found; the journal keeps the entry prepared, and the next start settles it.
		h.log.Error("journal: recording the outcome of a write", "operation", op.ID, "err", err)
		return nil, out, because(reasonNotSettled, op.ID, fmt.Errorf("avenir could not record the outcome in its journal (%v); the entry %s stays prepared and is settled by reading YNAB when avenir next starts", err, op.ID))
	}
	switch recorded.Status {
	case journal.StatusFailed:
		if outcome.ReadBack {
			return nil, out, because(reasonYNABRefused, op.ID, fmt.Errorf("%w. A read of YNAB afterwards shows none of it there: nothing was written (journal entry %s)", applyErr, op.ID))
		}
		return nil, out, because(reasonYNABRefused, op.ID, fmt.Errorf("%w (nothing was written; journal entry %s records the attempt)", applyErr, op.ID))
	case journal.StatusPartial:
		return nil, out, because(reasonPartial, op.ID, errors.New(partialMessage(recorded, applyErr, Digits(currency(ed.plan)))))
	}
	out.Status, out.OperationID, out.Summary = "applied", op.ID, happened(ed.first)
	out.recorded = &recorded
	out.Undoable = ptr(undo.Refusal(recorded) == nil)
	if a.via == string(confirm.ModeApp) {
		out.Changes = outcomeLines(ed.plan, recorded.Changes)
	}
	if a.moved != "" {
		out.Message = a.moved
	}
	return nil, out, nil
}

// partialMessage says what YNAB holds of a partly applied operation and what does not, and what
// to do: undo_operation takes back what is there; what is not there was not written.
func partialMessage(op journal.Operation, cause error, digits int) string {
	var in, notIn []string
	for _, c := range op.Changes {
		if c.Outcome == journal.OutcomeApplied {
			in = append(in, c.Label+describeAfter(c, digits))
		} else {
			notIn = append(notIn, c.Label)
		}
	}
	return fmt.Sprintf("Only part of the change is in YNAB (%v). In YNAB now: %s. Not in YNAB: %s. "+
		"Journal entry %s records exactly this: undo_operation %s takes back the part that is in YNAB; "+
		"to finish instead, ask for the missing part again",
		cause, strings.Join(in, "; "), strings.Join(notIn, "; "), op.ID, op.ID)
}

// alignChanges returns the planned changes with what apply learnt of each: given, if set, is
// index by index the same changes with outcomes and ids filled in. A write that cannot know its
// changes before YNAB answers (an import) plans none and gives them all.
func alignChanges(planned, given []journal.Change) []journal.Change {
	if len(given) == len(planned) || len(planned) == 0 {
		return slices.Clone(given)
	}
	return slices.Clone(planned)
}

// mark sets the outcome of each change that has none.
func mark(cs []journal.Change, outcome string) {
	for i := range cs {
		if cs[i].Outcome == "" || cs[i].Outcome == journal.OutcomeUnknown {
			cs[i].Outcome = outcome
		}
	}
}

func countOutcome(cs []journal.Change, outcome string) int {
	n := 0
	for _, c := range cs {
		if c.Outcome == outcome {
			n++
		}
	}
	return n
}

// inDoubt reports whether a failed request may have been applied all the same: the connection
// broke or timed out before YNAB's answer came, or YNAB failed (5xx). A refusal (4xx) is
// certain: YNAB wrote nothing of that request.
func inDoubt(err error) bool {
	var ne *ynab.NetError
	var ae *ynab.APIError
	switch {
	case errors.As(err, &ae):
		return ae.Status >= 500
	case errors.As(err, &ne):
		return true
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// confirming reports whether a call answers a preview (with a code, or a form's answer) rather
// than asking for one. A call that would change nothing is refused only when it asks: the
// person already agreed to the other, and writing the same value again harms nothing.
func confirming(ctx context.Context, req *mcp.CallToolRequest, code string) bool {
	return code != "" || confirm.Answering(ctx) || (req != nil && req.Params != nil && req.Params.RequestState != "")
}

// clientOf names the client that made the call, for the journal.
func clientOf(req *mcp.CallToolRequest) journal.Client {
	if req == nil {
		return journal.Client{}
	}
	if ci := req.ClientInfo(); ci != nil {
		return journal.Client{Name: ci.Name, Version: ci.Version}
	}
	return journal.Client{}
}

// fieldsJSON encodes a change's before or after fields.
func fieldsJSON(fields map[string]any) json.RawMessage {
	if fields == nil {
		return json.RawMessage("null")
	}
	b, err := json.Marshal(fields)
	if err != nil {
		panic(err) // only plain values go in here
	}
	return b
}
