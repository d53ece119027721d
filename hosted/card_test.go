package hosted_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/hosted"
	"github.com/avenir-mcp/avenir/hosted/hostedtest"
)

// The card not drawn (confirmation.md §2.4.6) in avenir hosted, across two instances sharing one
// confirmation store and one clock (confirm's, faked): what one instance issued, the other
// counts — the first pending answer's time, and whether a card was opened.

// hostedClock is the confirm clock the instances of a test share.
type hostedClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *hostedClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *hostedClock) advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// startConfirming starts one more instance with confirm's clock and
// AVENIR_MCP_REQUIRE_ELICITATION set as given.
func startConfirming(e *hostedtest.Env, clock func() time.Time, require bool) *hostedtest.Instance {
	return e.StartWith(func(cfg *hosted.Config) {
		cfg.Confirm.Clock, cfg.Confirm.RequireElicitation = clock, require
	})
}

type hostedPending struct {
	Status       string `json:"status"`
	Confirmation string `json:"confirmation"`
	Card         *struct {
		Handle string `json:"handle"`
	} `json:"card"`
}

func TestHostedCardNotDrawn(t *testing.T) {
	for _, require := range []bool{false, true} {
		name := "codes"
		if require {
			name = "REQUIRE_ELICITATION"
		}
		t.Run(name, func(t *testing.T) {
			e := hostedtest.New(t)
			clock := &hostedClock{now: time.Now()}
			a, b := startConfirming(e, clock.Now, require), startConfirming(e, clock.Now, require)
			alice, _ := e.SignIn("alice")
			bob, _ := e.SignIn("bob")
			// Both protocol eras: capabilities in each request (2026-07-28, served statelessly) on
			// A, declared at initialize (a 2025-06-18 session) on B.
			onA, onB := e.Connect(a, alice, "", true), e.Connect(b, alice, "2025-06-18", true)
			restaurants := e.Assigned("alice", "Restaurants")

			pending := func(c *hostedtest.Client, args map[string]any) string {
				t.Helper()
				var p hostedPending
				c.OK("move_money", args, &p)
				if p.Status != "confirmation_pending" || p.Card == nil || p.Card.Handle == "" || p.Confirmation != "" {
					t.Fatalf("want pending on a card, no code: %+v", p)
				}
				return p.Card.Handle
			}

			// Not drawn: asked through A, asked again through B 10 s later.
			first := pending(onA, hostedtest.Move("1"))
			clock.advance(5 * time.Second)
			second := pending(onB, hostedtest.Move("1")) // sooner: a new card, the first superseded
			var view confirm.CardView
			onA.OK("open_confirmation", map[string]any{"handle": first}, &view)
			if view.State != confirm.CardSuperseded || view.Token != "" {
				t.Fatalf("the first card, through A after B's repeat: %+v; want superseded", view)
			}
			clock.advance(5 * time.Second)
			res := onB.Call("move_money", hostedtest.Move("1"))
			if require {
				if !res.IsError || !strings.Contains(hostedtest.ResultText(res), "did not show it") {
					t.Fatalf("under REQUIRE_ELICITATION: %s; want an error saying the card was not shown", hostedtest.ResultText(res))
				}
			} else {
				var p hostedPending
				hostedtest.Remarshal(t, res.StructuredContent, &p)
				if res.IsError || p.Status != "confirmation_required" || p.Confirmation == "" {
					t.Fatalf("the repeat 10 s after the first card, none drawn: %s; want a code", hostedtest.ResultText(res))
				}
				var done hostedtest.Write
				onA.OK("move_money", hostedtest.WithCode(hostedtest.Move("1"), p.Confirmation), &done)
				if done.Status != "applied" {
					t.Fatalf("the code through the other instance: %+v", done)
				}
				var list struct {
					Operations []struct {
						ID           string `json:"id"`
						ConfirmedVia string `json:"confirmed_via"`
					} `json:"operations"`
				}
				onB.OK("list_operations", map[string]any{}, &list)
				if len(list.Operations) != 1 || list.Operations[0].ID != done.OperationID || list.Operations[0].ConfirmedVia != string(confirm.ModeCode) {
					t.Fatalf("alice's journal: %+v; want the move, confirmed by code", list.Operations)
				}
				restaurants += 1000
			}
			onB.OK("open_confirmation", map[string]any{"handle": second}, &view)
			if view.State != confirm.CardSuperseded {
				t.Fatalf("the second card after the fallback: %+v; want superseded", view)
			}

			// Drawn: a card opened through B; asked again through A long after, it is a new
			// card, never a code; bob, signed in too, does not know alice's handle.
			h := pending(onA, hostedtest.Move("2"))
			onB.OK("open_confirmation", map[string]any{"handle": h}, &view)
			if view.State != confirm.CardPending || view.Token == "" {
				t.Fatalf("alice's card opened through B: %+v", view)
			}
			bobOnA := e.Connect(a, bob, "", false)
			if res := bobOnA.Call("open_confirmation", map[string]any{"handle": h}); !res.IsError || !strings.Contains(hostedtest.ResultText(res), "unknown card") {
				t.Fatalf("bob opened alice's card: %s", hostedtest.ResultText(res))
			}
			if res := bobOnA.Call("answer_confirmation", map[string]any{"token": view.Token, "answer": "accept", "version": 2}); !res.IsError {
				t.Fatalf("bob answered alice's card: %s", hostedtest.ResultText(res))
			}
			clock.advance(time.Minute)
			again := pending(onA, hostedtest.Move("2"))
			if again == h {
				t.Fatal("the repeat got the same handle")
			}
			if got := e.Assigned("alice", "Restaurants"); got != restaurants {
				t.Fatalf("alice's Restaurants holds %d, want %d", got, restaurants)
			}
		})
	}
}
