package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/hosted/hostedtest"
	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// The crash test: the real binary, killed (SIGKILL) at random moments while it writes, on a
// sandbox slowed down so that the kills land before YNAB applies a request, between YNAB applying
// it and its answer, and between the requests of a write of several. After each restart (whose
// recovery reads YNAB) and at the end, the oracle holds the journal against YNAB.
//
// The default run kills 60 times; -crash.kills=N (or AVENIR_CRASH_KILLS=N) runs longer, and
// -crash.seed replays a run (the seed is logged; the kill moments depend on timing too).

var (
	crashKills = flag.Int("crash.kills", 0, "how many times the crash test kills avenir serve (default 60, or AVENIR_CRASH_KILLS)")
	crashSeed  = flag.Uint64("crash.seed", 0, "the crash test's seed (default: from the clock)")
)

// crashCategories are the categories the crash test moves money between, budgets and gives
// to transactions.
var crashCategories = []string{"Tennis", "Restaurants", "Uitjes", "Vakantie", "Boodschappen"}

// slowYNAB serves the sandbox with every write slowed down twice: before YNAB handles it (the
// sandbox's own Delay fault, which gives up when the caller goes away, so nothing is applied)
// and after YNAB applied it, before the answer goes out (which the sandbox has no fault for).
//
// A kill thus lands before YNAB took the request (it is never applied) or after YNAB applied it
// (its answer is lost). What real YNAB may also do, apply a request it received later than a
// new avenir reads it, is beyond what a read can settle (README, "What a read cannot see"):
// quiet waits, before each restart, until every write of the killed process is applied or
// abandoned.
type slowYNAB struct {
	sb       *sandbox.Sandbox
	mu       sync.Mutex
	rng      *rand.Rand
	maxAfter time.Duration
	writes   atomic.Pointer[chan time.Time] // told when a write request arrives
	handling atomic.Int64                   // write requests being handled
}

// watch makes the next write requests arrive on ch (as far as it has room).
func (s *slowYNAB) watch(ch chan time.Time) { s.writes.Store(&ch) }

// newSlowYNAB starts a sandbox on loopback whose writes wait before for `before` and after for
// up to maxAfter (chosen by seed). It uses the real clock, like the server it serves.
func newSlowYNAB(t *testing.T, seed uint64, before, maxAfter time.Duration) (*slowYNAB, string) {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"PATCH", "POST", "PUT", "DELETE"} {
		sb.InjectFault(sandbox.Fault{Method: m, Delay: before, Count: 1 << 30})
	}
	s := &slowYNAB{sb: sb, rng: rand.New(rand.NewPCG(seed, 1)), maxAfter: maxAfter}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL + "/v1"
}

func (s *slowYNAB) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		s.sb.ServeHTTP(w, r)
		return
	}
	s.handling.Add(1)
	defer s.handling.Add(-1)
	if ch := s.writes.Load(); ch != nil {
		select {
		case *ch <- time.Now():
		default:
		}
	}
	rec := httptest.NewRecorder()
	s.sb.ServeHTTP(rec, r)
	s.mu.Lock()
	d := time.Duration(s.rng.Int64N(int64(s.maxAfter)))
	s.mu.Unlock()
	select { // YNAB has applied the write; its answer is on its way
	case <-time.After(d):
	case <-r.Context().Done():
		return
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	// A failed write means avenir, the client of this proxy, is gone (killed mid-request):
	// what the crash test looks at is YNAB's state and the journal, not this answer.
	_, _ = w.Write(rec.Body.Bytes())
}

// quiet waits until no write request is being handled: those of a killed avenir have been
// applied or abandoned (the sandbox notices a caller gone within a moment).
func (s *slowYNAB) quiet(t *testing.T) {
	t.Helper()
	if !hostedtest.WaitFor(10*time.Second, func() bool { return s.handling.Load() == 0 }) {
		t.Fatalf("the sandbox is still handling %d write requests of a killed avenir after 10s", s.handling.Load())
	}
}

