package sandbox

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/avenir-mcp/avenir/ynab"
)

// Writes to scheduled transactions (spec 1.71 and 1.74), with YNAB's rules: the date is the
// next occurrence, after today and at most 5 years ahead, for a create and an update alike; the API writes only the frequencies
// never, daily, weekly, monthly and yearly, and a schedule that repeats otherwise (set in
// YNAB's apps) cannot be changed through it at all; split scheduled transactions cannot be
// created; credit card payment categories are not permitted. A PUT changes the fields it
// carries and keeps the others. Answers carry no server_knowledge, as in the spec.

// saveScheduled is the body of a scheduled write, with subtransactions only to refuse them.
type saveScheduled struct {
	ynab.SaveScheduledTransaction
	Subtransactions json.RawMessage `json:"subtransactions"`
}

func (c *call) decodeScheduled() (*saveScheduled, error) {
	var body struct {
		ScheduledTransaction *saveScheduled `json:"scheduled_transaction"`
	}
	if err := c.decode(&body); err != nil {
		return nil, err
	}
	in := body.ScheduledTransaction
	switch {
	case in == nil:
		return nil, badRequest(`The body needs a scheduled_transaction object: {"scheduled_transaction":{"account_id":…,"date":…}}.`)
	case in.AccountID == "":
		return nil, badRequest("account_id is required.")
	case in.Date == "":
		return nil, badRequest("date is required.")
	case len(in.Subtransactions) > 0 && string(in.Subtransactions) != "null" && string(in.Subtransactions) != "[]":
		return nil, badRequest("Creating a split scheduled transaction is not currently supported.")
	}
	return in, nil
}

func postScheduledTransaction(c *call) (int, any, error) {
	in, err := c.decodeScheduled()
	if err != nil {
		return 0, nil, err
	}
	if in.Frequency == "" {
		in.Frequency = "never"
	}
	st := &ynab.ScheduledTransaction{ID: c.p.newID("scheduled")}
	if err := c.saveScheduled(st, in); err != nil {
		return 0, nil, err
	}
	st.DateFirst = st.DateNext
	c.p.Scheduled = append(c.p.Scheduled, st)
	return c.savedScheduled(http.StatusCreated, st.ID)
}

func putScheduledTransaction(c *call) (int, any, error) {
	st, err := c.liveScheduled()
	if err != nil {
		return 0, nil, err
	}
	if !slices.Contains(ynab.WritableFrequencies, st.Frequency) {
		return 0, nil, badRequest("This scheduled transaction repeats %s, a frequency the API cannot write (only %s): change it in YNAB's apps.",
			st.Frequency, strings.Join(ynab.WritableFrequencies, ", "))
	}
	in, err := c.decodeScheduled()
	if err != nil {
		return 0, nil, err
	}
	if err := c.saveScheduled(st, in); err != nil {
		return 0, nil, err
	}
	st.DateFirst = min(st.DateFirst, st.DateNext)
	return c.savedScheduled(http.StatusOK, st.ID)
}

func deleteScheduledTransaction(c *call) (int, any, error) {
	st, err := c.liveScheduled()
	if err != nil {
		return 0, nil, err
	}
	st.Deleted = true
	for i := range st.Subtransactions {
		st.Subtransactions[i].Deleted = true
	}
	return c.savedScheduled(http.StatusOK, st.ID)
}

// liveScheduled resolves the {scheduled_transaction_id} path parameter.
func (c *call) liveScheduled() (*ynab.ScheduledTransaction, error) {
	id := c.params["scheduled_transaction_id"]
	for _, st := range c.p.Scheduled {
		if st.ID == id && !st.Deleted {
			return st, nil
		}
	}
	return nil, notFound("scheduled transaction", id)
}

