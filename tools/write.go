package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

// The path of every write (design.md, "One write, end to end"): a tool resolves its arguments
// and reads fresh state, and builds a write: the subject the person confirms, the preview they
// see, the journal's field-level changes and the YNAB request(s) that make them. Then
// confirmAndApply asks through confirm.Ask, journals "prepared" (write-ahead), calls YNAB, and
// journals "applied" or "failed". The preview is rendered from the same write that is journaled:
// what the person saw is what is written and recorded.

// write is one planned change of a plan.
type write struct {
	plan    *ynab.Plan
	tool    string
	subject any
	first   string   // the preview's first line, e.g. "Budget Restaurants for 2026-09-01: 120.00 → 150.00?"
	lines   []string // the preview's change lines (at most 20 are shown)
	notes   []string // warnings shown after the lines
	changes []journal.Change
	undoOf  string
	// apply makes the change in YNAB. It returns what the journal records of YNAB's answer.
	apply func(ctx context.Context) (journal.Outcome, error)
}

// maxPreviewLines is how many change lines a preview shows before "… and N more".
const maxPreviewLines = 20

// preview is the text the person sees: the first line, the change lines (at most 20, then
// "… and N more"), then any warnings.
func (w *write) preview() string {
	var b strings.Builder
	b.WriteString(w.first)
	for i, l := range w.lines {
		if i == maxPreviewLines {
			fmt.Fprintf(&b, "\n… and %d more", len(w.lines)-maxPreviewLines)
			break
		}
		b.WriteString("\n" + l)
	}
	for _, n := range w.notes {
		b.WriteString("\n" + n)
	}
	return b.String()
}

// writeOut is the result of every write tool.
type writeOut struct {
	result
	Status           string `json:"status" jsonschema:"applied, declined or confirmation_required"`
	OperationID      string `json:"operation_id,omitempty" jsonschema:"the journal id of the applied operation (undo_operation takes it)"`
	Summary          string `json:"summary,omitempty" jsonschema:"what was written, in one line"`
	Preview          string `json:"preview,omitempty" jsonschema:"for confirmation_required and declined: the change as the user must see it"`
	Confirmation     string `json:"confirmation,omitempty" jsonschema:"for confirmation_required: the one-time code to pass back, only after the user agreed"`
	ExpiresInSeconds int    `json:"expires_in_seconds,omitempty" jsonschema:"for confirmation_required: how long the code stays valid"`
	Message          string `json:"message,omitempty" jsonschema:"what happened and what to do next"`
}

// confirmDescription ends every confirmed tool's description.
var confirmDescription = " Every call is confirmed by the user before anything is written: the client asks the user, or the result is " +
	"status confirmation_required with a preview and a code. " + confirm.AgentRule +
	" The write is journaled and can be undone with undo_operation."

// confirmAndApply takes a planned write through confirmation, the journal and YNAB.
// args are the tool's arguments without `confirmation`; code is the `confirmation` argument.
func (h *handlers) confirmAndApply(ctx context.Context, req *mcp.CallToolRequest, w *write, args any, code string) (*mcp.CallToolResult, writeOut, error) {
	out := writeOut{result: result{PlanID: w.plan.ID}}
	preview := w.preview()
	dec, err := h.Confirm.Ask(ctx, req, confirm.Question{
		Tool: w.tool, PlanID: w.plan.ID, Subject: w.subject, Preview: preview, Args: args, Confirmation: code,
	})
	switch {
	case err != nil:
		return nil, out, err // a *jsonrpc.Error must reach the SDK unwrapped
	case dec.Input != nil:
		return dec.Input, out, nil
	case dec.Reply != nil:
		out.Status, out.Preview, out.Message = dec.Reply.Status, dec.Reply.Preview, dec.Reply.Message
		out.Confirmation, out.ExpiresInSeconds = dec.Reply.Confirmation, dec.Reply.ExpiresInSeconds
		return nil, out, nil
	case !dec.Proceed:
		return nil, out, errors.New("the confirmation gave no answer; nothing was written") // fail closed
	}
	return h.record(ctx, req, w, preview, dec.Fingerprint, string(dec.Mode))
}

