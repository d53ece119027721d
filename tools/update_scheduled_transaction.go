package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var updateScheduledTransactionTool = mcp.Tool{
	Name:        "update_scheduled_transaction",
	Title:       "Change a scheduled transaction",
	Description: "Change fields of a scheduled transaction; others are kept. Undoable." + confirmDescription,
	Meta:        cardMeta,
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type updateScheduledIn struct {
	planArg
	ScheduledTransactionID string  `json:"scheduled_transaction_id"`
	Date                   string  `json:"date,omitempty"`
	Frequency              string  `json:"frequency,omitempty" jsonschema:"never, daily, weekly, monthly or yearly"`
	Amount                 Amount  `json:"amount,omitzero" jsonschema:"negative for an outflow"`
	Payee                  string  `json:"payee,omitempty" jsonschema:"name, id or a new name"`
	Category               string  `json:"category,omitempty"`
	Memo                   *string `json:"memo,omitempty" jsonschema:"\"\" removes it"`
	Flag                   string  `json:"flag,omitempty" jsonschema:"a YNAB flag colour, or none"`
	Account                string  `json:"account,omitempty"`
	confirmArg
}

// scheduleEdit is update_scheduled_transaction's subject: the scheduled transaction and the
// fields it has after, every one the call names, as they are sent.
type scheduleEdit struct {
	ScheduledTransactionID string  `json:"scheduled_transaction_id"`
	AccountID              string  `json:"account_id,omitempty"`
	Date                   string  `json:"date,omitempty"`
	Frequency              string  `json:"frequency,omitempty"`
	Amount                 *int64  `json:"amount,omitempty"`
	PayeeID                string  `json:"payee_id,omitempty"`
	PayeeName              string  `json:"payee_name,omitempty"`
	CategoryID             string  `json:"category_id,omitempty"`
	Memo                   *string `json:"memo,omitempty"` // "" removes it
	Flag                   string  `json:"flag,omitempty"` // "none" clears it
}

func (h *handlers) updateScheduledTransaction(ctx context.Context, req *mcp.CallToolRequest, in updateScheduledIn) (*mcp.CallToolResult, writeOut, error) {
	if in.Date == "" && in.Frequency == "" && in.Amount.IsZero() && in.Payee == "" && in.Category == "" && in.Memo == nil &&
		in.Flag == "" && in.Account == "" {
		return nil, writeOut{}, fmt.Errorf("give at least one field to change: date, frequency, amount, payee, category, memo, flag or account")
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		s, err := scheduledArg(p, "scheduled_transaction_id", in.ScheduledTransactionID)
		if err != nil {
			return nil, err
		}
		subject, e, err := planScheduleEdit(p, s, in, h.Now().UTC())
		if err != nil {
			return nil, err
		}
		label := scheduledLabel(p, s)
		if len(e.after) == 0 && !confirming(ctx, req, in.Confirmation) {
			return nil, fmt.Errorf("the scheduled transaction %s already has the values given: nothing to change", label)
		}
		ed := &edit{plan: p, tool: updateScheduledTransactionTool.Name, subject: subject,
			first: fmt.Sprintf("Change the scheduled transaction %s?", label)}
		if len(e.after) > 0 {
			ch := journal.Change{Kind: journal.KindScheduled, ID: s.ID, Label: label, Before: fieldsJSON(e.before), After: fieldsJSON(e.after)}
			ed.changes, ed.lines = []journal.Change{ch}, []string{describeChange(p, ch)}
		}
		return h.appliedAsJournaled(ed)
	}
	args, code := splitCode(in)
	return h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
}

// planScheduleEdit resolves and checks update_scheduled_transaction's fields on s.
func planScheduleEdit(p *ynab.Plan, s *ynab.ScheduledTransaction, in updateScheduledIn, now time.Time) (scheduleEdit, fieldEdit, error) {
	subject, e := scheduleEdit{ScheduledTransactionID: s.ID}, newFieldEdit()
	label := scheduledLabel(p, s)
	if !slices.Contains(ynab.WritableFrequencies, s.Frequency) {
		return subject, e, fmt.Errorf("scheduled_transaction_id: %s repeats %s, and YNAB's API cannot change a scheduled transaction that repeats so: change it in YNAB's apps",
			label, s.Frequency)
	}
	if scheduledFields(p, s)["subtransactions"] != nil && (!in.Amount.IsZero() || in.Category != "") {
		return subject, e, fmt.Errorf("scheduled_transaction_id: %s is a split, and YNAB's API cannot change a split's amount or category: only YNAB's apps can", label)
	}
	acct, _ := p.Account(s.AccountID)
	var err error
	if in.Account != "" {
		if acct, err = openAccount(p, "account", in.Account); err != nil {
			return subject, e, err
		}
		subject.AccountID = acct.ID
		e.set("account_id", s.AccountID, acct.ID)
	}
	if in.Date != "" {
		if subject.Date, err = scheduleDateArg("date", in.Date, now); err != nil {
			return subject, e, err
		}
		e.set("date", s.DateNext, subject.Date)
	}
	if in.Frequency != "" {
		if subject.Frequency, err = frequencyArg("frequency", in.Frequency); err != nil {
			return subject, e, err
		}
		e.set("frequency", s.Frequency, subject.Frequency)
	}
	if !in.Amount.IsZero() {
		m, err := in.Amount.Milliunits(Digits(currency(p)))
		if err != nil {
			return subject, e, fmt.Errorf("amount: %w", err)
		}
		subject.Amount = &m
		e.set("amount", s.Amount, m)
	}
	payee, _ := p.Payee(str(s.PayeeID))
	if in.Payee != "" {
		y, name, err := payeeFor(p, acct, "payee", in.Payee)
		if err != nil {
			return subject, e, err
		}
		if y == nil {
			subject.PayeeName = name
			e.before["payee_id"], e.after["payee_name"] = s.PayeeID, name
		} else {
			subject.PayeeID, payee = y.ID, y
			e.set("payee_id", s.PayeeID, y.ID)
		}
	} else if payee != nil && in.Account != "" {
		if err := transferCheck(p, acct, "account", payee); err != nil {
			return subject, e, err
		}
	}
	budgetTransfer := payee != nil && payee.TransferAccountID != nil && acct.OnBudget && onBudget(p, *payee.TransferAccountID)
	if in.Category != "" {
		cat, err := scheduledCategory(p, acct, payee, "category", in.Category)
		if err != nil {
			return subject, e, err
		}
		subject.CategoryID = cat.ID
		e.set("category_id", s.CategoryID, cat.ID)
	} else if budgetTransfer {
		e.set("category_id", s.CategoryID, nil) // YNAB takes it away: recorded, so that undo puts it back
	}
	if in.Memo != nil {
		memo, err := memoArg("memo", *in.Memo)
		if err != nil {
			return subject, e, err
		}
		subject.Memo = &memo
		e.set("memo", s.Memo, noteAfter(memo))
	}
	if in.Flag != "" {
		c, err := flagColor("flag", in.Flag)
		if err != nil {
			return subject, e, err
		}
		subject.Flag = c
		e.set("flag_color", s.FlagColor, flagJournal(c))
	}
	return subject, e, nil
}

// scheduledArg finds the live scheduled transaction an id names, and says so plainly when it is
// a line of a split one.
func scheduledArg(p *ynab.Plan, arg, id string) (*ynab.ScheduledTransaction, error) {
	id = strings.TrimSpace(id)
	if s := scheduledByID(p, id); s != nil {
		return s, nil
	}
	for _, l := range p.ScheduledSubtransactions {
		if l.ID == id && !l.Deleted {
			if s := scheduledByID(p, l.ScheduledTransactionID); s != nil {
				return nil, fmt.Errorf("%s: %s is a line of the split scheduled transaction %s (%s); name that one", arg, id, scheduledLabel(p, s), s.ID)
			}
		}
	}
	return nil, fmt.Errorf("%s: there is no scheduled transaction %q in this plan (or it was deleted); list_scheduled_transactions shows them", arg, id)
}
