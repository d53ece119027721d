package storetest

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

	"github.com/avenir-mcp/avenir/journal"
)

// The crash tests: what every store promises when the process (or instance) writing to it is
// killed. They need processes to kill, so a store's test binary runs itself again as a child:
// its TestMain calls ChildMain first, which plays the child's role when the test started the
// binary as one (StartChild) and returns otherwise.

// Crash is what the crash tests need of a store.
type Crash struct {
	// Target makes a new, empty place for one study's journal, which the test and its children
	// share: a journal file's path, a database's connection string.
	Target func(t *testing.T) string
	// Open opens the journal at target as a new process (or instance) does, for its one person;
	// close lets it go. Children open their journal with it too.
	Open func(ctx context.Context, target string) (s journal.Store, close func(), err error)
	// Replay returns every operation the journal at target holds, each replayed from its stored
	// events, and fails t where the store's own records (indexes, rows) do not follow from the
	// events.
	Replay func(t *testing.T, target string) map[string]journal.Operation
	// Kills is how many times KilledWriters kills a writer; 12 if 0.
	Kills int
	// Roles are children's roles of the store's own tests, by name: each runs in the child,
	// given the target, and may write lines on stdout for the test to read (Child.Line).
	Roles map[string]func(target string) error
}

// The variables that tell a child what to do.
const (
	roleVar   = "AVENIR_STORETEST_ROLE"
	targetVar = "AVENIR_STORETEST_TARGET"
	seedVar   = "AVENIR_STORETEST_SEED"
	opsVar    = "AVENIR_STORETEST_OPS"
)

