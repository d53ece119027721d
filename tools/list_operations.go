package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/tools/ui"
	"github.com/avenir-mcp/avenir/undo"
)

var listOperationsTool = mcp.Tool{
	Name:        "list_operations",
	Title:       "List what avenir wrote",
	Description: "avenir's journal of writes, newest first, with status and undo. No YNAB request.",
	Annotations: readOnly,
	Meta:        modelAndApp(ui.JournalURI), // the journal view reads it again
}

type listOperationsIn struct {
	PlanID string `json:"plan_id,omitempty" jsonschema:"default: every plan"`
	Tool   string `json:"tool,omitempty"`
	Status string `json:"status,omitempty" jsonschema:"prepared, applied, partial or failed"`
	Limit  int    `json:"limit,omitempty" jsonschema:"default 20"`
}

type undoView struct {
	CanUndo  bool   `json:"can_undo"`
	Why      string `json:"why_not,omitempty" jsonschema:"when it cannot be undone: why, and what to do instead"`
	UndoOf   string `json:"undo_of,omitempty" jsonschema:"this operation undid (or redid) that one"`
	UndoneBy string `json:"undone_by,omitempty" jsonschema:"this operation was undone by that one"`
}

type operationView struct {
	ID           string    `json:"id"`
	Time         time.Time `json:"time"`
	PlanID       string    `json:"plan_id"`
	Tool         string    `json:"tool"`
	Summary      string    `json:"summary"`
	Status       string    `json:"status"`
	ConfirmedVia string    `json:"confirmed_via" jsonschema:"mrtr, elicit, app (the card), code, or none for approve and import"`
	Client       string    `json:"client,omitempty"`
	Error        string    `json:"error,omitempty"`
	Note         string    `json:"note,omitempty"`
	Undo         undoView  `json:"undo"`
	// Changes are the first few of the operation's changes, each with its outcome, for the
	// journal's timeline; get_operation has them all, with before and after.
	Changes     []cardLine `json:"changes,omitempty" jsonschema:"the first changes with their outcome (get_operation has all)"`
	MoreChanges int        `json:"more_changes,omitempty"`
}

// opChangesShown bounds the changes a list_operations row names: enough for a timeline to say
// what an operation touched, few enough that twenty rows stay small.
const opChangesShown = 3

type listOperationsOut struct {
	result
	Operations []operationView `json:"operations"`
}

var opStatuses = []string{"prepared", "applied", "partial", "failed"}

func (h *handlers) listOperations(ctx context.Context, _ *mcp.CallToolRequest, in listOperationsIn) (*mcp.CallToolResult, listOperationsOut, error) {
	limit := in.Limit
	if limit == 0 {
		limit = 20
	}
	if limit < 1 || limit > maxLimit {
		return nil, listOperationsOut{}, fmt.Errorf("limit: %d is out of range; give 1 to %d (default 20)", in.Limit, maxLimit)
	}
	status := strings.ToLower(strings.TrimSpace(in.Status))
	if status != "" && !slices.Contains(opStatuses, status) {
		return nil, listOperationsOut{}, fmt.Errorf("status: %s is not one of %s", quoted(in.Status), strings.Join(opStatuses, ", "))
	}
	ops, err := h.Journal.List(ctx, journal.Filter{PlanID: strings.TrimSpace(in.PlanID), Tool: strings.TrimSpace(in.Tool), Status: journal.Status(status), Limit: limit})
	if err != nil {
		return nil, listOperationsOut{}, fmt.Errorf("reading the journal: %w", err)
	}
	out := listOperationsOut{result: result{PlanID: strings.TrimSpace(in.PlanID)}, Operations: []operationView{}}
	for _, op := range ops {
		out.Operations = append(out.Operations, viewOperation(op))
	}
	return nil, out, nil
}

func viewOperation(op journal.Operation) operationView {
	v := operationView{ID: op.ID, Time: op.Time, PlanID: op.PlanID, Tool: op.Tool, Summary: op.Summary,
		Status: string(op.Status), ConfirmedVia: op.ConfirmedVia, Error: op.Error, Note: op.Note,
		Undo: undoView{CanUndo: true, UndoOf: op.UndoOf, UndoneBy: op.UndoneBy}}
	if op.Client.Name != "" {
		v.Client = strings.TrimSpace(op.Client.Name + " " + op.Client.Version)
	}
	if err := undo.Refusal(op); err != nil {
		v.Undo.CanUndo, v.Undo.Why = false, err.Error()
	}
	for i, c := range op.Changes {
		if i == opChangesShown {
			v.MoreChanges = len(op.Changes) - opChangesShown
			break
		}
		v.Changes = append(v.Changes, cardLine{Label: c.Label, Outcome: c.Outcome})
	}
	return v
}
