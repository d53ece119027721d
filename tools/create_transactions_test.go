package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

// Helpers of the creates group's tests (create_transactions, reconcile_account,
// import_transactions).

// createsApply applies a write that enters transactions (apply) and returns the preview and
// its result with the ids entered.
func createsApply(e *testEnv, tool string, args map[string]any) (string, createdOut) {
	e.t.Helper()
	var out createdOut
	preview, _ := e.apply(tool, args, &out)
	return preview, out
}

// createsExport returns the sandbox's plan as YNAB exports it now.
func createsExport(e *testEnv) ynab.PlanDetail {
	e.t.Helper()
	p, err := e.sb.Export(sandbox.PlanID)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// createsMade returns the live transactions that are not in the sample plan: those avenir
// entered.
func createsMade(e *testEnv) []ynab.TransactionSummary {
	e.t.Helper()
	sample := map[string]bool{}
	sb, _ := sandboxtest.New(e.t, sandbox.Options{})
	base, err := sb.Export(sandbox.PlanID)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, t := range base.Transactions {
		sample[t.ID] = true
	}
	var out []ynab.TransactionSummary
	for _, t := range createsExport(e).Transactions {
		if !t.Deleted && !sample[t.ID] {
			out = append(out, t)
		}
	}
	return out
}

// createsID returns the id of the named payee, category or account of the sandbox's plan.
func createsID(e *testEnv, name string) string {
	e.t.Helper()
	p := createsExport(e)
	for _, y := range p.Payees {
		if y.Name == name {
			return y.ID
		}
	}
	for _, c := range p.Categories {
		if c.Name == name {
			return c.ID
		}
	}
	for _, a := range p.Accounts {
		if a.Name == name {
			return a.ID
		}
	}
	e.t.Fatalf("nothing is named %s in the sandbox", name)
	return ""
}

// createsFields decodes a journaled change's fields.
func createsFields(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("fields %s: %v", raw, err)
	}
	return m
}

var coolblueArgs = map[string]any{"account": "Betaalrekening", "transactions": []any{
	map[string]any{"date": "2026-12-01", "amount": "-19.99", "payee": "Coolblue"},
}}

const coolbluePreview = "Create 1 transaction(s) on Betaalrekening?\n2026-12-01 Coolblue (new payee) 19.99, Uncategorized"

func TestCreateTransactionsApplied(t *testing.T) {
	for _, tt := range []struct {
		kind clientKind
		via  string
	}{{noElicit, "code"}, {modernYes, "mrtr"}} {
		t.Run(tt.kind.name, func(t *testing.T) {
			e := newEnv(t, envOptions{kind: tt.kind})
			preview, out := createsApply(e, "create_transactions", coolblueArgs)
			if preview != coolbluePreview {
				t.Fatalf("preview = %q, want %q", preview, coolbluePreview)
			}
			c := e.sb.Counts()
			if out.Status != "applied" || c.Writes != 1 || c.ByRoute["POST /plans/{plan_id}/transactions"] != 1 {
				t.Fatalf("result %+v, counts %+v; want applied with one POST", out, c)
			}
			if tt.kind.answer == "" && c.Reads > 1 {
				t.Fatalf("the confirming call read %d times, want at most 1", c.Reads)
			}
			made := createsMade(e)
			if len(made) != 1 {
				t.Fatalf("the sandbox holds %d created transactions, want 1", len(made))
			}
			tx := made[0]
			coolblue := createsID(e, "Coolblue")
			if tx.Amount != -19990 || tx.Date != "2026-12-01" || *tx.PayeeID != coolblue || tx.CategoryID != nil || tx.Cleared != ynab.Uncleared || !tx.Approved {
				t.Fatalf("created %+v", tx)
			}
			if len(out.TransactionIDs) != 1 || out.TransactionIDs[0] != tx.ID || out.Message != "Created 1 new transaction(s) on Betaalrekening." {
				t.Fatalf("result = %+v", out)
			}
			op := e.onlyOperation()
			if op.Status != journal.StatusApplied || op.ConfirmedVia != tt.via || op.Summary != "Created 1 transaction(s) on Betaalrekening" ||
				len(op.CreatedIDs) != 1 || op.CreatedIDs[0] != tx.ID || len(op.Changes) != 1 {
				t.Fatalf("journal = %+v", op)
			}
			ch := op.Changes[0]
			after := createsFields(t, ch.After)
			if ch.Kind != journal.KindNewTransaction || ch.ID != tx.ID || ch.Before != nil || ch.Label != "2026-12-01 Coolblue 19.99" ||
				after["payee_id"] != coolblue || after["payee_name"] != nil || after["import_id"] != nil || tx.ImportID != nil ||
				after["amount"] != float64(-19990) || after["cleared"] != "uncleared" || after["approved"] != true {
				t.Fatalf("journaled change = %+v, after %v", ch, after)
			}
		})
	}
}

