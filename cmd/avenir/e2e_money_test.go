package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
)

// The writes of money and categories through the real binary on the sandbox's sample plan:
// move_money, set_category_target, create_category and update_category, once by a client that
// confirms with a code and once by a 2026-07-28 client whose user ticks the box.

type moneyWrite struct {
	tool   string
	args   map[string]any
	first  string // the preview's first line
	writes int    // YNAB write requests it makes
}

// moneyWrites are the four writes in an order the sample plan allows, with the first lines of
// confirmation.md §7 on today's plan.
func moneyWrites() []moneyWrite {
	now := time.Now().UTC()
	month := now.Format("2006-01") + "-01"
	due := now.AddDate(1, 0, 0).Format("2006-01") + "-01"
	return []moneyWrite{
		{"move_money", map[string]any{"from_category": "Tennis", "to_category": "Restaurants", "amount": "30"},
			"Move 30.00 from Tennis to Restaurants for " + month + "?", 2},
		{"set_category_target", map[string]any{"category": "Vakantie", "amount": 1200, "date": due},
			"Set the target of Vakantie: no target → 1200.00 by " + due + "?", 1},
		{"create_category", map[string]any{"group": "Dagelijks", "name": "Huisdieren"},
			"Create category ‘Huisdieren’ in Dagelijks?", 1},
		{"update_category", map[string]any{"category": "Tennis", "name": "Sport"},
			"Change category ‘Tennis’ (Vrije tijd) to ‘Sport’ (Vrije tijd)?", 1},
	}
}

// moneyResult is the part of a write's result these tests read.
type moneyResult struct {
	Status       string `json:"status"`
	Preview      string `json:"preview"`
	Confirmation string `json:"confirmation"`
	OperationID  string `json:"operation_id"`
	YNABRequests int    `json:"ynab_requests"`
}

func moneyCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) moneyResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s(%v): %v %v", tool, args, err, res)
	}
	var out moneyResult
	if _, err := resultInto(res, &out); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return out
}

func moneyFirstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// moneyJournal reads the journal the way a person would: avenir journal list --json.
func moneyJournal(t *testing.T, env []string) []journal.Operation {
	t.Helper()
	stdout, stderr, code := runBinary(t, env, "journal", "list", "--json")
	if code != 0 {
		t.Fatalf("avenir journal list: exit %d: %s", code, stderr)
	}
	var ops []journal.Operation
	dec := json.NewDecoder(strings.NewReader(stdout))
	for {
		var op journal.Operation
		if err := dec.Decode(&op); err == io.EOF {
			return ops
		} else if err != nil {
			t.Fatalf("avenir journal list --json: %v\n%s", err, stdout)
		}
		ops = append(ops, op)
	}
}

// moneyJournaled checks that every write is in the journal, applied, confirmed via, with the
// state before it was applied.
func moneyJournaled(t *testing.T, env []string, writes []moneyWrite, via string) {
	t.Helper()
	ops := moneyJournal(t, env)
	if len(ops) != len(writes) {
		t.Fatalf("the journal holds %d operations; want %d", len(ops), len(writes))
	}
	for i, w := range writes {
		op := ops[len(ops)-1-i] // newest first
		if op.Tool != w.tool || !strings.HasPrefix(op.Preview, w.first) || strings.HasSuffix(op.Summary, "?") || op.Status != journal.StatusApplied || op.ConfirmedVia != via || len(op.Changes) == 0 {
			t.Errorf("journal entry %d = %+v; want %s applied via %s", i, op, w.tool, via)
		}
	}
	if before := string(ops[len(ops)-1].Changes[0].Before); before != `{"budgeted":45000}` {
		t.Errorf("move_money journaled Tennis before as %s; want what it had assigned", before)
	}
}

func TestMoneyWritesOverStdio(t *testing.T) {
	t.Run("2025-06-18 without elicitation", func(t *testing.T) {
		env, _ := isolatedEnv(t)
		cs := connectBinary(t, env, "2025-06-18", nil)
		writes := moneyWrites()
		for _, w := range writes {
			preview := moneyCall(t, cs, w.tool, w.args)
			if preview.Status != "confirmation_required" || moneyFirstLine(preview.Preview) != w.first {
				t.Fatalf("%s: %+v; want confirmation_required with the preview %q", w.tool, preview, w.first)
			}
			args := map[string]any{"confirmation": preview.Confirmation}
			for k, v := range w.args {
				args[k] = v
			}
			applied := moneyCall(t, cs, w.tool, args)
			if applied.Status != "applied" || applied.OperationID == "" || applied.YNABRequests > 1+w.writes {
				t.Fatalf("%s with the code: %+v; want applied with at most %d requests", w.tool, applied, 1+w.writes)
			}
		}
		moneyJournaled(t, env, writes, "code")
	})
	t.Run("2026-07-28 with elicitation", func(t *testing.T) {
		env, _ := isolatedEnv(t)
		var mu sync.Mutex
		var asked []string
		cs := connectBinary(t, env, "", &mcp.ClientOptions{
			ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				mu.Lock()
				asked = append(asked, r.Params.Message)
				mu.Unlock()
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"value": true}}, nil
			},
		})
		writes := moneyWrites()
		for i, w := range writes {
			if out := moneyCall(t, cs, w.tool, w.args); out.Status != "applied" || out.OperationID == "" {
				t.Fatalf("%s: %+v; want applied", w.tool, out)
			}
			mu.Lock()
			if len(asked) != i+1 || moneyFirstLine(asked[i]) != w.first {
				t.Fatalf("%s: the user was asked %q; want a question starting %q", w.tool, asked, w.first)
			}
			mu.Unlock()
		}
		moneyJournaled(t, env, writes, "mrtr")
	})
}
