package bolt_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/journal/bolt"
	"github.com/avenir-mcp/avenir/journal/storetest"
)

// TestStore runs the behaviour every journal.Store keeps against the bbolt journal: each
// instance a Journal opened on one file, as each process opens it.
func TestStore(t *testing.T) {
	storetest.Run(t, storetest.Backend{
		New: func(t *testing.T) storetest.Opener {
			path := filepath.Join(t.TempDir(), "avenir", "journal.db")
			return func(t *testing.T, now func() time.Time) storetest.Instance {
				j, err := bolt.Open(path, bolt.Options{Now: now})
				if err != nil {
					t.Fatal(err)
				}
				return storetest.Single(j)
			}
		},
	})
}
