package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/tools/ui/uitest"
)

// The card in the hosts as they really are (confirmation.md §2.4's table; issue 28): the real
// binary on its sandbox, behind each host the browser harness emulates, each a real MCP Apps host
// on ext-apps' AppBridge in headless Chromium doing what that host is reported to do:
//
//   - sdk: the SDK's own bridge, the whole result handed to the view;
//   - claude-desktop: the view is handed the result without _meta and structuredContent; its own
//     calls' answers arrive whole (modelcontextprotocol/ext-apps#696,
//     apify/apify-mcp-server#1187, anthropics/claude-ai-mcp#563);
//   - chatgpt-web: _meta replaced, capabilities in every request, the model shown _meta
//     (openai/openai-apps-sdk-examples#231, #212);
//   - claude-ai: tools listed on a session with empty capabilities, calls refused for tools it
//     was not listed (modelcontextprotocol/ext-apps#671, anthropics/claude-ai-mcp#61,
//     PrefectHQ/fastmcp#5041);
//   - terminal: declares the extension, never draws (Qwen Code 0.24.4, measured in issue 28);
//   - strict: refuses a view's call to a tool without explicit app visibility
//     (PostHog/posthog#97507);
//   - remount: mounts the answered card again, as every host does from its transcript.
//
// In each that draws: the card shows the change, Confirm applies it (journaled app), Decline
// writes nothing, and an adversarial model writes nothing. Only two runs wait the real 10 s of
// §2.4.6: the terminal's code, and the adversary that retries after it.

func TestCardInTheHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	if err := uitest.Available(); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the browser harness cannot run here: %v", err)
	}
	for _, host := range uitest.Hosts {
		if host == "terminal" {
			continue
		}
		// The SDK's bridge confirms and declines in TestCardInABrowser already; a card mounted
		// again after a decline shows it as after a confirm.
		t.Run(host+"/confirm", func(t *testing.T) {
			if host == "sdk" {
				t.Skip("TestCardInABrowser confirms through the SDK's bridge")
			}
			t.Parallel()
			env := cardEnv(t)
			before := restaurants(t, env)
			state := "applied"
			if host == "remount" {
				state = "answered"
			}
			r := drive(t, env, uitest.Options{Host: host, Tool: "move_money", Args: moveArgs, Scenario: "confirm", ExpectState: state})
			if len(r.CallsTo("open_confirmation")) == 0 || len(r.CallsTo("answer_confirmation")) != 1 {
				t.Fatalf("the card's calls: %s", r.String())
			}
			if !strings.Contains(r.ViewText, "Restaurants") {
				t.Errorf("the card does not show the change: %s", r.ViewText)
			}
			ops := moneyJournal(t, env)
			if len(ops) != 1 || ops[0].Status != journal.StatusApplied || ops[0].ConfirmedVia != "app" || ops[0].Tool != "move_money" {
				t.Fatalf("journal = %+v; want one move_money applied, confirmed by app", ops)
			}
			if after := restaurants(t, env); after == before {
				t.Fatalf("Restaurants is as before the click: %s", after)
			}
			if host == "remount" {
				if r.Remount == nil || r.Remount.OffersConfirm || r.Remount.Outcome != "applied" {
					t.Fatalf("the card mounted again: %+v", r.Remount)
				}
				if ops := moneyJournal(t, env); len(ops) != 1 {
					t.Fatalf("mounting the card again journaled %d operations", len(ops))
				}
			}
		})
		t.Run(host+"/decline", func(t *testing.T) {
			if host == "sdk" || host == "remount" {
				t.Skip("TestCardInABrowser declines through the SDK's bridge")
			}
			t.Parallel()
			env := cardEnv(t)
			before := restaurants(t, env)
			state := "declined"
			if host == "remount" {
				state = "answered"
			}
			drive(t, env, uitest.Options{Host: host, Tool: "move_money", Args: moveArgs, Scenario: "decline", ExpectState: state})
			if ops := moneyJournal(t, env); len(ops) != 0 {
				t.Fatalf("a declined card journaled %+v", ops)
			}
			if after := restaurants(t, env); after != before {
				t.Fatalf("a declined card changed Restaurants: %s → %s", before, after)
			}
		})
		t.Run(host+"/adversary", func(t *testing.T) {
			t.Parallel()
			env := cardEnv(t)
			before := restaurants(t, env)
			o := uitest.Options{Host: host, Tool: "move_money", Args: moveArgs, Scenario: "adversary"}
			if host == "claude-desktop" {
				// One adversary waits out §2.4.6's 10 s before it retries: a card that was
				// drawn never turns into a code.
				o.AdversaryWait = 10500 * time.Millisecond
			}
			r := drive(t, env, o)
			if r.Adversary == nil || r.Adversary.Calls < 20 || len(r.Adversary.Writes) != 0 {
				t.Fatalf("the adversary: %+v", r.Adversary)
			}
			for _, op := range moneyJournal(t, env) {
				if op.ConfirmedVia != "none" { // approve_transactions and the like need no one's yes
					t.Fatalf("the adversary got a confirmed write journaled: %+v", op)
				}
			}
			if after := restaurants(t, env); after != before {
				t.Fatalf("the adversary changed Restaurants: %s → %s", before, after)
			}
			if r.Adversary.Statuses["confirmation_required"] != 0 {
				t.Fatalf("a drawn card's change was offered a code: %+v", r.Adversary.Statuses)
			}
		})
	}
	t.Run("terminal/the code after 10 s", func(t *testing.T) {
		t.Parallel()
		env := cardEnv(t)
		r := drive(t, env, uitest.Options{Host: "terminal", Tool: "move_money", Args: moveArgs, Scenario: "confirm", ExpectState: "applied"})
		var got []string
		for _, c := range r.Terminal.Calls {
			got = append(got, c.Status)
		}
		if strings.Join(got, ",") != "confirmation_pending,confirmation_required,applied" {
			t.Fatalf("the terminal's calls answered %v", got)
		}
		ops := moneyJournal(t, env)
		if len(ops) != 1 || ops[0].ConfirmedVia != "code" {
			t.Fatalf("journal = %+v; want one operation confirmed by code", ops)
		}
	})
	t.Run("strict/undo from the journal", func(t *testing.T) {
		t.Parallel()
		env := cardEnv(t)
		drive(t, env, uitest.Options{Tool: "move_money", Args: moveArgs, Scenario: "confirm", ExpectState: "applied"})
		r := drive(t, env, uitest.Options{Host: "strict", Tool: "list_operations", Args: map[string]any{}, Scenario: "journal-undo"})
		if len(r.RefusedCalls) != 0 || len(r.CallsTo("undo_operation")) != 1 {
			t.Fatalf("the strict host: %s", r.String())
		}
		ops := moneyJournal(t, env)
		if len(ops) != 2 || ops[0].UndoOf != ops[1].ID || ops[0].ConfirmedVia != "app" {
			t.Fatalf("journal = %+v; want the move and its undo, both by app", ops)
		}
	})
}
