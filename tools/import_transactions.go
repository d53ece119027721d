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
	Description: "Ask YNAB to import from the linked banks now. Not confirmed first; journaled; cannot be undone.",
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
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		subject = importSubject{}
		for _, a := range p.Accounts {
			if a.DirectImportLinked && !a.Closed && !a.Deleted {
				subject.LinkedAccountIDs = append(subject.LinkedAccountIDs, a.ID)
			}
		}
		ed := &edit{plan: p, tool: importTransactionsTool.Name, subject: subject, first: "Import transactions from linked accounts?"}
		ed.apply = func(ctx context.Context) (journal.Outcome, error) {
			var err error
			got, err = h.importAndRead(ctx, p.ID)
			return got, err
		}
		ed.readBack = func(ctx context.Context) (journal.Outcome, error) {
			var err error
			got, err = h.importedSince(ctx, p)
			return got, err
		}
		return ed, nil
	}
	res, out, err := h.applyUnconfirmed(ctx, req, in.PlanID, build, ynab.WithinPreviewAge)
	result := createdOut{writeOut: out, TransactionIDs: got.CreatedIDs}
	if out.Status == "applied" {
		result.Message = importMessage(got, len(subject.LinkedAccountIDs))
		if got.ReadBack {
			result.Message += " YNAB's answer was lost; avenir read YNAB and found them there."
		}
	}
	return res, result, err
}

// importedSince finds what an import whose answer was lost brought in, by reading YNAB: the
// transactions with an import id that were not in before, the plan the import was made on.
// A transaction imported then is told apart from one edited since by before: so this works
// only in the process that made the import, and an import a crash cut off stays prepared.
func (h *handlers) importedSince(ctx context.Context, before *ynab.Plan) (journal.Outcome, error) {
	p, err := h.YNAB.Plan(ctx, before.ID, ynab.Fresh)
	if err != nil {
		return journal.Outcome{}, err
	}
	out := journal.Outcome{ServerKnowledge: p.Knowledge, ReadBack: true}
	for _, t := range p.TransactionsByDate() {
		if _, known := before.Transaction(t.ID); known || t.Deleted || t.ImportID == nil {
			continue
		}
		out.CreatedIDs = append(out.CreatedIDs, t.ID)
		out.Changes = append(out.Changes, importedChange(p, t))
	}
	return out, nil
}

// importedChange is the journal's change for a transaction YNAB imported, as YNAB reports it.
func importedChange(p *ynab.Plan, t *ynab.TransactionSummary) journal.Change {
	now, _ := asFields(t) // plain values: it cannot fail
	after := make(map[string]any, len(importFields))
	for _, k := range importFields {
		after[k] = now[k]
	}
	return journal.Change{Kind: journal.KindNewTransaction, ID: t.ID, Label: txLabel(p, t), After: fieldsJSON(after),
		Outcome: journal.OutcomeApplied}
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
			out.Changes = append(out.Changes, journal.Change{Kind: journal.KindNewTransaction, ID: id, Label: id})
		}
		return out, nil
	}
	out.ServerKnowledge = p.Knowledge
	for _, id := range res.TransactionIDs {
		ch := journal.Change{Kind: journal.KindNewTransaction, ID: id, Label: id}
		if t, ok := p.Transaction(id); ok {
			ch = importedChange(p, t)
			ch.Outcome = ""
		}
		out.Changes = append(out.Changes, ch)
	}
	return out, nil
}