// saveScheduled writes a save body onto a scheduled transaction.
func (c *call) saveScheduled(st *ynab.ScheduledTransaction, in *saveScheduled) error {
	a := c.p.account(in.AccountID)
	if a == nil {
		return badRequest("account_id %q is not an account of this plan.", in.AccountID)
	}
	if _, ok := parseDate(in.Date); !ok {
		return badRequest("date must be a date like 2026-10-01, not %q.", in.Date)
	}
	// One rule for a create and an update: both bodies are SaveScheduledTransaction, whose date
	// "should be a future date no more than 5 years into the future" (YNAB's OpenAPI spec, from
	// 1.74.0, which brought PUT and added the sentence, to 1.86.0:
	// ../shared/reference/ynab-openapi-1.86.yaml, components.schemas.SaveScheduledTransaction).
	// Neither the spec, ynab-api.md, YNAB's SDKs' specs (ynab-sdk-js, -ruby, -python, 1.71.0 to
	// 1.86.0) nor their issues give an update more room, such as a date up to a week in the
	// past; so today and every day before it are refused on both.
	if in.Date <= c.v.today || in.Date > dateOf(dayTime(c.v.today).AddDate(5, 0, 0)) {
		return badRequest("date must be a future date no more than 5 years into the future, not %s.", in.Date)
	}
	if in.Frequency != "" {
		if !slices.Contains(ynab.WritableFrequencies, in.Frequency) {
			return badRequest("frequency must be one of %s, not %q.", strings.Join(ynab.WritableFrequencies, ", "), in.Frequency)
		}
		st.Frequency = in.Frequency
	}
	st.AccountID, st.DateNext = a.ID, in.Date
	if in.Amount.Set {
		if in.Amount.Value == nil {
			return badRequest("amount cannot be null.")
		}
		st.Amount = *in.Amount.Value
	}
	if in.Memo.Set {
		if in.Memo.Value != nil {
			if err := validLength("memo", *in.Memo.Value, 500); err != nil {
				return err
			}
		}
		st.Memo = in.Memo.Value
	}
	if in.FlagColor.Set {
		flag, err := validFlag(in.FlagColor.Value)
		if err != nil {
			return err
		}
		st.FlagColor = flag
	}
	switch {
	case in.PayeeID.Value != nil:
		py := c.p.payee(*in.PayeeID.Value)
		if py == nil {
			return badRequest("payee_id %q is not a payee of this plan.", *in.PayeeID.Value)
		}
		st.PayeeID = ptr(py.ID)
	case in.PayeeName.Value != nil:
		id, err := c.payeeByName("payee_name", *in.PayeeName.Value)
		if err != nil {
			return err
		}
		st.PayeeID = ptr(id)
	case in.PayeeID.Set:
		st.PayeeID = nil
	}
	if in.CategoryID.Set {
		st.CategoryID = nil
		if id := in.CategoryID.Value; id != nil {
			cat := c.p.category(*id)
			switch {
			case cat == nil:
				return badRequest("category_id %q is not a category of this plan.", *id)
			case cat.CardAccountID != "":
				return badRequest("%s is a credit card payment category: scheduled transactions cannot be categorized to it.", cat.Name)
			}
			st.CategoryID = ptr(cat.ID)
		}
	}
	st.TransferAccountID = nil
	if st.PayeeID != nil {
		if to := c.p.accountOfTransferPayee(*st.PayeeID); to != nil {
			if to.ID == a.ID {
				return badRequest("A transfer needs another account: this is the transfer payee of the scheduled transaction's own account.")
			}
			st.TransferAccountID = ptr(to.ID)
			if a.OnBudget && to.OnBudget {
				st.CategoryID = nil
			}
		}
	}
	return nil
}

// savedScheduled commits a scheduled write and answers with the scheduled transaction.
func (c *call) savedScheduled(status int, id string) (int, any, error) {
	if _, err := c.commit(); err != nil {
		return 0, nil, err
	}
	for _, st := range c.v.scheduled {
		if st.ID == id {
			return status, map[string]any{"scheduled_transaction": c.f.scheduled(st)}, nil
		}
	}
	return 0, nil, internalError(errNotServed)
}
