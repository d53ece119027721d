package journal

import (
	"context"
	"errors"
	"time"
)

// Store is the journal as the write path, undo and recovery use it: append-only events,
// operations projected from them, and the plan's write lock. Two implementations keep the same
// events and projections, and pass the same suite (journal/storetest): journal/bolt, the local
// bbolt file (the default), and journal/pg, one PostgreSQL database shared by the instances of
// avenir hosted, scoped to one person.
//
// Every method takes the caller's context: a call whose caller has gone away ends, and so does
// its wait for a lock. What must be recorded whatever the caller does (the outcome of a write
// YNAB has answered) is the caller's to run under a context of its own.
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

var (
	// ErrNotFound is returned for an operation id the journal does not hold.
	ErrNotFound = errors.New("not in the journal")
	// ErrNewerSchema is returned for a journal written by a newer avenir.
	ErrNewerSchema = errors.New("written by a newer avenir")
	// ErrPlanBusy is returned by LockPlan when another writer held the plan's lock for the whole
	// wait.
	ErrPlanBusy = errors.New("another avenir is writing to this plan")
	// ErrWriting is returned by ResolveByHand for an operation a running avenir is still
	// writing: it records the outcome itself when YNAB answers.
	ErrWriting = errors.New("a running avenir is still writing it")
	// ErrSelfSettling is returned by ResolveByHand for an operation whose changes a read of YNAB
	// can check: recovery settles it at the next start of a server.
	ErrSelfSettling = errors.New("avenir settles it itself")
)

// DefaultLimit is how many operations List returns when the filter sets no limit.
const DefaultLimit = 20

// Filter selects operations for List. Empty fields select everything.
type Filter struct {
	PlanID, Tool string
	Status       Status
	Since        time.Time // operations at or after this time
	Limit        int       // 0 means DefaultLimit
}

// Checker tells, change by change, whether YNAB holds the changes of an operation whose writer
// stopped before it recorded the outcome. It answers from what YNAB shows, never from a guess:
// it returns op's changes, each with its outcome (applied or not_applied) and, for a created
// thing it found, the id YNAB gave it; when it cannot tell, it returns an error.
type Checker interface {
	Check(ctx context.Context, op Operation) ([]Change, error)
}

// notApplied is the error recorded for a prepared operation that YNAB turned out not to have.
const notApplied = "not applied: avenir stopped before YNAB answered, and YNAB does not have the change"
