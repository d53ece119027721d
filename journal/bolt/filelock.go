package bolt

import (
	"context"
	"os"

	"github.com/gofrs/flock"
)

// Locks between processes are files in a folder beside the journal (<journal>.locks), locked
// with github.com/gofrs/flock: flock(2) on Linux and macOS, LockFileEx on Windows, so that they
// hold on every system avenir is released for. The folder holds one lock per plan (LockPlan)
// and journal.lock, which queues the processes that open the journal (withDB).

// testHookLockWait, when a test sets it, is called as a wait for a lock held elsewhere begins.
var testHookLockWait func()

// lockDir is the folder of the journal's lock files.
func (j *Journal) lockDir() string { return j.path + ".locks" }

// lockFile takes the lock of the file at path, exclusive or shared, waiting no longer than ctx
// allows, and returns the function that lets it go. With create set, a missing file is
// created (0600); without, it is an error that satisfies errors.Is(err, fs.ErrNotExist).
//
// The wait blocks in the system (flock's Lock) rather than polling (its TryLockContext
// retries on a timer): a poller loses to a process that takes the lock back at once, so two
// busy writers could starve a third past its wait, while the system hands the lock on as soon
// as it is free. A blocked wait cannot be called off: past ctx, it lets the lock go as soon as
// it gets it.
func lockFile(ctx context.Context, path string, exclusive, create bool) (unlock func() error, err error) {
	flag := os.O_RDONLY
	if exclusive {
		flag = os.O_RDWR // some systems (AIX, Solaris) lock exclusively only a file open to write
	}
	if create {
		flag |= os.O_CREATE
	}
	fl := flock.New(path, flock.SetFlag(flag), flock.SetPermissions(0o600))
	try, wait := fl.TryRLock, fl.RLock
	if exclusive {
		try, wait = fl.TryLock, fl.Lock
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ok, err := try()
	if err != nil {
		return nil, err
	}
	if !ok {
		if testHookLockWait != nil {
			testHookLockWait()
		}
		locked := make(chan error, 1)
		go func() { locked <- wait() }()
		select {
		case err := <-locked:
			if err != nil {
				return nil, err
			}
		case <-ctx.Done():
			go func() {
				if <-locked == nil {
					_ = fl.Close() // nobody waits for this lock any more: let it go
				}
			}()
			return nil, ctx.Err()
		}
	}
	return fl.Close, nil
}
