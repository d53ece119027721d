package pg

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// One writer per plan (design.md), across every instance: a plan's write lock is a session
// advisory lock of PostgreSQL, keyed by the person and the plan (planKey), held on a connection
// of its own from the pool from LockPlan until unlock. PostgreSQL releases it when that session
// ends, so a writer that dies, or loses its connection, lets go of it. Within an instance, the
// writers of a plan first queue on a channel, as the bbolt journal's do, so that they wait in
// order and hold no connection while they wait.

// heldLock is a plan lock this instance holds: the connection whose session holds it.
type heldLock struct {
	mu   sync.Mutex // one statement at a time on conn: the unlock, or a Prepare
	conn *pgxpool.Conn
}

// lockGrace is how much longer than the wait LockPlan gives the round trips around the wait
// itself (a connection, the statements), so that the server's lock_timeout, not a cut
// connection, ends a wait that lasts.
const lockGrace = 2 * time.Second

// LockPlan takes the write lock of planID, waiting at most wait (and no longer than ctx
// allows), and returns the function that releases it. Past the wait it returns
// journal.ErrPlanBusy, and nothing should be written. The wait is PostgreSQL's own (the lock
// request queues there, and is granted as soon as the holder lets go), bounded by lock_timeout.
func (s *store) LockPlan(ctx context.Context, planID string, wait time.Duration) (unlock func(), err error) {
	if s.person < 1 {
		return nil, errNoPerson
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	waitCtx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	key := planKey(s.person, planID)

	q, leave := s.js.queue(key)
	select {
	case q <- struct{}{}:
	default:
		select {
		case q <- struct{}{}:
		case <-waitCtx.Done():
			leave()
			return nil, busy(ctx, wait)
		}
	}
	release := func() {
		<-q
		leave()
	}

	lockCtx, cancelLock := context.WithDeadline(ctx, deadline.Add(lockGrace))
	defer cancelLock()
	conn, err := s.js.pool.Acquire(lockCtx)
	if err != nil {
		release()
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("the plan's write lock: no connection to the database: %w; nothing was written", err)
	}
	// The rest of the wait in whole milliseconds, rounded up; at least one try, even when the
	// wait is spent: lock_timeout 0 would wait for ever.
	timeout := max((time.Until(deadline)+time.Millisecond-1)/time.Millisecond, 1)
	// One round trip: the lock_timeout is the transaction's own, and the session's lock outlives
	// the transaction.
	var b pgx.Batch
	b.Queue("BEGIN")
	b.Queue("SELECT set_config('lock_timeout', $1, true)", strconv.FormatInt(int64(timeout), 10)+"ms")
	b.Queue("SELECT pg_advisory_lock($1)", key)
	b.Queue("COMMIT")
	br := conn.SendBatch(lockCtx, &b)
	for range b.Len() {
		if _, err = br.Exec(); err != nil {
			break
		}
	}
	if err = errors.Join(err, br.Close()); err != nil {
		// Only lock_timeout's refusal leaves a session known not to hold the lock; its
		// transaction is rolled back and the connection goes back to the pool. Anything else (a
		// wait cut short by ctx, where pgx closes the connection anyway; a failed commit after
		// the lock was granted, which a rollback does not release) ends the session, and with it
		// any lock it holds: a connection holding a plan's lock must never go back to the pool.
		var pgErr *pgconn.PgError
		timedOut := errors.As(err, &pgErr) && pgErr.Code == "55P03" // lock_not_available
		if timedOut {
			if _, rerr := conn.Exec(lockCtx, "ROLLBACK"); rerr != nil {
				timedOut = false
			}
		}
		if !timedOut {
			conn.Conn().Close(context.Background()) //nolint:errcheck // closing is all that is left to do
		}
		conn.Release()
		release()
		switch {
		case errors.Is(ctx.Err(), context.Canceled):
			return nil, ctx.Err()
		case errors.As(err, &pgErr) && pgErr.Code == "55P03", ctx.Err() != nil:
			return nil, busy(ctx, wait)
		}
		return nil, fmt.Errorf("the plan's write lock: %w; nothing was written", err)
	}

	h := &heldLock{conn: conn}
	s.js.mu.Lock()
	s.js.held[key] = h
	s.js.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.js.mu.Lock()
			delete(s.js.held, key)
			s.js.mu.Unlock()
			h.mu.Lock()
			defer h.mu.Unlock()
			// An unlock that fails, or finds the lock not held, means the session is not what it
			// was: closing the connection ends it, and with it any lock it holds.
			uctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			var unlocked bool
			if err := conn.QueryRow(uctx, "SELECT pg_advisory_unlock($1)", key).Scan(&unlocked); err != nil || !unlocked {
				conn.Conn().Close(uctx) //nolint:errcheck // closing is all that is left to do
			}
			conn.Release()
			release()
		})
	}, nil
}

// busy is the error of a wait for a plan's lock that ended: ctx's own when it was cancelled,
// journal.ErrPlanBusy otherwise.
func busy(ctx context.Context, wait time.Duration) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return ctx.Err()
	}
	return fmt.Errorf("%w, and held its lock for more than %s; nothing was written. Try again in a moment", journal.ErrPlanBusy, wait)
}

// planQueue is the channel this instance's writers of one plan wait on, and how many of them
// are waiting or hold the lock: the last to leave removes it, so that an instance serving many
// people keeps only the queues in use.
type planQueue struct {
	ch    chan struct{}
	users int
}

// queue is the channel this instance's writers of the plan lock key wait on; leave, once the
// caller is done with it (given up, or unlocked).
func (js *Journals) queue(key int64) (q chan struct{}, leave func()) {
	js.mu.Lock()
	defer js.mu.Unlock()
	pq, ok := js.queues[key]
	if !ok {
		pq = &planQueue{ch: make(chan struct{}, 1)}
		js.queues[key] = pq
	}
	pq.users++
	return pq.ch, func() {
		js.mu.Lock()
		defer js.mu.Unlock()
		if pq.users--; pq.users == 0 {
			delete(js.queues, key)
		}
	}
}

// holding returns the lock of key this instance holds, or nil.
func (js *Journals) holding(key int64) *heldLock {
	js.mu.Lock()
	defer js.mu.Unlock()
	return js.held[key]
}
