package pg_test

import (
	"context"
	"os"
	"testing"

	"github.com/avenir-mcp/avenir/internal/pgtest"
	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/journal/pg"
	"github.com/avenir-mcp/avenir/journal/storetest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// crash is the PostgreSQL journal as storetest's crash tests use it: each child process is an
// instance of its own, with its own pool, writing person 1's journal on a database of the
// test's; after each kill the tables are checked against the events.
var crash = storetest.Crash{
	Target: func(t *testing.T) string { return pgtest.NewDatabase(t) },
	Open: func(ctx context.Context, dsn string) (journal.Store, func(), error) {
		pool, err := pgxpool.New(ctx, dsn)
		if err != nil {
			return nil, nil, err
		}
		js, err := pg.OpenJournal(ctx, pool)
		if err != nil {
			pool.Close()
			return nil, nil, err
		}
		return js.For(1), pool.Close, nil
	},
	Replay: func(t *testing.T, dsn string) map[string]journal.Operation {
		_, pool := openJournals(t, dsn)
		defer pool.Close()
		return checkConsistent(t, pool)[1]
	},
}

// TestMain runs the package's tests on one PostgreSQL cluster (a database each), or plays a
// child's role (an instance to kill) for the crash tests.
func TestMain(m *testing.M) {
	storetest.ChildMain(crash)
	os.Exit(pgtest.Main(m))
}

// TestJournalCrash runs storetest's crash tests against PostgreSQL: instances killed mid-write
// and restarted, and two writers with a reader, on one database.
func TestJournalCrash(t *testing.T) { storetest.RunCrash(t, crash) }
