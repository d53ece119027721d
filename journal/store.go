package journal

import (
	"context"
	"time"
)

// Store is the journal as the write path, undo and recovery use it: append-only events,
// operations projected from them, and the plan's write lock. Two implementations keep the same
// events and projections: *Journal, the local bbolt file (the default), and journal/pg, one
// PostgreSQL database shared by the instances of avenir hosted, scoped to one person.
type Store interface {
	// Prepare appends "prepared" for a draft, durably, before YNAB is called (write-ahead).
	Prepare(ctx context.Context, d Draft) (Operation, error)
	// Applied and Failed append an operation's outcome; Resolve the outcome recovery read from
	// YNAB; ResolveByHand what the person decided for an operation nothing can settle.
	Applied(ctx context.Context, id string, o Outcome) (Operation, error)
	Failed(ctx context.Context, id string, reason string, requests int) (Operation, error)
	Resolve(ctx context.Context, id string, changes []Change) (Operation, error)
	ResolveByHand(ctx context.Context, id string, applied bool, by string) (Operation, error)
	// Answered records that the client heard the outcome of id.
	Answered(ctx context.Context, id string) error
	// Get, List and Pending read operations.
	Get(ctx context.Context, id string) (Operation, error)
	List(ctx context.Context, f Filter) ([]Operation, error)
	Pending(ctx context.Context) ([]Operation, error)
	// Recover settles the operations a crash left prepared, by c's reading of YNAB.
	Recover(ctx context.Context, c Checker) ([]Operation, error)
	// LockPlan takes the plan's write lock, waiting at most wait: one writer per plan across
	// every process (and, hosted, every instance) that shares the store.
	LockPlan(ctx context.Context, planID string, wait time.Duration) (unlock func(), err error)
}

var _ Store = (*Journal)(nil)
