package pgmigrate_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/avenir-mcp/avenir/internal/pgmigrate"
	"github.com/avenir-mcp/avenir/internal/pgtest"
)

func schema(name string, files map[string]string) pgmigrate.Schema {
	fs := fstest.MapFS{}
	for n, sql := range files {
		fs["m/"+n] = &fstest.MapFile{Data: []byte(sql)}
	}
	return pgmigrate.Schema{Name: name, Files: fs, Dir: "m"}
}

// Instances starting together, each migrating two schemas (as auth, the confirmation store and
// the journal do in one database), apply each migration once; a schema a newer avenir migrated
// is refused, and Migrated says it is not this avenir's.
func TestMigrate(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	a := schema("avenir_a", map[string]string{
		"0001_things.sql": "CREATE TABLE avenir_a.things (id bigint PRIMARY KEY)",
		"0002_name.sql":   "ALTER TABLE avenir_a.things ADD COLUMN name text NOT NULL DEFAULT ''",
	})
	b := schema("avenir_b", map[string]string{"0001_others.sql": "CREATE TABLE avenir_b.others (id bigint PRIMARY KEY)"})
	errs := make([]error, 6)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			pool, err := pgxpool.New(ctx, dsn)
			if err != nil {
				errs[i] = err
				return
			}
			defer pool.Close()
			first, second := a, b
			if i%2 == 1 {
				first, second = b, a
			}
			if errs[i] = first.Migrate(ctx, pool); errs[i] == nil {
				errs[i] = second.Migrate(ctx, pool)
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for _, s := range []pgmigrate.Schema{a, b} {
		var n, top int
		if err := pool.QueryRow(ctx, "SELECT count(*), max(version) FROM "+s.Name+".schema_migrations").Scan(&n, &top); err != nil {
			t.Fatal(err)
		}
		if want := s.Version(); n != want || top != want {
			t.Fatalf("%s.schema_migrations has %d rows up to %d; want %d", s.Name, n, top, want)
		}
		if err := s.Migrated(ctx, pool); err != nil {
			t.Fatalf("%s: Migrated: %v", s.Name, err)
		}
	}
	if _, err := pool.Exec(ctx, "INSERT INTO avenir_a.things (id, name) VALUES (1, 'x')"); err != nil {
		t.Fatalf("the migrated table: %v", err)
	}

	if _, err := pool.Exec(ctx, "INSERT INTO avenir_a.schema_migrations (version, name) VALUES (999, 'future')"); err != nil {
		t.Fatal(err)
	}
	var newer *pgmigrate.NewerError
	if err := a.Migrate(ctx, pool); !errors.As(err, &newer) || newer.Have != 999 || newer.Know != 2 || !strings.Contains(err.Error(), "newer avenir") {
		t.Fatalf("a newer schema: %v; want it refused as newer", err)
	}
	if err := a.Migrated(ctx, pool); err == nil {
		t.Fatal("Migrated passed on a schema of another version")
	}
	if err := b.Migrated(ctx, pool); err != nil {
		t.Fatalf("the other schema: %v", err)
	}
}

// Files not named NNNN_name.sql, or numbered with a gap, are refused before the database is
// asked.
func TestMigrationFilesRefused(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"no number":    {"things.sql": "SELECT 1"},
		"short number": {"1_things.sql": "SELECT 1"},
		"a gap":        {"0001_a.sql": "SELECT 1", "0003_c.sql": "SELECT 1"},
	} {
		s := schema("avenir_bad", files)
		if v := s.Version(); v != 0 {
			t.Errorf("%s: Version = %d, want 0 (unreadable)", name, v)
		}
		if err := s.Migrate(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "avenir_bad") {
			t.Errorf("%s: Migrate = %v; want the files refused, naming the schema", name, err)
		}
	}
}
