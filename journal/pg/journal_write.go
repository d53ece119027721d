package pg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/oklog/ulid/v2"
)

// store is one person's journal.
type store struct {
	js     *Journals
	person int64
}

var _ journal.Store = (*store)(nil)

// Prepare records d durably (committed) before YNAB is called. While this instance holds the
// plan's lock, the record is written on the lock's own connection: a lock lost with its
// connection fails the Prepare, and nothing is written to YNAB without the lock.
func (s *store) Prepare(ctx context.Context, d journal.Draft) (journal.Operation, error) {
	if s.person < 1 {
		return journal.Operation{}, errNoPerson
	}
	d, e, err := journal.PrepareEntry(d)
	if err != nil {
		return journal.Operation{}, fmt.Errorf("preparing an operation: %w", err)
	}
	var op journal.Operation
	err = s.write(ctx, d.PlanID, nil, func(t *txn, _ journal.Operation) error {
		var undoOf []byte
		if d.UndoOf != "" {
			target, err := journal.ParseID(d.UndoOf)
			if err != nil {
				return err
			}
			if err := t.checkUndo(ctx, target); err != nil {
				return err
			}
			undoOf = target[:]
		}
		var err error
		if op, err = t.append(journal.Operation{}, e); err != nil {
			return err
		}
		id, _ := journal.ParseID(op.ID)
		t.inserts.Queue(`INSERT INTO avenir_journal.operations (person, id, plan_id, tool, time, undo_of, writer)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, s.person, id[:], op.PlanID, op.Tool, op.Time, undoOf, s.js.writer)
		return nil
	})
	if err != nil {
		return journal.Operation{}, fmt.Errorf("preparing %s: %w", d.Tool, err)
	}
	s.js.track(s.person, op.ID)
	return op, nil
}

// checkUndo refuses an undo of target that cannot be recorded (journal.CheckUndo).
func (t *txn) checkUndo(ctx context.Context, target ulid.ULID) error {
	op, err := t.read(ctx, target)
	if err != nil {
		return err
	}
	rows, err := t.conn.Query(ctx, `SELECT o.id FROM avenir_journal.operations o
		WHERE o.person = $1 AND o.undo_of = $2
		AND NOT EXISTS (SELECT 1 FROM avenir_journal.outcomes x WHERE x.person = o.person AND x.operation = o.id)
		ORDER BY o.id`, t.person, target[:])
	if err != nil {
		return err
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return err
	}
	undoing := make([]string, len(keys))
	for i, k := range keys {
		undoing[i] = idString(k)
	}
	return journal.CheckUndo(op, undoing)
}

// Applied records YNAB's answer for the prepared operation id; an undo's target is marked
// undone by it in the same transaction.
func (s *store) Applied(ctx context.Context, id string, o journal.Outcome) (journal.Operation, error) {
	e, err := journal.AppliedEntry(o)
	if err != nil {
		return journal.Operation{}, fmt.Errorf("recording operation %s as applied: %w", id, err)
	}
	return s.settle(ctx, id, e)
}

// Failed records that YNAB did not apply the prepared operation id, and why.
func (s *store) Failed(ctx context.Context, id string, reason string, requests int) (journal.Operation, error) {
	e, err := journal.FailedEntry(reason, requests)
	if err != nil {
		return journal.Operation{}, fmt.Errorf("recording operation %s as failed: %w", id, err)
	}
	return s.settle(ctx, id, e)
}

// Answered records that the answer telling the outcome of operation id reached the client;
// recording it again changes nothing.
func (s *store) Answered(ctx context.Context, id string) error {
	key, err := s.parse(id)
	if err != nil {
		return err
	}
	err = s.write(ctx, "", &key, func(t *txn, op journal.Operation) error {
		if op.Answered {
			return nil
		}
		_, err := t.append(op, journal.AnsweredEntry())
		return err
	})
	if err != nil {
		return fmt.Errorf("recording that operation %s was answered: %w", id, err)
	}
	return nil
}

// settle appends the entry that ends the prepared operation id, and, if that applied an undo,
// links the undone operation to it, in one transaction.
func (s *store) settle(ctx context.Context, id string, e journal.Entry) (journal.Operation, error) {
	key, err := s.parse(id)
	if err != nil {
		return journal.Operation{}, err
	}
	var op journal.Operation
	err = s.write(ctx, "", &key, func(t *txn, was journal.Operation) error {
		var err error
		if op, err = t.append(was, e); err != nil {
			return err
		}
		return t.linkUndo(ctx, op)
	})
	switch {
	case err == nil, errors.Is(err, journal.ErrNotPrepared):
		s.js.untrack(s.person, key.String())
	}
	if err != nil {
		return journal.Operation{}, fmt.Errorf("recording operation %s as %s: %w", id, e.Type, err)
	}
	return op, nil
}

// linkUndo marks the operation op undid as undone by it, once op is (at least partly) applied.
func (t *txn) linkUndo(ctx context.Context, op journal.Operation) error {
	if op.UndoOf == "" || op.Status == journal.StatusPrepared || op.Status == journal.StatusFailed {
		return nil
	}
	target, err := journal.ParseID(op.UndoOf)
	if err != nil {
		return err
	}
	was, err := t.read(ctx, target)
	if err != nil {
		return err
	}
	_, err = t.append(was, journal.UndoneEntry(op.ID))
	return err
}

// parse reads an operation id (journal.ErrNotFound for anything else) for a store of a person.
func (s *store) parse(id string) (ulid.ULID, error) {
	if s.person < 1 {
		return ulid.ULID{}, errNoPerson
	}
	return journal.ParseID(id)
}

// txn is one write transaction of a person's journal.
type txn struct {
	conn    session
	js      *Journals
	person  int64
	last    []byte    // the person's newest event id, as of this transaction's appends
	inserts pgx.Batch // the rows appended, sent with the commit
}

// session is the connection a write runs on: one of the pool's, or the one holding a plan's
// lock.
type session interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// write runs fn in a transaction, serialised with every other write of the person (on any
// instance) by a transaction advisory lock on the person: so event ids follow the order of
// commits, and each event is checked against the operation as the commits before it left it.
// A person's writes are few, and each is a few short statements.
//
// A write is two round trips: the transaction's start, the lock, the person's newest event id
// and the operation key (if not nil; journal.ErrNotFound if it is not the person's) in one
// batch; the rows fn appends and the commit in another (and a read more for an undo). If this
// instance holds the lock of planID, the transaction runs on that lock's connection.
func (s *store) write(ctx context.Context, planID string, key *ulid.ULID, fn func(*txn, journal.Operation) error) error {
	if planID != "" {
		if h := s.js.holding(planKey(s.person, planID)); h != nil {
			h.mu.Lock()
			defer h.mu.Unlock()
			err := s.writeOn(ctx, h.conn, key, fn)
			if err != nil && h.conn.Conn().IsClosed() {
				return fmt.Errorf("the plan's write lock was lost with its connection to the database, so nothing may be written now: %w", err)
			}
			return err
		}
	}
	conn, err := s.js.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("writing to the journal: %w", err)
	}
	defer conn.Release() // a connection left in a transaction is dropped, not reused
	return s.writeOn(ctx, conn, key, fn)
}

func (s *store) writeOn(ctx context.Context, conn session, key *ulid.ULID, fn func(*txn, journal.Operation) error) (err error) {
	defer func() {
		if err != nil {
			// Whatever ended the transaction early, end it, so that the connection (a plan lock's
			// among them) is left as it was found. If even that fails the connection is broken,
			// and ends with its session.
			_, _ = conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	t := &txn{conn: conn, js: s.js, person: s.person}

	// Each statement of the batch sees what was committed when it starts, so those after the
	// lock see every write of the person before this one.
	var b pgx.Batch
	b.Queue("BEGIN")
	b.Queue("SELECT pg_advisory_xact_lock($1)", personKey(s.person))
	b.Queue("SELECT id FROM avenir_journal.events WHERE person = $1 ORDER BY id DESC LIMIT 1", s.person)
	if key != nil {
		b.Queue(eventsOf, s.person, key[:])
	}
	br := conn.SendBatch(ctx, &b)
	_, err = br.Exec()
	if err == nil {
		_, err = br.Exec()
	}
	if err == nil {
		err = br.QueryRow().Scan(&t.last)
		if errors.Is(err, pgx.ErrNoRows) {
			t.last, err = make([]byte, len(ulid.ULID{})), nil
		}
	}
	var (
		op      journal.Operation
		readErr error // the operation's own: not found, or not replayed
	)
	if err == nil && key != nil {
		var rows pgx.Rows
		if rows, err = br.Query(); err == nil {
			op, readErr = oneOp(rows, *key)
		}
	}
	if err = errors.Join(err, br.Close()); err != nil {
		return fmt.Errorf("writing to the journal: %w", err)
	}
	if readErr != nil {
		return readErr
	}

	if err := fn(t, op); err != nil {
		return err
	}
	t.inserts.Queue("COMMIT")
	br = conn.SendBatch(ctx, &t.inserts)
	for range t.inserts.Len() {
		if _, err = br.Exec(); err != nil {
			break
		}
	}
	if err = errors.Join(err, br.Close()); err != nil {
		return fmt.Errorf("writing to the journal: %w", err)
	}
	return nil
}

// read replays the events of the operation id.
func (t *txn) read(ctx context.Context, id ulid.ULID) (journal.Operation, error) {
	return readOp(ctx, t.conn, t.person, id)
}

// append appends entry e to the operation was (the zero Operation for a new one, which e then
// prepares), if the operation's state allows it, and records the outcome when e settles it.
// The rows are queued, sent before the commit.
func (t *txn) append(was journal.Operation, e journal.Entry) (journal.Operation, error) {
	now := t.js.now().UTC().Truncate(time.Microsecond) // what timestamptz keeps
	id, err := t.newID(now)
	if err != nil {
		return journal.Operation{}, err
	}
	opID := was.ID
	if opID == "" {
		opID = id.String()
	}
	ev, err := e.Event(id.String(), now, opID)
	if err != nil {
		return journal.Operation{}, err
	}
	op, err := journal.Project(append(slices.Clip(was.Events), ev))
	if err != nil {
		return journal.Operation{}, err
	}
	raw, err := json.Marshal(ev)
	if err != nil {
		return journal.Operation{}, fmt.Errorf("encoding event %s: %w", ev.ID, err)
	}
	opKey, _ := journal.ParseID(opID)
	t.inserts.Queue(`INSERT INTO avenir_journal.events (person, id, operation, type, event) VALUES ($1, $2, $3, $4, $5)`,
		t.person, id[:], opKey[:], ev.Type, string(raw))
	if was.Status == journal.StatusPrepared && op.Status != journal.StatusPrepared {
		t.inserts.Queue(`INSERT INTO avenir_journal.outcomes (person, operation, status, event) VALUES ($1, $2, $3, $4)`,
			t.person, opKey[:], string(op.Status), id[:])
	}
	return op, nil
}

// newID returns the id of a new event, later than every event of the person: ids follow the
// order of commits even when another instance drew a larger id in the same millisecond, or its
// clock is ahead, or this one's was set back.
func (t *txn) newID(now time.Time) (ulid.ULID, error) {
	id, err := ulid.New(ulid.Timestamp(now), t.js.entropy)
	if err != nil {
		return id, fmt.Errorf("making an event id: %w", err)
	}
	if bytes.Compare(id[:], t.last) <= 0 {
		copy(id[:], t.last)
		i := len(id) - 1
		for ; i >= 0; i-- {
			if id[i]++; id[i] != 0 {
				break
			}
		}
		if i < 0 {
			return id, errors.New("making an event id: no id is left after the last one")
		}
	}
	t.last = id[:]
	return id, nil
}

func idString(key []byte) string {
	var u ulid.ULID
	copy(u[:], key)
	return u.String()
}
