package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var deleteTransactionsTool = mcp.Tool{
	Name:        "delete_transactions",
	Title:       "Delete transactions",
	Description: "Delete 1 to 100 transactions (a request each). Undo enters them again under new ids." + confirmDescription,
	Meta:        cardMeta,
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type deleteTransactionsIn struct {
	planArg
	TransactionIDs []string `json:"transaction_ids"`
	confirmArg
}

// deletion is delete_transactions' subject: the transactions it deletes.
type deletion struct {
	TransactionIDs []string `json:"transaction_ids"`
}

// maxDeletes is how many transactions one call deletes: YNAB takes one DELETE per transaction,
// and allows 200 requests an hour.
const maxDeletes = 100

// reenterFields are the fields a deleted transaction's change records: what entering it again
// sends (its split lines and the other side of a transfer included), without the import id: a
// transaction avenir enters is entered as a person would.
var reenterFields = []string{"account_id", "date", "amount", "payee_id", "category_id", "memo", "cleared", "approved", "flag_color",
	"subtransactions", "transfer"}

func (h *handlers) deleteTransactions(ctx context.Context, req *mcp.CallToolRequest, in deleteTransactionsIn) (*mcp.CallToolResult, writeOut, error) {
	switch n := len(in.TransactionIDs); {
	case n == 0:
		return nil, writeOut{}, errors.New("transaction_ids: the list is empty; name at least one transaction")
	case n > maxDeletes:
		return nil, writeOut{}, fmt.Errorf("transaction_ids: %d transactions is more than the %d one call may delete (YNAB takes one request per deletion, and allows 200 an hour); send them in several calls", n, maxDeletes)
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		txs, err := transactionRows(p, "transaction_ids", in.TransactionIDs)
		if err != nil {
			return nil, err
		}
		ed := &edit{plan: p, tool: deleteTransactionsTool.Name, first: fmt.Sprintf("Delete %d transaction(s)?", len(txs))}
		var subject deletion
		sides := map[string]int{}
		var reconciled []string
		for i, t := range txs {
			if t.TransferTransactionID != nil {
				if j, ok := sides[*t.TransferTransactionID]; ok {
					return nil, fmt.Errorf("transaction_ids[%d]: %s is the other side of the transfer in transaction_ids[%d]; name one side: the other goes with it", i, txLabel(p, t), j)
				}
			}
			sides[t.ID] = i
			subject.TransactionIDs = append(subject.TransactionIDs, t.ID)
			label := txLabel(p, t)
			ed.lines = append(ed.lines, deletedLine(p, t))
			ed.changes = append(ed.changes, journal.Change{Kind: journal.KindDeletedTransaction, ID: t.ID, Label: label,
				Before: fieldsJSON(deletedFields(p, t)), After: fieldsJSON(nil)})
			if t.Cleared == ynab.Reconciled {
				reconciled = append(reconciled, label)
			}
		}
		if len(reconciled) > 0 {
			ed.notes = append(ed.notes, fmt.Sprintf("Warning: %s reconciled; deleting moves the reconciled balance of the account.", strings.Join(reconciled, ", ")+isAre(len(reconciled))))
		}
		ed.notes = append(ed.notes, "An undo enters them again with their fields, split lines and transfer, under new ids: YNAB keeps no deleted transaction to restore.")
		if len(txs) > 1 {
			ed.notes = append(ed.notes, fmt.Sprintf("YNAB deletes one transaction per request: this costs %d requests of the 200 it allows an hour.", len(txs)))
		}
		ed.subject = subject
		return h.appliedAsJournaled(ed)
	}
	args, code := splitCode(in)
	return h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
}

// deletedFields are what a deleted transaction's change records, to enter it again.
func deletedFields(p *ynab.Plan, t *ynab.TransactionSummary) map[string]any {
	all := transactionFields(p, t)
	out := make(map[string]any, len(reenterFields))
	for _, k := range reenterFields {
		if v, ok := all[k]; ok {
			out[k] = v
		}
	}
	return out
}

// deletedLine shows a transaction to delete: its label, its category (or lines), its memo, and
// what goes with it.
func deletedLine(p *ynab.Plan, t *ynab.TransactionSummary) string {
	parts := []string{txLabel(p, t) + " on " + accountName(p, t.AccountID)}
	switch lines := p.Lines(t.ID); {
	case len(lines) > 0:
		parts = append(parts, fmt.Sprintf("a split of %d lines, which go with it", len(splitLines(lines))))
	case t.TransferAccountID != nil:
		parts = append(parts, "a transfer: its other side on "+accountName(p, *t.TransferAccountID)+" goes with it")
	default:
		parts = append(parts, categoryShort(p, t.CategoryID))
	}
	if m := str(t.Memo); m != "" {
		parts = append(parts, "memo "+quoted(m))
	}
	return strings.Join(parts, ", ")
}

func isAre(n int) string {
	if n == 1 {
		return " is"
	}
	return " are"
}
