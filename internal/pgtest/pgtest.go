// Package pgtest starts a throwaway PostgreSQL server for tests: Debian's binaries
// (/usr/lib/postgresql/N/bin, from `apt-get install postgresql`), a cluster made by initdb in a
// temporary folder, listening on a unix socket in that folder and on a random loopback port, with
// durability switched off for speed (fsync, synchronous_commit and full-page writes). It is
// stopped and removed when the test (or, with [Main], the test binary) ends.
//
// When the binaries are absent, tests that ask for a database are skipped with a message saying
// how to install them — except under CI (the CI environment variable set), where .ci/run installs
// them and a missing server is a failure, so that the PostgreSQL tests cannot silently not run.
//
// A package whose tests all want PostgreSQL starts one cluster for the whole binary and gives
// each test a database of its own:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		dsn := pgtest.NewDatabase(t) // an empty database, dropped with the cluster
//		...
//	}
//
// Without Main, NewDatabase starts a cluster for the one test (slower: initdb takes a second or
// two). [Start] gives a test its own cluster, for a test that stops or restarts the server.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Cluster is a running throwaway PostgreSQL server. Its superuser is "postgres", trusted
// without a password, and it is reachable only from this machine.
type Cluster struct {
	bin     string // the folder of initdb, pg_ctl, psql, pg_dump
	dir     string // the temporary folder: data/, the socket, the log
	port    int
	cred    *credential // the postgres user, when the tests run as root
	mu      sync.Mutex
	stopped bool
}

// ErrNoPostgres says the PostgreSQL server binaries are not installed.
var ErrNoPostgres = errors.New("PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin " +
	"(install them with: apt-get update && apt-get install -y postgresql)")

// BinDir returns the folder holding Debian's PostgreSQL server binaries (the newest version when
// several are installed), or ErrNoPostgres.
func BinDir() (string, error) {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		return "", ErrNoPostgres
	}
	// Newest major version first: the folder names are numbers (15, 16, 17…).
	slices.SortFunc(matches, func(a, b string) int {
		return majorOf(b) - majorOf(a)
	})
	return filepath.Dir(matches[0]), nil
}

