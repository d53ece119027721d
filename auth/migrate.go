package auth

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The schema's migrations: migrations/NNNN_name.sql, applied in order, each once, each in a
// transaction of its own. A migration once released is never edited; a change is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLock is the advisory lock key that serialises Migrate across instances starting
// together ("avenir" "auth" in ASCII, so that no other user of the database picks it by chance).
const migrationLock int64 = 0x6176656e69726175

type migration struct {
	version int
	name    string
	sql     string
}

func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		num, name, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration file %s is not named NNNN_name.sql", e.Name())
		}
		b, err := migrationFiles.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{v, name, string(b)})
	}
	slices.SortFunc(ms, func(a, b migration) int { return a.version - b.version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migrations must be numbered 1, 2, 3… without gaps; %d is followed by %d", i, m.version)
		}
	}
	return ms, nil
}

// SchemaVersion is the version of the auth schema this avenir knows.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil {
		return 0
	}
	return len(ms)
}

// Migrate brings the database's auth schema (PostgreSQL schema "auth", with its own
// auth.schema_migrations table, so that other parts of avenir migrate their tables beside it
// without clashing) to this avenir's version. Instances starting together are serialised by a
// session advisory lock: one migrates, the others then find nothing to do. A database migrated
// by a newer avenir is refused rather than used. [New] calls Migrate; /readyz may call
// [Server.Ready] to know it is done.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("connecting to the database to migrate it: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
		return fmt.Errorf("waiting for the migration lock: %w", err)
	}
	defer func() {
		// Unlock even when ctx is done; if even that fails, drop the connection, which frees
		// the lock.
		uctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, "SELECT pg_advisory_unlock($1)", migrationLock); err != nil {
			conn.Conn().Close(uctx)
		}
	}()

	if _, err := conn.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS auth;
		CREATE TABLE IF NOT EXISTS auth.schema_migrations (
			version     integer PRIMARY KEY,
			name        text NOT NULL,
			applied_at  timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
		return fmt.Errorf("creating auth.schema_migrations: %w", err)
	}
	var current int
	if err := conn.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM auth.schema_migrations").Scan(&current); err != nil {
		return fmt.Errorf("reading the auth schema's version: %w", err)
	}
	if current > len(ms) {
		return fmt.Errorf("the database's auth schema is at version %d, newer than this avenir knows (%d): run a newer avenir", current, len(ms))
	}
	for _, m := range ms[current:] {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO auth.schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name)
			return err
		})
		if err != nil {
			return fmt.Errorf("applying auth migration %d (%s): %w", m.version, m.name, err)
		}
	}
	return nil
}

// migrated reports whether the database holds this avenir's auth schema version.
func migrated(ctx context.Context, pool *pgxpool.Pool) error {
	var v int
	err := pool.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM auth.schema_migrations").Scan(&v)
	if err != nil {
		return fmt.Errorf("reading the auth schema's version: %w", err)
	}
	if want := SchemaVersion(); v != want {
		return fmt.Errorf("the auth schema is at version %d; this avenir needs %d", v, want)
	}
	return nil
}

var errNotFound = errors.New("not found")
