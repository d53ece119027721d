package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/ynab"
)

var approveTransactionsTool = mcp.Tool{
	Name:        "approve_transactions",
	Title:       "Approve transactions",
	Description: "Approve 1 to 1000 transactions. Not confirmed first (it moves no money); journaled and undoable.",
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type approveTransactionsIn struct {
	planArg
	TransactionIDs []string `json:"transaction_ids"`
}

// approval is approve_transactions' subject: the transactions it approves.
type approval struct {
	TransactionIDs []string `json:"transaction_ids"`
}

func (h *handlers) approveTransactions(ctx context.Context, req *mcp.CallToolRequest, in approveTransactionsIn) (*mcp.CallToolResult, writeOut, error) {
	if err := checkEditCount("transaction_ids", len(in.TransactionIDs)); err != nil {
		return nil, writeOut{}, err
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		txs, err := transactionsByID(p, "transaction_ids", in.TransactionIDs)
		if err != nil {
			return nil, err
		}
		ed := &edit{plan: p, tool: approveTransactionsTool.Name}
		var subject approval
		var save []ynab.SaveTransaction
		for _, t := range txs {
			if t.Approved {
				continue
			}
			subject.TransactionIDs = append(subject.TransactionIDs, t.ID)
			save = append(save, ynab.SaveTransaction{ID: t.ID, Approved: ynab.Some(true)})
			label := txLabel(p, t)
			ed.lines = append(ed.lines, label)
			ed.changes = append(ed.changes, editChange(t.ID, label, "approved", false, true))
		}
		if len(save) == 0 {
			return nil, errors.New("transaction_ids: every transaction named is already approved: nothing to change")
		}
		ed.subject = subject
		ed.first = fmt.Sprintf("Approve %d transaction(s)?", len(save))
		ed.apply = h.patchEdits(p.ID, save)
		return ed, nil
	}
	return h.applyUnconfirmed(ctx, req, in.PlanID, build, ynab.Fresh)
}
