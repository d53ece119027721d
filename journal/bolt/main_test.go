package bolt

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/journal/storetest"
)

// crash is the bbolt journal as storetest's crash tests use it: each child process opens the
// file as a server does, and the file is replayed bucket by bucket after each kill.
var crash = storetest.Crash{
	Target: func(t *testing.T) string { return filepath.Join(t.TempDir(), "avenir", "journal.db") },
	Open: func(_ context.Context, path string) (journal.Store, func(), error) {
		j, err := Open(path, Options{})
		return j, func() {}, err
	},
	Replay: func(t *testing.T, path string) map[string]journal.Operation {
		ops := map[string]journal.Operation{}
		for id, op := range replay(t, path) {
			ops[id] = *op
		}
		return ops
	},
	Kills: 50,
	Roles: map[string]func(string) error{"lock": lockPlanChild},
}

func TestMain(m *testing.M) {
	storetest.ChildMain(crash)
	code := m.Run()
	removeBenchJournals()
	os.Exit(code)
}

// TestCrash runs storetest's crash tests against the bbolt journal: processes killed mid-write,
// and two writers with a reader, on one file.
func TestCrash(t *testing.T) { storetest.RunCrash(t, crash) }

// lockPlanChild takes plan-a's write lock in the journal at path, saying "waiting" if it has
// to wait for it and "locked" once it holds it, and keeps it until the test closes stdin
// ("unlocked"). "start" comes first.
func lockPlanChild(path string) error {
	fmt.Println("start")
	j, err := Open(path, Options{})
	if err != nil {
		return err
	}
	testHookLockWait = func() { fmt.Println("waiting") }
	unlock, err := j.LockPlan(context.Background(), "plan-a", time.Minute)
	if err != nil {
		return err
	}
	fmt.Println("locked")
	if _, err := io.Copy(io.Discard, os.Stdin); err != nil {
		return err
	}
	unlock()
	fmt.Println("unlocked")
	return nil
}
