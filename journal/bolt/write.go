package bolt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/oklog/ulid/v2"
	"go.etcd.io/bbolt"
)

// Prepare records d durably, before YNAB is called, and returns the prepared operation. An
// undo (d.UndoOf set) is refused when its target is not applied, is already undone, or is
// being undone by another operation whose outcome is not known yet.
func (j *Journal) Prepare(ctx context.Context, d journal.Draft) (journal.Operation, error) {
	d, e, err := journal.PrepareEntry(d)
	if err != nil {
		return journal.Operation{}, fmt.Errorf("preparing an operation: %w", err)
	}
	var op journal.Operation
	err = j.update(ctx, func(tx *bbolt.Tx) error {
		if d.UndoOf != "" {
			if err := checkUndoable(tx, d.UndoOf); err != nil {
				return err
			}
		}
		var err error
		op, err = j.prepare(tx, e)
		return err
	})
	if err != nil {
		return journal.Operation{}, fmt.Errorf("preparing %s: %w", d.Tool, err)
	}
	return op, nil
}

// Applied records YNAB's answer for the prepared operation id. If the operation undoes
// another, that one is marked undone by it in the same transaction.
func (j *Journal) Applied(ctx context.Context, id string, o journal.Outcome) (journal.Operation, error) {
	e, err := journal.AppliedEntry(o)
	if err != nil {
		return journal.Operation{}, fmt.Errorf("recording operation %s as applied: %w", id, err)
	}
	return j.settle(ctx, id, e)
}

// Failed records that YNAB did not apply the prepared operation id, and why.
func (j *Journal) Failed(ctx context.Context, id string, reason string, requests int) (journal.Operation, error) {
	e, err := journal.FailedEntry(reason, requests)
	if err != nil {
		return journal.Operation{}, fmt.Errorf("recording operation %s as failed: %w", id, err)
	}
	return j.settle(ctx, id, e)
}

// Answered records that the answer telling the outcome of operation id reached the client.
// Until it is recorded, the client may not know the operation happened, so an identical call
// is taken for a retry of it (a create then enters nothing twice); after it, an identical call
// is a new one. Recording it again changes nothing.
func (j *Journal) Answered(ctx context.Context, id string) error {
	key, err := parseID(id)
	if err != nil {
		return err
	}
	err = j.update(ctx, func(tx *bbolt.Tx) error {
		op, err := readOp(tx, key)
		if err != nil || op.Answered {
			return err
		}
		_, err = j.appendEvent(tx, key, journal.AnsweredEntry())
		return err
	})
	if err != nil {
		return fmt.Errorf("recording that operation %s was answered: %w", id, err)
	}
	return nil
}

// settle appends the event that ends the prepared operation id in its own transaction.
func (j *Journal) settle(ctx context.Context, id string, e journal.Entry) (journal.Operation, error) {
	key, err := parseID(id)
	if err != nil {
		return journal.Operation{}, err
	}
	var op journal.Operation
	err = j.update(ctx, func(tx *bbolt.Tx) error {
		op, err = j.settleTx(tx, key, e)
		return err
	})
	if err != nil {
		return journal.Operation{}, fmt.Errorf("recording operation %s as %s: %w", id, e.Type, err)
	}
	return op, nil
}

// settleTx appends the event that ends the prepared operation keyed key and, if that applied
// an undo, links the undone operation to it.
func (j *Journal) settleTx(tx *bbolt.Tx, key []byte, e journal.Entry) (journal.Operation, error) {
	op, err := j.appendEvent(tx, key, e)
	if err != nil || op.UndoOf == "" || op.Status == journal.StatusFailed {
		return op, err
	}
	target, err := parseID(op.UndoOf)
	if err != nil {
		return journal.Operation{}, err
	}
	if _, err := j.appendEvent(tx, target, journal.UndoneEntry(op.ID)); err != nil {
		return journal.Operation{}, err
	}
	return op, nil
}