// applyUnconfirmed journals and applies a write that needs no confirmation
// (approve_transactions, import_transactions).
func (h *handlers) applyUnconfirmed(ctx context.Context, req *mcp.CallToolRequest, w *write) (*mcp.CallToolResult, writeOut, error) {
	fp, err := confirm.Fingerprint(w.plan.ID, w.subject)
	if err != nil {
		return nil, writeOut{}, fmt.Errorf("%s: %w", w.tool, err)
	}
	return h.record(ctx, req, w, w.preview(), fp, "none")
}

// record journals the write ahead, applies it, and journals the outcome.
func (h *handlers) record(ctx context.Context, req *mcp.CallToolRequest, w *write, preview, fingerprint, via string) (*mcp.CallToolResult, writeOut, error) {
	out := writeOut{result: result{PlanID: w.plan.ID}}
	subject, err := json.Marshal(w.subject)
	if err != nil {
		return nil, out, fmt.Errorf("%s: recording the change: %w", w.tool, err)
	}
	op, err := h.Journal.Prepare(journal.Draft{
		PlanID: w.plan.ID, Tool: w.tool, Subject: subject, Fingerprint: fingerprint, Preview: preview,
		Summary: w.first, Changes: w.changes, ConfirmedVia: via, Client: clientOf(req), UndoOf: w.undoOf,
	})
	if err != nil {
		return nil, out, fmt.Errorf("avenir could not record the change in its journal, so nothing was written to YNAB: %w", err)
	}
	counter := ynab.CounterFrom(ctx)
	outcome, applyErr := w.apply(ctx)
	outcome.Requests = counter.N()
	if applyErr != nil && !outcome.Partial {
		landed, known := h.landed(ctx, op, applyErr)
		if !known {
			return nil, out, fmt.Errorf("%w. YNAB's answer was lost and avenir could not check whether the change was made; "+
				"journal entry %s stays prepared and is resolved when avenir next starts. Check in YNAB before trying again", applyErr, op.ID)
		}
		if !landed {
			if _, err := h.Journal.Failed(op.ID, applyErr.Error(), counter.N()); err != nil {
				h.log.Error("journal: recording a failed write", "operation", op.ID, "err", err)
			}
			return nil, out, fmt.Errorf("%w (journal entry %s records the attempt; nothing was written)", applyErr, op.ID)
		}
		h.log.Warn("YNAB's answer to a write was lost, but the change is there", "operation", op.ID, "err", applyErr)
		outcome.Requests = counter.N()
		outcome.Note = "YNAB's answer was lost; a fresh read showed the change is there"
	}
	if _, err := h.Journal.Applied(op.ID, outcome); err != nil {
		// YNAB has the change; the journal keeps it as prepared, and the next start resolves it.
		h.log.Error("journal: recording an applied write", "operation", op.ID, "err", err)
		return nil, out, fmt.Errorf("the change was written to YNAB, but avenir could not record that in its journal (%v); "+
			"the entry %s stays prepared and is resolved at the next start", err, op.ID)
	}
	if outcome.Partial {
		return nil, out, fmt.Errorf("only part of the change was written: %s (journal entry %s; undo_operation can take back the part that was written)", outcome.Note, op.ID)
	}
	out.Status, out.OperationID, out.Summary = "applied", op.ID, strings.TrimSuffix(w.first, "?")
	return nil, out, nil
}

// landed tells, after a write failed, whether it reached YNAB all the same. Only a lost answer
// (the connection broke) or YNAB failing (5xx) leaves that in doubt; then a fresh read decides.
// known is false when even that read fails: the outcome is not known.
func (h *handlers) landed(ctx context.Context, op journal.Operation, err error) (landed, known bool) {
	var ne *ynab.NetError
	var ae *ynab.APIError
	doubt := errors.As(err, &ne) || (errors.As(err, &ae) && ae.Status >= 500)
	if !doubt || ctx.Err() != nil {
		return false, ctx.Err() == nil
	}
	applied, cerr := (&Recovery{h: h}).WasApplied(ctx, op)
	if cerr != nil {
		h.log.Warn("could not check whether a write landed", "operation", op.ID, "err", cerr)
		return false, false
	}
	return applied, true
}

// confirming reports whether a call answers a preview (with a code, or a form's answer) rather
// than asking for one. A call that would change nothing is refused only when it asks: the
// person already agreed to the other, and writing the same value again harms nothing.
func confirming(req *mcp.CallToolRequest, code string) bool {
	return code != "" || (req != nil && req.Params != nil && req.Params.RequestState != "")
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
