package tools

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

// Helpers the tests of the writes of transactions, scheduled transactions, payees, accounts and
// category groups share (prefixed wr): one write through each kind of client, with its cost
// counted by the sandbox; and its undo and redo across a restart, with what someone changed in
// between left alone.

// wrCase is one write as the tests across clients make it.
type wrCase struct {
	tool   string
	args   func(e *testEnv) map[string]any // the arguments, on a fresh sample
	first  string                          // the preview's first line, as spec/tools.md has it
	writes map[string]int                  // the write requests of the applying call, by route
	check  func(t *testing.T, e *testEnv)  // a read afterwards, through MCP, shows the change
}

// wrKinds are the kinds of client every write is tried through: protocol 2026-07-28 with
// elicitation (an input-required round trip), an older protocol with elicitation (asked during
// the call), a client without elicitation (a code), and a headless one that dismisses the
// question (a code too).
var wrKinds = []struct {
	kind clientKind
	via  string
}{{modernYes, "mrtr"}, {legacy1125, "elicit"}, {noElicit, "code"}, {headless, "code"}}

// wrAcrossClients applies c through each kind of client on a fresh sample: the person sees the
// preview's first line, the applying call costs exactly one fresh read and c.writes (the
// preview reads nothing: the plan is cached), ynab_requests says so, the journal records the
// operation, and a read afterwards shows the change. It returns the last applied operation.
func wrAcrossClients(t *testing.T, c wrCase) journal.Operation {
	t.Helper()
	var op journal.Operation
	for _, k := range wrKinds {
		t.Run(k.kind.name, func(t *testing.T) {
			e := newEnv(t, envOptions{kind: k.kind, maxAge: time.Hour})
			args := c.args(e)
			var warm listAccountsOut
			e.ok("list_accounts", nil, &warm) // the plan is read once, before the write
			e.sb.ResetCounts()
			var out writeOut
			if k.via == "code" {
				var first writeOut
				e.ok(c.tool, args, &first)
				if first.Status != "confirmation_required" || wrFirstLine(first.Preview) != c.first || e.writes() != 0 {
					t.Fatalf("%s first call = %+v; want confirmation_required with the first line %q, nothing written", c.tool, first, c.first)
				}
				e.ok(c.tool, withArg(args, "confirmation", first.Confirmation), &out)
			} else {
				e.ok(c.tool, args, &out)
				if q := e.questions(); len(q) != 1 || wrFirstLine(q[0]) != c.first {
					t.Fatalf("the person was asked %q; want once, first line %q", q, c.first)
				}
			}
			wrCheckCost(t, e, c.tool, out, c.writes)
			op = e.txeditsOperation(out.OperationID, k.via)
			c.check(t, e)
		})
	}
	return op
}

// wrCheckCost checks an applied result against the sandbox's count since the last reset:
// exactly one read (the fresh one before writing) and the writes given, and ynab_requests
// saying the same.
func wrCheckCost(t *testing.T, e *testEnv, tool string, out writeOut, writes map[string]int) {
	t.Helper()
	c := e.sb.Counts()
	total := 0
	for route, n := range writes {
		total += n
		if c.ByRoute[route] != n {
			t.Errorf("%s: %d requests %s, want %d (all: %v)", tool, c.ByRoute[route], route, n, c.ByRoute)
		}
	}
	if out.Status != "applied" || c.Reads != 1 || c.Writes != total || out.YNABRequests != 1+total || c.Total != 1+total {
		t.Fatalf("%s: %+v, sandbox counts %+v; want applied with 1 read and %d write(s), ynab_requests %d", tool, out, c, total, 1+total)
	}
}

func wrFirstLine(preview string) string {
	first, _, _ := strings.Cut(preview, "\n")
	return first
}

// wrComparable is the plan as e.comparable has it, without what YNAB gives a scheduled
// transaction created again anew (its id, its first date).
func (e *testEnv) wrComparable() string {
	e.t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(e.comparable()), &m); err != nil {
		e.t.Fatal(err)
	}
	parents := map[string]string{}
	for _, key := range []string{"scheduled_transactions", "scheduled_subtransactions"} {
		rows, _ := m[key].([]any)
		out := make([]string, 0, len(rows))
		for _, r := range rows {
			row := r.(map[string]any)
			id, _ := row["id"].(string)
			delete(row, "id")
			delete(row, "date_first")
			if parent, ok := row["scheduled_transaction_id"].(string); ok {
				row["scheduled_transaction_id"] = parents[parent]
			}
			b, _ := json.Marshal(row)
			parents[id] = string(b)
			out = append(out, string(b))
		}
		slices.Sort(out)
		m[key] = out
	}
	b, _ := json.MarshalIndent(m, "", " ")
	return string(b)
}

