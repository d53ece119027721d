package tools

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// updateArgs change the sample's Market outflow (date, amount, memo, flag), Kruidvat (payee,
// category, cleared, approval) and Tikkie (moved to the cash account).
func updateArgs(e *testEnv) map[string]any {
	market, kruidvat, tikkie := e.txeditsTx("Market", -86400), e.txeditsTx("Kruidvat", -8470), e.txeditsTx("Tikkie", -12500)
	return map[string]any{"changes": []map[string]any{
		{"transaction_id": market.ID, "date": "2026-11-30", "amount": "-80.00", "memo": "zaterdagmarkt", "flag": "red"},
		{"transaction_id": kruidvat.ID, "payee": "jumbo", "category": "Boodschappen", "cleared": "cleared", "approved": false},
		{"transaction_id": tikkie.ID, "account": "Contant"},
	}}
}

func TestUpdateTransactions(t *testing.T) {
	t.Parallel()
	wrAcrossClients(t, wrCase{tool: "update_transactions", args: updateArgs,
		first:  "Change 3 transaction(s)?",
		writes: map[string]int{txeditsPatchRoute: 1},
		check: func(t *testing.T, e *testEnv) {
			m, k, tk := wrListed(e, e.txeditsTx("Market", -80000).ID), wrListed(e, e.txeditsTx("Jumbo", -8470).ID), wrListed(e, e.txeditsTx("Tikkie", -12500).ID)
			if m.Date != "2026-11-30" || m.Memo != "zaterdagmarkt" || m.Flag != "red" || k.Category != "Boodschappen" ||
				k.Cleared != "" || k.Approved == nil || *k.Approved || tk.Account != "Contant" {
				t.Fatalf("list_transactions after the change: Market %+v, Kruidvat %+v, Tikkie %+v", m, k, tk)
			}
		}})
}

func TestUpdateTransactionsPreviewAndJournal(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	args := updateArgs(e)
	kruidvat := e.txeditsTx("Kruidvat", -8470)
	want := "Change 3 transaction(s)?\n" +
		"2026-12-01 Market 86.40: amount 86.40 → 80.00, date 2026-12-01 → 2026-11-30, flag none → red, memo \"Weekmarkt\" → \"zaterdagmarkt\"\n" +
		"2026-12-01 Kruidvat 8.47: payee Kruidvat → Jumbo, approval approved → not approved, category Uncategorized → Boodschappen, cleared uncleared → cleared\n" +
		"2026-12-01 Tikkie 12.50: account Betaalrekening → Contant"
	if got := e.preview("update_transactions", args).Preview; got != want {
		t.Fatalf("preview:\n%s\nwant:\n%s", got, want)
	}
	_, out := e.apply("update_transactions", args)
	op := e.txeditsOperation(out.OperationID, "code")
	jumbo := e.txeditsTx("Jumbo", -8470)
	wantChange := fmt.Sprintf(`transaction 2026-12-01 Kruidvat 8.47: {"approved":true,"category_id":null,"cleared":"uncleared","payee_id":"%s"} → `+
		`{"approved":false,"category_id":"%s","cleared":"cleared","payee_id":"%s"}`, *kruidvat.PayeeID, e.txeditsCategory("Boodschappen"), *jumbo.PayeeID)
	if got := txeditsChanges(op.Changes); len(got) != 3 || got[1] != wantChange || op.Changes[1].ID != kruidvat.ID {
		t.Fatalf("journaled changes:\n%q\nwant the second:\n%q", got, wantChange)
	}
}

// wrListed is the transaction id as list_transactions shows it.
func wrListed(e *testEnv, id string) transactionView {
	e.t.Helper()
	var out listTransactionsOut
	e.ok("list_transactions", map[string]any{"since": "2026-11-01", "limit": 500}, &out)
	for _, v := range out.Transactions {
		if v.ID == id {
			return v
		}
	}
	e.t.Fatalf("list_transactions does not show %s", id)
	return transactionView{}
}

// Undo (after a restart) puts every field back, the account move too; redo makes the change
// again.
func TestUpdateTransactionsUndo(t *testing.T) {
	t.Parallel()
	_, _, u, _ := wrRoundTrip(t, "update_transactions", updateArgs)
	if !strings.HasPrefix(u.Preview, "Undo: change 3 transaction(s)?\n2026-12-01 Market 86.40: amount 80.00 → 86.40, date 2026-11-30 → 2026-12-01") {
		t.Fatalf("undo preview = %q", u.Preview)
	}
}

