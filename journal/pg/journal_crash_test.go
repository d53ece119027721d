package pg_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/internal/pgtest"
	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/journal/pg"
	"github.com/avenir-mcp/avenir/journal/storetest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// runChild plays a role in another process, an instance of its own on the database
// AVENIR_PG_JOURNAL_TEST_DSN. It reports each event it knows to be committed on stdout, as
// "event OPERATION EVENT TYPE" and "undone OPERATION BY"; "start" comes first.
func runChild(role string) error {
	fmt.Println("start")
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("AVENIR_PG_JOURNAL_TEST_DSN"))
	if err != nil {
		return err
	}
	defer pool.Close()
	js, err := pg.OpenJournal(ctx, pool)
	if err != nil {
		return err
	}
	s := js.For(1)
	switch role {
	case "writer":
		seed, err := strconv.Atoi(os.Getenv("AVENIR_PG_JOURNAL_TEST_SEED"))
		if err != nil {
			return err
		}
		return writeOps(s, seed)
	case "hold":
		// Under plan-a's lock, prepares a write and an import, and holds on until killed.
		if _, err := s.LockPlan(ctx, "plan-a", 10*time.Second); err != nil {
			return err
		}
		for _, d := range []journal.Draft{storetest.Draft("plan-a", "set_category_budget"), storetest.ImportDraft("plan-a")} {
			op, err := s.Prepare(ctx, d)
			if err != nil {
				return err
			}
			reportEvents(op.Events)
		}
		_, err = io.Copy(io.Discard, os.Stdin) // until the test kills it
		return err
	}
	return fmt.Errorf("unknown role %q", role)
}

// writeOps writes for ever, as the write path does: under the plan's lock, prepare, settle
// (applied, partial, failed, or an undo of an earlier one), answer, let go.
func writeOps(s journal.Store, seed int) error {
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(os.Getpid())))
	plans := []string{"plan-a", "plan-b"}
	tools := []string{"set_category_budget", "apply_categories", "flag_transactions"}
	var undoable []string
	for i := 0; ; i++ {
		d := storetest.Draft(plans[rng.IntN(len(plans))], tools[rng.IntN(len(tools))])
		if len(undoable) > 0 && rng.IntN(4) == 0 {
			k := rng.IntN(len(undoable))
			d.Tool, d.UndoOf = "undo_operation", undoable[k]
			undoable = slices.Delete(undoable, k, k+1)
		}
		unlock, err := s.LockPlan(context.Background(), d.PlanID, 30*time.Second)
		if err != nil {
			return err
		}
		op, err := s.Prepare(context.Background(), d)
		if err != nil {
			return err
		}
		reportEvents(op.Events)
		time.Sleep(time.Duration(1000+rng.IntN(3000)) * time.Microsecond) // YNAB's answer takes a moment
		var settled journal.Operation
		switch rng.IntN(8) {
		case 0:
			settled, err = s.Failed(context.Background(), op.ID, "YNAB answered 503", 1)
		case 1:
			settled, err = s.Applied(context.Background(), op.ID, journal.Outcome{Partial: true, Note: "only the flags", Requests: 2})
		default:
			settled, err = s.Applied(context.Background(), op.ID, journal.Outcome{ServerKnowledge: int64(i), Requests: 1})
		}
		if err != nil {
			return err
		}
		reportEvents(settled.Events[len(op.Events):])
		if settled.Status != journal.StatusFailed {
			undoable = append(undoable, op.ID)
			if d.UndoOf != "" {
				fmt.Printf("undone %s %s\n", d.UndoOf, op.ID)
			}
		}
		if err := s.Answered(context.Background(), op.ID); err != nil {
			return err
		}
		answered, err := s.Get(context.Background(), op.ID)
		if err != nil {
			return err
		}
		reportEvents(answered.Events[len(settled.Events):])
		unlock()
	}
}

func reportEvents(evs []journal.Event) {
	for _, ev := range evs {
		fmt.Printf("event %s %s %s\n", ev.Operation, ev.ID, ev.Type)
	}
}

// parity decides from an operation's id alone, so that the test can tell what it answered.
type parity struct{}

func (parity) Check(_ context.Context, op journal.Operation) ([]journal.Change, error) {
	o := journal.OutcomeNotApplied
	if parityApplied(op.ID) {
		o = journal.OutcomeApplied
	}
	cs := slices.Clone(op.Changes)
	for i := range cs {
		cs[i].Outcome = o
	}
	return cs, nil
}

