//go:build unix

package pg_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/internal/pgtest"
	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/journal/storetest"
)

// BenchmarkWrite is what the journal costs one write of the write path: Prepare, Applied and
// Answered, each a committed transaction; "locked" adds the plan's lock around them, as the
// write path takes it. The journal package's BenchmarkWrite is the same write on bbolt, whose
// commits are fsync'd: "durable" runs this one on a server that flushes its commits to disk
// too (fsync, synchronous_commit and full-page writes on, as a production server has them),
// "unsafe" with pgtest's settings for speed, none of them. The server is local, over loopback:
// a database across a network adds its round trips, about a dozen per write.
func BenchmarkWrite(b *testing.B) {
	c := pgtest.Start(b)
	for _, durable := range []bool{false, true} {
		setting := map[bool]string{true: "on", false: "off"}[durable]
		if durable {
			restartDurable(b, c)
		}
		for _, locked := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/locked=%v", map[bool]string{true: "durable", false: "unsafe"}[durable], locked), func(b *testing.B) {
				dsn, err := c.CreateDatabase()
				if err != nil {
					b.Fatal(err)
				}
				js, pool := openJournals(b, dsn)
				var on string
				if err := pool.QueryRow(context.Background(), "SHOW fsync").Scan(&on); err != nil || on != setting {
					b.Fatalf("fsync is %q (%v), want %s", on, err, setting)
				}
				s := js.For(1)
				d := storetest.Draft("plan-1", "set_category_budget")
				for b.Loop() {
					unlock := func() {}
					if locked {
						if unlock, err = s.LockPlan(context.Background(), d.PlanID, 5*time.Second); err != nil {
							b.Fatal(err)
						}
					}
					op, err := s.Prepare(context.Background(), d)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := s.Applied(context.Background(), op.ID, journal.Outcome{Requests: 1}); err != nil {
						b.Fatal(err)
					}
					if err := s.Answered(context.Background(), op.ID); err != nil {
						b.Fatal(err)
					}
					unlock()
				}
			})
		}
	}
}

// restartDurable restarts c's server with its commits flushed to disk: pgtest starts it with
// fsync, synchronous_commit and full-page writes off on its command line, which no setting made
// later overrides, so the server is restarted with a command line without them.
func restartDurable(b *testing.B, c *pgtest.Cluster) {
	b.Helper()
	_, pool := openJournals(b, c.DSN("postgres"))
	var data string
	if err := pool.QueryRow(context.Background(), "SHOW data_directory").Scan(&data); err != nil {
		b.Fatal(err)
	}
	pool.Close()
	dir := filepath.Dir(data) // pgtest's folder: the data, the socket, the log
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c max_connections=200", c.Port(), dir)
	cmd := exec.Command(filepath.Join(c.BinDir(), "pg_ctl"), "restart", "--pgdata", data, "--wait", "--mode", "fast",
		"--log", filepath.Join(dir, "server.log"), "-o", opts)
	if os.Geteuid() == 0 { // as pgtest runs it: the server refuses root
		u, err := user.Lookup("postgres")
		if err != nil {
			b.Fatal(err)
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("restarting the server durable: %v\n%s", err, out)
	}
}