func TestCreateTransactionsEveryField(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	args := map[string]any{"account": "Betaalrekening", "approved": false, "transactions": []any{
		map[string]any{"date": "yesterday", "amount": 2500, "payee": "Acme Nederland B.V.", "category": "Inflow: Ready to Assign",
			"memo": "Bonus", "cleared": "cleared", "flag": "Green"},
		map[string]any{"date": "2026-11-30", "amount": "-12.5", "payee": " albert heijn ", "category": "Dagelijks: Boodschappen"},
		map[string]any{"date": "today", "amount": -3, "payee": "Bakkerij Bart", "category": "Restaurants", "flag": "none"},
	}}
	preview, out := createsApply(e, "create_transactions", args)
	want := strings.Join([]string{
		"Create 3 transaction(s) on Betaalrekening?",
		`2026-12-01 Acme Nederland B.V. +2500.00, Inflow: Ready to Assign, memo "Bonus", cleared, green flag`,
		"2026-11-30 Albert Heijn 12.50, Boodschappen",
		"2026-12-02 Bakkerij Bart 3.00, Restaurants",
		"They will be left unapproved, for you to approve in YNAB.",
	}, "\n")
	if preview != want {
		t.Fatalf("preview:\n%s\nwant:\n%s", preview, want)
	}
	if c := e.sb.Counts(); out.Status != "applied" || c.Writes != 1 || c.Reads > 1 {
		t.Fatalf("result %+v, counts %+v; want applied with one read and one write", out, c)
	}
	byAmount := map[int64]ynab.TransactionSummary{}
	for _, tx := range createsMade(e) {
		byAmount[tx.Amount] = tx
	}
	income, groceries, bakery := byAmount[2500000], byAmount[-12500], byAmount[-3000]
	switch {
	case len(byAmount) != 3:
		t.Fatalf("created %d transactions, want 3", len(byAmount))
	case *income.CategoryID != createsID(e, "Inflow: Ready to Assign") || *income.Memo != "Bonus" || income.Cleared != ynab.Cleared ||
		*income.FlagColor != "green" || income.Approved || income.Date != "2026-12-01":
		t.Fatalf("income = %+v", income)
	case *groceries.PayeeID != createsID(e, "Albert Heijn") || *groceries.CategoryID != createsID(e, "Boodschappen") || groceries.FlagColor != nil:
		t.Fatalf("groceries = %+v", groceries)
	case bakery.Date != "2026-12-02" || *bakery.CategoryID != createsID(e, "Restaurants") || bakery.Cleared != ynab.Uncleared:
		t.Fatalf("bakery = %+v", bakery)
	}
}

func TestCreateTransactionsPreviewShowsTwenty(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	var txs []any
	for i := range 25 {
		txs = append(txs, map[string]any{"date": "2026-11-20", "amount": fmt.Sprintf("-%d.00", i+1), "payee": "Jumbo"})
	}
	preview, out := createsApply(e, "create_transactions", map[string]any{"account": "Contant", "transactions": txs})
	lines := strings.Split(preview, "\n")
	if len(lines) != 22 || lines[0] != "Create 25 transaction(s) on Contant?" || lines[21] != "… and 5 more" {
		t.Fatalf("preview:\n%s", preview)
	}
	if c := e.sb.Counts(); out.Status != "applied" || c.Writes != 1 || len(createsMade(e)) != 25 {
		t.Fatalf("result %+v, counts %+v, %d created; want 25 in one POST", out, c, len(createsMade(e)))
	}
}

