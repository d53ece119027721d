// Package pgmigrate brings one PostgreSQL schema of avenir to the version this avenir knows.
// Each part of avenir hosted that keeps tables (auth, the confirmation store, the journal) has
// its own schema with its own schema_migrations table, so that each migrates beside the others
// without clashing, from its own embedded files named NNNN_name.sql, applied in order, each
// once, each in a transaction of its own. A migration once released is never edited; a change
// is a new file.
package pgmigrate

import (
	"context"
	"fmt"
	"hash/fnv"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Schema is one schema's migrations: Files holds Dir/NNNN_name.sql.
type Schema struct {
	Name  string // the PostgreSQL schema, e.g. "auth"
	Files fs.FS
	Dir   string
}

type migration struct {
	version int
	name    string
	sql     string
}

func (s Schema) migrations() ([]migration, error) {
	entries, err := fs.ReadDir(s.Files, s.Dir)
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		num, name, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 || len(num) != 4 || !strings.HasSuffix(e.Name(), ".sql") {
			return nil, fmt.Errorf("%s migration file %s is not named NNNN_name.sql", s.Name, e.Name())
		}
		b, err := fs.ReadFile(s.Files, path.Join(s.Dir, e.Name()))
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{v, name, string(b)})
	}
	slices.SortFunc(ms, func(a, b migration) int { return a.version - b.version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("%s migrations must be numbered 1, 2, 3… without gaps; found %d where %d belongs", s.Name, m.version, i+1)
		}
	}
	return ms, nil
}

// NewerError is a schema migrated by a newer avenir: it is refused rather than used.
type NewerError struct {
	Schema     string
	Have, Know int
}

func (e *NewerError) Error() string {
	return fmt.Sprintf("the database's %s schema is at version %d, newer than this avenir knows (%d): run a newer avenir", e.Schema, e.Have, e.Know)
}

// Version is the schema's version this avenir knows: how many migrations it has.
func (s Schema) Version() int {
	ms, err := s.migrations()
	if err != nil {
		return 0
	}
	return len(ms)
}

// lockKey is the advisory lock that serialises the schema's migration across instances: a hash
// of its name, so that each schema migrates on its own.
func (s Schema) lockKey() int64 {
	h := fnv.New64a()
	h.Write([]byte("avenir migrate " + s.Name))
	return int64(h.Sum64())
}

// Migrate brings the schema to this avenir's version. Instances starting together are
// serialised by a session advisory lock: one migrates, the others then find nothing to do. A
// schema migrated by a newer avenir is refused rather than used.
func (s Schema) Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	ms, err := s.migrations()
	if err != nil {
		return err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("connecting to the database to migrate %s: %w", s.Name, err)
	}
	defer conn.Release()
	key := s.lockKey()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
		return fmt.Errorf("waiting for the %s migration lock: %w", s.Name, err)
	}
	defer func() {
		// Unlock even when ctx is done; if that fails too, close the connection, which ends the
		// session and so frees its lock.
		uctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, "SELECT pg_advisory_unlock($1)", key); err != nil {
			conn.Conn().Close(uctx)
		}
	}()
	table := pgx.Identifier{s.Name, "schema_migrations"}.Sanitize()
	if _, err := conn.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{s.Name}.Sanitize()+`;
		CREATE TABLE IF NOT EXISTS `+table+` (
			version     integer PRIMARY KEY,
			name        text NOT NULL,
			applied_at  timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
		return fmt.Errorf("creating %s.schema_migrations: %w", s.Name, err)
	}
	var current int
	if err := conn.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM "+table).Scan(&current); err != nil {
		return fmt.Errorf("reading the %s schema's version: %w", s.Name, err)
	}
	if current > len(ms) {
		return &NewerError{Schema: s.Name, Have: current, Know: len(ms)}
	}
	for _, m := range ms[current:] {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO "+table+" (version, name) VALUES ($1, $2)", m.version, m.name)
			return err
		})
		if err != nil {
			return fmt.Errorf("applying %s migration %d (%s): %w", s.Name, m.version, m.name, err)
		}
	}
	return nil
}

// Migrated says whether the database holds this avenir's version of the schema: what /readyz
// asks.
func (s Schema) Migrated(ctx context.Context, pool *pgxpool.Pool) error {
	var v int
	table := pgx.Identifier{s.Name, "schema_migrations"}.Sanitize()
	if err := pool.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM "+table).Scan(&v); err != nil {
		return fmt.Errorf("reading the %s schema's version: %w", s.Name, err)
	}
	if want := s.Version(); v != want {
		return fmt.Errorf("the %s schema is at version %d; this avenir needs %d", s.Name, v, want)
	}
	return nil
}
