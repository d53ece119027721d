package pg_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/internal/pgtest"
	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/journal/pg"
	"github.com/avenir-mcp/avenir/journal/storetest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestJournalStore runs the behaviour every journal.Store keeps against PostgreSQL's: each
// instance its own pool and Journals on the test's database, as each hosted instance has.
func TestJournalStore(t *testing.T) {
	storetest.Run(t, storetest.Backend{
		People: true,
		New: func(t *testing.T) storetest.Opener {
			dsn := pgtest.NewDatabase(t)
			return func(t *testing.T, now func() time.Time) storetest.Instance {
				js, _ := openJournals(t, dsn)
				pg.SetJournalClock(js, now)
				return js
			}
		},
	})
}

// openJournals is a new instance on the database dsn: a pool of its own and its Journals.
func openJournals(t testing.TB, dsn string) (*pg.Journals, *pgxpool.Pool) {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	js, err := pg.OpenJournal(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	return js, pool
}

func draft(plan, tool string) journal.Draft { return storetest.Draft(plan, tool) }

func mustPrepare(t testing.TB, s journal.Store, d journal.Draft) journal.Operation {
	t.Helper()
	op, err := s.Prepare(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	return op
}

// OpenJournal migrates the avenir_journal schema to this avenir's version, once
// (internal/pgmigrate's tests hold how instances starting together do so, beside the other
// schemas); a newer schema is refused and left as it is.
func TestJournalMigrations(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	js, pool := openJournals(t, dsn)
	var n, top int
	if err := pool.QueryRow(ctx, "SELECT count(*), max(version) FROM avenir_journal.schema_migrations").Scan(&n, &top); err != nil {
		t.Fatal(err)
	}
	if want := pg.JournalSchemaVersion(); want < 1 || n != want || top != want {
		t.Fatalf("avenir_journal.schema_migrations has %d rows up to %d; want %d", n, top, want)
	}
	if err := js.Ready(ctx); err != nil {
		t.Fatalf("Ready: %v", err)
	}
	op := mustPrepare(t, js.For(1), draft("plan-1", "set_category_budget"))

	if _, err := pool.Exec(ctx, "INSERT INTO avenir_journal.schema_migrations (version, name) VALUES (999, 'future')"); err != nil {
		t.Fatal(err)
	}
	before := dump(t, pool)
	if _, err := pg.OpenJournal(ctx, pool); !errors.Is(err, journal.ErrNewerSchema) || !strings.Contains(err.Error(), "newer avenir") {
		t.Fatalf("a newer schema: %v, want ErrNewerSchema", err)
	}
	if err := js.Ready(ctx); err == nil {
		t.Fatal("Ready passed on a schema of another version")
	}
	if after := dump(t, pool); !reflect.DeepEqual(after, before) {
		t.Error("refusing a newer schema changed the journal")
	}
	if _, err := js.For(1).Get(ctx, op.ID); err != nil {
		t.Errorf("the operation before: %v", err)
	}
}

// dump is every row of the journal's tables, as text, by table.
func dump(t testing.TB, pool *pgxpool.Pool) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, table := range []string{"events", "operations", "outcomes", "schema_migrations"} {
		rows, err := pool.Query(context.Background(), fmt.Sprintf("SELECT t::text FROM avenir_journal.%s t ORDER BY 1", table))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out[table] = append(out[table], s)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// Rows are appended, never changed or deleted: every row of every table stays as it was, while
// writes of every kind go on.
func TestJournalIsAppendOnly(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	js, pool := openJournals(t, dsn)
	s := js.For(1)
	a := mustPrepare(t, s, draft("plan-1", "set_category_budget"))
	if _, err := s.Applied(t.Context(), a.ID, journal.Outcome{Requests: 1}); err != nil {
		t.Fatal(err)
	}
	first := dump(t, pool)

	undo := draft("plan-1", "undo_operation")
	undo.UndoOf = a.ID
	u := mustPrepare(t, s, undo)
	if _, err := s.Applied(t.Context(), u.ID, journal.Outcome{Requests: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Answered(t.Context(), u.ID); err != nil {
		t.Fatal(err)
	}
	b := mustPrepare(t, s, draft("plan-2", "flag_transactions"))
	if _, err := s.Failed(t.Context(), b.ID, "no", 0); err != nil {
		t.Fatal(err)
	}
	cut := mustPrepare(t, s, storetest.ImportDraft("plan-2"))
	if _, err := js2(t, dsn).For(1).ResolveByHand(t.Context(), cut.ID, true, "by the person"); err != nil {
		t.Fatal(err)
	}
	later := dump(t, pool)
	for table, rows := range first {
		for _, row := range rows {
			if !slices.Contains(later[table], row) {
				t.Errorf("%s: the row %s changed or went", table, row)
			}
		}
	}
	if got, want := len(later["events"]), len(first["events"])+8; got != want {
		t.Errorf("%d events, want %d", got, want)
	}
	checkConsistent(t, pool)
}

// js2 is another instance on dsn.
func js2(t *testing.T, dsn string) *pg.Journals {
	js, _ := openJournals(t, dsn)
	return js
}

// checkConsistent rebuilds every operation from the events alone and checks that the tables
// beside them say what the events do: operations one row per "prepared" event with its plan,
// tool, time and undo target; outcomes one row per settled operation, with its status and the
// event that settled it. It returns the operations by person and id.
func checkConsistent(t testing.TB, pool *pgxpool.Pool) map[int64]map[string]journal.Operation {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, "SELECT person, id, operation, type, event FROM avenir_journal.events ORDER BY person, operation, id")
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		person int64
		op     string
	}
	events := map[key][]journal.Event{}
	var order []key
	for rows.Next() {
		var (
			person      int64
			id, op, raw []byte
			typ         string
			ev          journal.Event
		)
		if err := rows.Scan(&person, &id, &op, &typ, &raw); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &ev); err != nil {
			t.Fatal(err)
		}
		idS, opIDS := ulidString(id), ulidString(op)
		if ev.ID != idS || ev.Operation != opIDS || ev.Type != typ {
			t.Fatalf("the row of event %s (%s of %s) holds %s (%s of %s)", idS, typ, opIDS, ev.ID, ev.Type, ev.Operation)
		}
		k := key{person, opIDS}
		if events[k] == nil {
			order = append(order, k)
		}
		events[k] = append(events[k], ev)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	ops := map[int64]map[string]journal.Operation{}
	type opRow struct {
		plan, tool, undoOf string
		time               time.Time
	}
	wantOps, wantOutcomes := map[key]opRow{}, map[key]string{}
	for _, k := range order {
		op, err := journal.Project(events[k])
		if err != nil {
			t.Fatalf("person %d, operation %s does not replay: %v", k.person, k.op, err)
		}
		if ops[k.person] == nil {
			ops[k.person] = map[string]journal.Operation{}
		}
		ops[k.person][k.op] = op
		wantOps[k] = opRow{op.PlanID, op.Tool, op.UndoOf, op.Time}
		if op.Status != journal.StatusPrepared {
			for _, ev := range op.Events {
				if slices.Contains([]string{"applied", "failed", "recovered", "resolved"}, ev.Type) {
					wantOutcomes[k] = string(op.Status) + " " + ev.ID
					break
				}
			}
		}
	}
	gotOps, gotOutcomes := map[key]opRow{}, map[key]string{}
	rows, err = pool.Query(ctx, "SELECT person, id, plan_id, tool, time, undo_of FROM avenir_journal.operations")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var (
			person     int64
			id, undoOf []byte
			plan, tool string
			at         time.Time
		)
		if err := rows.Scan(&person, &id, &plan, &tool, &at, &undoOf); err != nil {
			t.Fatal(err)
		}
		r := opRow{plan: plan, tool: tool, time: at.UTC()}
		if undoOf != nil {
			r.undoOf = ulidString(undoOf)
		}
		gotOps[key{person, ulidString(id)}] = r
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows, err = pool.Query(ctx, "SELECT person, operation, status, event FROM avenir_journal.outcomes")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var (
			person    int64
			op, event []byte
			status    string
		)
		if err := rows.Scan(&person, &op, &status, &event); err != nil {
			t.Fatal(err)
		}
		gotOutcomes[key{person, ulidString(op)}] = status + " " + ulidString(event)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotOps, wantOps) {
		t.Fatalf("operations differ from the events:\n got  %v\n want %v", gotOps, wantOps)
	}
	if !reflect.DeepEqual(gotOutcomes, wantOutcomes) {
		t.Fatalf("outcomes differ from the events:\n got  %v\n want %v", gotOutcomes, wantOutcomes)
	}
	return ops
}

func ulidString(b []byte) string {
	id, err := journal.ParseID(strings.Repeat("0", 26))
	if err != nil || len(b) != len(id) {
		return fmt.Sprintf("(not an id: %x)", b)
	}
	copy(id[:], b)
	return id.String()
}

// An instance holding a plan's lock is at work on it: another instance's recovery and
// ResolveByHand leave its operations alone, and settle them once it lets go without recording
// the outcome (as a writer that gave up does).
func TestJournalLiveWritersAreLeftAlone(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	writer, other := js2(t, dsn).For(1), js2(t, dsn).For(1)
	ctx := context.Background()
	unlock, err := writer.LockPlan(ctx, "plan-1", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	op := mustPrepare(t, writer, draft("plan-1", "set_category_budget"))
	cut := mustPrepare(t, writer, storetest.ImportDraft("plan-1"))
	free := mustPrepare(t, js2(t, dsn).For(1), draft("plan-2", "set_category_budget")) // its instance is gone

	checker := &storetest.FakeChecker{Answers: map[string]storetest.Answer{op.ID: {Applied: true}, free.ID: {Applied: false},
		cut.ID: {Err: errors.New("an import gives nothing to look for")}}}
	start := time.Now()
	ops, err := other.Recover(ctx, checker)
	if err != nil || len(ops) != 1 || ops[0].ID != free.ID || slices.Contains(checker.Asked, op.ID) {
		t.Fatalf("Recover while a writer holds plan-1 = %v, %v (asked %v); want only plan-2's operation", ops, err, checker.Asked)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Recover waited %s for a plan held by a live writer", took)
	}
	if _, err := other.ResolveByHand(ctx, cut.ID, true, "by the person"); !errors.Is(err, journal.ErrWriting) {
		t.Fatalf("ResolveByHand of a live writer's import: %v, want ErrWriting", err)
	}

	unlock() // the writer lets go without recording the outcomes
	ops, err = other.Recover(ctx, checker)
	if len(ops) != 1 || ops[0].ID != op.ID || ops[0].Status != journal.StatusApplied {
		t.Fatalf("Recover once the writer let go settled %d operations (%v); want %s applied", len(ops), err, op.ID)
	}
	if err == nil || !strings.Contains(err.Error(), cut.ID+" (Import transactions from linked accounts?) stays prepared") {
		t.Fatalf("Recover once the writer let go: %v, want it to say the import stays prepared", err)
	}
	if got, err := other.ResolveByHand(ctx, cut.ID, false, "by the person"); err != nil || got.Status != journal.StatusFailed {
		t.Fatalf("ResolveByHand once the writer let go = %v, %v", got.Status, err)
	}
}

// A lock's connection that ends releases the lock in PostgreSQL: another instance takes it, and
// the instance that lost it can no longer prepare a write of the plan.
func TestJournalLockLostWithItsConnection(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	js, pool := openJournals(t, dsn)
	a, b := js.For(1), js2(t, dsn).For(1)
	ctx := context.Background()
	unlock, err := a.LockPlan(ctx, "plan-1", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var ended int
	err = pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&ended)
	if err != nil || ended != 1 {
		t.Fatalf("ending the lock's session: %d sessions, %v; want the one", ended, err)
	}
	unlockB, err := b.LockPlan(ctx, "plan-1", 5*time.Second)
	if err != nil {
		t.Fatalf("the lock once its session ended: %v", err)
	}
	_, err = a.Prepare(ctx, draft("plan-1", "set_category_budget"))
	if err == nil || !strings.Contains(err.Error(), "lock was lost") {
		t.Fatalf("a Prepare after the lock was lost: %v, want it refused", err)
	}
	if ops, err := b.List(ctx, journal.Filter{}); err != nil || len(ops) != 0 {
		t.Fatalf("after the refused Prepare the journal holds %v, %v", ops, err)
	}
	unlock() // finds the session gone; nothing to do, nothing to block
	// b holds the lock still, and writes under it.
	op := mustPrepare(t, b, draft("plan-1", "set_category_budget"))
	if _, err := js.For(1).LockPlan(ctx, "plan-1", 100*time.Millisecond); !errors.Is(err, journal.ErrPlanBusy) {
		t.Fatalf("the first instance once the second holds the lock: %v, want ErrPlanBusy", err)
	}
	unlockB()
	if _, err := b.Applied(ctx, op.ID, journal.Outcome{Requests: 1}); err != nil {
		t.Fatal(err)
	}
	again, err := a.LockPlan(ctx, "plan-1", time.Second)
	if err != nil {
		t.Fatalf("the first instance, once the lock is free: %v", err)
	}
	mustPrepare(t, a, draft("plan-1", "set_category_budget"))
	again()
}

// A store of no person refuses everything, rather than sharing one journal between every caller
// that forgot to say whose it is.
func TestJournalOfNoPerson(t *testing.T) {
	js, _ := openJournals(t, pgtest.NewDatabase(t))
	op := mustPrepare(t, js.For(1), draft("plan-1", "set_category_budget"))
	for _, person := range []int64{0, -1} {
		s := js.For(person)
		if _, err := s.Prepare(t.Context(), draft("plan-1", "set_category_budget")); err == nil || !strings.Contains(err.Error(), "no person") {
			t.Errorf("person %d, Prepare: %v", person, err)
		}
		if _, err := s.Get(t.Context(), op.ID); err == nil || !strings.Contains(err.Error(), "no person") {
			t.Errorf("person %d, Get: %v", person, err)
		}
		if _, err := s.List(t.Context(), journal.Filter{}); err == nil {
			t.Errorf("person %d, List passed", person)
		}
		if _, err := s.Pending(t.Context()); err == nil {
			t.Errorf("person %d, Pending passed", person)
		}
		if _, err := s.Recover(context.Background(), &storetest.FakeChecker{}); err == nil {
			t.Errorf("person %d, Recover passed", person)
		}
		if _, err := s.LockPlan(context.Background(), "plan-1", time.Second); err == nil {
			t.Errorf("person %d, LockPlan passed", person)
		}
		if err := s.Answered(t.Context(), op.ID); err == nil {
			t.Errorf("person %d, Answered passed", person)
		}
	}
}

// Unsettled names the people with operations left prepared, each once.
func TestJournalUnsettled(t *testing.T) {
	js, _ := openJournals(t, pgtest.NewDatabase(t))
	ctx := context.Background()
	for _, person := range []int64{7, 3, 7, 5} {
		mustPrepare(t, js.For(person), draft("plan-1", "set_category_budget"))
	}
	done := mustPrepare(t, js.For(5), draft("plan-1", "set_category_budget"))
	if _, err := js.For(5).Applied(ctx, done.ID, journal.Outcome{}); err != nil {
		t.Fatal(err)
	}
	people, err := js.Unsettled(ctx)
	if err != nil || !slices.Equal(people, []int64{3, 5, 7}) {
		t.Fatalf("Unsettled = %v, %v; want 3, 5, 7", people, err)
	}
	for _, person := range people {
		pending, err := js.For(person).Pending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range pending {
			if _, err := js.For(person).Failed(ctx, op.ID, "no", 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	if people, err := js.Unsettled(ctx); err != nil || len(people) != 0 {
		t.Fatalf("Unsettled once all are settled = %v, %v", people, err)
	}
}

// Event ids stay in commit order across instances whose clocks disagree: an instance whose
// clock is an hour behind still writes after the one ahead.
func TestJournalClocksThatDisagree(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ahead, behind := js2(t, dsn), js2(t, dsn)
	c := storetest.NewClock()
	pg.SetJournalClock(ahead, func() time.Time { return c.Now().Add(time.Hour) })
	pg.SetJournalClock(behind, c.Now)
	var ids []string
	for i := range 6 {
		s := []*pg.Journals{ahead, behind}[i%2].For(1)
		op := mustPrepare(t, s, draft("plan-1", "set_category_budget"))
		op, err := s.Applied(t.Context(), op.ID, journal.Outcome{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, op.ID)
		if op.Events[1].ID <= op.ID {
			t.Fatalf("operation %s: its outcome's id %s is not after it", op.ID, op.Events[1].ID)
		}
	}
	ops, err := ahead.For(1).List(t.Context(), journal.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for i, op := range ops {
		if want := ids[len(ids)-1-i]; op.ID != want {
			t.Errorf("listing %d is %s, want %s", i, op.ID, want)
		}
	}
}
