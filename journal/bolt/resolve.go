package bolt

import (
	"context"
	"fmt"

	"github.com/avenir-mcp/avenir/journal"
	"go.etcd.io/bbolt"
)

// ResolveByHand records the outcome of the prepared operation id as a person decided it after
// looking in YNAB — applied or not — and how it was decided (by, such as "by the person, with
// avenir journal resolve"). It is only for what recovery cannot settle: an operation that
// recorded no change before YNAB was called (an import cut off by a crash), whose writer is
// gone. It refuses, and records nothing, for an operation that is not prepared
// (ErrNotPrepared), that a running avenir is still writing (ErrWriting), or whose changes a
// read of YNAB can check (ErrSelfSettling).
func (j *Journal) ResolveByHand(ctx context.Context, id string, applied bool, by string) (journal.Operation, error) {
	key, err := parseID(id)
	if err != nil {
		return journal.Operation{}, err
	}
	e, err := journal.ResolvedEntry(applied, by)
	if err != nil {
		return journal.Operation{}, fmt.Errorf("resolving operation %s: %w", id, err)
	}
	var op journal.Operation
	err = j.update(ctx, func(tx *bbolt.Tx) error {
		was, err := readOp(tx, key)
		if err != nil {
			return err
		}
		if err := journal.RefuseByHand(was, was.Status == journal.StatusPrepared && j.writing(tx.Bucket(bucketInFlight).Get(key))); err != nil {
			return err
		}
		op, err = j.settleTx(tx, key, e)
		return err
	})
	if err != nil {
		return journal.Operation{}, err
	}
	return op, nil
}