func majorOf(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

// Start starts a cluster of the test's own and stops and removes it when the test ends. The
// test is skipped (failed under CI) when PostgreSQL is not installed.
func Start(tb testing.TB) *Cluster {
	tb.Helper()
	c, err := StartCluster()
	if err != nil {
		skipOrFail(tb, err)
	}
	tb.Cleanup(func() {
		if err := c.Stop(); err != nil {
			tb.Errorf("stopping the test PostgreSQL: %v", err)
		}
	})
	return c
}

func skipOrFail(tb testing.TB, err error) {
	tb.Helper()
	if errors.Is(err, ErrNoPostgres) && os.Getenv("CI") == "" {
		tb.Skipf("skipping: %v", err)
	}
	tb.Fatalf("starting a test PostgreSQL: %v", err)
}

// StartCluster starts a cluster; the caller must Stop it. Most tests want [Start] or
// [NewDatabase] instead.
func StartCluster() (*Cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	c := &Cluster{bin: bin}
	if os.Geteuid() == 0 {
		// initdb and postgres refuse to run as root; Debian's package makes a postgres user.
		if c.cred, err = postgresUser(); err != nil {
			return nil, err
		}
	}
	// Not tb.TempDir: its parents are private to root, and the server may run as postgres.
	if c.dir, err = os.MkdirTemp("", "pgtest-"); err != nil {
		return nil, fmt.Errorf("making the cluster's folder: %w", err)
	}
	if c.cred != nil {
		if err := chown(c.dir, c.cred); err != nil {
			os.RemoveAll(c.dir)
			return nil, fmt.Errorf("giving %s to the postgres user: %w", c.dir, err)
		}
	}
	if err := c.run("initdb", "--pgdata", c.data(), "--username", "postgres", "--auth", "trust",
		"--encoding", "UTF8", "--locale", "C", "--no-sync"); err != nil {
		os.RemoveAll(c.dir)
		return nil, err
	}
	// A free port can be taken by someone else between the probe and the server's bind: try a
	// few.
	for attempt := 0; ; attempt++ {
		if c.port, err = freePort(); err != nil {
			break
		}
		if err = c.start(); err == nil {
			return c, nil
		}
		if attempt == 2 {
			break
		}
	}
	os.RemoveAll(c.dir)
	return nil, err
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

func (c *Cluster) start() error {
	opts := strings.Join([]string{
		"-c listen_addresses=127.0.0.1",
		"-p " + strconv.Itoa(c.port),
		"-k " + c.dir, // the unix socket lives beside the data, nowhere shared
		"-c fsync=off",
		"-c synchronous_commit=off",
		"-c full_page_writes=off",
		"-c max_connections=200",
	}, " ")
	return c.run("pg_ctl", "start", "--pgdata", c.data(), "--wait", "--timeout", "60",
		"--log", filepath.Join(c.dir, "server.log"), "-o", opts)
}

// run runs one of the cluster's binaries (as the postgres user when we are root), returning its
// output in the error when it fails.
func (c *Cluster) run(name string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, name), args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if c.cred != nil {
		runAs(cmd, c.cred)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if name == "pg_ctl" {
			if log, _ := os.ReadFile(filepath.Join(c.dir, "server.log")); len(log) > 0 {
				msg += "\nserver log:\n" + tail(string(log), 2000)
			}
		}
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, msg)
	}
	return nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// Port is the loopback TCP port the server listens on.
func (c *Cluster) Port() int { return c.port }

// BinDir is the folder of the server's binaries (pg_dump, psql, …), for tests that run them.
func (c *Cluster) BinDir() string { return c.bin }

// DSN is the connection URL of database db as the superuser.
func (c *Cluster) DSN(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// CreateDatabase creates an empty database with a fresh random name and returns its DSN.
func (c *Cluster) CreateDatabase() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	name := "t_" + hex.EncodeToString(b[:])
	if err := c.run("createdb", "--host", "127.0.0.1", "--port", strconv.Itoa(c.port),
		"--username", "postgres", name); err != nil {
		return "", err
	}
	return c.DSN(name), nil
}

// Pause stops the server and keeps its data, as a database that goes down does; Resume starts it
// again on the same port.
func (c *Cluster) Pause() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.run("pg_ctl", "stop", "--pgdata", c.data(), "--mode", "fast", "--wait")
}

// Resume starts a paused server again.
func (c *Cluster) Resume() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.start()
}

// Stop stops the server at once (its data is thrown away, so nothing needs flushing) and removes
// its folder. Stopping twice does nothing.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return nil
	}
	c.stopped = true
	err := c.run("pg_ctl", "stop", "--pgdata", c.data(), "--mode", "immediate", "--wait")
	if rerr := os.RemoveAll(c.dir); rerr != nil && err == nil {
		err = fmt.Errorf("removing %s: %w", c.dir, rerr)
	}
	return err
}

var shared struct {
	mu      sync.Mutex
	inMain  bool
	cluster *Cluster
	err     error
}

// Main runs the package's tests with one cluster shared by every [NewDatabase] (started at the
// first call, so a run of tests that need none starts nothing) and stops it afterwards. Use it
// from TestMain: os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	shared.mu.Lock()
	shared.inMain = true
	shared.mu.Unlock()
	code := m.Run()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.cluster != nil {
		if err := shared.cluster.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: stopping the shared PostgreSQL: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// Shared returns the cluster that [Main] keeps for the package's tests (starting it on first
// use), or, without Main, a cluster of the test's own. The test is skipped (failed under CI) when
// PostgreSQL is not installed.
func Shared(tb testing.TB) *Cluster {
	tb.Helper()
	shared.mu.Lock()
	if !shared.inMain {
		shared.mu.Unlock()
		return Start(tb)
	}
	if shared.cluster == nil && shared.err == nil {
		shared.cluster, shared.err = StartCluster()
	}
	c, err := shared.cluster, shared.err
	shared.mu.Unlock()
	if err != nil {
		skipOrFail(tb, err)
	}
	return c
}

// NewDatabase returns the DSN of an empty database of the test's own (see [Shared] for where
// its server runs).
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	dsn, err := Shared(tb).CreateDatabase()
	if err != nil {
		tb.Fatalf("creating a test database: %v", err)
	}
	return dsn
}