// A transaction someone changed in YNAB after the write is left alone by the undo, and named.
func TestUpdateTransactionsUndoLeavesAloneWhatChangedSince(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	_, w := e.apply("update_transactions", updateArgs(e))
	market := e.txeditsTx("Market", -80000)
	if _, err := e.client.UpdateTransactions(context.Background(), sandbox.PlanID, []ynab.SaveTransaction{{ID: market.ID, Memo: ynab.Some("zaterdag")}}); err != nil {
		t.Fatal(err)
	}
	preview, _ := e.apply("undo_operation", map[string]any{"operation_id": w.OperationID})
	if !strings.Contains(preview, "Left alone, changed since: 2026-12-01 Market 86.40") || strings.Contains(preview, "\n2026-12-01 Market") {
		t.Fatalf("undo preview = %q; want Market left alone and named", preview)
	}
	if m := e.txeditsTx("Market", -80000); str(m.Memo) != "zaterdag" || m.Date != "2026-11-30" {
		t.Fatalf("the undo touched Market: %+v", m)
	}
	if k := e.txeditsTx("Kruidvat", -8470); k.CategoryID != nil || k.Cleared != ynab.Uncleared {
		t.Fatalf("the undo did not put Kruidvat back: %+v", k)
	}
}

// A payee by a new name is created by YNAB with the write; the undo puts the old payee back.
func TestUpdateTransactionsNewPayee(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	market := e.txeditsTx("Market", -86400)
	args := map[string]any{"changes": []map[string]any{{"transaction_id": market.ID, "payee": "Boerenmarkt Utrecht"}}}
	if p := e.preview("update_transactions", args).Preview; p != "Change 1 transaction(s)?\n2026-12-01 Market 86.40: payee Market → Boerenmarkt Utrecht (new payee)" {
		t.Fatalf("preview = %q", p)
	}
	_, w := e.apply("update_transactions", args)
	if got := e.txeditsTx("Boerenmarkt Utrecht", -86400); got.ID != market.ID {
		t.Fatalf("the transaction did not get the new payee: %+v", got)
	}
	preview, _ := e.apply("undo_operation", map[string]any{"operation_id": w.OperationID})
	if !strings.Contains(preview, "payee Boerenmarkt Utrecht (new payee) → Market") {
		t.Fatalf("undo preview = %q", preview)
	}
	if got := e.txeditsTx("Market", -86400); got.ID != market.ID {
		t.Fatal("the undo did not put the old payee back")
	}
}

// A transaction given an account's transfer payee becomes a transfer: YNAB takes its category
// away, which the journal records, so the undo puts payee and category back (and YNAB removes
// the other side) exactly.
func TestUpdateTransactionsIntoATransfer(t *testing.T) {
	t.Parallel()
	_, w, _, _ := wrRoundTrip(t, "update_transactions", func(e *testEnv) map[string]any {
		return map[string]any{"changes": []map[string]any{{"transaction_id": e.txeditsTx("Market", -86400).ID, "payee": "Transfer : Spaarrekening"}}}
	})
	if !strings.Contains(w.Preview, "category Boodschappen → Uncategorized") {
		t.Fatalf("preview = %q; want it to say the category goes", w.Preview)
	}
}

// Changing a reconciled transaction's amount moves the reconciled balance: the preview says so.
func TestUpdateTransactionsWarnsOfAReconciledOne(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	var rec ynab.TransactionSummary
	for _, t := range e.txeditsExport().Transactions {
		if t.Cleared == ynab.Reconciled && !t.Deleted && t.TransferAccountID == nil {
			rec = t
			break
		}
	}
	p := e.preview("update_transactions", map[string]any{"changes": []map[string]any{{"transaction_id": rec.ID, "amount": "-1.00"}}}).Preview
	if !strings.Contains(p, "is reconciled: changing its amount, date or account moves the reconciled balance") {
		t.Fatalf("preview = %q; want the warning", p)
	}
}

func TestUpdateTransactionsRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	market, kruidvat := e.txeditsTx("Market", -86400), e.txeditsTx("Kruidvat", -8470)
	split := e.txeditsTx("Albert Heijn", -112350)
	transfer := e.txeditsTx("Transfer : Spaarrekening", -250000)
	var line string
	for _, s := range e.txeditsExport().Subtransactions {
		if s.TransactionID == split.ID {
			line = s.ID
		}
	}
	other := wrOtherPlan(t).Transactions[0].ID
	one := func(id string, fields ...any) map[string]any {
		c := map[string]any{"transaction_id": id}
		for i := 0; i < len(fields); i += 2 {
			c[fields[i].(string)] = fields[i+1]
		}
		return map[string]any{"changes": []map[string]any{c}}
	}
	many := make([]map[string]any, 1001)
	for i := range many {
		many[i] = map[string]any{"transaction_id": market.ID, "memo": "x"}
	}
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"an empty list", map[string]any{"changes": []map[string]any{}}, "changes: the list is empty"},
		{"too many", map[string]any{"changes": many}, "changes: 1001 transactions is more than the 1000 one call may change"},
		{"an unknown id", one("nope", "memo", "x"), `changes[0]: there is no transaction "nope" in this plan`},
		{"an id of another plan", one(other, "memo", "x"), `changes[0]: there is no transaction "` + other + `" in this plan`},
		{"a split's line", one(line, "memo", "x"), "changes[0]: " + line + " is a line of the split " + split.Date + " Albert Heijn 112.35"},
		{"the same transaction twice", map[string]any{"changes": []map[string]any{{"transaction_id": market.ID, "memo": "a"}, {"transaction_id": market.ID, "memo": "b"}}},
			"changes[1]: transaction " + market.ID + " is already in changes[0]"},
		{"no field", one(market.ID), "changes[0]: give at least one field to change"},
		{"nothing changes", one(market.ID, "amount", "-86.40", "category", "Boodschappen"), "changes[0]: 2026-12-01 Market 86.40 already has the values given: nothing to change"},
		{"a split's date", one(split.ID, "date", "2026-11-01"), "changes[0].date: " + split.Date + " Albert Heijn 112.35 is a split, and YNAB ignores a split's date"},
		{"a split's amount", one(split.ID, "amount", "-100"), "YNAB ignores a split's amount"},
		{"a split's category", one(split.ID, "category", "Uitjes"), "YNAB ignores a split's category"},
		{"a split into a transfer", one(split.ID, "payee", "Transfer : Spaarrekening"), "is a split, and a split cannot be a transfer"},
		{"a transfer's payee", one(transfer.ID, "payee", "Market"), "is a transfer; changing its payee would delete its other side"},
		{"a transfer moved", one(transfer.ID, "account", "Contant"), "is a transfer, which YNAB cannot move to another account"},
		{"a category on a budget transfer", one(kruidvat.ID, "payee", "Transfer : Spaarrekening", "category", "Uitjes"), "a transfer between two budget accounts takes no category"},
		{"too many decimals", one(market.ID, "amount", "-1.234"), `changes[0].amount: "-1.234" has more decimals than the plan's currency allows (2)`},
		{"a date in the future", one(market.ID, "date", "2026-12-03"), "changes[0].date: 2026-12-03 is in the future"},
		{"a date over 5 years ago", one(market.ID, "date", "2021-12-01"), "changes[0].date: 2021-12-01 is more than 5 years ago"},
		{"a date that is none", one(market.ID, "date", "2026-02-30"), "changes[0].date:"},
		{"a payee YNAB keeps", one(market.ID, "payee", "Transfer : Nergens"), `changes[0].payee: "Transfer : Nergens" is a payee name YNAB keeps for itself`},
		{"a payee name too long", one(market.ID, "payee", strings.Repeat("p", 201)), "changes[0].payee: a payee name is at most 200 characters"},
		{"a memo too long", one(market.ID, "memo", strings.Repeat("m", 501)), "changes[0].memo: it is 501 characters long"},
		{"reconciled", one(market.ID, "cleared", "reconciled"), `changes[0].cleared: "reconciled" is not a cleared state`},
		{"an unknown flag", one(market.ID, "flag", "pink"), `changes[0].flag: "pink" is not a flag colour`},
		{"an unknown category", one(market.ID, "category", "Huisdieren"), `changes[0].category: there is no category "Huisdieren"`},
		{"an unknown account", one(market.ID, "account", "Spaarpot"), `changes[0].account: there is no account "Spaarpot"`},
		{"a closed account", one(market.ID, "account", "Oude rekening"), "changes[0].account: Oude rekening is closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.t = t
			e.txeditsRefuses("update_transactions", tt.args, tt.want)
		})
	}
}
