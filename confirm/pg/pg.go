// Package pg keeps hosted avenir's confirmation tokens in PostgreSQL (through pgx): the live
// codes, sealed states' nonces and cards' tokens of every instance, in the table
// avenir_confirm.tokens, and the records of cards' handles and of the changes asked on cards, in
// avenir_confirm.records (replaced only by a compare-and-swap on their data), so that a person's answer counts whichever instance it reaches. For
// gives one person's confirm.Store, as journal/pg's Journals.For gives their journal.
//
// The schema avenir_confirm has its own schema_migrations table (internal/pgmigrate); Open
// migrates it at start, under an advisory lock so that instances starting together migrate
// once, and refuses a schema a newer avenir migrated.
//
// Tokens are known by their hash only, hashed again with their person (For). A token is used
// once by a conditional DELETE … RETURNING, which PostgreSQL runs one at a time per row: of two
// instances taking one token at once, one gets the row and the other nothing.
//
// Expiries are the Asker's wall-clock times, and Take compares them with the now the Asker
// passes, not with the database's clock, so one Asker's clock decides both ends of a check and
// the instances' clocks need only agree with each other (NTP). timestamptz keeps microseconds:
// a ticket read back expires up to a microsecond earlier than it was given.
package pg

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/internal/pgmigrate"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Confirmations is the confirmation store every instance of avenir hosted shares: one
// instance's view of it, safe for concurrent use; make one per process.
type Confirmations struct {
	pool *pgxpool.Pool

	mu    sync.Mutex
	swept time.Time // when this instance last deleted expired rows
}

// timeout bounds each statement, so that a database that stops answering fails a confirmation
// closed in seconds rather than holding the call until the client gives up.
const timeout = 10 * time.Second

// sweepEvery is how often an instance deletes expired rows, and sweepBatch how many at most at
// once: rows nobody redeemed would otherwise stay for ever, and a small batch that skips rows
// another instance is deleting keeps the sweep from ever making a Take wait.
const (
	sweepEvery = time.Minute
	sweepBatch = 1000
)

// Open migrates the avenir_confirm schema to this avenir's version (see Migrate) and returns
// the store on pool.
func Open(ctx context.Context, pool *pgxpool.Pool) (*Confirmations, error) {
	if err := Migrate(ctx, pool); err != nil {
		return nil, err
	}
	return &Confirmations{pool: pool}, nil
}

// For returns the confirmation store of person (an id of the people table, 1 or more), for
// that person's Asker. Every token's hash is hashed again with the person's id before it
// reaches the table, so a code, card token or state that one person was given is unknown to
// everyone else's Asker, even where their plan ids and the change are the same (two people's
// sandbox copies are). A person below 1 is a bug in the caller (an unset id): its store fails
// every call, so nothing is issued or confirmed under an id that many callers could share.
func (c *Confirmations) For(person int64) confirm.Store {
	return personStore{c: c, person: person}
}

// personStore is the shared table as one person's Asker sees it.
type personStore struct {
	c      *Confirmations
	person int64
}

var _ confirm.Store = personStore{}

// errNoPerson is what a store For a person id below 1 answers.
var errNoPerson = errors.New("the confirmation store was opened for no person (person ids start at 1)")

// scoped is the hash a person's token is kept under. Its words are those avenir hosted has
// always used, so that an instance of this version redeems what an older one issued during a
// rolling upgrade.
func (s personStore) scoped(h confirm.TokenHash) confirm.TokenHash {
	d := sha256.New()
	d.Write([]byte("avenir/hosted/person\x00"))
	var id [8]byte
	binary.BigEndian.PutUint64(id[:], uint64(s.person))
	d.Write(id[:])
	d.Write(h[:])
	var out confirm.TokenHash
	d.Sum(out[:0])
	return out
}

func validKind(k confirm.Kind) bool {
	return k == confirm.KindCode || k == confirm.KindState || k == confirm.KindCard
}

