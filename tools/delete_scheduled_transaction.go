package tools

import (
	"context"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var deleteScheduledTransactionTool = mcp.Tool{
	Name:        "delete_scheduled_transaction",
	Title:       "Delete a scheduled transaction",
	Description: "Delete a scheduled transaction. Undo schedules it again where YNAB's API can." + confirmDescription,
	Meta:        cardMeta,
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type deleteScheduledIn struct {
	planArg
	ScheduledTransactionID string `json:"scheduled_transaction_id"`
	confirmArg
}

type deleteScheduledSubject struct {
	ScheduledTransactionID string `json:"scheduled_transaction_id"`
}

func (h *handlers) deleteScheduledTransaction(ctx context.Context, req *mcp.CallToolRequest, in deleteScheduledIn) (*mcp.CallToolResult, writeOut, error) {
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		s, err := scheduledArg(p, "scheduled_transaction_id", in.ScheduledTransactionID)
		if err != nil {
			return nil, err
		}
		label := scheduledLabel(p, s)
		fields := scheduledFields(p, s)
		delete(fields, "payee_name") // its payee_id says who; a later rename of the payee changes nothing here
		ed := &edit{
			plan:    p,
			tool:    deleteScheduledTransactionTool.Name,
			subject: deleteScheduledSubject{ScheduledTransactionID: s.ID},
			first:   fmt.Sprintf("Delete the scheduled transaction %s?", label),
			lines:   []string{fmt.Sprintf("%s on %s, next on %s, %s", label, accountName(p, s.AccountID), s.DateNext, categoryShort(p, s.CategoryID))},
			changes: []journal.Change{{Kind: journal.KindDeletedScheduled, ID: s.ID, Label: label, Before: fieldsJSON(fields), After: fieldsJSON(nil)}},
		}
		switch {
		case !slices.Contains(ynab.WritableFrequencies, s.Frequency):
			ed.notes = append(ed.notes, fmt.Sprintf("This cannot be undone through avenir: it repeats %s, and YNAB's API cannot schedule a transaction that repeats so. To have it back, schedule it again in YNAB.", s.Frequency))
		case fields["subtransactions"] != nil:
			ed.notes = append(ed.notes, "This cannot be undone through avenir: it is a split, and YNAB's API cannot schedule a split. To have it back, schedule it again in YNAB.")
		default:
			ed.notes = append(ed.notes, fmt.Sprintf("An undo schedules it again, under a new id, as long as its date (%s) has not passed.", s.DateNext))
		}
		return h.appliedAsJournaled(ed)
	}
	args, code := splitCode(in)
	return h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
}
