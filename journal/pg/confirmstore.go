package pg

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/internal/pgmigrate"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ConfirmStore is hosted avenir's confirm.Store: the live codes, sealed states' nonces and
// cards' tokens of every instance, in the table avenir_confirm.tokens, so that a person's
// answer counts whichever instance it reaches. Tokens are known by their hash only. A token is
// used once by a conditional DELETE … RETURNING, which PostgreSQL runs one at a time per row:
// of two instances taking one token at once, one gets the row and the other nothing.
//
// Expiries are the Asker's wall-clock times, and Take compares them with the now the Asker
// passes, not with the database's clock, so one Asker's clock decides both ends of a check and
// the instances' clocks need only agree with each other (NTP). timestamptz keeps microseconds:
// a ticket read back expires up to a microsecond earlier than it was given.
type ConfirmStore struct {
	pool *pgxpool.Pool

	mu    sync.Mutex
	swept time.Time // when this instance last deleted expired rows
}

// confirmTimeout bounds each statement, so that a database that stops answering fails a
// confirmation closed in seconds rather than holding the call until the client gives up.
const confirmTimeout = 10 * time.Second

// confirmSweepEvery is how often an instance deletes expired rows, and confirmSweepBatch how
// many at most at once: rows nobody redeemed would otherwise stay for ever, and a small batch
// that skips rows another instance is deleting keeps the sweep from ever making a Take wait.
const (
	confirmSweepEvery = time.Minute
	confirmSweepBatch = 1000
)

// NewConfirmStore migrates the avenir_confirm schema to this avenir's version (see
// MigrateConfirmStore) and returns the store on pool.
func NewConfirmStore(ctx context.Context, pool *pgxpool.Pool) (*ConfirmStore, error) {
	if err := MigrateConfirmStore(ctx, pool); err != nil {
		return nil, err
	}
	return &ConfirmStore{pool: pool}, nil
}

var _ confirm.Store = (*ConfirmStore)(nil)

func validKind(k confirm.Kind) bool {
	return k == confirm.KindCode || k == confirm.KindState || k == confirm.KindCard
}

// Add records a token; once a minute it first deletes the rows that expired by now.
func (s *ConfirmStore) Add(ctx context.Context, k confirm.Kind, h confirm.TokenHash, t confirm.Ticket, now time.Time) error {
	if !validKind(k) {
		return fmt.Errorf("recording a confirmation token: kind %q is none of code, state, card", k)
	}
	ctx, cancel := context.WithTimeout(ctx, confirmTimeout)
	defer cancel()
	if err := s.sweepIfDue(ctx, now); err != nil {
		return err
	}
	var arguments []byte // NULL for none
	if len(t.Arguments) > 0 {
		arguments = []byte(t.Arguments)
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO avenir_confirm.tokens (hash, kind, tool, fingerprint, args, arguments, expires)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, h[:], string(k), t.Tool, t.Fingerprint, t.Args, arguments, t.Expires)
	if err != nil {
		return fmt.Errorf("recording a confirmation %s in avenir_confirm.tokens: %w", k, err)
	}
	return nil
}

// Take deletes the token's row if it is of kind k and live at now, and returns what it stood
// for. An expired row is left to the sweep.
func (s *ConfirmStore) Take(ctx context.Context, k confirm.Kind, h confirm.TokenHash, now time.Time) (confirm.Ticket, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, confirmTimeout)
	defer cancel()
	var t confirm.Ticket
	var arguments []byte
	err := s.pool.QueryRow(ctx, `DELETE FROM avenir_confirm.tokens
		WHERE hash = $1 AND kind = $2 AND expires > $3
		RETURNING tool, fingerprint, args, arguments, expires`, h[:], string(k), now).
		Scan(&t.Tool, &t.Fingerprint, &t.Args, &arguments, &t.Expires)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return confirm.Ticket{}, false, nil
	case err != nil:
		return confirm.Ticket{}, false, fmt.Errorf("taking a confirmation %s from avenir_confirm.tokens: %w", k, err)
	}
	if arguments != nil {
		t.Arguments = arguments
	}
	return t, true, nil
}

// sweepIfDue deletes expired rows when this instance has not done so for a minute. A failed
// sweep fails the Add: the database that refused it would hardly take the insert.
func (s *ConfirmStore) sweepIfDue(ctx context.Context, now time.Time) error {
	s.mu.Lock()
	due := now.Sub(s.swept) >= confirmSweepEvery
	s.mu.Unlock()
	if !due {
		return nil
	}
	if _, err := s.Sweep(ctx, now); err != nil {
		return err
	}
	s.mu.Lock()
	s.swept = now
	s.mu.Unlock()
	return nil
}

// Sweep deletes up to a batch of the rows that expired by now, skipping rows another instance
// holds, and says how many went. Add calls it once a minute; an operator's job may call it too.
func (s *ConfirmStore) Sweep(ctx context.Context, now time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM avenir_confirm.tokens WHERE hash IN (
		SELECT hash FROM avenir_confirm.tokens WHERE expires <= $1
		LIMIT $2 FOR UPDATE SKIP LOCKED)`, now, confirmSweepBatch)
	if err != nil {
		return 0, fmt.Errorf("deleting expired confirmation tokens: %w", err)
	}
	return tag.RowsAffected(), nil
}

// Ready reports whether the database answers and holds this avenir's avenir_confirm schema,
// for /readyz.
func (s *ConfirmStore) Ready(ctx context.Context) error { return confirmSchema.Migrated(ctx, s.pool) }

// The avenir_confirm schema's migrations: confirmstore_migrations/NNNN_name.sql (see
// internal/pgmigrate).
//
//go:embed confirmstore_migrations/*.sql
var confirmMigrationFiles embed.FS

var confirmSchema = pgmigrate.Schema{Name: "avenir_confirm", Files: confirmMigrationFiles, Dir: "confirmstore_migrations"}

// ConfirmStoreSchemaVersion is the version of the avenir_confirm schema this avenir knows.
func ConfirmStoreSchemaVersion() int { return confirmSchema.Version() }

// MigrateConfirmStore brings the database's avenir_confirm schema, with its own
// avenir_confirm.schema_migrations table, to this avenir's version. Instances starting together
// are serialised by an advisory lock: one migrates, the others then find nothing to do. A
// schema migrated by a newer avenir is refused rather than used.
func MigrateConfirmStore(ctx context.Context, pool *pgxpool.Pool) error {
	return confirmSchema.Migrate(ctx, pool)
}
