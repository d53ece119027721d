package journal

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/bbolt"
)

var (
	// ErrWriting is returned by ResolveByHand for an operation a running avenir is still
	// writing: it records the outcome itself when YNAB answers.
	ErrWriting = errors.New("a running avenir is still writing it")
	// ErrSelfSettling is returned by ResolveByHand for an operation whose changes a read of YNAB
	// can check: recovery settles it at the next start of a server.
	ErrSelfSettling = errors.New("avenir settles it itself")
)

// ResolveByHand records the outcome of the prepared operation id as a person decided it after
// looking in YNAB — applied or not — and how it was decided (by, such as "by the person, with
// avenir journal resolve"). It is only for what recovery cannot settle: an operation that
// recorded no change before YNAB was called (an import cut off by a crash), whose writer is
// gone. It refuses, and records nothing, for an operation that is not prepared
// (ErrNotPrepared), that a running avenir is still writing (ErrWriting), or whose changes a
// read of YNAB can check (ErrSelfSettling).
func (j *Journal) ResolveByHand(ctx context.Context, id string, applied bool, by string) (Operation, error) {
	key, err := parseID(id)
	if err != nil {
		return Operation{}, err
	}
	e, err := ResolvedEntry(applied, by)
	if err != nil {
		return Operation{}, fmt.Errorf("resolving operation %s: %w", id, err)
	}
	var op Operation
	err = j.update(ctx, func(tx *bbolt.Tx) error {
		was, err := readOp(tx, key)
		if err != nil {
			return err
		}
		if err := RefuseByHand(was, was.Status == StatusPrepared && j.writing(tx.Bucket(bucketInFlight).Get(key))); err != nil {
			return err
		}
		op, err = j.settleTx(tx, key, e.Type, e.data)
		return err
	})
	if err != nil {
		return Operation{}, err
	}
	return op, nil
}
