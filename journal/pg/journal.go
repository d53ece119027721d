package pg

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/oklog/ulid/v2"
)

// Journals is hosted avenir's journal: the operations of every person, in the avenir_journal
// schema of one PostgreSQL database that every instance shares. For gives one person's
// journal.Store. A Journals is one instance's view (it knows which operations this instance is
// writing), safe for concurrent use; make one per process.
type Journals struct {
	pool    *pgxpool.Pool
	now     func() time.Time
	entropy io.Reader // monotonic, safe for concurrent use
	writer  string    // this instance, as recorded with the operations it prepares

	mu       sync.Mutex
	inFlight map[opKey]bool       // prepared here, outcome not recorded yet
	queues   map[int64]*planQueue // per plan lock key: this instance's writers wait here first
	held     map[int64]*heldLock  // per plan lock key: the connection holding it
}

type opKey struct {
	person int64
	id     string
}

// journalTimeout bounds each call of a Store method (they take no context), so that a database
// that stops answering fails a write in seconds: a write that cannot record "prepared" calls
// nothing in YNAB.
const journalTimeout = 10 * time.Second

// OpenJournal migrates the avenir_journal schema to this avenir's version (see MigrateJournal)
// and returns the journals on pool.
//
// Each plan lock held (LockPlan) keeps one of pool's connections for as long as it is held, a
// write's time: size the pool (pool_max_conns) above the writes an instance runs at once, plus
// a few for everything else.
func OpenJournal(ctx context.Context, pool *pgxpool.Pool) (*Journals, error) {
	if err := MigrateJournal(ctx, pool); err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	js := &Journals{
		pool:     pool,
		now:      time.Now,
		entropy:  &ulid.LockedMonotonicReader{MonotonicReader: ulid.Monotonic(rand.Reader, 0)},
		writer:   fmt.Sprintf("%s pid %d session %s", host, os.Getpid(), ulid.Make()),
		inFlight: map[opKey]bool{},
		queues:   map[int64]*planQueue{},
		held:     map[int64]*heldLock{},
	}
	return js, nil
}

// For returns the journal of person (an id of the people table, 1 or more): every query it runs
// names person, so it reads and writes that person's operations only. An operation of another
// person is not found.
func (js *Journals) For(person int64) journal.Store {
	return &store{js: js, person: person}
}

// Ready reports whether the database answers and holds this avenir's avenir_journal schema, for
// /readyz.
func (js *Journals) Ready(ctx context.Context) error {
	var v int
	err := js.pool.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM avenir_journal.schema_migrations").Scan(&v)
	if err != nil {
		return fmt.Errorf("reading the avenir_journal schema's version: %w", err)
	}
	if want := JournalSchemaVersion(); v != want {
		return fmt.Errorf("the avenir_journal schema is at version %d; this avenir needs %d", v, want)
	}
	return nil
}

// Unsettled returns the people who have operations left prepared, in order: whose journals an
// instance should Recover (with a Checker reading that person's YNAB) when it starts.
func (js *Journals) Unsettled(ctx context.Context) ([]int64, error) {
	rows, err := js.pool.Query(ctx, `SELECT DISTINCT o.person FROM avenir_journal.operations o
		WHERE NOT EXISTS (SELECT 1 FROM avenir_journal.outcomes x WHERE x.person = o.person AND x.operation = o.id)
		ORDER BY o.person`)
	if err != nil {
		return nil, fmt.Errorf("looking for unsettled operations: %w", err)
	}
	people, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("looking for unsettled operations: %w", err)
	}
	return people, nil
}

// track and untrack keep the set of operations this instance prepared and is still writing:
// recovery leaves them to it, as the bbolt journal does its own session's.
func (js *Journals) track(person int64, id string) {
	js.mu.Lock()
	js.inFlight[opKey{person, id}] = true
	js.mu.Unlock()
}

func (js *Journals) untrack(person int64, id string) {
	js.mu.Lock()
	delete(js.inFlight, opKey{person, id})
	js.mu.Unlock()
}

func (js *Journals) writing(person int64, id string) bool {
	js.mu.Lock()
	defer js.mu.Unlock()
	return js.inFlight[opKey{person, id}]
}

