// Package undo takes a journaled operation back: it builds the inverse of its changes, leaves
// alone what someone changed since, and says plainly what cannot be undone through YNAB's API.
package undo

import (
	"fmt"

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
	}
	return nil
}