func parityApplied(id string) bool {
	return strings.ContainsRune("02468ACEGJMPRTVXZ", rune(id[len(id)-1]))
}

// A writer instance killed at random moments, over and over, never leaves the journal
// inconsistent or a committed event missing; the next instance's Recover settles what it left
// prepared, by reading YNAB. A kill comes after a random number of reported events plus a
// random moment, so a slow machine moves the kills, not what they hit; every other kill comes
// as soon as a write is reported prepared, while the writer waits for YNAB.
func TestJournalKilledWriters(t *testing.T) {
	kills := 12
	if testing.Short() {
		kills = 4
	}
	dsn := pgtest.NewDatabase(t)
	rng := rand.New(rand.NewPCG(11, 11))
	reported := newReport()
	var recovered int
	for kill := range kills {
		c := startChild(t, "writer", dsn, fmt.Sprintf("AVENIR_PG_JOURNAL_TEST_SEED=%d", kill))
		if c.line(0) != "start" {
			lines, err := c.wait()
			t.Fatalf("the child did not start: %v %q\n%s", err, lines, c.stderr.String())
		}
		n := 1 + rng.IntN(12)
		for {
			line := c.line(n)
			if line == "" {
				lines, err := c.wait()
				t.Fatalf("the child stopped: %v %q\n%s", err, lines, c.stderr.String())
			}
			if kill%2 == 0 || strings.HasSuffix(line, " prepared") {
				break
			}
			n++
		}
		if kill%2 == 0 {
			time.Sleep(time.Duration(rng.IntN(3_000)) * time.Microsecond)
		}
		reported.add(t, c.kill(t))

		js, pool := openJournals(t, dsn)
		ops, err := js.For(1).Recover(context.Background(), parity{})
		if err != nil {
			t.Fatalf("kill %d: Recover: %v", kill, err)
		}
		for _, op := range ops {
			if op.Events[len(op.Events)-1].Type != "recovered" || (op.Status == journal.StatusApplied) != parityApplied(op.ID) {
				t.Fatalf("kill %d: %s was recovered as %s, against what YNAB said", kill, op.ID, op.Status)
			}
		}
		recovered += len(ops)
		if pending, err := js.For(1).Pending(t.Context()); err != nil || len(pending) != 0 {
			t.Fatalf("kill %d: after Recover, still pending: %v, %v", kill, pending, err)
		}
		reported.check(t, checkConsistent(t, pool)[1])
		pool.Close()
	}
	if len(reported.events) < kills {
		t.Errorf("only %d events were reported in %d kills: the writers hardly wrote", len(reported.events), kills)
	}
	if recovered == 0 {
		t.Error("no kill left a write prepared: the study never caught a writer mid-write")
	}
	t.Logf("%d kills: %d events reported before the kills, %d operations recovered", kills, len(reported.events), recovered)
}

// An instance killed while it holds a plan's lock with writes prepared: until it dies, another
// instance's Recover and ResolveByHand leave its writes alone; once it is gone, its session and
// lock with it, they settle them.
func TestJournalKilledHolder(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	c := startChild(t, "hold", dsn)
	reported := newReport()
	for n := range 3 {
		line := c.line(n)
		if line == "" {
			lines, err := c.wait()
			t.Fatalf("the child stopped: %v %q\n%s", err, lines, c.stderr.String())
		}
		reported.add(t, []string{line})
	}
	s := js2(t, dsn).For(1)
	pending, err := s.Pending(t.Context())
	if err != nil || len(pending) != 2 {
		t.Fatalf("pending = %v, %v; want the child's two", pending, err)
	}
	var write, cut string
	for _, op := range pending {
		if reported.events[op.Events[0].ID] != op.ID {
			t.Fatalf("pending %s was not reported prepared by the child", op.ID)
		}
		if op.Tool == "import_transactions" {
			cut = op.ID
		} else {
			write = op.ID
		}
	}
	checker := &storetest.FakeChecker{Answers: map[string]storetest.Answer{write: {Applied: true},
		cut: {Err: errors.New("an import gives nothing to look for")}}}
	if ops, err := s.Recover(context.Background(), checker); err != nil || len(ops) != 0 {
		t.Fatalf("Recover while the writer lives = %v, %v; want nothing settled", ops, err)
	}
	if _, err := s.ResolveByHand(t.Context(), cut, true, "by the person"); !errors.Is(err, journal.ErrWriting) {
		t.Fatalf("ResolveByHand while the writer lives: %v, want ErrWriting", err)
	}

	c.kill(t)
	ops, err := s.Recover(context.Background(), checker)
	if len(ops) != 1 || ops[0].ID != write || ops[0].Status != journal.StatusApplied {
		t.Fatalf("Recover once the writer died settled %d operations (%v); want %s applied", len(ops), err, write)
	}
	if err == nil || !strings.Contains(err.Error(), cut+" (Import transactions from linked accounts?) stays prepared") {
		t.Fatalf("Recover once the writer died: %v, want it to say the import stays prepared", err)
	}
	if op, err := s.ResolveByHand(t.Context(), cut, false, "by the person"); err != nil || op.Status != journal.StatusFailed {
		t.Fatalf("ResolveByHand once the writer died = %v, %v", op.Status, err)
	}
}

