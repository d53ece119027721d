package auth

import (
	"context"
	"embed"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/avenir-mcp/avenir/internal/pgmigrate"
)

// The schema's migrations: migrations/NNNN_name.sql, applied in order, each once, each in a
// transaction of its own. A migration once released is never edited; a change is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// schema is auth's PostgreSQL schema "auth", with its own auth.schema_migrations table, so that
// other parts of avenir migrate their tables beside it without clashing.
var schema = pgmigrate.Schema{Name: "auth", Files: migrationFiles, Dir: "migrations"}

// SchemaVersion is the version of the auth schema this avenir knows.
func SchemaVersion() int { return schema.Version() }

// Migrate brings the database's auth schema to this avenir's version. Instances starting
// together are serialised by an advisory lock: one migrates, the others then find nothing to
// do. A database migrated by a newer avenir is refused rather than used. [New] calls Migrate;
// /readyz may call [Server.Ready] to know it is done.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error { return schema.Migrate(ctx, pool) }

// migrated reports whether the database holds this avenir's auth schema version.
func migrated(ctx context.Context, pool *pgxpool.Pool) error { return schema.Migrated(ctx, pool) }

var errNotFound = errors.New("not found")

// hashScheme is auth.settings' hash_scheme once credentials' hashes are keyed ([hasher]).
const hashScheme = "hmac-sha256-v1"

// rekey turns the plain SHA-256 hashes an avenir before keyed hashes stored into keyed ones, in
// place and once (under a transaction-scoped advisory lock, so instances starting together do
// it once between them), so that nobody is signed out by the change: every token, code, client
// secret and sign-in in flight keeps working.
func rekey(ctx context.Context, pool *pgxpool.Pool, h *hasher) error {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('avenir auth rekey'))`); err != nil {
			return err
		}
		var scheme string
		err := tx.QueryRow(ctx, `SELECT value FROM auth.settings WHERE name = 'hash_scheme'`).Scan(&scheme)
		switch {
		case err == nil && scheme == hashScheme:
			return nil
		case err == nil:
			return fmt.Errorf("the database's credentials are hashed by scheme %q, which this avenir does not know", scheme)
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		for _, col := range []struct{ table, column string }{
			{"tokens", "token_hash"}, {"codes", "code_hash"}, {"clients", "secret_hash"},
			{"pending_authorizations", "id_hash"}, {"pending_authorizations", "browser_hash"},
			{"pending_authorizations", "ynab_state_hash"}, {"sessions", "session_hash"},
		} {
			rows, err := tx.Query(ctx, `SELECT `+col.column+` FROM auth.`+col.table+` WHERE `+col.column+` IS NOT NULL`)
			if err != nil {
				return err
			}
			old, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
			if err != nil {
				return err
			}
			for _, o := range old {
				if _, err := tx.Exec(ctx, `UPDATE auth.`+col.table+` SET `+col.column+` = $2 WHERE `+col.column+` = $1`, o, h.rekeyed(o)); err != nil {
					return err
				}
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO auth.settings (name, value) VALUES ('hash_scheme', $1)`, hashScheme)
		return err
	})
	if err != nil {
		return fmt.Errorf("keying the stored credentials' hashes: %w", err)
	}
	return nil
}