// ChildMain plays a child's role and exits if this process was started as a child
// (StartChild); otherwise it returns at once. Call it first in TestMain.
func ChildMain(c Crash) {
	role := os.Getenv(roleVar)
	if role == "" {
		return
	}
	if err := runChild(c, role, os.Getenv(targetVar)); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// runChild plays role in this process. The writer and holder report each event they know to be
// committed on stdout, as "event OPERATION EVENT TYPE" and "undone OPERATION BY"; "start" comes
// first.
func runChild(c Crash, role, target string) error {
	if fn, ok := c.Roles[role]; ok {
		return fn(target)
	}
	fmt.Println("start")
	ctx := context.Background()
	s, closeStore, err := c.Open(ctx, target)
	if err != nil {
		return err
	}
	defer closeStore()
	switch role {
	case "writer":
		seed, err := envInt(seedVar)
		if err != nil {
			return err
		}
		n, err := envInt(opsVar)
		if err != nil {
			return err
		}
		return writeOps(ctx, s, seed, n)
	case "hold":
		// Under plan-a's lock, prepares a write and an import, and holds on until killed.
		if _, err := s.LockPlan(ctx, "plan-a", 10*time.Second); err != nil {
			return err
		}
		for _, d := range []journal.Draft{Draft("plan-a", "set_category_budget"), ImportDraft("plan-a")} {
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

// writeOps settles what earlier writers left prepared, then writes n operations (for ever if
// 0) as the write path does: under the plan's lock, prepare, settle (applied, partial, failed,
// or an undo of an earlier one), answer, let go.
func writeOps(ctx context.Context, s journal.Store, seed, n int) error {
	recovered, err := s.Recover(ctx, Parity{})
	if err != nil {
		return err
	}
	for _, op := range recovered {
		reportEvents(op.Events[len(op.Events)-1:])
		if op.UndoOf != "" && op.Status != journal.StatusFailed {
			fmt.Printf("undone %s %s\n", op.UndoOf, op.ID)
		}
	}
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(os.Getpid())))
	plans := []string{"plan-a", "plan-b"}
	tools := []string{"set_category_budget", "apply_categories", "flag_transactions"}
	var undoable []string
	for i := 0; n == 0 || i < n; i++ {
		d := Draft(plans[rng.IntN(len(plans))], tools[rng.IntN(len(tools))])
		if len(undoable) > 0 && rng.IntN(4) == 0 {
			k := rng.IntN(len(undoable))
			d.Tool, d.UndoOf = "undo_operation", undoable[k]
			undoable = slices.Delete(undoable, k, k+1)
		}
		unlock, err := s.LockPlan(ctx, d.PlanID, 30*time.Second)
		if err != nil {
			return err
		}
		op, err := s.Prepare(ctx, d)
		if err != nil {
			return err
		}
		reportEvents(op.Events)
		time.Sleep(time.Duration(1000+rng.IntN(3000)) * time.Microsecond) // YNAB's answer takes a moment
		var settled journal.Operation
		switch rng.IntN(8) {
		case 0:
			settled, err = s.Failed(ctx, op.ID, "YNAB answered 503", 1)
		case 1:
			settled, err = s.Applied(ctx, op.ID, journal.Outcome{Partial: true, Note: "only the flags", Requests: 2})
		default:
			settled, err = s.Applied(ctx, op.ID, journal.Outcome{ServerKnowledge: int64(i), Requests: 1})
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
		if err := s.Answered(ctx, op.ID); err != nil {
			return err
		}
		answered, err := s.Get(ctx, op.ID)
		if err != nil {
			return err
		}
		reportEvents(answered.Events[len(settled.Events):])
		unlock()
	}
	return nil
}

// envInt reads the whole number in the variable name, 0 if it is not set.
func envInt(name string) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q is not a whole number", name, v)
	}
	return n, nil
}

func reportEvents(evs []journal.Event) {
	for _, ev := range evs {
		fmt.Printf("event %s %s %s\n", ev.Operation, ev.ID, ev.Type)
	}
}

// Parity is a Checker that decides from an operation's id alone, so that a test can tell what
// it answered (ParityApplied).
type Parity struct{}

func (Parity) Check(_ context.Context, op journal.Operation) ([]journal.Change, error) {
	o := journal.OutcomeNotApplied
	if ParityApplied(op.ID) {
		o = journal.OutcomeApplied
	}
	return withOutcome(op.Changes, o), nil
}

// ParityApplied is what Parity answers for the operation id: whether YNAB has it.
func ParityApplied(id string) bool {
	return strings.ContainsRune("02468ACEGJMPRTVXZ", rune(id[len(id)-1]))
}

// RunCrash runs the crash tests against c.
func RunCrash(t *testing.T, c Crash) {
	t.Run("KilledWriters", func(t *testing.T) { testKilledWriters(t, c) })
	t.Run("KilledHolder", func(t *testing.T) { testKilledHolder(t, c) })
	t.Run("TwoWritersAndAReader", func(t *testing.T) { testTwoWritersAndAReader(t, c) })
}

// A writer killed at random moments, over and over, never leaves a journal that does not open,
// an operation in an inconsistent state, or a committed event missing; the next process's
// Recover settles what it left prepared, by reading YNAB. A kill comes after a random number of
// reported events plus a random moment, so a slow machine moves the kills, not what they hit;
// every other kill comes as soon as a write is reported prepared, while the writer waits for
// YNAB.
func testKilledWriters(t *testing.T, c Crash) {
	kills := c.Kills
	if kills == 0 {
		kills = 12
	}
	if testing.Short() {
		kills = min(kills, 4)
	}
	target := c.Target(t)
	rng := rand.New(rand.NewPCG(11, 11))
	reported := newReport()
	var recovered int
	for kill := range kills {
		ch := StartChild(t, "writer", target, fmt.Sprintf("%s=%d", seedVar, kill))
		if ch.Line(0) != "start" {
			lines, err := ch.Wait()
			t.Fatalf("the child did not start: %v %q\n%s", err, lines, ch.Stderr())
		}
		n := 1 + rng.IntN(12)
		for {
			line := ch.Line(n)
			if line == "" {
				lines, err := ch.Wait()
				t.Fatalf("the child stopped: %v %q\n%s", err, lines, ch.Stderr())
			}
			if kill%2 == 0 || strings.HasSuffix(line, " prepared") {
				break
			}
			n++
		}
		if kill%2 == 0 {
			time.Sleep(time.Duration(rng.IntN(3_000)) * time.Microsecond)
		}
		reported.add(t, ch.Kill(t))

		s, closeStore, err := c.Open(t.Context(), target)
		if err != nil {
			t.Fatalf("kill %d: the journal does not open: %v", kill, err)
		}
		ops, err := s.Recover(t.Context(), Parity{})
		if err != nil {
			t.Fatalf("kill %d: Recover: %v", kill, err)
		}
		for _, op := range ops {
			if op.Events[len(op.Events)-1].Type != "recovered" || (op.Status == journal.StatusApplied) != ParityApplied(op.ID) {
				t.Fatalf("kill %d: %s was recovered as %s, against what YNAB said", kill, op.ID, op.Status)
			}
			if op.UndoOf != "" && op.Status != journal.StatusFailed {
				reported.undone[op.UndoOf] = op.ID
			}
		}
		recovered += len(ops)
		if pending, err := s.Pending(t.Context()); err != nil || len(pending) != 0 {
			t.Fatalf("kill %d: after Recover, still pending: %v, %v", kill, pending, err)
		}
		closeStore()
		reported.check(t, c.Replay(t, target))
	}
	if len(reported.events) < kills {
		t.Errorf("only %d events were reported in %d kills: the writers hardly wrote", len(reported.events), kills)
	}
	if recovered == 0 {
		t.Error("no kill left a write prepared: the study never caught a writer mid-write")
	}
	t.Logf("%d kills: %d events reported before the kills, %d operations recovered", kills, len(reported.events), recovered)
}

// A process killed while it holds a plan's lock with writes prepared: until it dies, another
// process's Recover and ResolveByHand leave its writes alone; once it is gone, they settle
// them.
func testKilledHolder(t *testing.T, c Crash) {
	target := c.Target(t)
	ch := StartChild(t, "hold", target)
	reported := newReport()
	for n := range 3 {
		line := ch.Line(n)
		if line == "" {
			lines, err := ch.Wait()
			t.Fatalf("the child stopped: %v %q\n%s", err, lines, ch.Stderr())
		}
		reported.add(t, []string{line})
	}
	s, closeStore, err := c.Open(t.Context(), target)
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
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
	checker := &FakeChecker{Answers: map[string]Answer{write: {Applied: true},
		cut: {Err: errors.New("an import gives nothing to look for")}}}
	if ops, err := s.Recover(t.Context(), checker); err != nil || len(ops) != 0 {
		t.Fatalf("Recover while the writer lives = %v, %v; want nothing settled", ops, err)
	}
	if _, err := s.ResolveByHand(t.Context(), cut, true, "by the person"); !errors.Is(err, journal.ErrWriting) {
		t.Fatalf("ResolveByHand while the writer lives: %v, want ErrWriting", err)
	}

	ch.Kill(t)
	ops, err := s.Recover(t.Context(), checker)
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

// Two writer processes and a reader listing in a loop share one journal: nothing is lost,
// nobody waits past a lock's bound, and every listing is consistent with the ones before it.
// Each writer also recovers at start, which must leave the other's writes alone.
func testTwoWritersAndAReader(t *testing.T, c Crash) {
	const opsEach = 100
	target := c.Target(t)
	s, closeStore, err := c.Open(t.Context(), target)
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	a := StartChild(t, "writer", target, opsVar+"="+strconv.Itoa(opsEach), seedVar+"=1")
	b := StartChild(t, "writer", target, opsVar+"="+strconv.Itoa(opsEach), seedVar+"=2")

	done := make(chan struct{})
	listings := make(chan int)
	go func() { listings <- listLoop(t, s, done) }()

	reported := newReport()
	for _, ch := range []*Child{a, b} {
		lines, err := ch.Wait()
		if err != nil {
			t.Errorf("a writer failed: %v\n%s", err, ch.Stderr())
		}
		reported.add(t, lines)
	}
	close(done)
	n := <-listings

	ops := c.Replay(t, target)
	reported.check(t, ops)
	if len(ops) != 2*opsEach {
		t.Errorf("%d operations in the journal, want %d", len(ops), 2*opsEach)
	}
	if n == 0 {
		t.Error("the reader never listed while the writers wrote")
	}
	t.Logf("%d operations, %d listings, %d events reported", len(ops), n, len(reported.events))
}

// listLoop lists the whole journal, as the CLI and list_operations do, until done, and checks
// each listing against the one before: newest first, no operation gone, no outcome taken back.
// It returns how many listings it made.
func listLoop(t *testing.T, s journal.Store, done <-chan struct{}) int {
	seen := map[string]journal.Operation{}
	n := 0
	for {
		select {
		case <-done:
			return n
		default:
		}
		ops, err := s.List(context.Background(), journal.Filter{Limit: 1 << 20})
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

// Child is a running child process (this test binary again, in a role) and the lines it has
// written.
type Child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr strings.Builder

	mu     sync.Mutex
	cond   *sync.Cond // signalled at each line, and when stdout is closed
	lines  []string
	closed bool
}

// StartChild runs this test binary again in role (one of ChildMain's, or of Crash.Roles), on
// the journal at target, with the variables env set too. The child is killed when the test
// ends, if it has not ended before.
func StartChild(t *testing.T, role, target string, env ...string) *Child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := &Child{cmd: exec.Command(exe)}
	c.cond = sync.NewCond(&c.mu)
	c.cmd.Env = append(os.Environ(), append(env, roleVar+"="+role, targetVar+"="+target,
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
func (c *Child) read(r io.Reader) {
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

// Line waits for the child's line n (from 0) and returns it, or "" if the child closed its
// output before.
func (c *Child) Line(n int) string {
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

// CloseStdin closes the child's input, which tells a child that waits on it to go on.
func (c *Child) CloseStdin() error { return c.stdin.Close() }

// Stderr is what the child wrote on its standard error; call it once the child has ended
// (Wait, Kill).
func (c *Child) Stderr() string { return c.stderr.String() }

// Wait waits for the child to end and returns all it wrote.
func (c *Child) Wait() ([]string, error) {
	c.mu.Lock()
	for !c.closed {
		c.cond.Wait()
	}
	c.mu.Unlock()
	err := c.cmd.Wait()
	return c.lines, err
}

// Kill ends the child at once, as a crash would, and returns all it wrote. It fails the test
// if the child had ended by itself before.
func (c *Child) Kill(t *testing.T) []string {
	t.Helper()
	if err := c.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatalf("killing the child: %v", err)
	}
	lines, err := c.Wait()
	if err == nil {
		t.Fatalf("the child ended by itself before it was killed:\n%s", c.Stderr())
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
// its events, every undo reported links its target, and every operation recovered was settled
// as Parity answered.
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
	for _, op := range ops {
		last := op.Events[len(op.Events)-1]
		if last.Type == "recovered" && (op.Status == journal.StatusApplied) != ParityApplied(op.ID) {
			t.Fatalf("operation %s was recovered as %s, against what YNAB said", op.ID, op.Status)
		}
	}
}