// wrRoundTrip makes a write by code, then — after a restart (a new server over the same journal
// and YNAB) — undoes it: the plan must be as before the write; then redoes it (the undo of the
// undo): the plan must be as after it. It returns the three operations.
func wrRoundTrip(t *testing.T, tool string, args func(e *testEnv) map[string]any) (e *testEnv, write, undone, redone journal.Operation) {
	t.Helper()
	e = newEnv(t, envOptions{kind: noElicit})
	a := args(e)
	before := e.wrComparable()
	_, w := e.apply(tool, a)
	after := e.wrComparable()
	if after == before {
		t.Fatalf("%s changed nothing in the plan", tool)
	}
	e2 := e.restart(noElicit)
	_, u := e2.apply("undo_operation", map[string]any{"operation_id": w.OperationID})
	if got := e.wrComparable(); got != before {
		t.Fatalf("after the undo the plan differs from before the write:\n%s", firstDifference(got, before))
	}
	_, r := e2.apply("undo_operation", map[string]any{"operation_id": u.OperationID})
	if got := e.wrComparable(); got != after {
		t.Fatalf("after the redo the plan differs from after the write:\n%s", firstDifference(got, after))
	}
	get := func(id string) journal.Operation {
		op, err := e.journal.Get(t.Context(), id)
		if err != nil || op.Status != journal.StatusApplied {
			t.Fatalf("journal entry %s: %+v (%v); want applied", id, op, err)
		}
		return op
	}
	return e, get(w.OperationID), get(u.OperationID), get(r.OperationID)
}

// wrLostAnswer makes a create whose answer YNAB loses after applying it (the connection drops):
// the write path reads YNAB, finds what it made, and records it applied with the id YNAB gave.
func wrLostAnswer(t *testing.T, tool string, args func(e *testEnv) map[string]any, method, path string) (*testEnv, journal.Operation) {
	t.Helper()
	e := newEnv(t, envOptions{kind: noElicit})
	a := args(e)
	var first writeOut
	e.ok(tool, a, &first)
	e.sb.InjectFault(sandbox.Fault{Method: method, PathContains: path, DropAfter: true})
	var out writeOut
	e.ok(tool, withArg(a, "confirmation", first.Confirmation), &out)
	op := e.onlyOperation()
	if out.Status != "applied" || op.Status != journal.StatusApplied || !op.ReadBack || op.Changes[0].ID == "" {
		t.Fatalf("after a lost answer: result %+v, journal %+v; want applied, read back, with the id YNAB gave", out, op)
	}
	return e, op
}

// wrUndoRefused checks that the undo of a write is refused with why, through MCP, writing
// nothing, and that get_operation says the same.
func wrUndoRefused(e *testEnv, operationID, why string) {
	e.t.Helper()
	e.sb.ResetCounts()
	e.fails("undo_operation", map[string]any{"operation_id": operationID}, why)
	if e.writes() != 0 {
		e.t.Fatal("a refused undo wrote")
	}
	var op getOperationOut
	e.ok("get_operation", map[string]any{"operation_id": operationID}, &op)
	if op.Undo.CanUndo || !strings.Contains(op.Undo.Why, why) {
		e.t.Fatalf("get_operation says can_undo=%v (%q), want the refusal %q", op.Undo.CanUndo, op.Undo.Why, why)
	}
}

// wrGroupID is the id of the category group list_categories names name, or "".
func wrGroupID(e *testEnv, name string) string {
	e.t.Helper()
	var out listCategoriesOut
	e.ok("list_categories", map[string]any{"include_hidden": true}, &out)
	for _, g := range out.Groups {
		if g.Name == name {
			return g.ID
		}
	}
	return ""
}

// wrOtherPlan is the sandbox's second plan: its ids must name nothing in the first.
func wrOtherPlan(t *testing.T) ynab.PlanDetail {
	t.Helper()
	sb, _ := sandboxtest.New(t, sandbox.Options{Now: func() time.Time { return sandboxToday }})
	p, err := sb.Export(sandbox.SecondPlanID)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
