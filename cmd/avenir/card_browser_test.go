package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/tools/ui/uitest"
)

// The card in a real browser: headless Chromium loads it in a sandboxed iframe of a test host
// built on the MCP Apps SDK's own bridge, which talks to the real binary over stdio. The person
// clicks; the write is in YNAB (the sandbox) and in the journal as app, or nothing is.
//
// AVENIR_UI_SCREENSHOTS=DIR writes the README's pictures there (docs/ in the repository).

func cardEnv(t *testing.T) []string {
	env, _ := isolatedEnv(t)
	return env
}

func drive(t *testing.T, env []string, o uitest.Options) uitest.Result {
	t.Helper()
	o.Server = []string{avenirBinary(t), "serve", "--sandbox"}
	o.Env = env
	r := uitest.Drive(t, o)
	if !r.OK {
		t.Fatalf("the harness saw: %s", r.String())
	}
	if r.TokenInMessages || r.TokenInModelContent {
		t.Fatalf("the token reached the conversation or the model: %s", r.String())
	}
	return r
}

// restaurants reads Restaurants' assigned amount for December 2026 through a fresh server.
func restaurants(t *testing.T, env []string) string {
	t.Helper()
	cs := connectBinary(t, env, "", nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_categories", Arguments: map[string]any{"month": "2026-12"}})
	if err != nil || res.IsError {
		t.Fatalf("list_categories: %v %v", err, res)
	}
	var out struct {
		Groups []struct {
			Categories []struct {
				Name     string          `json:"name"`
				Assigned json.RawMessage `json:"assigned"`
			} `json:"categories"`
		} `json:"groups"`
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	for _, g := range out.Groups {
		for _, c := range g.Categories {
			if c.Name == "Restaurants" {
				return string(c.Assigned)
			}
		}
	}
	t.Fatalf("no Restaurants in %s", b)
	return ""
}

var moveArgs = map[string]any{"from_category": "Tennis", "to_category": "Restaurants", "month": "2026-12", "amount": "30.00"}

func TestCardInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	if err := uitest.Available(); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the browser harness cannot run here: %v", err)
	}
	shots := os.Getenv("AVENIR_UI_SCREENSHOTS")
	shot := func(name string) string {
		if shots == "" {
			return ""
		}
		return filepath.Join(shots, name)
	}
	for _, protocol := range []string{"", "2026-07-28"} {
		name := "2025-11-25"
		if protocol != "" {
			name = protocol
		}
		t.Run(name+"/confirm", func(t *testing.T) {
			env := cardEnv(t)
			before := restaurants(t, env)
			o := uitest.Options{Protocol: protocol, Tool: "move_money", Args: moveArgs, Scenario: "confirm", ExpectState: "applied"}
			if protocol == "" {
				o.Screenshot, o.ScreenshotAfter = shot("card.png"), shot("card-applied.png")
			}
			r := drive(t, env, o)
			if calls := r.CallsTo("answer_confirmation"); len(calls) != 1 {
				t.Fatalf("the card answered %d times, want once", len(calls))
			}
			if len(r.Messages) == 0 || !strings.Contains(r.Messages[len(r.Messages)-1].Text, "Moved 30.00 from Tennis to Restaurants") {
				t.Fatalf("the card told the conversation %+v", r.Messages)
			}
			ops := moneyJournal(t, env)
			if len(ops) != 1 || ops[0].Status != journal.StatusApplied || ops[0].ConfirmedVia != "app" || ops[0].Tool != "move_money" {
				t.Fatalf("journal = %+v; want one move_money applied, confirmed by app", ops)
			}
			if after := restaurants(t, env); after == before {
				t.Fatalf("Restaurants is as before the click: %s", after)
			}
		})
		t.Run(name+"/decline", func(t *testing.T) {
			env := cardEnv(t)
			before := restaurants(t, env)
			drive(t, env, uitest.Options{Protocol: protocol, Tool: "move_money", Args: moveArgs, Scenario: "decline", ExpectState: "declined"})
			if ops := moneyJournal(t, env); len(ops) != 0 {
				t.Fatalf("a declined card journaled %+v", ops)
			}
			if after := restaurants(t, env); after != before {
				t.Fatalf("a declined card changed Restaurants: %s → %s", before, after)
			}
		})
	}
	t.Run("double click", func(t *testing.T) {
		env := cardEnv(t)
		drive(t, env, uitest.Options{Tool: "move_money", Args: moveArgs, Scenario: "double-click", ExpectState: "applied"})
		if ops := moneyJournal(t, env); len(ops) != 1 {
			t.Fatalf("two clicks journaled %d operations, want 1", len(ops))
		}
	})
	t.Run("the plan changed", func(t *testing.T) {
		env := cardEnv(t)
		// Between the card and the click, YNAB imports cleared transactions from the bank: the
		// difference the reconciliation would correct is no longer the one the card shows.
		r := drive(t, env, uitest.Options{Tool: "reconcile_account", Args: map[string]any{"account": "Betaalrekening", "bank_balance": "1000.00"},
			Scenario:     "confirm",
			BeforeAnswer: &uitest.Call{Name: "import_transactions", Arguments: map[string]any{}}})
		// The card tells the outcome by its reason (plan_changed), never by its words.
		answers := r.CallsTo("answer_confirmation")
		if len(answers) != 1 || !strings.Contains(string(answers[0].Result), `"reason":"plan_changed"`) {
			t.Fatalf("answer_confirmation's result names no reason plan_changed: %s", r.String())
		}
		if r.FinalState != "changed" || !strings.Contains(r.ViewText, "The plan changed between the preview and the answer") {
			t.Fatalf("the card ended in %s (want changed): %s", r.FinalState, r.String())
		}
		for _, op := range moneyJournal(t, env) {
			if op.Tool == "reconcile_account" {
				t.Fatalf("a card whose change moved journaled %+v", op)
			}
		}
	})
	t.Run("undo on the card", func(t *testing.T) {
		env := cardEnv(t)
		drive(t, env, uitest.Options{Tool: "move_money", Args: moveArgs, Scenario: "undo"})
		ops := moneyJournal(t, env)
		if len(ops) != 2 || ops[0].UndoOf != ops[1].ID || ops[0].ConfirmedVia != "app" {
			t.Fatalf("journal = %+v; want the move and its undo, both by app", ops)
		}
	})
	t.Run("spending chart", func(t *testing.T) {
		env := cardEnv(t)
		r := drive(t, env, uitest.Options{Tool: "spending_report", Args: map[string]any{}, Scenario: "spending", Width: 760, Screenshot: shot("spending.png")})
		if !strings.Contains(r.ViewText, "Boodschappen") {
			t.Fatalf("the chart does not show the report's categories: %s", r.ViewText)
		}
	})
	t.Run("journal timeline", func(t *testing.T) {
		env := cardEnv(t)
		drive(t, env, uitest.Options{Tool: "move_money", Args: moveArgs, Scenario: "confirm", ExpectState: "applied"})
		r := drive(t, env, uitest.Options{Tool: "list_operations", Args: map[string]any{}, Scenario: "journal", Screenshot: shot("journal.png")})
		if !strings.Contains(r.ViewText, "Moved 30.00 from Tennis to Restaurants") {
			t.Fatalf("the timeline does not show the move: %s", r.ViewText)
		}
	})
}
