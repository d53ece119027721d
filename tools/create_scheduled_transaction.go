package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var createScheduledTransactionTool = mcp.Tool{
	Name:        "create_scheduled_transaction",
	Title:       "Schedule a transaction",
	Description: "Schedule a transaction from a date after today (within 5 years). Undo deletes it." + confirmDescription,
	Meta:        cardMeta,
	// Not idempotent: each call schedules another.
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
}

type createScheduledIn struct {
	planArg
	Account   string `json:"account"`
	Date      string `json:"date"`
	Frequency string `json:"frequency" jsonschema:"never, daily, weekly, monthly or yearly"`
	Amount    Amount `json:"amount" jsonschema:"negative for an outflow"`
	Payee     string `json:"payee" jsonschema:"name, id or a new name"`
	Category  string `json:"category,omitempty"`
	Memo      string `json:"memo,omitempty"`
	Flag      string `json:"flag,omitempty" jsonschema:"a YNAB flag colour"`
	confirmArg
}

// scheduleSubject is create_scheduled_transaction's subject: every field, resolved. A payee
// YNAB will create is named by PayeeName; an existing one by PayeeID.
type scheduleSubject struct {
	AccountID  string `json:"account_id"`
	Date       string `json:"date"`
	Frequency  string `json:"frequency"`
	Amount     int64  `json:"amount"`
	PayeeID    string `json:"payee_id,omitempty"`
	PayeeName  string `json:"payee_name,omitempty"`
	CategoryID string `json:"category_id,omitempty"`
	Memo       string `json:"memo,omitempty"`
	Flag       string `json:"flag_color,omitempty"`
}

// maxYearsAhead is how far ahead YNAB takes a scheduled transaction's date.
const maxYearsAhead = 5

func (h *handlers) createScheduledTransaction(ctx context.Context, req *mcp.CallToolRequest, in createScheduledIn) (*mcp.CallToolResult, writeOut, error) {
	freq, err := frequencyArg("frequency", in.Frequency)
	if err != nil {
		return nil, writeOut{}, err
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		acct, err := openAccount(p, "account", in.Account)
		if err != nil {
			return nil, err
		}
		s := scheduleSubject{AccountID: acct.ID, Frequency: freq}
		if s.Date, err = scheduleDateArg("date", in.Date, h.Now().UTC()); err != nil {
			return nil, err
		}
		if s.Amount, err = in.Amount.Milliunits(Digits(currency(p))); err != nil {
			return nil, fmt.Errorf("amount: %w", err)
		}
		y, name, err := payeeFor(p, acct, "payee", in.Payee)
		if err != nil {
			return nil, err
		}
		fields := map[string]any{"account_id": acct.ID, "date": s.Date, "frequency": freq, "amount": s.Amount,
			"category_id": nil, "memo": nil, "flag_color": nil}
		if y != nil {
			s.PayeeID, name, fields["payee_id"] = y.ID, y.Name, y.ID
		} else {
			s.PayeeName, fields["payee_name"] = name, name
		}
		var details []string
		if strings.TrimSpace(in.Category) != "" {
			cat, err := scheduledCategory(p, acct, y, "category", in.Category)
			if err != nil {
				return nil, err
			}
			s.CategoryID, fields["category_id"] = cat.ID, cat.ID
			details = append(details, "category "+cat.Name)
		}
		if s.Memo, err = memoArg("memo", in.Memo); err != nil {
			return nil, err
		}
		if s.Memo != "" {
			fields["memo"] = s.Memo
			details = append(details, "memo "+quoted(s.Memo))
		}
		if strings.TrimSpace(in.Flag) != "" {
			c, err := flagColor("flag", in.Flag)
			if err != nil {
				return nil, err
			}
			s.Flag, fields["flag_color"] = flagWire(c), flagJournal(c)
			if c != noFlag {
				details = append(details, c+" flag")
			}
		}
		if y == nil {
			details = append([]string{name + " is a new payee, which YNAB creates"}, details...)
		}
		digits := Digits(currency(p))
		ed := &edit{
			plan:    p,
			tool:    createScheduledTransactionTool.Name,
			subject: s,
			first:   fmt.Sprintf("Schedule %s %s %s on %s, %s?", FormatPlain(s.Amount, digits), toOrFrom(s.Amount), name, acct.Name, when(freq, s.Date)),
			changes: []journal.Change{{Kind: journal.KindNewScheduled, Label: scheduleLabel(name, s.Amount, freq, digits),
				Before: fieldsJSON(nil), After: fieldsJSON(fields)}},
		}
		if len(details) > 0 {
			ed.lines = []string{strings.Join(details, ", ")}
		}
		same := func(op journal.Operation) bool {
			var prior scheduleSubject
			return json.Unmarshal(op.Subject, &prior) == nil && prior.retryKey(p) == s.retryKey(p)
		}
		if err := h.enteredBefore(ctx, p, ed.tool, same, ed.changes); err != nil {
			return nil, err
		}
		if by := ed.changes[0].EnteredBy; by != "" {
			ed.notes = append(ed.notes, "It is already in YNAB: an earlier identical call ("+by+") scheduled it, and its outcome may not have reached you. It will not be scheduled twice.")
		}
		return h.appliedAsJournaled(ed)
	}
	args, code := splitCode(in)
	res, out, err := h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
	if op, ok := out.applied(); ok && len(op.Changes) == 1 {
		out.Message = fmt.Sprintf("Scheduled (id %s); list_scheduled_transactions shows it.", op.Changes[0].ID)
		if by := op.Changes[0].EnteredBy; by != "" {
			out.Message = fmt.Sprintf("Already scheduled (id %s) by operation %s; nothing was scheduled twice.", op.Changes[0].ID, by)
		}
	}
	return res, out, err
}

