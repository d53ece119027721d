package tools

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var reconcileAccountTool = mcp.Tool{
	Name:        "reconcile_account",
	Title:       "Reconcile an account",
	Description: "Reconcile an account with the bank's balance, adjusting any difference. Undoable." + confirmDescription,
	Meta:        cardMeta,
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type reconcileAccountIn struct {
	planArg
	Account     string `json:"account"`
	BankBalance Amount `json:"bank_balance" jsonschema:"the bank's balance today"`
	confirmArg
}

// reconcileSubject is what reconcile_account confirms.
type reconcileSubject struct {
	AccountID   string `json:"account_id"`
	BankBalance int64  `json:"bank_balance"`
	Difference  int64  `json:"difference"` // the adjustment's amount: bank balance − cleared balance
}

// adjustmentPayee is the payee YNAB gives the transaction that corrects a reconciled balance.
const adjustmentPayee = "Reconciliation Balance Adjustment"

func (h *handlers) reconcileAccount(ctx context.Context, req *mcp.CallToolRequest, in reconcileAccountIn) (*mcp.CallToolResult, writeOut, error) {
	var (
		acct *ynab.Account
		bank int64
		cf   *ynab.CurrencyFormat
	)
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		var err error
		if acct, err = openAccount(p, "account", in.Account); err != nil {
			return nil, err
		}
		digits := Digits(currency(p))
		cf = currency(p)
		bank, err = in.BankBalance.Milliunits(digits)
		if err != nil {
			return nil, fmt.Errorf("bank_balance: %w", err)
		}
		ed, err := h.reconcileWrite(p, acct, bank, h.Now().UTC())
		if err != nil {
			return nil, err
		}
		return ed, nil
	}
	args, code := splitCode(in)
	res, out, err := h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
	if out.Status == "applied" {
		out.Message = fmt.Sprintf("%s is reconciled at %s.", acct.Name, FormatCurrency(bank, cf))
	}
	return res, out, err
}

// reconcileWrite plans reconcile_account on p: the adjustment when the cleared balance differs
// from the bank's, then every cleared transaction marked reconciled with one PATCH.
func (h *handlers) reconcileWrite(p *ynab.Plan, acct *ynab.Account, bank int64, now time.Time) (*edit, error) {
	digits := Digits(currency(p))
	diff, ok := sumMilliunits(bank, -acct.ClearedBalance)
	if _, balanceOK := sumMilliunits(acct.Balance, diff); !ok || !balanceOK {
		return nil, totalError("bank_balance", "the adjustment or the account's balance", digits)
	}
	var cleared []*ynab.TransactionSummary
	for i := range p.Transactions {
		if t := &p.Transactions[i]; t.AccountID == acct.ID && !t.Deleted && t.Cleared == ynab.Cleared {
			cleared = append(cleared, t)
		}
	}
	if len(cleared) == 0 && diff == 0 {
		return nil, fmt.Errorf("account: %s has no cleared transactions that are not reconciled yet, and its cleared balance already equals the bank balance (%s): nothing to reconcile",
			acct.Name, FormatPlain(bank, digits))
	}
	subject := reconcileSubject{AccountID: acct.ID, BankBalance: bank, Difference: diff}
	ed := &edit{plan: p, tool: reconcileAccountTool.Name, subject: subject,
		first: fmt.Sprintf("Reconcile %s: mark %d cleared transaction(s) reconciled?", acct.Name, len(cleared))}
	marks := make([]ynab.SaveTransaction, 0, len(cleared)+1)
	for _, t := range cleared {
		marks = append(marks, ynab.SaveTransaction{ID: t.ID, Cleared: ynab.Reconciled})
		ed.changes = append(ed.changes, editChange(t.ID, txLabel(p, t), "cleared", ynab.Cleared, ynab.Reconciled))
	}
	if diff == 0 {
		ed.apply = h.patchEdits(p.ID, marks)
		return ed, nil
	}
	adj, err := adjustment(p, acct, subject, now.Format(time.DateOnly))
	if err != nil {
		return nil, err
	}
	label := fmt.Sprintf("%s %s %s", adj.Date, adjustmentPayee, FormatFlow(diff, digits))
	ed.lines = append(ed.lines, fmt.Sprintf("Adjustment: %s, %s, cleared (cleared balance %s, bank balance %s)",
		label, categoryShort(p, adj.CategoryID.Value), FormatPlain(acct.ClearedBalance, digits), FormatPlain(bank, digits)))
	ed.changes = append([]journal.Change{newTxChange(adj, label)}, ed.changes...)
	ed.apply = func(ctx context.Context) (journal.Outcome, error) {
		return h.adjustAndReconcile(ctx, p, ed.changes, marks)
	}
	return ed, nil
}

// adjustment is the transaction that brings the cleared balance to the bank's, as YNAB enters
// it: cleared, approved, to "Reconciliation Balance Adjustment", and on a budget account in
// Ready to Assign. It is entered as a person would, without an import id: a repeat finds the
// difference already 0.
func adjustment(p *ynab.Plan, acct *ynab.Account, s reconcileSubject, today string) (ynab.SaveTransaction, error) {
	adj := ynab.SaveTransaction{AccountID: acct.ID, Date: today,
		Amount: ynab.Some(s.Difference), Cleared: ynab.Cleared, Approved: ynab.Some(true)}
	if y, err := existingPayee(p, "payee", adjustmentPayee); err == nil && y != nil {
		adj.PayeeID = ynab.Some(y.ID)
	} else {
		adj.PayeeName = ynab.Some(adjustmentPayee)
	}
	if acct.OnBudget {
		for _, c := range p.Categories {
			if c.Internal && c.Name == readyToAssign && !c.Deleted {
				adj.CategoryID = ynab.Some(c.ID)
				break
			}
		}
	}
	return adj, nil
}

// adjustAndReconcile enters the adjustment, then marks it and the cleared transactions
// reconciled. When the marking fails after the adjustment was entered, the outcome is partial:
// the adjustment stays (the cleared balance now matches the bank's), and calling again finishes.
func (h *handlers) adjustAndReconcile(ctx context.Context, p *ynab.Plan, changes []journal.Change, marks []ynab.SaveTransaction) (journal.Outcome, error) {
	out := journal.Outcome{Changes: slices.Clone(changes)}
	k, err := h.enterTransactions(ctx, p.ID, out.Changes[:1])
	if err != nil {
		return out, err
	}
	out.ServerKnowledge = k
	id := out.Changes[0].ID
	res, err := h.YNAB.UpdateTransactions(ctx, p.ID, append(marks, ynab.SaveTransaction{ID: id, Cleared: ynab.Reconciled}))
	if err != nil {
		return out, fmt.Errorf("the adjustment %s was entered, but marking the %d cleared transaction(s) reconciled failed: %w", changes[0].Label, len(marks), err)
	}
	// The adjustment ends reconciled too: record it as YNAB holds it now.
	for _, t := range res.Transactions {
		if t.ID == id {
			out.Changes[0] = createdChange(changes[0], &t)
			out.Changes[0].Outcome = journal.OutcomeApplied
		}
	}
	out.ServerKnowledge = res.ServerKnowledge
	return out, nil
}
