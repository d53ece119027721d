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

var applyCategoriesTool = mcp.Tool{
	Name:        "apply_categories",
	Title:       "Categorise transactions",
	Description: "Set the category of 1 to 1000 transactions in one write. Undoable." + confirmDescription,
	Meta:        cardMeta,
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type applyCategoriesIn struct {
	planArg
	Changes []categoryChange `json:"changes"`
	confirmArg
}

type categoryChange struct {
	TransactionID string `json:"transaction_id"`
	Category      string `json:"category" jsonschema:"'Ready to Assign' for income"`
}

// recategorisation is one element of apply_categories' subject: a transaction and the
// category it gets.
type recategorisation struct {
	TransactionID string `json:"transaction_id"`
	CategoryID    string `json:"category_id"`
}

func (h *handlers) applyCategories(ctx context.Context, req *mcp.CallToolRequest, in applyCategoriesIn) (*mcp.CallToolResult, writeOut, error) {
	if err := checkEditCount("changes", len(in.Changes)); err != nil {
		return nil, writeOut{}, err
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		ed, err := h.recategorise(p, in.Changes)
		if err != nil {
			return nil, err
		}
		return ed, nil
	}
	args, code := splitCode(in)
	return h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
}

// recategorise plans apply_categories on p: every change checked, those that change nothing
// left out, the rest written with one PATCH.
func (h *handlers) recategorise(p *ynab.Plan, changes []categoryChange) (*edit, error) {
	ids := make([]string, len(changes))
	for i, c := range changes {
		ids[i] = c.TransactionID
	}
	txs, err := transactionsByID(p, "changes", ids)
	if err != nil {
		return nil, err
	}
	cats := map[string]*ynab.Category{} // by the reference given, so 1000 changes resolve each name once
	ed := &edit{plan: p, tool: applyCategoriesTool.Name}
	var subject []recategorisation
	var save []ynab.SaveTransaction
	for i, c := range changes {
		t := txs[i]
		if err := recategorisable(p, t, fmt.Sprintf("changes[%d]", i)); err != nil {
			return nil, err
		}
		ref := strings.TrimSpace(c.Category)
		cat, ok := cats[ref]
		if !ok {
			if cat, err = transactionCategory(p, fmt.Sprintf("changes[%d].category", i), ref); err != nil {
				return nil, err
			}
			cats[ref] = cat
		}
		if t.CategoryID != nil && *t.CategoryID == cat.ID {
			continue
		}
		subject = append(subject, recategorisation{TransactionID: t.ID, CategoryID: cat.ID})
		save = append(save, ynab.SaveTransaction{ID: t.ID, CategoryID: ynab.Some(cat.ID)})
		label := txLabel(p, t)
		ed.lines = append(ed.lines, fmt.Sprintf("%s: %s → %s", label, categoryShort(p, t.CategoryID), cat.Name))
		ed.changes = append(ed.changes, editChange(t.ID, label, "category_id", t.CategoryID, cat.ID))
	}
	if len(subject) == 0 {
		return nil, errors.New("changes: every transaction named already has the category given: nothing to change")
	}
	ed.subject = subject
	ed.first = fmt.Sprintf("Recategorise %d transaction(s)?", len(subject))
	ed.apply = h.patchEdits(p.ID, save)
	return ed, nil
}

// recategorisable refuses a transaction whose own category YNAB ignores: a split (its
// categories are on its lines) and a transfer between two budget accounts (money that stays
// in the budget has no category).
func recategorisable(p *ynab.Plan, t *ynab.TransactionSummary, arg string) error {
	if len(p.Lines(t.ID)) > 0 {
		return fmt.Errorf("%s: %s is a split: its categories are on its split lines, which only YNAB's apps can change", arg, txLabel(p, t))
	}
	if t.TransferAccountID != nil && onBudget(p, t.AccountID) && onBudget(p, *t.TransferAccountID) {
		return fmt.Errorf("%s: %s is a transfer between two budget accounts, which takes no category", arg, txLabel(p, t))
	}
	return nil
}

func onBudget(p *ynab.Plan, accountID string) bool {
	a, ok := p.Account(accountID)
	return ok && a.OnBudget
}

// Shared by the transaction edits (apply_categories, flag_transactions, approve_transactions,
// split_transaction).

// maxTransactionEdits is how many transactions one edit may change: the spec's 1 to 1000,
// which one PATCH carries comfortably.
const maxTransactionEdits = 1000

// checkEditCount refuses an empty list and one longer than maxTransactionEdits.
func checkEditCount(arg string, n int) error {
	switch {
	case n == 0:
		return fmt.Errorf("%s: the list is empty; name at least one transaction", arg)
	case n > maxTransactionEdits:
		return fmt.Errorf("%s: %d transactions is more than the %d one call may change; send them in several calls", arg, n, maxTransactionEdits)
	}
	return nil
}

// transactionCategory resolves the category a transaction (or a split line) is to get: a
// spendable category, or Ready to Assign for income. YNAB's other internal categories and the
// credit card payment categories, which YNAB fills itself, are refused.
func transactionCategory(p *ynab.Plan, arg, ref string) (*ynab.Category, error) {
	c, err := resolve("category", arg, ref, categoryCandidates(p))
	if err != nil {
		return nil, err
	}
	cat, _ := p.Category(c.id)
	if cat.Internal && cat.Name == readyToAssign {
		return cat, nil
	}
	if groupName(p, cat.CategoryGroupID) == cardPaymentsGroup {
		return nil, fmt.Errorf("%s: %s is a credit card payment category: YNAB moves money into it itself and takes no transaction in it; choose a category of your own", arg, c.label)
	}
	return spendableCategory(p, arg, c.id)
}

// The names YNAB gives its income category and the group of credit card payment categories.
const (
	readyToAssign     = "Inflow: Ready to Assign"
	cardPaymentsGroup = "Credit Card Payments"
)

// editChange is the journal's record of one field of an existing transaction changing; label
// is the transaction's txLabel.
func editChange(id, label, field string, before, after any) journal.Change {
	return journal.Change{
		Kind: journal.KindTransaction, ID: id, Label: label,
		Before: fieldsJSON(map[string]any{field: before}),
		After:  fieldsJSON(map[string]any{field: after}),
	}
}

// patchEdits writes edits of existing transactions with one PATCH, however many there are.
func (h *handlers) patchEdits(planID string, save []ynab.SaveTransaction) func(context.Context) (journal.Outcome, error) {
	return func(ctx context.Context) (journal.Outcome, error) {
		res, err := h.YNAB.UpdateTransactions(ctx, planID, save)
		return journal.Outcome{ServerKnowledge: res.ServerKnowledge}, err
	}
}