// YNAB applies the POST but its answer is lost: avenir reads YNAB and finds the transaction by
// what it sent; a retry of the same call finds it too, enters nothing twice and owns nothing.
func TestCreateTransactionsLostAnswer(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	var first createdOut
	e.ok("create_transactions", coolblueArgs, &first)
	e.sb.ResetCounts()
	e.sb.InjectFault(sandbox.Fault{Method: "POST", DropAfter: true})
	var out createdOut
	e.ok("create_transactions", withArg(coolblueArgs, "confirmation", first.Confirmation), &out)
	if c := e.sb.Counts(); out.Status != "applied" || !strings.Contains(out.Message, "YNAB's answer was lost; avenir read YNAB and found them there.") ||
		c.Writes != 1 {
		t.Fatalf("result %+v, counts %+v; want applied after one POST and a read back", out, c)
	}
	made := createsMade(e)
	op := e.onlyOperation()
	if len(made) != 1 || op.Status != journal.StatusApplied || !op.ReadBack || op.Changes[0].ID != made[0].ID ||
		op.Changes[0].Outcome != journal.OutcomeApplied || made[0].ImportID != nil {
		t.Fatalf("created %+v, journal %+v", made, op)
	}

	// The same call again: the preview says it is there already, and nothing is entered twice.
	preview, again := createsApply(e, "create_transactions", coolblueArgs)
	wantPreview := "Create 1 transaction(s) on Betaalrekening?\n2026-12-01 Coolblue 19.99, Uncategorized\n" +
		"1 of these are already in YNAB: an earlier identical call entered them, and its outcome may not have reached you. They will not be entered twice."
	if preview != wantPreview {
		t.Fatalf("retry preview:\n%s\nwant:\n%s", preview, wantPreview)
	}
	if c := e.sb.Counts(); again.Status != "applied" || c.Writes != 0 || len(createsMade(e)) != 1 ||
		len(again.TransactionIDs) != 1 || again.TransactionIDs[0] != made[0].ID ||
		again.Message != "Created 0 new transaction(s) on Betaalrekening; 1 were already in YNAB, entered by operation "+op.ID+", and were not entered again." {
		t.Fatalf("retry %+v, counts %+v, %d created; want applied, nothing written, still one", again, c, len(createsMade(e)))
	}
	retry, err := e.journal.Get(t.Context(), again.OperationID)
	if err != nil || retry.Changes[0].EnteredBy != op.ID {
		t.Fatalf("retry journaled as %+v, %v; want its change entered by %s", retry, err, op.ID)
	}
	// Undoing the retry takes back nothing: the transaction is the first call's.
	e.fails("undo_operation", map[string]any{"operation_id": again.OperationID}, "nothing is left to undo")
	if len(createsMade(e)) != 1 {
		t.Fatal("undoing the retry deleted what the first call entered")
	}
}

// The connection breaks before YNAB handles the POST: the read back shows nothing was created,
// the journal records a failure, and calling again creates it once.
func TestCreateTransactionsLostRequest(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernYes})
	e.sb.InjectFault(sandbox.Fault{Method: "POST", Drop: true})
	e.fails("create_transactions", coolblueArgs, "A read of YNAB afterwards shows none of it there: nothing was written")
	if op := e.onlyOperation(); op.Status != journal.StatusFailed || len(createsMade(e)) != 0 || op.Changes[0].Outcome != journal.OutcomeNotApplied {
		t.Fatalf("journal %+v, %d created; want a failure and nothing created", op, len(createsMade(e)))
	}
	var out createdOut
	e.ok("create_transactions", coolblueArgs, &out)
	if out.Status != "applied" || len(createsMade(e)) != 1 {
		t.Fatalf("again: %+v, %d created; want applied, one", out, len(createsMade(e)))
	}
}

// When the answer is lost and YNAB cannot be read back either, the outcome is unknown: the
// operation stays prepared and the error says exactly that. The next identical call settles it
// by reading YNAB, finds the transaction there, and enters nothing twice.
func TestCreateTransactionsUnknownOutcome(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernYes})
	var accounts map[string]any
	e.ok("list_accounts", map[string]any{}, &accounts) // the plan as last read serves the preview
	e.sb.InjectFault(sandbox.Fault{Method: "POST", DropAfter: true})
	// The fresh read before the write goes through; every try of the read back fails.
	e.sb.InjectFault(sandbox.Fault{Method: "GET", Skip: 1, Status: 503, Count: 4})
	e.fails("create_transactions", coolblueArgs, "whether the change was made is not known")
	op := e.onlyOperation()
	if op.Status != journal.StatusPrepared || op.Changes[0].Outcome != journal.OutcomeUnknown || len(createsMade(e)) != 1 {
		t.Fatalf("journal %+v, %d in the sandbox; want prepared, unknown, and the POST landed", op, len(createsMade(e)))
	}
	e.sb.ResetCounts()
	var out createdOut
	e.ok("create_transactions", coolblueArgs, &out)
	first := e.operation(op.ID)
	if c := e.sb.Counts(); out.Status != "applied" || c.Writes != 0 || len(createsMade(e)) != 1 ||
		first.Status != journal.StatusApplied || first.Changes[0].ID != createsMade(e)[0].ID {
		t.Fatalf("retry %+v, counts %+v, first now %+v; want the first settled as applied and nothing written again", out, c, first)
	}
}

