package bolt

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/oklog/ulid/v2"
	"go.etcd.io/bbolt"
)

// Get returns the operation id with all its events, or ErrNotFound.
func (j *Journal) Get(ctx context.Context, id string) (journal.Operation, error) {
	key, err := parseID(id)
	if err != nil {
		return journal.Operation{}, err
	}
	var op journal.Operation
	err = j.view(ctx, func(tx *bbolt.Tx) error {
		op, err = readOp(tx, key)
		return err
	})
	return op, err
}

// List returns the operations f selects, newest first. It walks one index back from the newest
// operation and stops at the limit or at f.Since, so its cost follows what it returns, not the
// size of the journal.
func (j *Journal) List(ctx context.Context, f journal.Filter) ([]journal.Operation, error) {
	if f.Limit <= 0 {
		f.Limit = journal.DefaultLimit
	}
	var ops []journal.Operation
	err := j.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		ops, err = list(tx, f)
		return err
	})
	return ops, err
}

// Pending returns the operations still prepared, oldest first: those whose outcome is not
// known yet, because they are being written now or their writer stopped.
func (j *Journal) Pending(ctx context.Context) ([]journal.Operation, error) {
	var ops []journal.Operation
	err := j.view(ctx, func(tx *bbolt.Tx) error {
		var err error
		ops, err = listIndex(tx, indexBucket(tx, bucketByStatus, string(journal.StatusPrepared)))
		return err
	})
	return ops, err
}

// list walks the most selective index f names and checks the other criteria against their
// indexes, so that only operations it returns are read in full.
func list(tx *bbolt.Tx, f journal.Filter) ([]journal.Operation, error) {
	walk, others, ok := indexesFor(tx, f)
	if !ok {
		return nil, nil // no operation has one of the values asked for
	}
	var since []byte
	if f.Since.UnixMilli() > 0 { // every id is later than 1970
		var floor ulid.ULID
		if err := floor.SetTime(ulid.Timestamp(f.Since)); err != nil {
			return nil, fmt.Errorf("listing since %s: %w", f.Since, err)
		}
		since = floor[:]
	}
	var ops []journal.Operation
	c := walk.Cursor()
next:
	for k, _ := c.Last(); k != nil && len(ops) < f.Limit; k, _ = c.Prev() {
		if since != nil && bytes.Compare(k, since) < 0 {
			break
		}
		for _, b := range others {
			if !inIndex(b, k) {
				continue next
			}
		}
		op, err := readOp(tx, k)
		if err != nil {
			return nil, err
		}
		if op.Time.Before(f.Since) {
			continue
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// indexesFor picks the index list walks, the most selective one f names (a status other than
// applied is rare, a tool rarer than a plan), and the indexes it checks on the way. ok is false
// when no operation has one of the values f names.
func indexesFor(tx *bbolt.Tx, f journal.Filter) (walk *bbolt.Bucket, others []*bbolt.Bucket, ok bool) {
	type criterion struct {
		index []byte
		value string
	}
	criteria := []criterion{{bucketByTool, f.Tool}, {bucketByPlan, f.PlanID}}
	status := criterion{bucketByStatus, string(f.Status)}
	if f.Status == journal.StatusApplied {
		criteria = append(criteria, status)
	} else {
		criteria = append([]criterion{status}, criteria...)
	}
	for _, c := range criteria {
		if c.value == "" {
			continue
		}
		b := indexBucket(tx, c.index, c.value)
		switch {
		case b == nil:
			return nil, nil, false
		case walk == nil:
			walk = b
		default:
			others = append(others, b)
		}
	}
	if walk == nil {
		walk = tx.Bucket(bucketOps)
	}
	return walk, others, true
}

// listIndex reads every operation in the index sub-bucket b, oldest first.
func listIndex(tx *bbolt.Tx, b *bbolt.Bucket) ([]journal.Operation, error) {
	if b == nil {
		return nil, nil
	}
	var ops []journal.Operation
	err := b.ForEach(func(k, _ []byte) error {
		op, err := readOp(tx, k)
		ops = append(ops, op)
		return err
	})
	return ops, err
}

// readOp replays the events of the operation keyed key.
func readOp(tx *bbolt.Tx, key []byte) (journal.Operation, error) {
	list := tx.Bucket(bucketOps).Get(key)
	if list == nil {
		return journal.Operation{}, fmt.Errorf("operation %s: %w", idString(key), journal.ErrNotFound)
	}
	if len(list)%idLen != 0 {
		return journal.Operation{}, fmt.Errorf("operation %s: its list of events is damaged", idString(key))
	}
	events := tx.Bucket(bucketEvents)
	evs := make([]journal.Event, 0, len(list)/idLen)
	for i := 0; i < len(list); i += idLen {
		raw := events.Get(list[i : i+idLen])
		if raw == nil {
			return journal.Operation{}, fmt.Errorf("operation %s: event %s is missing", idString(key), idString(list[i:i+idLen]))
		}
		var ev journal.Event
		if err := json.Unmarshal(raw, &ev); err != nil {
			return journal.Operation{}, fmt.Errorf("operation %s: event %s: %w", idString(key), idString(list[i:i+idLen]), err)
		}
		evs = append(evs, ev)
	}
	return journal.Project(evs)
}
