package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
)

var getOperationTool = mcp.Tool{
	Name:        "get_operation",
	Title:       "Show one journal entry",
	Description: "One journal entry in full: preview, before and after, events. No YNAB request.",
	Annotations: readOnly,
}

type getOperationIn struct {
	OperationID string `json:"operation_id"`
}

type changeView struct {
	Kind   string          `json:"kind" jsonschema:"what changed: transaction, month_category, category, …"`
	ID     string          `json:"id,omitempty"`
	Month  string          `json:"month,omitempty"`
	Label  string          `json:"label,omitempty"`
	Before *recordedFields `json:"before" jsonschema:"the fields before, as YNAB names them; null for something created"`
	After  *recordedFields `json:"after" jsonschema:"the fields after; null for something deleted"`
	// Outcome is whether YNAB holds the change.
	Outcome   string `json:"outcome" jsonschema:"applied (YNAB has it), not_applied (YNAB does not) or unknown (while the operation is prepared)"`
	EnteredBy string `json:"entered_by,omitempty" jsonschema:"the earlier operation that had already entered it in YNAB; this one does not own it"`
}

type eventView struct {
	ID   string    `json:"id"`
	Time time.Time `json:"time"`
	Type string    `json:"type" jsonschema:"prepared, applied, failed, recovered or undone"`
}

type getOperationOut struct {
	operationView
	YNABRequests    int          `json:"ynab_requests" jsonschema:"YNAB requests this call cost: none, it reads the journal"`
	Preview         string       `json:"preview,omitempty"`
	Fingerprint     string       `json:"fingerprint,omitempty"`
	Changes         []changeView `json:"changes"`
	CreatedIDs      []string     `json:"created_ids,omitempty"`
	ServerKnowledge int64        `json:"server_knowledge,omitempty"`
	Requests        int          `json:"ynab_requests_used" jsonschema:"YNAB requests the write cost"`
	Events          []eventView  `json:"events"`
}

func (h *handlers) getOperation(ctx context.Context, _ *mcp.CallToolRequest, in getOperationIn) (*mcp.CallToolResult, getOperationOut, error) {
	id := strings.TrimSpace(in.OperationID)
	op, err := h.Journal.Get(ctx, id)
	if errors.Is(err, journal.ErrNotFound) {
		return nil, getOperationOut{}, fmt.Errorf("operation_id: there is no operation %s in the journal; list_operations shows the recent ones", quoted(id))
	}
	if err != nil {
		return nil, getOperationOut{}, fmt.Errorf("reading the journal: %w", err)
	}
	out := getOperationOut{operationView: viewOperation(op), Preview: op.Preview,
		Fingerprint: op.Fingerprint, CreatedIDs: op.CreatedIDs, ServerKnowledge: op.ServerKnowledge, Requests: op.Requests,
		Changes: []changeView{}, Events: []eventView{}}
	for _, c := range op.Changes {
		out.Changes = append(out.Changes, changeView{Kind: c.Kind, ID: c.ID, Month: c.Month, Label: c.Label,
			Before: asObject(c.Before), After: asObject(c.After), Outcome: c.Outcome, EnteredBy: c.EnteredBy})
	}
	for _, e := range op.Events {
		out.Events = append(out.Events, eventView{ID: e.ID, Time: e.Time, Type: e.Type})
	}
	return nil, out, nil
}

// recordedFields is a JSON object passed through as recorded (a change's fields before or after).
type recordedFields json.RawMessage

// MarshalJSON writes the object as recorded.
func (o recordedFields) MarshalJSON() ([]byte, error) { return o, nil }

func asObject(r json.RawMessage) *recordedFields {
	if len(r) == 0 || string(r) == "null" {
		return nil
	}
	o := recordedFields(r)
	return &o
}

// UnmarshalJSON keeps the object as it is.
func (o *recordedFields) UnmarshalJSON(b []byte) error {
	*o = append((*o)[:0], b...)
	return nil
}
