package journal

import (
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
func (j *Journal) ResolveByHand(id string, applied bool, by string) (Operation, error) {
	key, err := parseID(id)
	if err != nil {
		return Operation{}, err
	}
	if by == "" {
		return Operation{}, fmt.Errorf("resolving operation %s: say how it was decided", id)
	}
	r := resolution{Decision: OutcomeNotApplied, By: by}
	if applied {
		r.Decision = OutcomeApplied
	}
	var op Operation
	err = j.update(func(tx *bbolt.Tx) error {
		was, err := readOp(tx, key)
		switch {
		case err != nil:
			return err
		case was.Status != StatusPrepared:
			return fmt.Errorf("operation %s is %s: %w, so there is nothing to resolve", id, was.Status, ErrNotPrepared)
		case j.writing(tx.Bucket(bucketInFlight).Get(key)):
			return fmt.Errorf("operation %s (%s): %w; it records the outcome when YNAB answers, and nothing was recorded here", id, was.Tool, ErrWriting)
		case len(was.Changes) > 0:
			return fmt.Errorf("operation %s (%s) recorded its %d change(s) before YNAB was called, so %w: the next avenir server to start reads YNAB and records what it holds. Nothing was recorded here",
				id, was.Tool, len(was.Changes), ErrSelfSettling)
		}
		op, err = j.settleTx(tx, key, eventResolved, r)
		return err
	})
	if err != nil {
		return Operation{}, err
	}
	return op, nil
}
