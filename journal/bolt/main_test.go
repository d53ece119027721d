package bolt

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/avenir-mcp/avenir/journal"
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
)

// Tests that need another process run this test binary again as a child, in one of the roles
// below, chosen by this variable.
const roleVar = "AVENIR_JOURNAL_TEST_ROLE"

func TestMain(m *testing.M) {
	if role := os.Getenv(roleVar); role != "" {
		if err := runChild(role); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	removeBenchJournals()
	os.Exit(code)
}

// runChild plays a role in another process. It reports each event it knows to be committed on
// stdout, as "event OPERATION EVENT TYPE" and "undone OPERATION BY"; "start" comes first.
func runChild(role string) error {
	fmt.Println("start")
	j, err := Open(os.Getenv("AVENIR_JOURNAL_TEST_PATH"), Options{})
	if err != nil {
		return err
	}
	switch role {
	case "writer":
		return writeOps(j)
	case "hold", "hold-import":
		d := testDraft("plan-a", "set_category_budget")
		if role == "hold-import" {
			d = importDraft("plan-a")
		}
		op, err := j.Prepare(context.Background(), d)
		if err != nil {
			return err
		}
		reportEvents(op.Events)
		_, err = io.Copy(io.Discard, os.Stdin) // until the test lets go
		return err
	case "lock":
		return lockPlan(j)
	}
	return fmt.Errorf("unknown role %q", role)
}

// lockPlan takes plan-a's write lock, saying "waiting" if it has to wait for it and "locked"
// once it holds it, and keeps it until the test closes stdin ("unlocked").
func lockPlan(j *Journal) error {
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

// writeOps recovers what earlier writers left prepared, then writes AVENIR_JOURNAL_TEST_OPS
// operations (for ever if 0): applied, partial, failed, and undos of its earlier ones.
func writeOps(j *Journal) error {
	n, err := envInt("AVENIR_JOURNAL_TEST_OPS")
	if err != nil {
		return err
	}
	seed, err := envInt("AVENIR_JOURNAL_TEST_SEED")
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(os.Getpid())))

	recovered, err := j.Recover(context.Background(), parity{})
	if err != nil {
		return err
	}
	for _, op := range recovered {
		reportEvents(op.Events[len(op.Events)-1:])
		if op.UndoOf != "" && op.Status == journal.StatusApplied {
			fmt.Printf("undone %s %s\n", op.UndoOf, op.ID)
		}
	}

	plans := []string{"plan-a", "plan-b"}
	tools := []string{"set_category_budget", "apply_categories", "flag_transactions"}
	var undoable []string
	for i := 0; n == 0 || i < n; i++ {
		d := testDraft(plans[rng.IntN(len(plans))], tools[rng.IntN(len(tools))])
		if len(undoable) > 0 && rng.IntN(4) == 0 {
			k := rng.IntN(len(undoable))
			d.Tool, d.UndoOf = "undo_operation", undoable[k]
			undoable = slices.Delete(undoable, k, k+1)
		}
		op, err := j.Prepare(context.Background(), d)
		if err != nil {
			return err
		}
		reportEvents(op.Events)
		var settled journal.Operation
		switch rng.IntN(8) {
		case 0:
			settled, err = j.Failed(context.Background(), op.ID, "YNAB answered 503", 1)
		case 1:
			settled, err = j.Applied(context.Background(), op.ID, journal.Outcome{Partial: true, Note: "only the flags", Requests: 2})
		default:
			settled, err = j.Applied(context.Background(), op.ID, journal.Outcome{ServerKnowledge: int64(i), Requests: 1})
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

// parity decides from an operation's id alone, so that the test can tell what it answered.
type parity struct{}

func (parity) Check(_ context.Context, op journal.Operation) ([]journal.Change, error) {
	return outcomes(op.Changes, parityApplied(op.ID)), nil
}

func parityApplied(id string) bool {
	return strings.ContainsRune("02468ACEGJMPRTVXZ", rune(id[len(id)-1]))
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

func startChild(t *testing.T, role, path string, env ...string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: exec.Command(exe)}
	c.cond = sync.NewCond(&c.mu)
	c.cmd.Env = append(os.Environ(), append(env, roleVar+"="+role, "AVENIR_JOURNAL_TEST_PATH="+path,
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

// wait waits for the child to end and returns all it wrote.
func (c *child) wait() ([]string, error) {
	c.mu.Lock()
	for !c.closed {
		c.cond.Wait()
	}
	c.mu.Unlock()
	err := c.cmd.Wait()
	return c.lines, err
}

// kill ends the child at once, as a crash would, and returns all it wrote. A child that had
// ended by itself just before (a writer of a few operations) must have ended well.
func (c *child) kill(t *testing.T) []string {
	t.Helper()
	killed := c.cmd.Process.Kill()
	if killed != nil && !errors.Is(killed, os.ErrProcessDone) {
		t.Fatalf("killing the child: %v", killed)
	}
	lines, err := c.wait()
	if killed != nil && err != nil {
		t.Fatalf("the child failed before it could be killed: %v\n%s", err, c.stderr.String())
	}
	return lines
}

// report is what children reported, checked against a journal.
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

// check fails unless every event reported is in ops (a replay of the journal) and every
// recovered operation was resolved as the checker answered.
func (r *report) check(t *testing.T, ops map[string]*journal.Operation) {
	t.Helper()
	for ev, opID := range r.events {
		op := ops[opID]
		if op == nil {
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
		if last.Type == "recovered" && (op.Status == journal.StatusApplied) != parityApplied(op.ID) {
			t.Fatalf("operation %s was recovered as %s, against what YNAB said", op.ID, op.Status)
		}
	}
}
