package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// What a model pays for: every result and tools/list are read into its context. These budgets
// fail the test when the surface grows past them (BENCHMARKS.md, "Result sizes").
const (
	maxResultBytes    = 60 << 10 // a result's JSON: well inside Claude Code's 25,000 tokens
	maxToolsBytes     = 15 << 10 // tools/list's names, descriptions and input schemas
	maxTransactionRow = 200      // a transaction row, on average
)

// resultBytes calls a tool that must succeed and returns its result as the model reads it.
func (e *testEnv) resultBytes(tool string, args map[string]any) []byte {
	e.t.Helper()
	res := e.call(tool, args)
	if res.IsError {
		e.t.Fatalf("%s(%v): %s", tool, args, text(res))
	}
	return []byte(text(res))
}

// sizes checks every read tool's result on e's plan against the budgets and returns the
// average size of a transaction row.
func sizes(t *testing.T, e *testEnv) float64 {
	t.Helper()
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"list_plans", nil},
		{"get_plan_overview", nil},
		{"list_accounts", map[string]any{"include_closed": true}},
		{"list_categories", map[string]any{"include_hidden": true}},
		{"list_transactions", map[string]any{"limit": 500}},
		{"list_transactions", map[string]any{"limit": 500, "account": "Betaalrekening"}},
		{"list_payees", nil},
		{"list_scheduled_transactions", nil},
		{"list_operations", map[string]any{"limit": 500}},
	}
	for _, c := range calls {
		n := len(e.resultBytes(c.tool, c.args))
		t.Logf("%s(%v): %d bytes", c.tool, c.args, n)
		if n > maxResultBytes {
			t.Errorf("%s(%v) is %d bytes, over the budget of %d", c.tool, c.args, n, maxResultBytes)
		}
	}
	var page listTransactionsOut
	e.ok("list_transactions", map[string]any{"limit": 500}, &page)
	total := 0
	for _, row := range page.Transactions {
		b, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		total += utf8.RuneCount(b) // characters: "€" is one, three bytes
	}
	avg := float64(total) / float64(len(page.Transactions))
	t.Logf("a transaction row: %.0f characters on average over %d rows", avg, len(page.Transactions))
	return avg
}

func TestResultSizes(t *testing.T) {
	t.Run("the sample", func(t *testing.T) {
		e := newEnv(t, envOptions{kind: modernNone})
		if avg := sizes(t, e); avg > maxTransactionRow {
			t.Errorf("a transaction row is %.0f characters on average, over the budget of %d", avg, maxTransactionRow)
		}
	})
	t.Run("a plan of years", func(t *testing.T) {
		if testing.Short() {
			t.Skip("enters 10,000 transactions")
		}
		e := newEnv(t, envOptions{kind: modernNone, sample: sandbox.LargeSample(10_000)})
		if avg := sizes(t, e); avg > maxTransactionRow {
			t.Errorf("a transaction row is %.0f characters on average, over the budget of %d", avg, maxTransactionRow)
		}
		// A page of 500 is cut by size, and the pages still cover every transaction once.
		var page listTransactionsOut
		e.ok("list_transactions", map[string]any{"limit": 500}, &page)
		if page.NextCursor == "" || len(page.Transactions) == 500 {
			t.Errorf("a page of 500 rows was not cut by size: %d rows, next_cursor %q", len(page.Transactions), page.NextCursor)
		}
		seen := map[string]bool{}
		for cursor := "start"; cursor != ""; {
			args := map[string]any{"limit": 500}
			if cursor != "start" {
				args["cursor"] = cursor
			}
			page = listTransactionsOut{}
			e.ok("list_transactions", args, &page)
			for _, tx := range page.Transactions {
				if seen[tx.ID] {
					t.Fatalf("transaction %s came twice", tx.ID)
				}
				seen[tx.ID] = true
			}
			cursor = page.NextCursor
		}
		if len(seen) != page.Matched {
			t.Fatalf("the pages held %d transactions; %d match", len(seen), page.Matched)
		}
	})
}

// TestToolsListSize keeps tools/list within what a client should carry into every
// conversation. The budget is the issue's: the tools' names, descriptions and input schemas,
// each counted as the JSON value tools/list sends (annotations and output schemas are logged,
// not budgeted: clients do not hand them to the model as the tool's definition). It counts what a
// model is offered: the app-only tools, which hosts that draw views keep from the model, are
// outside it (spec/tools.md, "MCP Apps"), and logged.
func TestToolsListSize(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	res, err := e.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	total, apps := 0, 0
	for _, tool := range res.Tools {
		for _, v := range []any{tool.Name, tool.Description, tool.InputSchema} {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if appOnly(tool) {
				apps += len(b)
			} else {
				total += len(b)
			}
		}
	}
	t.Logf("app-only tools, outside the budget: %d bytes", apps)
	whole, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tools/list: %d tools, %d bytes of names, descriptions and input schemas; %d bytes in all", len(res.Tools), total, len(whole))
	if total > maxToolsBytes {
		t.Fatalf("tools/list's names, descriptions and input schemas are %d bytes, over the budget of %d", total, maxToolsBytes)
	}
}

// BenchmarkListTransactionsWarm is a list_transactions call on a plan of years already read:
// the cost of a page once the first sync is done (the filters scan every transaction).
func BenchmarkListTransactionsWarm(b *testing.B) {
	for _, n := range []int{10_000, 50_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			e := newEnv(b, envOptions{kind: modernNone, maxAge: ynab.MaxFreshness, sample: sandbox.LargeSample(n)})
			args := map[string]any{"status": "unapproved", "limit": 100}
			e.resultBytes("list_transactions", args) // the first sync
			b.ReportAllocs()
			for b.Loop() {
				e.resultBytes("list_transactions", args)
			}
		})
	}
}
