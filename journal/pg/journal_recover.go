package pg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/avenir-mcp/avenir/journal"
)

// Who is still writing a prepared operation. The bbolt journal asks whether the writer's
// process is alive; instances on several machines cannot see each other's processes. Here the
// rule is the plan's lock: the write path takes a plan's lock before it prepares and keeps it
// until the outcome is recorded, and PostgreSQL drops the lock when its holder's session ends.
// So an operation of a plan whose lock this instance holds, and that this instance is not
// writing itself, has no writer left: it may be settled. Recovery and ResolveByHand settle an
// operation only while they hold its plan's lock, and leave alone what this instance prepared
// and has not settled. (An operation prepared without the plan's lock by a writer that is still
// at work could be settled under it; the write path never prepares without the lock.)

// settleLockWait is how long recovery and ResolveByHand wait for a plan's lock: a writer at work
// holds it for one write, a second or so; one that holds it longer is left to finish.
const settleLockWait = time.Second

// Recover settles the person's operations left prepared by a writer that is gone, each by c's
// reading of YNAB, change by change (bolt.Journal.Recover says how). It settles a plan's
// operations only while it holds the plan's lock; those of a plan another writer holds past a
// short wait, and those this instance is writing, are left to their writers. One c cannot decide
// stays prepared, and the returned error names it and says why.
func (s *store) Recover(ctx context.Context, c journal.Checker) ([]journal.Operation, error) {
	pending, err := s.Pending(ctx)
	if err != nil {
		return nil, fmt.Errorf("recovering prepared operations: %w", err)
	}
	var plans []string
	byPlan := map[string][]journal.Operation{}
	for _, op := range pending {
		if s.js.writing(s.person, op.ID) {
			continue
		}
		if byPlan[op.PlanID] == nil {
			plans = append(plans, op.PlanID)
		}
		byPlan[op.PlanID] = append(byPlan[op.PlanID], op)
	}
	var (
		ops  []journal.Operation
		errs []error
	)
	for _, plan := range plans {
		if err := ctx.Err(); err != nil {
			return ops, errors.Join(append(errs, err)...)
		}
		unlock, err := s.LockPlan(ctx, plan, settleLockWait)
		switch {
		case errors.Is(err, journal.ErrPlanBusy):
			continue // a writer at work on the plan: what it prepared is its own to settle
		case ctx.Err() != nil:
			return ops, errors.Join(append(errs, ctx.Err())...)
		case err != nil:
			errs = append(errs, fmt.Errorf("the operations of plan %s stay prepared: %w", plan, err))
			continue
		}
		settled, err := s.recoverPlan(ctx, c, byPlan[plan])
		unlock()
		ops = append(ops, settled...)
		if err != nil {
			errs = append(errs, err)
		}
		if ctx.Err() != nil {
			return ops, errors.Join(append(errs, ctx.Err())...)
		}
	}
	return ops, errors.Join(errs...)
}

// recoverPlan settles ops, of one plan whose lock the caller holds. Each is read again first,
// as it is now that no writer is at work: its writer may have settled it before letting go of
// the lock. Under the lock nothing else settles them, so what is read stays true.
func (s *store) recoverPlan(ctx context.Context, c journal.Checker, ops []journal.Operation) ([]journal.Operation, error) {
	var orphans []journal.Operation
	for _, op := range ops {
		op, err := s.Get(ctx, op.ID)
		if err != nil {
			return nil, err
		}
		if op.Status == journal.StatusPrepared && !s.js.writing(s.person, op.ID) {
			orphans = append(orphans, op)
		}
	}
	return journal.RecoverEach(ctx, s, c, orphans)
}

// Resolve records what YNAB showed, change by change, about the prepared operation id (each
// change with its outcome). If another writer settled it first, it returns the operation as that
// writer left it. The caller holds the plan's lock, or has another reason to know that nobody
// is writing the operation.
func (s *store) Resolve(ctx context.Context, id string, changes []journal.Change) (journal.Operation, error) {
	e, err := journal.RecoveredEntry(changes)
	if err != nil {
		return journal.Operation{}, fmt.Errorf("resolving operation %s: %w", id, err)
	}
	op, err := s.settle(ctx, id, e)
	if errors.Is(err, journal.ErrNotPrepared) {
		return s.Get(ctx, id)
	}
	return op, err
}

// ResolveByHand records the outcome of the prepared operation id as a person decided it after
// looking in YNAB, and how it was decided (by). It refuses, and records nothing, for an
// operation that is not prepared (journal.ErrNotPrepared), whose changes a read of YNAB can
// check (journal.ErrSelfSettling), or that a running avenir may still be writing
// (journal.ErrWriting): this instance, or whoever holds its plan's lock past a short wait.
func (s *store) ResolveByHand(ctx context.Context, id string, applied bool, by string) (journal.Operation, error) {
	key, err := s.parse(id)
	if err != nil {
		return journal.Operation{}, err
	}
	e, err := journal.ResolvedEntry(applied, by)
	if err != nil {
		return journal.Operation{}, fmt.Errorf("resolving operation %s: %w", id, err)
	}
	was, err := s.Get(ctx, key.String())
	if err != nil {
		return journal.Operation{}, err
	}
	if err := journal.RefuseByHand(was, was.Status == journal.StatusPrepared && s.js.writing(s.person, was.ID)); err != nil {
		return journal.Operation{}, err
	}
	unlock, err := s.LockPlan(ctx, was.PlanID, settleLockWait)
	if errors.Is(err, journal.ErrPlanBusy) {
		return journal.Operation{}, journal.RefuseByHand(was, true)
	}
	if err != nil {
		return journal.Operation{}, fmt.Errorf("resolving operation %s: %w", id, err)
	}
	defer unlock()
	// Under the lock, as it is now: its writer may have settled it while this waited.
	if was, err = s.Get(ctx, key.String()); err != nil {
		return journal.Operation{}, err
	}
	if err := journal.RefuseByHand(was, was.Status == journal.StatusPrepared && s.js.writing(s.person, was.ID)); err != nil {
		return journal.Operation{}, err
	}
	op, err := s.settle(ctx, was.ID, e)
	if err != nil {
		return journal.Operation{}, err
	}
	return op, nil
}
