package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var importTransactionsTool = mcp.Tool{
	Name:        "import_transactions",
	Title:       "Import from the bank",
	Description: "Ask YNAB to import from the plan's linked banks now. Not confirmed first; journaled; cannot be undone.",
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type importTransactionsIn struct {
	planArg
}

// importSubject is what the journal records as import_transactions' subject: nothing is chosen,
// so only the accounts YNAB imports into.
type importSubject struct {
	LinkedAccountIDs []string `json:"linked_account_ids"`
}

// importFields are the fields the journal records of an imported transaction, as YNAB reports
// them.
var importFields = []string{"account_id", "date", "amount", "payee_id", "category_id", "memo", "cleared", "approved", "flag_color", "import_id"}

func (h *handlers) importTransactions(ctx context.Context, req *mcp.CallToolRequest, in importTransactionsIn) (*mcp.CallToolResult, createdOut, error) {
	// An import changes nothing that exists: the plan is needed for its linked accounts, and
	// what came in is read after the import.
	var (
		subject importSubject
		got     journal.Outcome
	)
	build := func(ctx context.Context, p *ynab.Plan) (*write, error) {
		subject = importSubject{}
		for _, a := range p.Accounts {
			if a.DirectImportLinked && !a.Closed && !a.Deleted {
				subject.LinkedAccountIDs = append(subject.LinkedAccountIDs, a.ID)
			}
		}
		w := &write{plan: p, tool: importTransactionsTool.Name, subject: subject, first: "Import transactions from linked accounts?"}
		w.apply = func(ctx context.Context) (journal.Outcome, error) {
			var err error
			got, err = h.importAndRead(ctx, p.ID)
			return got, err
		}
		return w, nil
	}
	res, out, err := h.applyUnconfirmed(ctx, req, in.PlanID, build, ynab.Recent)
	result := createdOut{writeOut: out, TransactionIDs: got.CreatedIDs}
	if out.Status == "applied" {
		result.Message = importMessage(got, len(subject.LinkedAccountIDs))
	}
	return res, result, err
}

// importMessage tells the person what an import brought in, or why it brought nothing.
func importMessage(got journal.Outcome, linked int) string {
	switch {
	case len(got.CreatedIDs) > 0:
		labels := make([]string, len(got.Changes))
		for i, ch := range got.Changes {
			labels[i] = ch.Label
		}
		return fmt.Sprintf("Imported %d transaction(s): %s.", len(got.CreatedIDs), strings.Join(labels, "; "))
	case linked == 0:
		return "No new transactions: none of this plan's open accounts is linked to a bank (link one in YNAB to import)."
	}
	return "No new transactions: the linked accounts had nothing new to import."
}

// importAndRead asks YNAB to import, then reads the plan back (one delta request) to record
// each imported transaction as YNAB reports it: the import's answer holds only their ids.
func (h *handlers) importAndRead(ctx context.Context, planID string) (journal.Outcome, error) {
	res, err := h.YNAB.ImportTransactions(ctx, planID)
	if err != nil || len(res.TransactionIDs) == 0 {
		return journal.Outcome{}, err
	}
	out := journal.Outcome{CreatedIDs: res.TransactionIDs}
	p, err := h.YNAB.Plan(ctx, planID, ynab.Fresh)
	if err != nil {
		// The import happened; only its details are missing from the record.
		out.Note = fmt.Sprintf("the imported transactions could not be read back (%v); their ids are recorded", err)
		for _, id := range res.TransactionIDs {
			out.Changes = append(out.Changes, journal.Change{Kind: kindNewTx, ID: id, Label: id})
		}
		return out, nil
	}
	out.ServerKnowledge = p.Knowledge
	for _, id := range res.TransactionIDs {
		ch := journal.Change{Kind: kindNewTx, ID: id, Label: id}
		if t, ok := p.Transaction(id); ok {
			now, _ := asFields(t) // plain values: it cannot fail
			after := make(map[string]any, len(importFields))
			for _, k := range importFields {
				after[k] = now[k]
			}
			ch.Label, ch.After = txLabel(p, t), fieldsJSON(after)
		}
		out.Changes = append(out.Changes, ch)
	}
	return out, nil
}