// retryKey is s with its payee by name, as an identical call after the first created the payee
// names it: an existing payee then.
func (s scheduleSubject) retryKey(p *ynab.Plan) scheduleSubject {
	name := s.PayeeName
	if s.PayeeID != "" {
		name = payeeName(p, &s.PayeeID)
	}
	s.PayeeID, s.PayeeName = "", strings.ToLower(strings.TrimSpace(name))
	return s
}

// frequencyArg reads a frequency YNAB's API can write. The others YNAB has (every other week,
// every 3 months, …) only its apps set.
func frequencyArg(arg, s string) (string, error) {
	f := strings.TrimSpace(s)
	for _, w := range ynab.WritableFrequencies {
		if strings.EqualFold(f, w) {
			return w, nil
		}
	}
	if slices.ContainsFunc(apiOnlyInApps, func(a string) bool { return strings.EqualFold(a, f) }) {
		return "", fmt.Errorf("%s: YNAB's API cannot write the frequency %s: use %s (the others only YNAB's apps set)",
			arg, f, strings.Join(ynab.WritableFrequencies, ", "))
	}
	return "", fmt.Errorf("%s: %s is not a frequency: use %s", arg, quoted(s), strings.Join(ynab.WritableFrequencies, ", "))
}

// apiOnlyInApps are YNAB's frequencies that its API cannot write.
var apiOnlyInApps = []string{"everyOtherWeek", "twiceAMonth", "every4Weeks", "everyOtherMonth", "every3Months", "every4Months",
	"twiceAYear", "everyOtherYear"}

// scheduleDateArg reads a scheduled transaction's date: YNAB takes only one after today and at
// most 5 years ahead.
func scheduleDateArg(arg, s string, now time.Time) (string, error) {
	date, err := ParseDate(s, now)
	if err != nil {
		return "", fmt.Errorf("%s: %w", arg, err)
	}
	today := now.Format(time.DateOnly)
	last := now.AddDate(maxYearsAhead, 0, 0).Format(time.DateOnly)
	switch {
	case date <= today:
		return "", fmt.Errorf("%s: %s is not after today (%s); a scheduled transaction's date must be in the future (enter a past one with create_transactions)", arg, date, today)
	case date > last:
		return "", fmt.Errorf("%s: %s is more than %d years ahead; YNAB takes no scheduled date after %s", arg, date, maxYearsAhead, last)
	}
	return date, nil
}

// scheduledCategory resolves a scheduled transaction's category: as a transaction's, and none on
// a transfer between two budget accounts.
func scheduledCategory(p *ynab.Plan, acct *ynab.Account, y *ynab.Payee, arg, ref string) (*ynab.Category, error) {
	cat, err := transactionCategory(p, arg, ref)
	if err != nil {
		return nil, err
	}
	if y != nil && y.TransferAccountID != nil && acct.OnBudget && onBudget(p, *y.TransferAccountID) {
		return nil, fmt.Errorf("%s: a transfer between two budget accounts takes no category; leave category out", arg)
	}
	return cat, nil
}

// memoArg reads a memo: at most 500 characters.
func memoArg(arg, memo string) (string, error) {
	memo = strings.TrimSpace(memo)
	if n := utf8.RuneCountInString(memo); n > maxMemo {
		return "", fmt.Errorf("%s: it is %d characters long; YNAB takes at most %d", arg, n, maxMemo)
	}
	return memo, nil
}

// scheduleLabel names a scheduled transaction for a person: "Tennisclub -45.00 (monthly)".
func scheduleLabel(payee string, amount int64, freq string, digits int) string {
	return fmt.Sprintf("%s %s (%s)", payee, FormatPlain(amount, digits), freq)
}

// scheduledLabel is scheduleLabel of a scheduled transaction in the plan.
func scheduledLabel(p *ynab.Plan, s *ynab.ScheduledTransaction) string {
	payee := payeeName(p, s.PayeeID)
	if payee == "" {
		payee = "(no payee)"
	}
	return scheduleLabel(payee, s.Amount, s.Frequency, Digits(currency(p)))
}

// when says when a schedule falls: "monthly from 2027-01-05", or "once on 2027-01-05".
func when(freq, date string) string {
	if freq == "never" {
		return "once on " + date
	}
	return freq + " from " + date
}

func toOrFrom(amount int64) string {
	if amount > 0 {
		return "from"
	}
	return "to"
}
