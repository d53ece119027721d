package bolt

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/journal/storetest"
)

// The lock holds between processes: a child that finds the plan locked waits, and takes the
// lock as soon as this process lets go; while the child holds it, this process is refused past
// its wait, and another plan's lock is free.
func TestLockPlanAcrossProcesses(t *testing.T) {
	j, path := openTest(t)
	ctx := context.Background()
	unlock, err := j.LockPlan(ctx, "plan-a", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c := storetest.StartChild(t, "lock", path)
	if got := c.Line(1); got != "waiting" {
		unlock()
		t.Fatalf("the child said %q, want waiting while this process holds the lock (stderr: %s)", got, c.Stderr())
	}
	unlock()
	if got := c.Line(2); got != "locked" {
		t.Fatalf("the child said %q, want locked once the lock was free (stderr: %s)", got, c.Stderr())
	}
	if _, err := j.LockPlan(ctx, "plan-a", 50*time.Millisecond); !errors.Is(err, journal.ErrPlanBusy) {
		t.Errorf("got %v while the child holds the lock, want ErrPlanBusy", err)
	}
	if other, err := j.LockPlan(ctx, "plan-b", 50*time.Millisecond); err != nil {
		t.Errorf("another plan's lock while the child holds plan-a's: %v", err)
	} else {
		other()
	}
	if err := c.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	lines, err := c.Wait()
	if err != nil || lines[len(lines)-1] != "unlocked" {
		t.Fatalf("the child ended with %v, %q (stderr: %s)", err, lines, c.Stderr())
	}
	again, err := j.LockPlan(ctx, "plan-a", 50*time.Millisecond)
	if err != nil {
		t.Fatalf("the lock once the child let go: %v", err)
	}
	again()
}