// Add records a token; once a minute it first deletes the rows that expired by now.
func (s personStore) Add(ctx context.Context, k confirm.Kind, h confirm.TokenHash, t confirm.Ticket, now time.Time) error {
	if s.person < 1 {
		return errNoPerson
	}
	if !validKind(k) {
		return fmt.Errorf("recording a confirmation token: kind %q is none of code, state, card", k)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := s.c.sweepIfDue(ctx, now); err != nil {
		return err
	}
	var arguments []byte // NULL for none
	if len(t.Arguments) > 0 {
		arguments = []byte(t.Arguments)
	}
	var handle []byte // NULL for none; the handle's hash before the person's scope, as the Asker gave it
	if t.Handle != (confirm.TokenHash{}) {
		handle = t.Handle[:]
	}
	key := s.scoped(h)
	_, err := s.c.pool.Exec(ctx, `INSERT INTO avenir_confirm.tokens (hash, kind, tool, fingerprint, args, arguments, handle, expires)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, key[:], string(k), t.Tool, t.Fingerprint, t.Args, arguments, handle, t.Expires)
	if err != nil {
		return fmt.Errorf("recording a confirmation %s in avenir_confirm.tokens: %w", k, err)
	}
	return nil
}

// Take deletes the token's row if it is of kind k and live at now, and returns what it stood
// for. An expired row is left to the sweep.
func (s personStore) Take(ctx context.Context, k confirm.Kind, h confirm.TokenHash, now time.Time) (confirm.Ticket, bool, error) {
	if s.person < 1 {
		return confirm.Ticket{}, false, errNoPerson
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var t confirm.Ticket
	var arguments, handle []byte
	key := s.scoped(h)
	err := s.c.pool.QueryRow(ctx, `DELETE FROM avenir_confirm.tokens
		WHERE hash = $1 AND kind = $2 AND expires > $3
		RETURNING tool, fingerprint, args, arguments, handle, expires`, key[:], string(k), now).
		Scan(&t.Tool, &t.Fingerprint, &t.Args, &arguments, &handle, &t.Expires)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return confirm.Ticket{}, false, nil
	case err != nil:
		return confirm.Ticket{}, false, fmt.Errorf("taking a confirmation %s from avenir_confirm.tokens: %w", k, err)
	}
	if arguments != nil {
		t.Arguments = arguments
	}
	if len(handle) == len(t.Handle) {
		copy(t.Handle[:], handle)
	}
	return t, true, nil
}

func validRecordKind(k confirm.Kind) bool { return k == confirm.KindHandle || k == confirm.KindChange }

// Load returns the person's record of kind k hashed as h if it is live at now.
func (s personStore) Load(ctx context.Context, k confirm.Kind, h confirm.TokenHash, now time.Time) (confirm.Record, bool, error) {
	if s.person < 1 {
		return confirm.Record{}, false, errNoPerson
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var r confirm.Record
	key := s.scoped(h)
	err := s.c.pool.QueryRow(ctx, `SELECT data, expires FROM avenir_confirm.records
		WHERE hash = $1 AND kind = $2 AND expires > $3`, key[:], string(k), now).Scan(&r.Data, &r.Expires)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return confirm.Record{}, false, nil
	case err != nil:
		return confirm.Record{}, false, fmt.Errorf("loading a confirmation %s from avenir_confirm.records: %w", k, err)
	}
	return r, true, nil
}

// Swap puts r as the person's record if it holds old at now (old nil: none, or an expired one),
// in one statement: an UPDATE conditional on the data, or an INSERT that a live row refuses.
func (s personStore) Swap(ctx context.Context, k confirm.Kind, h confirm.TokenHash, old []byte, r confirm.Record, now time.Time) (bool, error) {
	if s.person < 1 {
		return false, errNoPerson
	}
	if !validRecordKind(k) {
		return false, fmt.Errorf("storing a confirmation record: kind %q is none of handle, change", k)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := s.c.sweepIfDue(ctx, now); err != nil {
		return false, err
	}
	key := s.scoped(h)
	var sql string
	var args []any
	if old == nil {
		sql = `INSERT INTO avenir_confirm.records (hash, kind, data, expires) VALUES ($1, $2, $3, $4)
			ON CONFLICT (hash) DO UPDATE SET kind = EXCLUDED.kind, data = EXCLUDED.data, expires = EXCLUDED.expires
			WHERE avenir_confirm.records.expires <= $5`
		args = []any{key[:], string(k), r.Data, r.Expires, now}
	} else {
		sql = `UPDATE avenir_confirm.records SET data = $3, expires = $4
			WHERE hash = $1 AND kind = $2 AND data = $5 AND expires > $6`
		args = []any{key[:], string(k), r.Data, r.Expires, old, now}
	}
	tag, err := s.c.pool.Exec(ctx, sql, args...)
	if err != nil {
		return false, fmt.Errorf("storing a confirmation %s in avenir_confirm.records: %w", k, err)
	}
	return tag.RowsAffected() == 1, nil
}

// sweepIfDue deletes expired rows when this instance has not done so for a minute. A failed
// sweep fails the Add: the database that refused it would hardly take the insert.
func (c *Confirmations) sweepIfDue(ctx context.Context, now time.Time) error {
	c.mu.Lock()
	due := now.Sub(c.swept) >= sweepEvery
	c.mu.Unlock()
	if !due {
		return nil
	}
	if _, err := c.Sweep(ctx, now); err != nil {
		return err
	}
	c.mu.Lock()
	c.swept = now
	c.mu.Unlock()
	return nil
}

// Sweep deletes up to a batch of the tokens and a batch of the cards' records, of every person, that expired by now, skipping rows
// another instance holds, and says how many went. Add calls it once a minute; avenir hosted's
// sweep calls it too.
func (c *Confirmations) Sweep(ctx context.Context, now time.Time) (int64, error) {
	tag, err := c.pool.Exec(ctx, `DELETE FROM avenir_confirm.tokens WHERE hash IN (
		SELECT hash FROM avenir_confirm.tokens WHERE expires <= $1
		LIMIT $2 FOR UPDATE SKIP LOCKED)`, now, sweepBatch)
	if err != nil {
		return 0, fmt.Errorf("deleting expired confirmation tokens: %w", err)
	}
	records, err := c.pool.Exec(ctx, `DELETE FROM avenir_confirm.records WHERE hash IN (
		SELECT hash FROM avenir_confirm.records WHERE expires <= $1
		LIMIT $2 FOR UPDATE SKIP LOCKED)`, now, sweepBatch)
	if err != nil {
		return 0, fmt.Errorf("deleting expired confirmation records: %w", err)
	}
	return tag.RowsAffected() + records.RowsAffected(), nil
}

// Ready reports whether the database answers and holds this avenir's avenir_confirm schema,
// for /readyz.
func (c *Confirmations) Ready(ctx context.Context) error { return schema.Migrated(ctx, c.pool) }

// The avenir_confirm schema's migrations: migrations/NNNN_name.sql (see internal/pgmigrate).
// The schema_migrations table records each by its number and name, never its folder.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

var schema = pgmigrate.Schema{Name: "avenir_confirm", Files: migrationFiles, Dir: "migrations"}

// SchemaVersion is the version of the avenir_confirm schema this avenir knows.
func SchemaVersion() int { return schema.Version() }

// Migrate brings the database's avenir_confirm schema, with its own
// avenir_confirm.schema_migrations table, to this avenir's version. Instances starting together
// are serialised by an advisory lock: one migrates, the others then find nothing to do. A
// schema migrated by a newer avenir is refused rather than used.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error { return schema.Migrate(ctx, pool) }