// child is a running child process and the lines it has written.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr strings.Builder

	mu     sync.Mutex
	cond   *sync.Cond // signalled at each line, and when stdout is closed
	lines  []string
	closed bool
}

func startChild(t *testing.T, role, dsn string, env ...string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: exec.Command(exe)}
	c.cond = sync.NewCond(&c.mu)
	c.cmd.Env = append(os.Environ(), append(env, roleVar+"="+role, "AVENIR_PG_JOURNAL_TEST_DSN="+dsn,
		"GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")...) // no pause at exit under -race
	c.cmd.Stderr = &c.stderr
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.cmd.Process.Kill() })
	go c.read(stdout)
	return c
}

// read keeps the whole lines the child writes: a line cut by a kill reports nothing.
func (c *child) read(r io.Reader) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		c.mu.Lock()
		if err != nil {
			c.closed = true
		} else {
			c.lines = append(c.lines, strings.TrimSuffix(line, "\n"))
		}
		c.cond.Broadcast()
		c.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// line waits for the child's line n (from 0) and returns it, or "" if the child closed its
// output before.
func (c *child) line(n int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.lines) <= n && !c.closed {
		c.cond.Wait()
	}
	if len(c.lines) <= n {
		return ""
	}
	return c.lines[n]
}

func (c *child) wait() ([]string, error) {
	c.mu.Lock()
	for !c.closed {
		c.cond.Wait()
	}
	c.mu.Unlock()
	err := c.cmd.Wait()
	return c.lines, err
}

// kill ends the child at once, as a crash would, and returns all it wrote.
func (c *child) kill(t *testing.T) []string {
	t.Helper()
	if err := c.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatalf("killing the child: %v", err)
	}
	lines, err := c.wait()
	if err == nil {
		t.Fatalf("the child ended by itself before it was killed:\n%s", c.stderr.String())
	}
	return lines
}

// report is what children reported, checked against the journal.
type report struct {
	events map[string]string // event id → operation id
	types  map[string]string // event id → type
	undone map[string]string // operation → undone by
}

func newReport() *report {
	return &report{events: map[string]string{}, types: map[string]string{}, undone: map[string]string{}}
}

func (r *report) add(t *testing.T, lines []string) {
	t.Helper()
	for _, line := range lines {
		f := strings.Fields(line)
		switch {
		case len(f) == 4 && f[0] == "event":
			r.events[f[2]], r.types[f[2]] = f[1], f[3]
		case len(f) == 3 && f[0] == "undone":
			r.undone[f[1]] = f[2]
		case line == "start":
		default:
			t.Fatalf("the child reported %q", line)
		}
	}
}

// check fails unless every event reported is in ops, the journal's operations replayed from
// its events, and every undo reported links its target.
func (r *report) check(t *testing.T, ops map[string]journal.Operation) {
	t.Helper()
	for ev, opID := range r.events {
		op, ok := ops[opID]
		if !ok {
			t.Fatalf("operation %s is missing", opID)
		}
		if !slices.ContainsFunc(op.Events, func(e journal.Event) bool { return e.ID == ev && e.Type == r.types[ev] }) {
			t.Fatalf("event %s (%s) of operation %s is missing", ev, r.types[ev], opID)
		}
	}
	for target, by := range r.undone {
		if ops[target].UndoneBy != by {
			t.Fatalf("operation %s is undone by %q, want %s", target, ops[target].UndoneBy, by)
		}
	}
}