// export is the plan as YNAB holds it now.
func (s *slowYNAB) export(t *testing.T) ynab.PlanDetail {
	t.Helper()
	p, err := s.sb.Export(sandbox.PlanID)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// killableServer is `avenir serve` as a child process with a client whose user accepts every
// question, which a test may kill.
type killableServer struct {
	cmd    *exec.Cmd
	cs     *mcp.ClientSession
	stderr *lockedBuffer
	cancel context.CancelFunc
	done   atomic.Bool
}

func startKillable(t *testing.T, env []string) *killableServer {
	t.Helper()
	s := &killableServer{cmd: exec.Command(avenirBinary(t), "serve"), stderr: &lockedBuffer{}}
	s.cmd.Env = env
	s.cmd.Stderr = s.stderr
	opts := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"value": true}}, nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "avenir-crash", Version: "1"}, opts).
		Connect(ctx, &mcp.CommandTransport{Command: s.cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		cancel()
		t.Fatalf("starting avenir serve: %v\n%s", err, s.stderr)
	}
	s.cs = cs
	t.Cleanup(func() { s.stop() })
	return s
}

// kill sends SIGKILL; it may be called while a call is in flight.
func (s *killableServer) kill() {
	if err := s.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		panic(fmt.Sprintf("killing avenir serve: %v", err)) // the test would go on with a live writer
	}
}

// stop closes the session, which waits for the process (a killed one is reaped, so that no
// later recovery takes it for a live writer).
func (s *killableServer) stop() {
	if s.done.Swap(true) {
		return
	}
	// The session of a killed server closes with the broken pipe's error: expected here.
	_ = s.cs.Close()
	s.cancel()
}

// call calls a tool; a broken connection (a kill) is returned as the error.
func (s *killableServer) call(tool string, args map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
}

// crashCall is one tool call of the crash test.
type crashCall struct {
	tool string
	args map[string]any
}

func (c crashCall) String() string {
	return c.tool + " " + string(mustJSON(c.args))
}

// crashRun is the state of one crash test run.
type crashRun struct {
	t       *testing.T
	rng     *rand.Rand
	ynab    *slowYNAB
	env     []string
	creates int                      // create_transactions calls made, for unique memos and payees
	took    map[string]time.Duration // how long each tool's calls take, roughly
	writing map[string]time.Duration // how long from their first write request to their end
	calls   int
	errors  int // calls that came back as a tool error (refusals, nothing left to undo, …)
}

func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash test runs the binary many times")
	}
	kills := 60
	if n, err := strconv.Atoi(os.Getenv("AVENIR_CRASH_KILLS")); err == nil && n > 0 {
		kills = n
	}
	if *crashKills > 0 {
		kills = *crashKills
	}
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("crash test: seed %d (-crash.seed=%d replays the choices), %d kills", seed, seed, kills)

	y, url := newSlowYNAB(t, seed, 10*time.Millisecond, 30*time.Millisecond)
	env, _ := isolatedEnv(t, "AVENIR_MCP_YNAB_URL="+url, "YNAB_ACCESS_TOKEN=crash-test-token")
	r := &crashRun{t: t, rng: rand.New(rand.NewPCG(seed, 2)), ynab: y, env: env, took: map[string]time.Duration{}, writing: map[string]time.Duration{}}
	o := &oracle{initial: y.export(t), memoMark: "crash "}
	total := newVerdict()
	check := func(when string) {
		v := o.check(settledJournal(t, env), y.export(t), false)
		if v.disagreements() > 0 && total.disagreements() == 0 {
			t.Logf("first disagreements %s: %s", when, v.report(4))
		}
		total.merge(v)
	}

	var (
		during   int // kills that landed while a call was in flight
		killedIn = map[string]int{}
		retries  int        // identical create_transactions calls after a kill
		pending  *crashCall // a create to call again, as a person would after a lost answer
		restarts int
	)
	for k := 0; k < kills; k++ {
		srv := startKillable(t, env)
		restarts++
		check(fmt.Sprintf("after restart %d", restarts))
		next := func() crashCall {
			if c := pending; c != nil {
				pending = nil
				retries++
				return *c
			}
			return r.pick(srv)
		}
		for range r.rng.IntN(3) { // calls that run to their end, then one that is killed
			c := next()
			if _, err := r.timed(srv, c); err != nil {
				t.Fatalf("%s: %v\nserver log:\n%s", c, err, srv.stderr)
			}
		}
		last := next()
		mid := r.killDuring(srv, last)
		if mid {
			during++
			killedIn[last.tool]++
		}
		srv.stop()
		y.quiet(t)
		if mid && last.tool == "create_transactions" && r.rng.IntN(2) == 0 {
			pending = &last
		}
	}
	srv := startKillable(t, env)
	check("at the end")
	sameOnEverySurface(t, env, srv, total)
	srv.stop()

	ops := readJournal(t, env)
	statuses := map[string]int{}
	recovered := 0
	tools := map[string]string{}
	undid := map[string]int{} // undos by the tool of what they undid; undo_operation: redos
	for _, op := range ops {
		tools[op.ID] = op.Tool
		if op.UndoOf != "" {
			undid[tools[op.UndoOf]]++
		}
		statuses[op.Status]++
		for _, ev := range op.Events {
			if ev.Type == "recovered" {
				recovered++
			}
		}
	}
	t.Logf("crash test: %d kills (%d during a call: %v), %d calls (%d tool errors, %d identical retries of a create), "+
		"%d operations %v, undos of %v, %d resolved by recovery; %d disagreements, %d duplicates, %d unowned transactions",
		kills, during, killedIn, r.calls, r.errors, retries, len(ops), statuses, undid, recovered,
		total.disagreements(), total.duplicates, total.unowned)
	if total.disagreements() > 0 || total.duplicates > 0 || total.unowned > 0 {
		t.Errorf("the journal disagrees with YNAB: %d disagreements, %d duplicates, %d unowned transactions (seed %d)\n  by kind: %s",
			total.disagreements(), total.duplicates, total.unowned, seed, total.report(6))
	}
}

