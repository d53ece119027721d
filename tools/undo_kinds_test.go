package tools

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// comparable is the sandbox's plan as a person would compare it: field by field, but without
// what YNAB itself assigns anew (the ids and import ids of transactions, which a redo creates
// again) or what its API cannot put back (when an account was last reconciled).
func (e *testEnv) comparable() string {
	e.t.Helper()
	p, err := e.sb.Export(sandbox.PlanID)
	if err != nil {
		e.t.Fatal(err)
	}
	b, _ := json.Marshal(p)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	delete(m, "last_modified_on")
	for _, a := range m["accounts"].([]any) {
		delete(a.(map[string]any), "last_reconciled_at")
	}
	parents := map[string]string{} // transaction id → its content, for its split lines
	for _, key := range []string{"transactions", "subtransactions"} {
		rows, _ := m[key].([]any)
		out := make([]string, 0, len(rows))
		for _, r := range rows {
			row := r.(map[string]any)
			id, _ := row["id"].(string)
			for _, f := range []string{"id", "import_id", "transfer_transaction_id", "matched_transaction_id"} {
				delete(row, f)
			}
			if parent, ok := row["transaction_id"].(string); ok {
				row["transaction_id"] = parents[parent]
			}
			c, _ := json.Marshal(row)
			parents[id] = string(c)
			out = append(out, string(c))
		}
		slices.Sort(out)
		m[key] = out
	}
	c, _ := json.MarshalIndent(m, "", " ")
	return string(c)
}

// ids of the sample's transactions that match a list_transactions query.
func (e *testEnv) txIDs(args map[string]any, n int) []string {
	e.t.Helper()
	var out listTransactionsOut
	e.ok("list_transactions", args, &out)
	if len(out.Transactions) < n {
		e.t.Fatalf("list_transactions(%v) gave %d transactions, want %d", args, len(out.Transactions), n)
	}
	var ids []string
	for _, t := range out.Transactions[:n] {
		ids = append(ids, t.ID)
	}
	return ids
}

// undoableWrites are one write of each kind that can be undone, with arguments on the sample.
func undoableWrites(e *testEnv) map[string]map[string]any {
	uncategorized := e.txIDs(map[string]any{"status": "uncategorized", "account": "Betaalrekening"}, 2)
	unapproved := e.txIDs(map[string]any{"status": "unapproved"}, 2)
	plain := e.txIDs(map[string]any{"account": "Contant"}, 2)
	var accounts listAccountsOut
	e.ok("list_accounts", nil, &accounts)
	var cleared int64
	for _, a := range accounts.Accounts {
		if a.Name == "Betaalrekening" {
			cleared = a.ClearedBalanceMilliunits
		}
	}
	netflix := "none" // deleted or not: the call is then refused, and a random run skips it
	if s, ok := schedListed(e, "Netflix"); ok {
		netflix = s.ID
	}
	return map[string]map[string]any{
		"apply_categories": {"changes": []map[string]any{
			{"transaction_id": uncategorized[0], "category": "Boodschappen"},
			{"transaction_id": uncategorized[1], "category": "Uitjes"}}},
		"flag_transactions": {"flags": []map[string]any{
			{"transaction_id": plain[0], "color": "purple"}, {"transaction_id": plain[1], "color": "blue"}}},
		"approve_transactions": {"transaction_ids": unapproved},
		"set_category_budget":  budgetArgs,
		"move_money":           {"from_category": "Tennis", "to_category": "Restaurants", "month": "current", "amount": "30"},
		"set_category_target":  {"category": "Vakantie", "amount": "1200", "date": "2027-06-01"},
		"update_category":      {"category": "Tennis", "name": "Sport"},
		"create_transactions": {"account": "Betaalrekening", "transactions": []map[string]any{
			{"date": "today", "amount": "-12.50", "payee": "Market", "category": "Boodschappen", "memo": "brood"}}},
		"reconcile_account": {"account": "Betaalrekening", "bank_balance": FormatPlain(cleared+10000, 2)},
		"update_transactions": {"changes": []map[string]any{
			{"transaction_id": plain[0], "memo": "contant", "amount": "-1.23", "date": "yesterday"}}},
		"rename_payee":                 renamePayeeArgs(e),
		"merge_payees":                 {"payees": []string{"Kruidvat"}, "into": "Albert Heijn"},
		"update_category_group":        renameGroupArgs(e),
		"create_scheduled_transaction": scheduleArgs("Albert Heijn")(e), // an existing payee: YNAB keeps a new one after the undo,
		"update_scheduled_transaction": {"scheduled_transaction_id": netflix, "amount": "-15.99", "flag": "blue"},
	}
}

// Each undoable kind: write, undo → the plan as before the write; undo of the undo → as after it.
func TestEachUndoableKindRoundTrips(t *testing.T) {
	probe := newEnv(t, envOptions{kind: noElicit})
	for tool := range undoableWrites(probe) {
		t.Run(tool, func(t *testing.T) {
			e := newEnv(t, envOptions{kind: noElicit})
			args := undoableWrites(e)[tool]
			before := e.wrComparable()
			_, w := e.apply(tool, args)
			after := e.wrComparable()
			if after == before {
				t.Fatalf("%s changed nothing in the plan", tool)
			}
			_, u := e.apply("undo_operation", map[string]any{"operation_id": w.OperationID})
			if got := e.wrComparable(); got != before {
				t.Fatalf("after the undo the plan differs from before the write:\n%s", firstDifference(got, before))
			}
			e.apply("undo_operation", map[string]any{"operation_id": u.OperationID})
			if got := e.wrComparable(); got != after {
				t.Fatalf("after the redo the plan differs from after the write:\n%s", firstDifference(got, after))
			}
		})
	}
}

// A random sequence of undoable writes, then each undone newest first, gives back the plan it
// started from.
func TestRandomWritesUndoneNewestFirst(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			e := newEnv(t, envOptions{kind: noElicit})
			start := e.wrComparable()
			rng := rand.New(rand.NewPCG(seed, 11))
			var done []string
			for range 8 {
				writes := undoableWrites(e)
				names := make([]string, 0, len(writes))
				for n := range writes {
					names = append(names, n)
				}
				slices.Sort(names)
				tool := names[rng.IntN(len(names))]
				res := e.call(tool, writes[tool])
				if res.IsError {
					continue // e.g. Tennis already renamed, or nothing left uncategorized: not this round
				}
				var first writeOut
				decode(t, res, &first)
				out := first
				if first.Status == "confirmation_required" {
					e.ok(tool, withArg(writes[tool], "confirmation", first.Confirmation), &out)
				}
				if out.Status != "applied" {
					t.Fatalf("%s: %+v", tool, out)
				}
				done = append(done, out.OperationID)
			}
			for i := len(done) - 1; i >= 0; i-- {
				e.apply("undo_operation", map[string]any{"operation_id": done[i]})
			}
			if got := e.wrComparable(); got != start {
				t.Fatalf("after undoing %d writes newest first the plan differs from the start:\n%s", len(done), firstDifference(got, start))
			}
		})
	}
}

func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			lo := max(0, i-3)
			return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i, strings.Join(al[lo:i+1], "\n      "), strings.Join(bl[lo:i+1], "\n      "))
		}
	}
	return fmt.Sprintf("%d lines against %d", len(al), len(bl))
}