// lockKey is the advisory lock key of a name in avenir_journal's key space: the first 8 bytes of
// SHA-256 over a prefix and the name's parts, so that no plan id, however odd, can collide with
// another person's plan or with another lock avenir takes (the migration locks are ASCII words).
func lockKey(kind string, parts ...string) int64 {
	h := sha256.New()
	h.Write([]byte("avenir_journal " + kind))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return int64(binary.BigEndian.Uint64(h.Sum(nil)))
}

func planKey(person int64, planID string) int64 {
	return lockKey("plan", strconv.FormatInt(person, 10), planID)
}

func personKey(person int64) int64 {
	return lockKey("person", strconv.FormatInt(person, 10))
}

// The avenir_journal schema's migrations: journal_migrations/NNNN_name.sql, applied in order,
// each once, each in a transaction of its own. A released migration is never edited; a change
// is a new file.
//
//go:embed journal_migrations/*.sql
var journalMigrationFiles embed.FS

// journalMigrationLock is the advisory lock key that serialises MigrateJournal across instances
// starting together: "avenirjo" in ASCII, apart from every other avenir schema's.
const journalMigrationLock int64 = 0x6176656e69726a6f

type journalMigration struct {
	version int
	name    string
	sql     string
}

func journalMigrations() ([]journalMigration, error) {
	const dir = "journal_migrations"
	entries, err := fs.ReadDir(journalMigrationFiles, dir)
	if err != nil {
		return nil, err
	}
	var ms []journalMigration
	for _, e := range entries {
		num, name, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 || len(num) != 4 {
			return nil, fmt.Errorf("migration file %s is not named NNNN_name.sql", e.Name())
		}
		b, err := journalMigrationFiles.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		ms = append(ms, journalMigration{v, name, string(b)})
	}
	slices.SortFunc(ms, func(a, b journalMigration) int { return a.version - b.version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("avenir_journal migrations must be numbered 1, 2, 3… without gaps; found %d where %d belongs", m.version, i+1)
		}
	}
	return ms, nil
}

// JournalSchemaVersion is the version of the avenir_journal schema this avenir knows.
func JournalSchemaVersion() int {
	ms, err := journalMigrations()
	if err != nil {
		return 0
	}
	return len(ms)
}

// MigrateJournal brings the database's avenir_journal schema, with its own
// avenir_journal.schema_migrations table, to this avenir's version. Instances starting together
// are serialised by a session advisory lock: one migrates, the others then find nothing to do.
// A schema migrated by a newer avenir is refused (journal.ErrNewerSchema) and left untouched.
func MigrateJournal(ctx context.Context, pool *pgxpool.Pool) error {
	ms, err := journalMigrations()
	if err != nil {
		return err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("connecting to the database to migrate avenir_journal: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", journalMigrationLock); err != nil {
		return fmt.Errorf("waiting for the avenir_journal migration lock: %w", err)
	}
	defer func() {
		// Unlock even when ctx is done; if that fails too, close the connection, which ends the
		// session and so frees its lock.
		uctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, "SELECT pg_advisory_unlock($1)", journalMigrationLock); err != nil {
			conn.Conn().Close(uctx)
		}
	}()

	if _, err := conn.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS avenir_journal;
		CREATE TABLE IF NOT EXISTS avenir_journal.schema_migrations (
			version     integer PRIMARY KEY,
			name        text NOT NULL,
			applied_at  timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
		return fmt.Errorf("creating avenir_journal.schema_migrations: %w", err)
	}
	var current int
	if err := conn.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM avenir_journal.schema_migrations").Scan(&current); err != nil {
		return fmt.Errorf("reading the avenir_journal schema's version: %w", err)
	}
	if current > len(ms) {
		return fmt.Errorf("the database's avenir_journal schema is %w (version %d; this avenir knows %d at most): run a newer avenir; the schema was left untouched",
			journal.ErrNewerSchema, current, len(ms))
	}
	for _, m := range ms[current:] {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO avenir_journal.schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name)
			return err
		})
		if err != nil {
			return fmt.Errorf("applying avenir_journal migration %d (%s): %w", m.version, m.name, err)
		}
	}
	return nil
}

// errNoPerson is what a journal For a person id below 1 answers to everything: such an id is
// a bug in the caller (an unset id), and must not become a journal shared by every such caller.
var errNoPerson = errors.New("the journal was opened for no person (person ids start at 1)")
