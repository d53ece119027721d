package bolt

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/journal/storetest"
	"go.etcd.io/bbolt"
)

func testOptions() Options {
	return Options{Now: storetest.NewClock().Now, Entropy: rand.NewChaCha8([32]byte{1})}
}

// openTest opens a new journal in a temporary directory with a test clock.
func openTest(t testing.TB) (*Journal, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "journal.db")
	j, err := Open(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	return j, path
}

func mustPrepare(t testing.TB, j *Journal, d journal.Draft) journal.Operation {
	t.Helper()
	op, err := j.Prepare(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	return op
}

func mustApplied(t testing.TB, j *Journal, id string, o journal.Outcome) journal.Operation {
	t.Helper()
	op, err := j.Applied(t.Context(), id, o)
	if err != nil {
		t.Fatal(err)
	}
	return op
}

func mustGet(t testing.TB, j *Journal, id string) journal.Operation {
	t.Helper()
	op, err := j.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return op
}

// closeDB closes a bbolt file a test opened, failing the test if that fails.
func closeDB(t testing.TB, db *bbolt.DB) {
	t.Helper()
	if err := db.Close(); err != nil {
		t.Error(err)
	}
}

// replay rebuilds the journal at path from its events alone and checks that everything else
// it stores (the event lists, the indexes, in_flight) is what the events say. It returns the
// replayed operations by id.
func replay(t testing.TB, path string) map[string]*journal.Operation {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	defer closeDB(t, db)
	ops := map[string]*journal.Operation{}
	err = db.View(func(tx *bbolt.Tx) error {
		lists := map[string][]byte{}
		err := tx.Bucket(bucketEvents).ForEach(func(k, v []byte) error {
			var ev journal.Event
			if err := json.Unmarshal(v, &ev); err != nil {
				return err
			}
			if ev.ID != idString(k) {
				return fmt.Errorf("event stored under %s says it is %s", idString(k), ev.ID)
			}
			op := ops[ev.Operation]
			if op == nil {
				op = &journal.Operation{}
				ops[ev.Operation] = op
			}
			replayed, err := journal.Project(append(op.Events, ev))
			if err != nil {
				return fmt.Errorf("replaying: %w", err)
			}
			*op = replayed
			lists[ev.Operation] = append(lists[ev.Operation], k...)
			return nil
		})
		if err != nil {
			return err
		}
		want := indexes{}
		for id, op := range ops {
			want.add("by_plan", op.PlanID, id)
			want.add("by_tool", op.Tool, id)
			want.add("by_status", string(op.Status), id)
			if op.Status == journal.StatusPrepared {
				want.add("in_flight", "", id)
			}
		}
		got := indexes{}
		for _, index := range [][]byte{bucketByPlan, bucketByTool, bucketByStatus} {
			err := tx.Bucket(index).ForEach(func(value, _ []byte) error {
				return tx.Bucket(index).Bucket(value).ForEach(func(k, _ []byte) error {
					got.add(string(index), string(value), idString(k))
					return nil
				})
			})
			if err != nil {
				return err
			}
		}
		err = tx.Bucket(bucketInFlight).ForEach(func(k, _ []byte) error {
			got.add("in_flight", "", idString(k))
			return nil
		})
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(got.sorted(), want.sorted()) {
			return fmt.Errorf("indexes differ from the events:\n got  %v\n want %v", got.sorted(), want.sorted())
		}
		stored := 0
		err = tx.Bucket(bucketOps).ForEach(func(k, v []byte) error {
			stored++
			id := idString(k)
			// Reading an operation replays the events it lists: the same as this replay.
			if !slices.Equal(v, lists[id]) {
				return fmt.Errorf("operation %s lists events %x, its events are %x", id, v, lists[id])
			}
			return nil
		})
		if err != nil {
			return err
		}
		if stored != len(ops) {
			return fmt.Errorf("%d operations stored, %d in the events", stored, len(ops))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("journal %s is not consistent: %v", path, err)
	}
	return ops
}

// indexes is a set of index entries, "index/value/operation".
type indexes map[string]bool

func (ix indexes) add(index, value, op string) { ix[index+"/"+value+"/"+op] = true }

func (ix indexes) sorted() []string {
	s := make([]string, 0, len(ix))
	for k := range ix {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// fileState is what must not change in a file that avenir refuses.
func fileState(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%v %v %x", info.Mode(), info.ModTime(), b)
}

func wantErr(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want %v", err, target)
	}
}
