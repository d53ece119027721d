//go:build !windows && !plan9 && !solaris && !aix

package journal

import (
	"io/fs"
	"os"
	"syscall"
	"time"

	berrors "go.etcd.io/bbolt/errors"
)

// openLocked opens the journal file, never creating it, and locks it (exclusive to write,
// shared to read) within wait, before bbolt maps it; bbolt's own lock then finds it held.
//
// bbolt would poll for the lock every 50 ms, and a poller loses to a process that takes the
// lock back at once: two busy writers could starve a third past its timeout. A process
// blocked in flock is woken by the kernel as soon as the lock is free.
func openLocked(name string, flag int, perm os.FileMode, exclusive bool, wait time.Duration) (*os.File, error) {
	f, err := os.OpenFile(name, flag&^os.O_CREATE, perm)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	fd := int(f.Fd())
	if syscall.Flock(fd, how|syscall.LOCK_NB) == nil {
		return f, nil
	}
	locked := make(chan error, 1)
	go func() { locked <- flock(fd, how) }()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case err := <-locked:
		if err != nil {
			f.Close()
			return nil, &fs.PathError{Op: "lock", Path: name, Err: err}
		}
		return f, nil
	case <-timer.C:
		// The wait cannot be called off; when the lock comes, closing the file releases it.
		go func() {
			<-locked
			f.Close()
		}()
		return nil, berrors.ErrTimeout
	}
}

func flock(fd, how int) error {
	for {
		if err := syscall.Flock(fd, how); err != syscall.EINTR {
			return err
		}
	}
}
