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
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/avenir-mcp/avenir/internal/pgmigrate"
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
func (js *Journals) Ready(ctx context.Context) error { return journalSchema.Migrated(ctx, js.pool) }

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

var journalSchema = pgmigrate.Schema{Name: "avenir_journal", Files: journalMigrationFiles, Dir: "journal_migrations"}

// JournalSchemaVersion is the version of the avenir_journal schema this avenir knows.
func JournalSchemaVersion() int { return journalSchema.Version() }

// MigrateJournal brings the database's avenir_journal schema to this avenir's version (see
// internal/pgmigrate): instances starting together migrate once; a newer schema is refused.
func MigrateJournal(ctx context.Context, pool *pgxpool.Pool) error {
	err := journalSchema.Migrate(ctx, pool)
	if newer := (*pgmigrate.NewerError)(nil); errors.As(err, &newer) {
		return fmt.Errorf("%w: %v", journal.ErrNewerSchema, err)
	}
	return err
}

// errNoPerson is what a journal For a person id below 1 answers to everything: such an id is
// a bug in the caller (an unset id), and must not become a journal shared by every such caller.
var errNoPerson = errors.New("the journal was opened for no person (person ids start at 1)")
