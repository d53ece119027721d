package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/hosted/hostedtest"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

// Two avenir servers on one plan, each with two callers moving money at once: one writer per
// plan across processes means no move is lost, so the money is all there at the end, to the
// milliunit, and YNAB holds every move the journal says is applied.
//
// -concurrent.duration sets how long the callers move money; the acceptance run is 30s.

var concurrentDuration = flag.Duration("concurrent.duration", 10*time.Second,
	"how long the concurrent moves run (30s is the acceptance run)")

// concurrentTarget is the category the callers move money into; the sources give it.
const concurrentTarget = "Restaurants"

var concurrentSources = []string{"Tennis", "Uitjes", "Vakantie", "Boodschappen"}

// caller counts what one caller's calls came to.
type caller struct {
	applied, refused, broken int
	messages                 []string
}

func TestConcurrentMovesConserveMoney(t *testing.T) {
	if testing.Short() {
		t.Skip("the concurrency test runs for seconds")
	}
	seed := uint64(time.Now().UnixNano())
	sb, srv := sandboxtest.New(t, sandbox.Options{Now: time.Now})
	env, _ := isolatedEnv(t, "AVENIR_MCP_YNAB_URL="+srv.URL, "YNAB_ACCESS_TOKEN=concurrent-test-token")
	initial, err := sb.Export(sandbox.PlanID)
	if err != nil {
		t.Fatal(err)
	}
	month := currentMonth()
	ids := categoryIDs(initial)
	involved := append([]string{concurrentTarget}, concurrentSources...)

	servers := []*killableServer{startKillable(t, env), startKillable(t, env)}
	callers := make([]caller, 2*len(servers))
	deadline := time.Now().Add(*concurrentDuration)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func(c *caller, s *killableServer, rng *rand.Rand) {
			defer wg.Done()
			for time.Now().Before(deadline) {
				from, to := concurrentSources[rng.IntN(len(concurrentSources))], concurrentTarget
				if rng.IntN(4) == 0 {
					from, to = to, from // and back, sometimes
				}
				res, err := s.call("move_money", map[string]any{"from_category": from, "to_category": to, "month": "current",
					"amount": createsDecimal(int64(1+rng.IntN(500)) * 10)})
				var out struct{ Status string }
				switch {
				case err != nil:
					c.broken++
					c.messages = append(c.messages, err.Error())
				case res.IsError:
					c.refused++
					c.messages = append(c.messages, hostedtest.ResultText(res))
				default:
					if _, err := resultInto(res, &out); err != nil {
						c.broken++
						c.messages = append(c.messages, err.Error())
					} else if out.Status == "applied" {
						c.applied++
					} else {
						c.refused++
						c.messages = append(c.messages, "status "+out.Status)
					}
				}
			}
		}(&callers[i], servers[i%len(servers)], rand.New(rand.NewPCG(seed, uint64(i))))
	}
	wg.Wait()
	for _, s := range servers {
		s.stop()
	}

	final, err := sb.Export(sandbox.PlanID)
	if err != nil {
		t.Fatal(err)
	}
	ops := readJournal(t, env)
	// What the journal says was moved: each applied change's after minus its before.
	journaled := map[string]int64{}
	statuses := map[string]int{}
	for _, op := range ops {
		statuses[op.Status]++
		for _, ch := range op.Changes {
			if ch.Kind != kindMonth || effectiveOutcome(op, ch) != outcomeApplied {
				continue
			}
			var before, after struct{ Budgeted int64 }
			mustDecode(t, ch.Before, &before)
			mustDecode(t, ch.After, &after)
			journaled[ch.ID] += after.Budgeted - before.Budgeted
		}
	}
	var sumBefore, sumAfter int64
	var mismatch []string
	for _, name := range involved {
		k := monthKey(month, ids[name])
		b, okB := readField(initial, k)
		a, okA := readField(final, k)
		nb, errB := strconv.ParseInt(b, 10, 64)
		na, errA := strconv.ParseInt(a, 10, 64)
		if !okB || !okA || errB != nil || errA != nil {
			t.Fatalf("%s's assigned amount: %q (%v, %v) before, %q (%v, %v) after", name, b, okB, errB, a, okA, errA)
		}
		sumBefore, sumAfter = sumBefore+nb, sumAfter+na
		if na-nb != journaled[ids[name]] {
			mismatch = append(mismatch, fmt.Sprintf("%s: YNAB %+d, the journal's applied moves %+d", name, na-nb, journaled[ids[name]]))
		}
	}
	v := (&oracle{initial: initial}).check(ops, final, false)

	var total caller
	for _, c := range callers {
		total.applied, total.refused, total.broken = total.applied+c.applied, total.refused+c.refused, total.broken+c.broken
		total.messages = append(total.messages, c.messages...)
	}
	t.Logf("concurrent moves: %v, 2 servers × 2 callers, seed %d: %d applied, %d refused, %d broken calls; journal %v; "+
		"assigned across %s: %d before, %d after (%+d milliunits); %d categories where YNAB and the journal differ; %d disagreements",
		*concurrentDuration, seed, total.applied, total.refused, total.broken, statuses, strings.Join(involved, ", "),
		sumBefore, sumAfter, sumAfter-sumBefore, len(mismatch), v.disagreements())
	if total.broken > 0 {
		t.Errorf("%d calls broke the session: %s", total.broken, distinct(total.messages, 3))
	}
	if total.applied == 0 {
		t.Fatalf("no move was applied: %s", distinct(total.messages, 5))
	}
	if sumAfter != sumBefore {
		t.Errorf("money appeared or vanished: %s had %d milliunits assigned in %s, now %d (%+d)",
			strings.Join(involved, ", "), sumBefore, month, sumAfter, sumAfter-sumBefore)
	}
	if len(mismatch) > 0 {
		t.Errorf("YNAB's change per category is not the sum of the journal's applied moves:\n  %s", strings.Join(mismatch, "\n  "))
	}
	if v.disagreements() > 0 {
		t.Errorf("the journal disagrees with YNAB: %s", v.report(5))
	}
	if total.refused > 0 {
		t.Logf("refusals: %s", distinct(total.messages, 5))
	}
}

// distinct lists up to n distinct messages, most frequent first.
func distinct(msgs []string, n int) string {
	count := map[string]int{}
	for _, m := range msgs {
		count[m]++
	}
	keys := make([]string, 0, len(count))
	for m := range count {
		keys = append(keys, m)
	}
	sort.Slice(keys, func(i, j int) bool { return count[keys[i]] > count[keys[j]] })
	if len(keys) > n {
		keys = keys[:n]
	}
	for i, k := range keys {
		keys[i] = fmt.Sprintf("%d× %q", count[k], k)
	}
	return strings.Join(keys, "; ")
}
