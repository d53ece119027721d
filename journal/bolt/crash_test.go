package bolt

import (
	"errors"
	"fmt"
	"github.com/avenir-mcp/avenir/journal"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// A writer killed at random moments never leaves a journal that does not open, an operation
// in an inconsistent state, or a committed event missing; what it left prepared is recovered
// by the next writer. The kills go to a few journals in turn, so that checking the whole
// journal after each one stays quick. A kill comes after a random number of reported events
// plus a random moment, so a slow or busy machine moves the kills, not what they hit.
func TestKilledWriters(t *testing.T) {
	const journals = 4
	killsEach := 50
	if testing.Short() {
		killsEach = 5
	}
	rng := rand.New(rand.NewPCG(7, 7))
	var events, ops, recovered int
	for n := range journals {
		path := filepath.Join(t.TempDir(), "avenir", "journal.db")
		reported := newReport()
		for kill := range killsEach {
			c := startChild(t, "writer", path, fmt.Sprintf("AVENIR_JOURNAL_TEST_SEED=%d", n*killsEach+kill))
			c.line(0)           // started
			c.line(rng.IntN(8)) // a random number of events written (line 0 is the start)
			time.Sleep(time.Duration(rng.IntN(5_000)) * time.Microsecond)
			reported.add(t, c.kill(t))

			if _, err := Open(path, Options{}); err != nil {
				t.Fatalf("journal %d, kill %d: the journal does not open: %v", n, kill, err)
			}
			reported.check(t, replay(t, path))
		}
		replayed := replay(t, path)
		for _, op := range replayed {
			if slices.ContainsFunc(op.Events, func(e journal.Event) bool { return e.Type == "recovered" }) {
				recovered++
			}
		}
		events, ops = events+len(reported.events), ops+len(replayed)
	}
	if kills := journals * killsEach; events < kills {
		t.Errorf("only %d events were reported in %d kills: the writers hardly wrote", events, kills)
	}
	t.Logf("%d kills: %d operations, %d events reported before the kills, %d operations recovered",
		journals*killsEach, ops, events, recovered)
}

// Two writer processes and a reader listing in a loop share one journal: nothing is lost,
// nobody waits past the lock timeout (ErrBusy), and every listing is consistent with the ones
// before it. Each writer also recovers at start, which must leave the other's writes alone.
func TestTwoWritersAndAReader(t *testing.T) {
	const opsEach = 100
	path := filepath.Join(t.TempDir(), "avenir", "journal.db")
	a := startChild(t, "writer", path, "AVENIR_JOURNAL_TEST_OPS="+strconv.Itoa(opsEach), "AVENIR_JOURNAL_TEST_SEED=1")
	b := startChild(t, "writer", path, "AVENIR_JOURNAL_TEST_OPS="+strconv.Itoa(opsEach), "AVENIR_JOURNAL_TEST_SEED=2")

	done := make(chan struct{})
	listings := make(chan int)
	go func() { listings <- listLoop(t, path, done) }()

	reported := newReport()
	for _, c := range []*child{a, b} {
		lines, err := c.wait()
		if err != nil {
			t.Errorf("a writer failed: %v\n%s", err, c.stderr.String())
		}
		reported.add(t, lines)
	}
	close(done)
	n := <-listings

	ops := replay(t, path)
	reported.check(t, ops)
	if len(ops) != 2*opsEach {
		t.Errorf("%d operations in the journal, want %d", len(ops), 2*opsEach)
	}
	if n == 0 {
		t.Error("the reader never listed while the writers wrote")
	}
	t.Logf("%d operations, %d listings, %d events reported", len(ops), n, len(reported.events))
}

// listLoop lists the whole journal as the CLI would, until done, and checks each listing
// against the one before: newest first, no operation gone, no outcome taken back. It returns
// how many listings it made while the journal existed.
func listLoop(t *testing.T, path string, done <-chan struct{}) int {
	seen := map[string]journal.Operation{}
	n := 0
	for {
		select {
		case <-done:
			return n
		default:
		}
		j, err := OpenExisting(path, Options{})
		if errors.Is(err, ErrNoJournal) {
			continue
		}
		if err != nil {
			t.Errorf("opening: %v", err)
			return n
		}
		ops, err := j.List(t.Context(), journal.Filter{Limit: 1 << 20})
		if err != nil {
			t.Errorf("listing: %v", err)
			return n
		}
		n++
		listed := map[string]bool{}
		for i, op := range ops {
			listed[op.ID] = true
			if i > 0 && op.ID >= ops[i-1].ID {
				t.Errorf("listing %d: %s comes after %s", n, op.ID, ops[i-1].ID)
			}
			if before, ok := seen[op.ID]; ok {
				if before.Status != journal.StatusPrepared && before.Status != op.Status || before.UndoneBy != "" && before.UndoneBy != op.UndoneBy {
					t.Errorf("listing %d: %s went from %s (undone by %q) to %s (undone by %q)", n, op.ID, before.Status, before.UndoneBy, op.Status, op.UndoneBy)
				}
			}
			seen[op.ID] = op
		}
		for id := range seen {
			if !listed[id] {
				t.Errorf("listing %d: %s is gone", n, id)
			}
		}
	}
}
