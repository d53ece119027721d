package bolt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/avenir-mcp/avenir/journal"
	"go.etcd.io/bbolt"
)

// Recover resolves the operations left prepared by a process that stopped (a crash, a kill)
// before it recorded their outcome: each is checked with c, change by change, and gets a
// "recovered" event, which makes it applied, partial (naming what is not in YNAB), or failed
// with "not applied: …". Operations that a running process is still writing are left to it.
//
// It returns the operations it resolved. One that c could not decide stays prepared, to be
// tried again at the next start, and the returned error names it and says why.
func (j *Journal) Recover(ctx context.Context, c journal.Checker) ([]journal.Operation, error) {
	pending, err := j.orphans(ctx)
	if err != nil {
		return nil, fmt.Errorf("recovering prepared operations: %w", err)
	}
	return journal.RecoverEach(ctx, j, c, pending)
}

// orphans returns the prepared operations whose writer is gone.
func (j *Journal) orphans(ctx context.Context) ([]journal.Operation, error) {
	var orphans []journal.Operation
	err := j.view(ctx, func(tx *bbolt.Tx) error {
		pending, err := listIndex(tx, indexBucket(tx, bucketByStatus, string(journal.StatusPrepared)))
		if err != nil {
			return err
		}
		inFlight := tx.Bucket(bucketInFlight)
		for _, op := range pending {
			key, err := parseID(op.ID)
			if err != nil {
				return err
			}
			if !j.writing(inFlight.Get(key)) {
				orphans = append(orphans, op)
			}
		}
		return nil
	})
	return orphans, err
}

// Resolve records what YNAB showed, change by change, about the prepared operation id, whose
// outcome its writer could not record. Each change must carry its outcome (applied or
// not_applied). If another process resolved it first, it returns the operation as that
// process left it.
func (j *Journal) Resolve(ctx context.Context, id string, changes []journal.Change) (journal.Operation, error) {
	e, err := journal.RecoveredEntry(changes)
	if err != nil {
		return journal.Operation{}, fmt.Errorf("resolving operation %s: %w", id, err)
	}
	op, err := j.settle(ctx, id, e)
	if errors.Is(err, journal.ErrNotPrepared) {
		return j.Get(ctx, id)
	}
	return op, err
}

// writing says whether the writer recorded for a prepared operation (as JSON) is still at
// work: this Journal, or another process that is alive. A process with this one's id but
// another session is an earlier process that had the same id, as happens when a container
// restarts.
func (j *Journal) writing(raw []byte) bool {
	var w writer
	if raw == nil || json.Unmarshal(raw, &w) != nil {
		return false
	}
	switch {
	case w.Session == j.session:
		return true
	case w.PID == os.Getpid() || w.PID <= 0:
		return false
	}
	return processAlive(w.PID)
}
