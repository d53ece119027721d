package bolt

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/avenir-mcp/avenir/journal"
)

// One writer per plan (design.md): every avenir process on the machine that shares this journal
// takes the plan's lock before the read a write is applied on, and keeps it until the journal
// holds the outcome. YNAB's API has no conditional write, so without it two writers could each
// read, then each write an absolute value, and one change would vanish. The lock is a file
// beside the journal (see lockFile), on every system avenir runs on; within one process a
// channel per plan queues the writers first, so that they wait in order rather than all on
// the file.

var planLocks struct {
	sync.Mutex
	m map[string]chan struct{}
}

// LockPlan takes the write lock of planID, waiting at most wait (and no longer than ctx
// allows). It returns the function that releases it. It never waits forever: past the wait
// it returns ErrPlanBusy, and nothing should be written.
func (j *Journal) LockPlan(ctx context.Context, planID string, wait time.Duration) (unlock func(), err error) {
	if !j.writable {
		return nil, errors.New("the journal is open read-only")
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	name := j.planLockPath(planID)

	planLocks.Lock()
	if planLocks.m == nil {
		planLocks.m = map[string]chan struct{}{}
	}
	ch, ok := planLocks.m[name]
	if !ok {
		ch = make(chan struct{}, 1)
		planLocks.m[name] = ch
	}
	planLocks.Unlock()
	select {
	case ch <- struct{}{}:
	case <-ctx.Done():
		return nil, busy(ctx, wait)
	}
	release := func() { <-ch }

	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		release()
		return nil, fmt.Errorf("the plan's write lock: %w", err)
	}
	unlockFile, err := lockFile(ctx, name, true, true)
	if err != nil {
		release()
		if ctx.Err() != nil {
			return nil, busy(ctx, wait)
		}
		return nil, fmt.Errorf("the plan's write lock: %w", err)
	}
	return func() {
		// Unlocking a file this process holds locked does not fail (flock(2), UnlockFileEx), and
		// there would be nobody to tell.
		_ = unlockFile()
		release()
	}, nil
}

func busy(ctx context.Context, wait time.Duration) error {
	if errors.Is(context.Cause(ctx), context.Canceled) {
		return ctx.Err()
	}
	return fmt.Errorf("%w, and held its lock for more than %s; nothing was written. Try again in a moment", journal.ErrPlanBusy, wait)
}

// planLockPath is the lock file of planID, in a folder beside the journal. The plan id is
// hashed so that no id, however odd, can name a path outside that folder.
func (j *Journal) planLockPath(planID string) string {
	sum := sha256.Sum256([]byte(planID))
	return filepath.Join(j.lockDir(), hex.EncodeToString(sum[:8])+".lock")
}
