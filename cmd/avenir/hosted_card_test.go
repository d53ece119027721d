package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/confirm"
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

// startConfirming starts one more instance as start does, with confirm's clock and
// AVENIR_MCP_REQUIRE_ELICITATION set as given.
func (e *hostedEnv) startConfirming(clock func() time.Time, require bool) *hostedInstance {
	e.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		e.t.Fatal(err)
	}
	u := "http://" + ln.Addr().String()
	if e.public == "" {
		e.public = u
	}
	cfg, err := hostedConfigFromEnv(e.getenv)
	if err != nil {
		e.t.Fatal(err)
	}
	cfg.confirm.Clock, cfg.confirm.RequireElicitation = clock, require
	ctx := context.Background()
	pool, err := hostedPool(ctx, e.dsn)
	if err != nil {
		e.t.Fatal(err)
	}
	h, err := newHosted(ctx, pool, cfg, hostedLogger(e.logs, slog.LevelDebug).With("instance", len(e.inst)))
	if err != nil {
		e.t.Fatal(err)
	}
	srv := &http.Server{Handler: h.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	e.t.Cleanup(func() { srv.Close(); pool.Close() })
	in := &hostedInstance{url: u, h: h}
	e.inst = append(e.inst, in)
	return in
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
			e := newHostedEnv(t)
			clock := &hostedClock{now: time.Now()}
			a, b := e.startConfirming(clock.Now, require), e.startConfirming(clock.Now, require)
			alice, _ := e.signIn("alice")
			bob, _ := e.signIn("bob")
			// Both protocol eras: capabilities in each request (2026-07-28, served statelessly) on
			// A, declared at initialize (a 2025-06-18 session) on B.
			onA, onB := e.connect(a, alice, "", true), e.connect(b, alice, "2025-06-18", true)
			restaurants := e.assigned("alice", "Restaurants")

			pending := func(c *hostedClient, args map[string]any) string {
				t.Helper()
				var p hostedPending
				c.ok("move_money", args, &p)
				if p.Status != "confirmation_pending" || p.Card == nil || p.Card.Handle == "" || p.Confirmation != "" {
					t.Fatalf("want pending on a card, no code: %+v", p)
				}
				return p.Card.Handle
			}

			// Not drawn: asked through A, asked again through B 10 s later.
			first := pending(onA, hostedMove("1"))
			clock.advance(5 * time.Second)
			second := pending(onB, hostedMove("1")) // sooner: a new card, the first superseded
			var view confirm.CardView
			onA.ok("open_confirmation", map[string]any{"handle": first}, &view)
			if view.State != confirm.CardSuperseded || view.Token != "" {
				t.Fatalf("the first card, through A after B's repeat: %+v; want superseded", view)
			}
			clock.advance(5 * time.Second)
			res := onB.call("move_money", hostedMove("1"))
			if require {
				if !res.IsError || !strings.Contains(resultText(res), "did not show it") {
					t.Fatalf("under REQUIRE_ELICITATION: %s; want an error saying the card was not shown", resultText(res))
				}
			} else {
				var p hostedPending
				remarshal(t, res.StructuredContent, &p)
				if res.IsError || p.Status != "confirmation_required" || p.Confirmation == "" {
					t.Fatalf("the repeat 10 s after the first card, none drawn: %s; want a code", resultText(res))
				}
				var done hostedWrite
				onA.ok("move_money", hostedWithCode(hostedMove("1"), p.Confirmation), &done)
				if done.Status != "applied" {
					t.Fatalf("the code through the other instance: %+v", done)
				}
				var list struct {
					Operations []struct {
						ID           string `json:"id"`
						ConfirmedVia string `json:"confirmed_via"`
					} `json:"operations"`
				}
				onB.ok("list_operations", map[string]any{}, &list)
				if len(list.Operations) != 1 || list.Operations[0].ID != done.OperationID || list.Operations[0].ConfirmedVia != string(confirm.ModeCode) {
					t.Fatalf("alice's journal: %+v; want the move, confirmed by code", list.Operations)
				}
				restaurants += 1000
			}
			onB.ok("open_confirmation", map[string]any{"handle": second}, &view)
			if view.State != confirm.CardSuperseded {
				t.Fatalf("the second card after the fallback: %+v; want superseded", view)
			}

			// Drawn: a card opened through B; asked again through A long after, it is a new
			// card, never a code; bob, signed in too, does not know alice's handle.
			h := pending(onA, hostedMove("2"))
			onB.ok("open_confirmation", map[string]any{"handle": h}, &view)
			if view.State != confirm.CardPending || view.Token == "" {
				t.Fatalf("alice's card opened through B: %+v", view)
			}
			bobOnA := e.connect(a, bob, "", false)
			if res := bobOnA.call("open_confirmation", map[string]any{"handle": h}); !res.IsError || !strings.Contains(resultText(res), "unknown card") {
				t.Fatalf("bob opened alice's card: %s", resultText(res))
			}
			if res := bobOnA.call("answer_confirmation", map[string]any{"token": view.Token, "answer": "accept", "version": 2}); !res.IsError {
				t.Fatalf("bob answered alice's card: %s", resultText(res))
			}
			clock.advance(time.Minute)
			again := pending(onA, hostedMove("2"))
			if again == h {
				t.Fatal("the repeat got the same handle")
			}
			if got := e.assigned("alice", "Restaurants"); got != restaurants {
				t.Fatalf("alice's Restaurants holds %d, want %d", got, restaurants)
			}
		})
	}
}