// sameOnEverySurface checks that `avenir journal show ID --json` and get_operation give each
// change the outcome (and id) that `avenir journal list --json` gives it, for the operations a
// recovery resolved and a few more.
func sameOnEverySurface(t *testing.T, env []string, srv *killableServer, v *verdict) {
	t.Helper()
	ops := readJournal(t, env)
	for i, op := range ops {
		recovered := slices.Contains(op.Events, jEvent{Type: "recovered"})
		if !recovered && i%10 != 0 {
			continue
		}
		stdout, stderr, code := runBinary(t, env, "journal", "show", "--json", op.ID)
		var shown jOp
		if code != 0 || json.Unmarshal([]byte(stdout), &shown) != nil {
			t.Fatalf("avenir journal show --json %s: exit %d: %s%s", op.ID, code, stdout, stderr)
		}
		res, err := srv.call("get_operation", map[string]any{"operation_id": op.ID})
		if err != nil || res.IsError {
			t.Fatalf("get_operation %s: %v %v", op.ID, err, res)
		}
		var got jOp
		mustResult(t, res, &got)
		for name, other := range map[string]jOp{"journal show --json": shown, "get_operation": got} {
			if other.Status != op.Status || len(other.Changes) != len(op.Changes) {
				v.add("surface", name+op.ID, "%s %s: %s with %d changes, journal list: %s with %d", name, op.ID,
					other.Status, len(other.Changes), op.Status, len(op.Changes))
				continue
			}
			for j, ch := range op.Changes {
				if other.Changes[j].Outcome != ch.Outcome || other.Changes[j].ID != ch.ID {
					v.add("surface", fmt.Sprintf("%s%s/%d", name, op.ID, j), "%s %s change %d: outcome %q id %q, journal list: %q %q",
						name, op.ID, j+1, other.Changes[j].Outcome, other.Changes[j].ID, ch.Outcome, ch.ID)
				}
			}
		}
	}
}