// A transaction avenir entered and someone deleted since (an undo, say) is entered anew by the
// same call: the earlier one is gone, so nothing stands for it.
func TestCreateTransactionsAfterDeletion(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	_, first := createsApply(e, "create_transactions", coolblueArgs)
	if _, err := e.client.DeleteTransaction(context.Background(), sandbox.PlanID, first.TransactionIDs[0]); err != nil {
		t.Fatal(err)
	}
	preview, out := createsApply(e, "create_transactions", coolblueArgs)
	if strings.Contains(preview, "already") {
		t.Fatalf("preview says a deleted transaction is there:\n%s", preview)
	}
	made := createsMade(e)
	if c := e.sb.Counts(); out.Status != "applied" || len(made) != 1 || made[0].ID == first.TransactionIDs[0] || c.Writes != 1 {
		t.Fatalf("result %+v, created %+v, counts %+v; want a new transaction", out, made, c)
	}
}

func TestCreateTransactionsBadInput(t *testing.T) {
	one := func(fields map[string]any) map[string]any {
		tx := map[string]any{"date": "2026-12-01", "amount": "-10", "payee": "Jumbo"}
		for k, v := range fields {
			tx[k] = v
			if v == nil {
				delete(tx, k)
			}
		}
		return map[string]any{"account": "Betaalrekening", "transactions": []any{tx}}
	}
	many := make([]any, 101)
	for i := range many {
		many[i] = map[string]any{"date": "2026-12-01", "amount": "-1", "payee": "Jumbo"}
	}
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"closed account", withArg(one(nil), "account", "Oude rekening"), "account: Oude rekening is closed"},
		{"unknown account", withArg(one(nil), "account", "Beleggingen"), `account: there is no account "Beleggingen"`},
		{"no transactions", withArg(one(nil), "transactions", []any{}), "transactions: give 1 to 100 transactions, not 0"},
		{"too many transactions", withArg(one(nil), "transactions", many), "transactions: give 1 to 100 transactions, not 101"},
		{"future date", one(map[string]any{"date": "2026-12-03"}), "transactions[0].date: 2026-12-03 is in the future"},
		{"too old", one(map[string]any{"date": "2021-12-01"}), "transactions[0].date: 2021-12-01 is more than 5 years ago"},
		{"not a date", one(map[string]any{"date": "1-12-2026"}), "transactions[0].date:"},
		{"no amount", one(map[string]any{"amount": nil}), `transactions[0].amount: missing`},
		{"too many decimals", one(map[string]any{"amount": "-1.234"}), "transactions[0].amount:"},
		{"no payee", one(map[string]any{"payee": " "}), "transactions[0].payee: give a payee"},
		{"unknown payee id", one(map[string]any{"payee": "00000000-0000-4000-8000-000000000000"}), "transactions[0].payee: there is no payee with id"},
		{"over-long payee", one(map[string]any{"payee": strings.Repeat("x", 201)}), "transactions[0].payee: a payee name is at most 200 characters"},
		{"transfer to itself", one(map[string]any{"payee": "Transfer : Betaalrekening"}), "transactions[0].payee: Transfer : Betaalrekening is a transfer to Betaalrekening itself"},
		{"transfer to a closed account", one(map[string]any{"payee": "Transfer : Oude rekening"}), "is a transfer to a closed account"},
		{"hidden category", one(map[string]any{"category": "Fotografie"}), "transactions[0].category: Vrije tijd: Fotografie is hidden"},
		{"unknown category", one(map[string]any{"category": "Huisdieren"}), `transactions[0].category: there is no category "Huisdieren"`},
		{"credit card payment category", one(map[string]any{"category": "Credit Card Payments: Creditcard"}), "transactions[0].category:"},
		{"over-long memo", one(map[string]any{"memo": strings.Repeat("m", 501)}), "transactions[0].memo: it is 501 characters long; YNAB takes at most 500"},
		{"reconciled", one(map[string]any{"cleared": "reconciled"}), "transactions[0].cleared:"},
		{"invalid colour", one(map[string]any{"flag": "pink"}), "transactions[0].flag:"},
	}
	e := newEnv(t, envOptions{kind: noElicit})
	for _, tt := range tests {
		if res := e.call("create_transactions", tt.args); !res.IsError || !strings.Contains(text(res), tt.want) {
			t.Errorf("%s: result %q (error: %v), want an error containing %q", tt.name, text(res), res.IsError, tt.want)
		}
	}
	if e.writes() != 0 || len(createsMade(e)) != 0 {
		t.Fatal("bad input wrote to YNAB")
	}
	if ops := e.operations(journal.Filter{}); len(ops) != 0 {
		t.Fatalf("bad input was journaled: %+v", ops)
	}
}
