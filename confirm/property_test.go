package confirm_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// issuedCode is the model's record of a code the server handed out.
type issuedCode struct {
	args   setArgs // without the code
	issued time.Duration
	spent  bool
}

// TestNoWriteWithoutConsent drives random calls and answers from the four kinds
// of client and checks every outcome against a model of the contract: a write
// happens only for a ticked box or a live, unspent code issued for exactly that
// change, and exactly once for each.
func TestNoWriteWithoutConsent(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0x5eed))
			h := newHarness(t, confirm.Options{})
			u, headless := &user{}, &user{}
			headless.set(cancelAnswer)
			clients := []struct {
				name     string
				cs       *mcp.ClientSession
				elicits  bool
				headless bool
			}{
				{"2026 with elicitation", h.connect(t, v2026, answering(u)), true, false},
				{"2025-06-18 with elicitation", h.connect(t, v0618, answering(u)), true, false},
				{"2025-11-25 without elicitation", h.connect(t, v1125, noElicitation()), false, false},
				{"2026 headless", h.connect(t, v2026, answering(headless)), true, true},
			}
			answers := []*mcp.ElicitResult{accept(true), accept(false), {Action: "accept"}, declineAnswer, cancelAnswer}
			categories := []string{"Restaurants", "Tennis"}
			amounts := []int64{1000, 2000}

			var (
				elapsed time.Duration
				codes   = map[string]*issuedCode{}
				pool    []string // every code ever issued, plus junk
				writes  int
			)
			for step := range 300 {
				if rng.IntN(5) == 0 {
					d := time.Duration(rng.IntN(400)) * time.Second
					h.clock.Advance(d)
					elapsed += d
				}
				c := clients[rng.IntN(len(clients))]
				args := setArgs{Category: categories[rng.IntN(2)], Amount: amounts[rng.IntN(2)]}
				answer := answers[rng.IntN(len(answers))]
				u.set(answer)
				if len(pool) > 0 && rng.IntN(2) == 0 {
					args.Confirmation = pool[rng.IntN(len(pool))]
				} else if rng.IntN(10) == 0 {
					args.Confirmation = "junk-code-1"
				}

				// What the contract says must happen.
				want := "confirmation_required"
				if args.Confirmation != "" {
					want = "refused"
					if ic := codes[args.Confirmation]; ic != nil {
						bare := args
						bare.Confirmation = ""
						if !ic.spent && ic.args == bare && elapsed-ic.issued < 600*time.Second {
							want = "applied"
						}
						ic.spent = true
					}
				} else if c.elicits && !c.headless {
					switch {
					case answer.Action == "accept" && answer.Content["value"] == true:
						want = "applied"
					case answer.Action != "cancel":
						want = "declined"
					}
				}

				res, err := call(t, c.cs, params(toolBudget, args))
				got := "refused"
				if err == nil && !res.IsError {
					out := decode(t)(res, err)
					got = out.Status
					if got == "confirmation_required" {
						bare := args
						bare.Confirmation = ""
						codes[out.Confirmation] = &issuedCode{args: bare, issued: elapsed}
						pool = append(pool, out.Confirmation)
					}
				} else if err == nil && toolText(res) != confirm.ErrCodeRefused.Error() {
					t.Fatalf("step %d: unexpected tool error %q", step, toolText(res))
				} else if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				if got != want {
					t.Fatalf("step %d (%s, %+v, answer %+v): %s, want %s", step, c.name, args, answer, got, want)
				}
				if got == "applied" {
					writes++
				}
				h.wantWrites(t, writes)
			}
			if writes == 0 || len(codes) == 0 {
				t.Fatalf("the walk wrote %d times and issued %d codes: too few to mean anything", writes, len(codes))
			}
		})
	}
}

// TestConcurrentConfirmations runs 50 confirmations at once, by code and by form,
// and checks that each code counts only for its own change.
func TestConcurrentConfirmations(t *testing.T) {
	const n = 50
	h := newHarness(t, confirm.Options{})
	noAsk := h.connect(t, v2026, noElicitation())
	u := &user{}
	u.set(accept(true))
	asking := h.connect(t, v1125, answering(u))
	byCode := func(i int) setArgs { return setArgs{Category: "Restaurants", Amount: int64(i)} }
	byForm := func(i int) setArgs { return setArgs{Category: "Tennis", Amount: int64(i)} }
	status := func(cs *mcp.ClientSession, args setArgs) (outcome, error) {
		return result(cs.CallTool(context.Background(), params(toolBudget, args)))
	}

	// Two codes per change: one to misuse on the neighbour's change, one to use.
	misuse, use := make([]string, n), make([]string, n)
	parallel(n, func(i int) {
		for _, code := range []*string{&misuse[i], &use[i]} {
			out, err := status(noAsk, byCode(i))
			if err != nil || out.Confirmation == "" {
				t.Errorf("change %d: %+v, %v; want a code", i, out, err)
			}
			*code = out.Confirmation
		}
	})
	h.wantWrites(t, 0)

	parallel(n, func(i int) {
		if _, err := status(noAsk, withCode(byCode((i+1)%n), misuse[i])); err == nil || !strings.Contains(err.Error(), confirm.ErrCodeRefused.Error()) {
			t.Errorf("change %d: the code of change %d gave %v, want it refused", (i+1)%n, i, err)
		}
		if out, err := status(noAsk, withCode(byCode(i), use[i])); err != nil || out.Status != "applied" {
			t.Errorf("change %d: %+v, %v with its own code, want applied", i, out, err)
		}
		if out, err := status(asking, byForm(i)); err != nil || out.Status != "applied" {
			t.Errorf("change %d: %+v, %v with a ticked box, want applied", i, out, err)
		}
	})

	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("%s cat-rest %d", toolBudget, i), fmt.Sprintf("%s cat-tennis %d", toolBudget, i))
	}
	got := h.plan.Writes()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("writes %q, want each change exactly once: %q", got, want)
	}
}

// parallel runs f(0) … f(n-1) at once and waits for them all.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { f(i) })
	}
	wg.Wait()
}