// settledJournal reads the journal once the recovery of a start has had time to settle what it
// can: while operations are prepared it reads again, for up to two seconds.
func settledJournal(t *testing.T, env []string) []jOp {
	t.Helper()
	for try := 0; ; try++ {
		ops := readJournal(t, env)
		if try == 10 || !slices.ContainsFunc(ops, func(op jOp) bool { return op.Status == "prepared" }) {
			return ops
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// killDuring makes a call and kills the server at a random moment of it: mostly after the first
// write request reached YNAB (the operation is prepared by then), within the time the tool's
// writes take; sometimes anywhere in the call. It reports whether the kill came before the call
// ended.
func (r *crashRun) killDuring(srv *killableServer, c crashCall) bool {
	anchored := r.rng.IntN(4) > 0
	span := r.took[c.tool]
	if anchored {
		span = r.writing[c.tool]
	}
	if span == 0 {
		span = 300 * time.Millisecond
	}
	delay := time.Duration(r.rng.Float64() * 1.2 * float64(span))
	arrived := make(chan time.Time, 1)
	done := make(chan struct{})
	during := make(chan bool, 1)
	r.ynab.watch(arrived)
	go func() {
		defer srv.kill()
		if anchored {
			select {
			case <-arrived:
			case <-done:
				during <- false
				return
			}
		}
		select {
		case <-time.After(delay):
			select {
			case <-done:
				during <- false
			default:
				during <- true
			}
		case <-done:
			during <- false
		}
	}()
	// The call races the kill: its answer, or the broken connection, says nothing the journal
	// and YNAB's state, which the run checks next, do not say better.
	_, _ = srv.call(c.tool, c.args)
	r.calls++
	close(done)
	return <-during
}

// timed makes a call and keeps running estimates of how long the tool takes, in all and from
// its first write request on.
func (r *crashRun) timed(srv *killableServer, c crashCall) (*mcp.CallToolResult, error) {
	arrived := make(chan time.Time, 1)
	r.ynab.watch(arrived)
	start := time.Now()
	res, err := srv.call(c.tool, c.args)
	r.calls++
	if err != nil {
		return nil, err
	}
	if res.IsError {
		r.errors++
	}
	end := time.Now()
	average(r.took, c.tool, end.Sub(start))
	select {
	case first := <-arrived:
		average(r.writing, c.tool, end.Sub(first))
	default:
	}
	return res, nil
}

// average keeps a running average of durations per tool.
func average(m map[string]time.Duration, tool string, d time.Duration) {
	if old, ok := m[tool]; ok {
		d = (3*old + d) / 4
	}
	m[tool] = d
}

// pick chooses the next write at random, with arguments that fit the plan as it is now.
func (r *crashRun) pick(srv *killableServer) crashCall {
	p := r.ynab.export(r.t)
	for {
		var c crashCall
		var ok bool
		switch n := r.rng.IntN(100); {
		case n < 20:
			c, ok = r.move(), true
		case n < 30:
			c, ok = r.budget(p)
		case n < 42:
			c, ok = r.recategorise(p)
		case n < 52:
			c, ok = r.create(1), true
		case n < 60:
			c, ok = r.create(3), true
		case n < 66:
			c, ok = r.split(p)
		default:
			c, ok = r.undo(srv)
		}
		if ok {
			return c
		}
	}
}

func (r *crashRun) category() string { return crashCategories[r.rng.IntN(len(crashCategories))] }

// cents is a random amount of 0.01 to max (in cents), as milliunits.
func (r *crashRun) cents(max int) int64 { return int64(1+r.rng.IntN(max)) * 10 }

func (r *crashRun) move() crashCall {
	from, to := r.category(), r.category()
	for to == from {
		to = r.category()
	}
	return crashCall{"move_money", map[string]any{"from_category": from, "to_category": to, "month": "current",
		"amount": createsDecimal(r.cents(5000))}}
}

func (r *crashRun) budget(p ynab.PlanDetail) (crashCall, bool) {
	name := r.category()
	amount := r.cents(50000)
	if now, ok := assignedNow(p, name); !ok || now == amount {
		return crashCall{}, false
	}
	return crashCall{"set_category_budget", map[string]any{"category": name, "month": "current", "amount": createsDecimal(amount)}}, true
}

// plainTransactions are the live transactions on Betaalrekening that can be recategorised and
// split: neither a split nor a transfer.
func plainTransactions(p ynab.PlanDetail) []ynab.TransactionSummary {
	var account string
	for _, a := range p.Accounts {
		if a.Name == "Betaalrekening" {
			account = a.ID
		}
	}
	split := map[string]bool{}
	for _, s := range p.Subtransactions {
		if !s.Deleted {
			split[s.TransactionID] = true
		}
	}
	var out []ynab.TransactionSummary
	for _, t := range p.Transactions {
		if !t.Deleted && t.AccountID == account && t.TransferAccountID == nil && !split[t.ID] && t.Amount != 0 {
			out = append(out, t)
		}
	}
	return out
}

func (r *crashRun) recategorise(p ynab.PlanDetail) (crashCall, bool) {
	txs := plainTransactions(p)
	names := categoryIDs(p)
	var changes []any
	for range 1 + r.rng.IntN(3) {
		t := txs[r.rng.IntN(len(txs))]
		name := r.category()
		if t.CategoryID != nil && *t.CategoryID == names[name] || slices.ContainsFunc(changes, func(c any) bool {
			return c.(map[string]any)["transaction_id"] == t.ID
		}) {
			continue
		}
		changes = append(changes, map[string]any{"transaction_id": t.ID, "category": name})
	}
	return crashCall{"apply_categories", map[string]any{"changes": changes}}, len(changes) > 0
}

func (r *crashRun) create(n int) crashCall {
	r.creates++
	var txs []any
	for i := range n {
		payee := []string{"Albert Heijn", "Jumbo", fmt.Sprintf("Crashwinkel %d", r.creates)}[r.rng.IntN(3)]
		tx := map[string]any{"date": []string{"today", "yesterday"}[r.rng.IntN(2)], "amount": createsDecimal(-r.cents(9999)),
			"payee": payee, "memo": fmt.Sprintf("crash %d-%d", r.creates, i)}
		if r.rng.IntN(4) > 0 {
			tx["category"] = r.category()
		}
		txs = append(txs, tx)
	}
	return crashCall{"create_transactions", map[string]any{"account": "Betaalrekening", "transactions": txs}}
}

func (r *crashRun) split(p ynab.PlanDetail) (crashCall, bool) {
	txs := plainTransactions(p)
	t := txs[r.rng.IntN(len(txs))]
	if t.Amount%10 != 0 || t.Amount > -20 && t.Amount < 20 {
		return crashCall{}, false
	}
	first := t.Amount / 20 * 10
	return crashCall{"split_transaction", map[string]any{"transaction_id": t.ID, "lines": []any{
		map[string]any{"amount": createsDecimal(first), "category": r.category()},
		map[string]any{"amount": createsDecimal(t.Amount - first), "category": r.category(), "memo": "crash split"},
	}}}, true
}

// undo picks one of the newest operations that can be undone, as list_operations shows them:
// an undo of an undo redoes.
func (r *crashRun) undo(srv *killableServer) (crashCall, bool) {
	res, err := srv.call("list_operations", map[string]any{"limit": 8})
	if err != nil || res.IsError {
		r.t.Fatalf("list_operations: %v %v", err, res)
	}
	var out struct {
		Operations []struct {
			ID, Tool string
			Undo     struct {
				CanUndo bool `json:"can_undo"`
			}
		}
	}
	mustResult(r.t, res, &out)
	var ids []string
	for _, op := range out.Operations {
		if op.Undo.CanUndo && op.Tool != "split_transaction" {
			ids = append(ids, op.ID)
		}
	}
	if len(ids) == 0 {
		return crashCall{}, false
	}
	return crashCall{"undo_operation", map[string]any{"operation_id": ids[r.rng.IntN(len(ids))]}}, true
}

// categoryIDs maps category names to ids.
func categoryIDs(p ynab.PlanDetail) map[string]string {
	ids := map[string]string{}
	for _, c := range p.Categories {
		if !c.Deleted {
			ids[c.Name] = c.ID
		}
	}
	return ids
}

// currentMonth is the month YNAB calls current, as the journal names it.
func currentMonth() string { return time.Now().UTC().Format("2006-01") + "-01" }

// assignedNow is what a category has assigned in the current month.
func assignedNow(p ynab.PlanDetail, name string) (int64, bool) {
	v, ok := readField(p, monthKey(currentMonth(), categoryIDs(p)[name]))
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}
