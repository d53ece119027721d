package pgtest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestNewDatabaseIsEmptyAndOwn(t *testing.T) {
	ctx := context.Background()
	a, b := NewDatabase(t), NewDatabase(t)
	if a == b {
		t.Fatalf("two tests got the same database %s", a)
	}
	conn, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatalf("connecting to %s: %v", a, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE t (x int); INSERT INTO t VALUES (41)"); err != nil {
		t.Fatal(err)
	}
	var x int
	if err := conn.QueryRow(ctx, "SELECT x + 1 FROM t").Scan(&x); err != nil || x != 42 {
		t.Fatalf("SELECT = %d, %v; want 42", x, err)
	}
	conn2, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close(ctx)
	var n int
	if err := conn2.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("the second database has %d tables (%v); want an empty one", n, err)
	}
}

func TestStartStopRemovesEverything(t *testing.T) {
	ctx := context.Background()
	c, err := StartCluster()
	if err != nil {
		skipOrFail(t, err)
	}
	dir := c.dir
	// The unix socket is in the cluster's own folder, not in /var/run/postgresql.
	if _, err := os.Stat(filepath.Join(dir, ".s.PGSQL."+strconv.Itoa(c.Port()))); err != nil {
		t.Errorf("no unix socket in the cluster's folder: %v", err)
	}
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	var fsync string
	if err := conn.QueryRow(ctx, "SHOW fsync").Scan(&fsync); err != nil || fsync != "off" {
		t.Errorf("fsync = %q (%v); want off", fsync, err)
	}
	conn.Close(ctx)
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the cluster's folder %s is still there after Stop (%v)", dir, err)
	}
	if conn, err := pgx.Connect(ctx, c.DSN("postgres")); err == nil {
		conn.Close(ctx)
		t.Error("the server still answers after Stop")
	}
}
