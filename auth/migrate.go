package auth

import (
	"context"
	"embed"
	"errors"

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
