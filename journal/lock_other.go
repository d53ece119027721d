//go:build windows || plan9 || solaris || aix

package journal

import (
	"os"
	"time"
)

// openLocked opens the journal file, never creating it; bbolt locks it, polling until the
// deadline.
func openLocked(name string, flag int, perm os.FileMode, _ bool, _ time.Duration) (*os.File, error) {
	return os.OpenFile(name, flag&^os.O_CREATE, perm)
}
