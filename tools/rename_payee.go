package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var renamePayeeTool = mcp.Tool{
	Name:        "rename_payee",
	Title:       "Rename a payee",
	Description: "Rename a payee. Undoable." + confirmDescription,
	Meta:        cardMeta,
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type renamePayeeIn struct {
	planArg
	Payee string `json:"payee"`
	Name  string `json:"name"`
	confirmArg
}

type renamePayeeSubject struct {
	PayeeID string `json:"payee_id"`
	Name    string `json:"name"`
}

// maxPayeeRename is the longest name YNAB gives a payee it renames.
const maxPayeeRename = 500

func (h *handlers) renamePayee(ctx context.Context, req *mcp.CallToolRequest, in renamePayeeIn) (*mcp.CallToolResult, writeOut, error) {
	name, err := nameArg("name", "payee", in.Name, maxPayeeRename)
	switch {
	case err != nil:
		return nil, writeOut{}, err
	case reservedPayee(name):
		return nil, writeOut{}, fmt.Errorf("name: %q is a payee name YNAB keeps for itself; choose another name", name)
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		y, err := ownPayee(p, "payee", in.Payee)
		if err != nil {
			return nil, err
		}
		if y.Name == name && !confirming(ctx, req, in.Confirmation) {
			return nil, fmt.Errorf("payee: %s is already called ‘%s’: nothing to change", y.Name, name)
		}
		for _, o := range p.Payees {
			if !o.Deleted && o.ID != y.ID && strings.EqualFold(o.Name, name) {
				return nil, fmt.Errorf("name: there is already a payee ‘%s’; to put the transactions of both under one payee, use merge_payees", o.Name)
			}
		}
		txs, scheduled := payeeUse(p, y.ID)
		ed := &edit{
			plan:    p,
			tool:    renamePayeeTool.Name,
			subject: renamePayeeSubject{PayeeID: y.ID, Name: name},
			first:   fmt.Sprintf("Rename payee ‘%s’ to ‘%s’?", y.Name, name),
			lines:   []string{fmt.Sprintf("%d transaction(s) and %d scheduled transaction(s) have this payee.", len(txs), len(scheduled))},
			changes: []journal.Change{{Kind: journal.KindPayee, ID: y.ID, Label: "payee ‘" + y.Name + "’",
				Before: fieldsJSON(map[string]any{"name": y.Name}), After: fieldsJSON(map[string]any{"name": name})}},
		}
		return h.appliedAsJournaled(ed)
	}
	args, code := splitCode(in)
	return h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
}

// ownPayee resolves a payee a person may rename or merge: not an account's transfer payee
// (YNAB names it after the account) and not one of YNAB's own.
func ownPayee(p *ynab.Plan, arg, ref string) (*ynab.Payee, error) {
	c, err := resolve("payee", arg, ref, payeeCandidates(p))
	if err != nil {
		return nil, err
	}
	y, _ := p.Payee(c.id)
	switch {
	case y.TransferAccountID != nil:
		return nil, fmt.Errorf("%s: %s is the transfer payee of the account %s: it takes the account's name, and YNAB does not let it be renamed or merged",
			arg, y.Name, accountName(p, *y.TransferAccountID))
	case reservedPayee(y.Name):
		return nil, fmt.Errorf("%s: %s is YNAB's own payee, which YNAB does not let be renamed or merged", arg, y.Name)
	}
	return y, nil
}

// payeeUse lists the live transactions and scheduled transactions of a payee.
func payeeUse(p *ynab.Plan, payeeID string) ([]*ynab.TransactionSummary, []*ynab.ScheduledTransaction) {
	var txs []*ynab.TransactionSummary
	for _, t := range p.TransactionsByDate() {
		if str(t.PayeeID) == payeeID {
			txs = append(txs, t)
		}
	}
	var scheduled []*ynab.ScheduledTransaction
	for i := range p.ScheduledTransactions {
		if s := &p.ScheduledTransactions[i]; !s.Deleted && str(s.PayeeID) == payeeID {
			scheduled = append(scheduled, s)
		}
	}
	return txs, scheduled
}
