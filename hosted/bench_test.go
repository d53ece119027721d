package hosted_test

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/hosted/hostedtest"
)

// TestHostedThroughput measures confirmed writes through 1, 2 and 4 avenir hosted instances on
// one PostgreSQL: each of four people moves money (preview, then the code) through every
// instance at once, for a while. It reports writes per second and the latency of one confirmed
// write (both calls) at p50 and p99, and checks that every person's money is conserved. It is a
// measurement, not a test of speed: it runs only with AVENIR_HOSTED_BENCH=1 (BENCHMARKS.md says
// what it measured and on what machine).
func TestHostedThroughput(t *testing.T) {
	if os.Getenv("AVENIR_HOSTED_BENCH") != "1" {
		t.Skip("set AVENIR_HOSTED_BENCH=1 to measure avenir hosted's confirmed writes")
	}
	const people = 4
	run := 8 * time.Second
	for _, instances := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("%d instance(s)", instances), func(t *testing.T) {
			e := hostedtest.New(t)
			e.Budget = 1_000_000 // the measure is avenir's, not YNAB's 200 requests an hour
			var ins []*hostedtest.Instance
			for range instances {
				ins = append(ins, e.Start())
			}
			var mu sync.Mutex
			var took []time.Duration
			var wg sync.WaitGroup
			before := map[string]int64{}
			deadline := time.Now().Add(run)
			for p := range people {
				login := fmt.Sprintf("person%d", p)
				access, _ := e.SignIn(login)
				before[login] = e.Assigned(login, "Tennis") + e.Assigned(login, "Restaurants")
				for _, in := range ins {
					cl := e.Connect(in, access, "", false)
					wg.Add(1)
					go func() {
						defer wg.Done()
						for time.Now().Before(deadline) {
							start := time.Now()
							if hostedtest.ConfirmedMove(cl.CS) {
								mu.Lock()
								took = append(took, time.Since(start))
								mu.Unlock()
							}
						}
					}()
				}
			}
			wg.Wait()
			for login, sum := range before {
				if got := e.Assigned(login, "Tennis") + e.Assigned(login, "Restaurants"); got != sum {
					t.Fatalf("%s: Tennis and Restaurants hold %d, %d before: money is not conserved", login, got, sum)
				}
			}
			if len(took) == 0 {
				t.Fatal("no write was applied")
			}
			slices.Sort(took)
			p := func(q float64) time.Duration { return took[int(q*float64(len(took)-1))] }
			t.Logf("%d instance(s), %d people: %d confirmed writes in %s = %.1f/s; p50 %s, p99 %s",
				instances, people, len(took), run, float64(len(took))/run.Seconds(), p(0.50).Round(time.Millisecond), p(0.99).Round(time.Millisecond))
		})
	}
}
