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
// what to do instead. What YNAB's API cannot take back is told by the kind of each change (see
// irreversible), so that it holds for every tool that records such a change and for every
// journal written before.
func Refusal(op journal.Operation) error {
	switch {
	case op.Status == journal.StatusFailed:
		return fmt.Errorf("operation %s failed: nothing of it was written to YNAB, so there is nothing to undo", op.ID)
	case op.Status == journal.StatusPrepared && len(op.Changes) == 0:
		return fmt.Errorf("operation %s is not finished, and avenir cannot tell by reading YNAB what it did (it recorded no change before YNAB was called): "+
			"look in YNAB, then record what you find with: avenir journal resolve %s applied (or not-applied)", op.ID, op.ID)
	case op.Status == journal.StatusPrepared:
		return fmt.Errorf("operation %s is not finished: whether YNAB applied it is not known yet (avenir checks at its next start); try again after that", op.ID)
	case op.UndoneBy != "":
		return fmt.Errorf("operation %s was already undone by %s; to have it back, undo %s", op.ID, op.UndoneBy, op.UndoneBy)
	case len(op.Changes) == 0:
		return fmt.Errorf("operation %s records no change in YNAB, so avenir has nothing to take back (if it did change something, change it back in YNAB yourself)", op.ID)
	}
	for _, ch := range op.Changes {
		if ch.Outcome == journal.OutcomeNotApplied || ch.EnteredBy != "" {
			continue // not in YNAB, or another operation's
		}
		if why := irreversible(ch, op.ConfirmedVia); why != "" {
			return fmt.Errorf("operation %s %s", op.ID, why)
		}
	}
	return nil
}

// irreversible says what ch did that YNAB's API cannot take back, and what to do instead, or
// returns "" when undo can reverse it.
func irreversible(ch journal.Change, confirmedVia string) string {
	switch ch.Kind {
	case journal.KindNewCategory:
		return "created a category, and YNAB's API has no way to delete or hide a category: hide or delete it in YNAB yourself (category settings)"
	case journal.KindNewCategoryGroup:
		return "created a category group, and YNAB's API cannot delete or hide a group: delete or hide it in YNAB yourself"
	case journal.KindNewAccount:
		return "created an account, and YNAB's API cannot delete or close an account: close or delete it in YNAB yourself (account settings)"
	case journal.KindTransaction:
		if sets(ch.After, "subtransactions") {
			return "split a transaction, and YNAB's API cannot un-split one: only YNAB can, by editing the transaction there"
		}
	case journal.KindNewTransaction:
		switch {
		case len(ch.After) == 0:
			return fmt.Sprintf("entered %s, but the journal does not hold what it entered, so avenir cannot tell whether it was changed since; delete it in YNAB if you must", ch.Label)
		case importedByYNAB(ch.After) && confirmedVia == "none":
			// YNAB brought it in from a linked bank, unasked by the person (import_transactions).
			// A bank statement's lines avenir entered with the same form of import id, as the
			// person confirmed (import_statement), are avenir's own to delete.
			return "imported transactions from the bank; an import cannot be undone (delete imported transactions in YNAB if you must)"
		}
	case journal.KindDeletedScheduled:
		if why := unwritableSchedule(ch); why != "" {
			return fmt.Sprintf("deleted the scheduled transaction %s, and YNAB's API cannot create it again: %s. Schedule it again in YNAB yourself", ch.Label, why)
		}
	}
	return ""
}

// sets says whether the fields (a change's After) give field a value other than null.
func sets(fields json.RawMessage, field string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(fields, &m) != nil {
		return false
	}
	v, ok := m[field]
	return ok && string(v) != "null"
}

// importedByYNAB says whether a transaction entered with these fields came from the bank: YNAB
// gives what its Direct Import and File Based Import bring in an import_id of the form
// "YNAB:[milliunit_amount]:[iso_date]:[occurrence]" (YNAB's OpenAPI spec, import_id of
// SaveTransaction; ../shared/reference/ynab-openapi-1.86.yaml). avenir gives that form only to
// the lines of a bank statement it enters, after the person confirmed them.
func importedByYNAB(fields json.RawMessage) bool {
	var f struct {
		ImportID *string `json:"import_id"`
	}
	return json.Unmarshal(fields, &f) == nil && f.ImportID != nil && strings.HasPrefix(*f.ImportID, "YNAB:")
}

// writableFrequencies are the frequencies YNAB's API can give a scheduled transaction; the others
// (every3Months, twiceAMonth, …) only YNAB's apps set.
var writableFrequencies = []string{"never", "daily", "weekly", "monthly", "yearly"}

// unwritableSchedule says why a deleted scheduled transaction cannot be created again through
// YNAB's API, or returns "" when it can.
func unwritableSchedule(ch journal.Change) string {
	if ch.Kind != journal.KindDeletedScheduled {
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
