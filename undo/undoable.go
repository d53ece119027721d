// Package undo takes a journaled operation back: it builds the inverse of its changes, leaves
// alone what someone changed since, and says plainly what cannot be undone through YNAB's API.
package undo

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/avenir-mcp/avenir/journal"
)

// Refusal says why op cannot be undone, or returns nil when it can. Each reason tells the person
// what to do instead.
func Refusal(op journal.Operation) error {
	switch {
	case op.Status == journal.StatusFailed:
		return fmt.Errorf("operation %s failed: nothing of it was written to YNAB, so there is nothing to undo", op.ID)
	case op.Status == journal.StatusPrepared:
		return fmt.Errorf("operation %s is not finished: whether YNAB applied it is not known yet (avenir checks at its next start); try again after that", op.ID)
	case op.UndoneBy != "":
		return fmt.Errorf("operation %s was already undone by %s; to have it back, undo %s", op.ID, op.UndoneBy, op.UndoneBy)
	}
	switch op.Tool {
	case "create_category":
		return fmt.Errorf("operation %s created a category, and YNAB's API has no way to delete or hide a category: hide or delete it in YNAB yourself (category settings)", op.ID)
	case "split_transaction":
		return fmt.Errorf("operation %s split a transaction, and YNAB's API cannot un-split one: only YNAB can, by editing the transaction there", op.ID)
	case "import_transactions":
		return fmt.Errorf("operation %s imported transactions from the bank; an import cannot be undone (delete imported transactions in YNAB if you must)", op.ID)
	case "create_account":
		return fmt.Errorf("operation %s created an account, and YNAB's API cannot delete or close an account: close or delete it in YNAB yourself (account settings)", op.ID)
	case "create_category_group":
		return fmt.Errorf("operation %s created a category group, and YNAB's API cannot delete or hide a group: delete or hide it in YNAB yourself", op.ID)
	}
	for _, ch := range op.Changes {
		if why := unwritableSchedule(ch); why != "" && ch.Outcome != journal.OutcomeNotApplied {
			return fmt.Errorf("operation %s deleted the scheduled transaction %s, and YNAB's API cannot create it again: %s. Schedule it again in YNAB yourself", op.ID, ch.Label, why)
		}
	}
	return nil
}

// writableFrequencies are the frequencies YNAB's API can give a scheduled transaction; the others
// (every3Months, twiceAMonth, …) only YNAB's apps set.
var writableFrequencies = []string{"never", "daily", "weekly", "monthly", "yearly"}

// unwritableSchedule says why a deleted scheduled transaction cannot be created again through
// YNAB's API, or returns "" when it can.
func unwritableSchedule(ch journal.Change) string {
	if ch.Kind != KindDeletedScheduled {
		return ""
	}
	var f struct {
		Frequency       string          `json:"frequency"`
		Subtransactions json.RawMessage `json:"subtransactions"`
	}
	if json.Unmarshal(ch.Before, &f) != nil {
		return "its fields are not readable in the journal"
	}
	switch {
	case !slices.Contains(writableFrequencies, f.Frequency):
		return fmt.Sprintf("it repeats %s, and the API writes only %s", f.Frequency, strings.Join(writableFrequencies, ", "))
	case len(f.Subtransactions) > 0 && string(f.Subtransactions) != "null":
		return "it is a split, and the API cannot create a split scheduled transaction"
	}
	return ""
}