// checkUndoable refuses an undo of the operation id that cannot be recorded.
func checkUndoable(tx *bbolt.Tx, id string) error {
	key, err := parseID(id)
	if err != nil {
		return err
	}
	target, err := readOp(tx, key)
	if err != nil {
		return err
	}
	pending, err := listIndex(tx, indexBucket(tx, bucketByStatus, string(journal.StatusPrepared)))
	if err != nil {
		return err
	}
	var undoing []string
	for _, op := range pending {
		if op.UndoOf == target.ID {
			undoing = append(undoing, op.ID)
		}
	}
	return journal.CheckUndo(target, undoing)
}

// writer identifies who is writing a prepared operation, so that recovery leaves alone the
// operations another running process is still writing.
type writer struct {
	PID     int    `json:"pid"`
	Session string `json:"session"`
}

// prepare appends e, the "prepared" entry of a new operation, and indexes the operation.
func (j *Journal) prepare(tx *bbolt.Tx, e journal.Entry) (journal.Operation, error) {
	now := j.now().UTC()
	id, err := j.newID(tx, now)
	if err != nil {
		return journal.Operation{}, err
	}
	ev, err := e.Event(id.String(), now, id.String())
	if err != nil {
		return journal.Operation{}, err
	}
	op, err := journal.Project([]journal.Event{ev})
	if err != nil {
		return journal.Operation{}, err
	}
	key := id.Bytes()
	inFlight, err := json.Marshal(writer{PID: os.Getpid(), Session: j.session})
	if err != nil {
		return journal.Operation{}, err
	}
	err = errors.Join(
		putEvent(tx, key, ev),
		tx.Bucket(bucketOps).Put(key, id.Bytes()),
		addToIndex(tx, bucketByPlan, op.PlanID, key),
		addToIndex(tx, bucketByTool, op.Tool, key),
		addToIndex(tx, bucketByStatus, string(op.Status), key),
		tx.Bucket(bucketInFlight).Put(key, inFlight),
	)
	return op, err
}

// appendEvent appends e to the operation keyed key, if the operation's state allows it, and
// keeps the indexes in step.
func (j *Journal) appendEvent(tx *bbolt.Tx, key []byte, e journal.Entry) (journal.Operation, error) {
	was, err := readOp(tx, key)
	if err != nil {
		return journal.Operation{}, err
	}
	now := j.now().UTC()
	id, err := j.newID(tx, now)
	if err != nil {
		return journal.Operation{}, err
	}
	ev, err := e.Event(id.String(), now, was.ID)
	if err != nil {
		return journal.Operation{}, err
	}
	op, err := journal.Project(append(slices.Clip(was.Events), ev))
	if err != nil {
		return journal.Operation{}, err
	}
	ops := tx.Bucket(bucketOps)
	events := append(bytes.Clone(ops.Get(key)), id[:]...)
	if err := errors.Join(putEvent(tx, id.Bytes(), ev), ops.Put(key, events)); err != nil {
		return journal.Operation{}, err
	}
	if op.Status == was.Status {
		return op, nil
	}
	return op, errors.Join(
		removeFromIndex(tx, bucketByStatus, string(was.Status), key),
		addToIndex(tx, bucketByStatus, string(op.Status), key),
		tx.Bucket(bucketInFlight).Delete(key),
	)
}

func putEvent(tx *bbolt.Tx, key []byte, ev journal.Event) error {
	raw, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encoding event %s: %w", ev.ID, err)
	}
	return tx.Bucket(bucketEvents).Put(key, raw)
}

// newID returns the id of a new event, later than every event already in the journal: ids
// follow the order of commits even when another process drew a larger id in the same
// millisecond, or the clock was set back.
func (j *Journal) newID(tx *bbolt.Tx, now time.Time) (ulid.ULID, error) {
	id, err := ulid.New(ulid.Timestamp(now), j.entropy)
	if err != nil {
		return id, fmt.Errorf("making an event id: %w", err)
	}
	last, _ := tx.Bucket(bucketEvents).Cursor().Last()
	if last == nil || bytes.Compare(id[:], last) > 0 {
		return id, nil
	}
	copy(id[:], last)
	for i := len(id) - 1; i >= 0; i-- {
		if id[i]++; id[i] != 0 {
			return id, nil
		}
	}
	return id, errors.New("making an event id: no id is left after the last one")
}
