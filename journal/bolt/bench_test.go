package bolt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/journal/storetest"
	"go.etcd.io/bbolt"
)

// BenchmarkPrepareApplied is the journal's share of one write: two fsync'd transactions.
func BenchmarkPrepareApplied(b *testing.B) {
	j, _ := openTest(b)
	d := storetest.Draft("plan-1", "set_category_budget")
	for b.Loop() {
		op, err := j.Prepare(context.Background(), d)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := j.Applied(context.Background(), op.ID, journal.Outcome{Requests: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWrite is what the journal costs one write of the write path: Prepare, Applied and
// Answered, three fsync'd transactions; "locked" adds the plan's lock around them, as the write
// path takes it. journal/pg's BenchmarkWrite is the same write on PostgreSQL.
func BenchmarkWrite(b *testing.B) {
	for _, locked := range []bool{false, true} {
		b.Run(fmt.Sprintf("locked=%v", locked), func(b *testing.B) {
			j, _ := openTest(b)
			d := storetest.Draft("plan-1", "set_category_budget")
			for b.Loop() {
				unlock := func() {}
				if locked {
					var err error
					if unlock, err = j.LockPlan(context.Background(), d.PlanID, 5*time.Second); err != nil {
						b.Fatal(err)
					}
				}
				op, err := j.Prepare(context.Background(), d)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := j.Applied(context.Background(), op.ID, journal.Outcome{Requests: 1}); err != nil {
					b.Fatal(err)
				}
				if err := j.Answered(context.Background(), op.ID); err != nil {
					b.Fatal(err)
				}
				unlock()
			}
		})
	}
}

// BenchmarkList50 is `avenir journal list --limit 50`: open the journal read-only, list the
// newest 50. It should cost about the same at both sizes.
func BenchmarkList50(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			path := benchJournal(b, n)
			for b.Loop() {
				j, err := OpenExisting(path, Options{})
				if err != nil {
					b.Fatal(err)
				}
				ops, err := j.List(context.Background(), journal.Filter{Limit: 50})
				if err != nil || len(ops) != 50 {
					b.Fatalf("%d operations, %v", len(ops), err)
				}
			}
		})
	}
}

var bench struct {
	sync.Mutex
	dir   string
	paths map[int]string
}

// benchJournal returns a journal of n applied operations, made once per test binary run. It
// is written through the journal's own transaction code, but many operations to a commit and
// without fsync, so that 100,000 take seconds rather than minutes.
func benchJournal(b *testing.B, n int) string {
	b.Helper()
	bench.Lock()
	defer bench.Unlock()
	if path, ok := bench.paths[n]; ok {
		return path
	}
	if bench.dir == "" {
		dir, err := os.MkdirTemp("", "avenir-journal-bench-")
		if err != nil {
			b.Fatal(err)
		}
		bench.dir, bench.paths = dir, map[int]string{}
	}
	path := filepath.Join(bench.dir, fmt.Sprintf("journal-%d.db", n))
	j := newJournal(path, testOptions(), true)
	if err := j.create(); err != nil {
		b.Fatal(err)
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer closeDB(b, db)
	plans := []string{"plan-a", "plan-b"}
	tools := []string{"set_category_budget", "apply_categories", "flag_transactions", "move_money", "create_transactions"}
	const batch = 5000
	for done := 0; done < n; done += batch {
		err := db.Update(func(tx *bbolt.Tx) error {
			for i := done; i < done+batch && i < n; i++ {
				_, e, err := journal.PrepareEntry(storetest.Draft(plans[i%len(plans)], tools[i%len(tools)]))
				if err != nil {
					return err
				}
				op, err := j.prepare(tx, e)
				if err != nil {
					return err
				}
				key, err := parseID(op.ID)
				if err != nil {
					return err
				}
				applied, err := journal.AppliedEntry(journal.Outcome{Requests: 1})
				if err != nil {
					return err
				}
				if _, err := j.settleTx(tx, key, applied); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	bench.paths[n] = path
	return path
}

// removeBenchJournals removes what benchJournal made.
func removeBenchJournals() {
	if bench.dir != "" {
		if err := os.RemoveAll(bench.dir); err != nil {
			fmt.Fprintln(os.Stderr, "removing the benchmarks' journals:", err)
		}
	}
}
