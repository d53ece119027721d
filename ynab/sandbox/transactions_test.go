package sandbox_test

import (
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

type saved struct {
	TransactionIDs     []string           `json:"transaction_ids"`
	Transaction        *ynab.Transaction  `json:"transaction"`
	Transactions       []ynab.Transaction `json:"transactions"`
	DuplicateImportIDs []string           `json:"duplicate_import_ids"`
	ServerKnowledge    int64              `json:"server_knowledge"`
}

func one(tx map[string]any) map[string]any      { return map[string]any{"transaction": tx} }
func many(txs ...map[string]any) map[string]any { return map[string]any{"transactions": txs} }

func TestCreateTransactionRefusals(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	base := func(extra map[string]any) map[string]any {
		tx := map[string]any{"account_id": n.id(t, "Betaalrekening"), "date": "2026-09-14", "amount": -12340}
		for k, v := range extra {
			tx[k] = v
		}
		return tx
	}
	tests := []struct {
		name   string
		body   any
		status int
		detail string
	}{
		{"a future date", one(base(map[string]any{"date": "2026-09-16"})), 400, "in the future"},
		{"over five years ago", one(base(map[string]any{"date": "2021-09-14"})), 400, "over 5 years ago"},
		{"not a date", one(base(map[string]any{"date": "14-09-2026"})), 400, "like 2026-09-01"},
		{"no account", one(map[string]any{"date": "2026-09-14", "amount": 1}), 400, "account_id is required"},
		{"no amount", one(base(map[string]any{"amount": nil})), 400, "amount is required"},
		{"an unknown account", one(base(map[string]any{"account_id": "0f0f0f0f-0000-4000-8000-000000000000"})), 400, "not an account"},
		{"an unknown category", one(base(map[string]any{"category_id": "0f0f0f0f-0000-4000-8000-000000000000"})), 400, "not a category"},
		{"an unknown payee", one(base(map[string]any{"payee_id": "0f0f0f0f-0000-4000-8000-000000000000"})), 400, "not a payee"},
		{"a memo of 501 characters", one(base(map[string]any{"memo": strings.Repeat("é", 501)})), 400, "at most 500"},
		{"a payee name of 201 characters", one(base(map[string]any{"payee_name": strings.Repeat("x", 201)})), 400, "at most 200"},
		{"a flag colour YNAB lacks", one(base(map[string]any{"flag_color": "pink"})), 400, "flag_color"},
		{"a cleared value YNAB lacks", one(base(map[string]any{"cleared": "yes"})), 400, "cleared must be"},
		{"an import_id over 36", one(base(map[string]any{"import_id": strings.Repeat("x", 37)})), 400, "at most 36"},
		{"split lines not adding up", one(base(map[string]any{"subtransactions": []map[string]any{{"amount": -10000}, {"amount": -2000}}})), 400, "sum of subtransaction amounts"},
		{"a split with a category", one(base(map[string]any{"category_id": n.id(t, "Boodschappen"), "subtransactions": []map[string]any{{"amount": -12340}}})), 400, "must be null"},
		{"a transfer to its own account", one(base(map[string]any{"payee_id": n.id(t, "payee:Transfer : Betaalrekening")})), 400, "another account"},
		{"both forms", map[string]any{"transaction": base(nil), "transactions": []any{base(nil)}}, 400, "not both"},
		{"neither form", map[string]any{}, 400, "Send a transaction"},
		{"not JSON", "{transaction", 400, "not valid JSON"},
		{"a string for an amount", one(base(map[string]any{"amount": "12"})), 400, "must be a JSON integer"},
		{"the second of a bulk", many(base(nil), base(map[string]any{"date": "2030-01-01"})), 400, "(index: 1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := a.fail(tt.status, "POST", plan+"/transactions", tt.body)
			if !strings.Contains(e.Detail, tt.detail) {
				t.Errorf("detail %q does not say %q", e.Detail, tt.detail)
			}
		})
	}
	if k := a.knowledge(); k != 1000 {
		t.Errorf("refused writes raised the knowledge to %d", k)
	}
	var payees struct{ Payees []ynab.Payee }
	a.ok(200, "GET", plan+"/payees", nil, &payees)
	if len(payees.Payees) != 39 {
		t.Errorf("%d payees after refused writes, want the sample's 39", len(payees.Payees))
	}
}

func TestCreateTransactions(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	betaal := n.id(t, "Betaalrekening")

	var got saved
	a.ok(201, "POST", plan+"/transactions", one(map[string]any{"account_id": betaal, "date": "2026-09-14",
		"amount": -12340, "payee_name": "Dierenwinkel De Kat", "category_id": n.id(t, "Boodschappen"), "import_id": "avenir:1"}), &got)
	tx := got.Transaction
	if tx == nil || len(got.TransactionIDs) != 1 || got.TransactionIDs[0] != tx.ID || got.ServerKnowledge != 1001 {
		t.Fatalf("answer = %+v", got)
	}
	if tx.Cleared != "uncleared" || tx.Approved || *tx.PayeeName != "Dierenwinkel De Kat" || *tx.CategoryName != "Boodschappen" ||
		tx.AmountFormatted != "-€12,34" {
		t.Errorf("created %+v", tx)
	}
	// A duplicate import_id: 409 alone, skipped in a bulk create.
	e := a.fail(409, "POST", plan+"/transactions", one(map[string]any{"account_id": betaal, "date": "2026-09-14", "amount": 1, "import_id": "avenir:1"}))
	if e.ID != "409" || e.Name != "conflict" {
		t.Errorf("duplicate: %+v", e)
	}
	a.ok(201, "POST", plan+"/transactions", many(
		map[string]any{"account_id": betaal, "date": "2026-09-14", "amount": 1, "import_id": "avenir:1"},
		map[string]any{"account_id": betaal, "date": "2026-09-13", "amount": -500, "payee_name": "Dierenwinkel De Kat", "approved": true, "cleared": "cleared", "flag_color": "green"},
	), &got)
	if len(got.TransactionIDs) != 1 || len(got.DuplicateImportIDs) != 1 || got.DuplicateImportIDs[0] != "avenir:1" {
		t.Fatalf("bulk answer = %+v", got)
	}
	if got.Transactions[0].PayeeID == nil || *got.Transactions[0].PayeeID != *tx.PayeeID || !got.Transactions[0].Approved {
		t.Errorf("the second create did not reuse the payee it created: %+v", got.Transactions[0])
	}
}

func TestTransfersKeepBothSides(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	balance := func(account string) int64 {
		var got struct{ Account ynab.Account }
		a.ok(200, "GET", plan+"/accounts/"+n.id(t, account), nil, &got)
		return got.Account.Balance
	}
	betaal, spaar := balance("Betaalrekening"), balance("Spaarrekening")
	var got saved
	a.ok(201, "POST", plan+"/transactions", one(map[string]any{"account_id": n.id(t, "Betaalrekening"), "date": "2026-09-14",
		"amount": -100000, "payee_id": n.id(t, "payee:Transfer : Spaarrekening"), "category_id": n.id(t, "Vakantie")}), &got)
	tx := got.Transaction
	if tx.TransferAccountID == nil || *tx.TransferAccountID != n.id(t, "Spaarrekening") || tx.CategoryID != nil {
		t.Fatalf("transfer = %+v", tx)
	}
	var mirror struct{ Transaction ynab.Transaction }
	a.ok(200, "GET", plan+"/transactions/"+*tx.TransferTransactionID, nil, &mirror)
	if mirror.Transaction.Amount != 100000 || *mirror.Transaction.TransferTransactionID != tx.ID || mirror.Transaction.AccountName != "Spaarrekening" {
		t.Errorf("mirror = %+v", mirror.Transaction)
	}
	if balance("Betaalrekening") != betaal-100000 || balance("Spaarrekening") != spaar+100000 {
		t.Error("the balances did not follow the transfer")
	}
	// Changing the amount on one side changes the other.
	a.ok(200, "PATCH", plan+"/transactions", many(map[string]any{"id": tx.ID, "amount": -40000}), nil)
	if balance("Spaarrekening") != spaar+40000 {
		t.Errorf("Spaarrekening = %d after the amount changed, want %d", balance("Spaarrekening"), spaar+40000)
	}
	// Deleting one side deletes both.
	var deleted struct{ Transaction ynab.Transaction }
	a.ok(200, "DELETE", plan+"/transactions/"+mirror.Transaction.ID, nil, &deleted)
	if !deleted.Transaction.Deleted {
		t.Error("DELETE did not answer with the deleted transaction")
	}
	a.fail(404, "GET", plan+"/transactions/"+tx.ID, nil)
	a.fail(404, "DELETE", plan+"/transactions/"+tx.ID, nil)
	if balance("Betaalrekening") != betaal || balance("Spaarrekening") != spaar {
		t.Error("the balances did not come back after the transfer was deleted")
	}
}

func TestSplits(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	d, _ := a.sb.Export(sandbox.PlanID)
	market := transaction(t, d, n, "Betaalrekening", "Market", -86400)

	lines := []map[string]any{
		{"amount": -50000, "category_id": n.id(t, "Boodschappen"), "memo": "groente"},
		{"amount": -36400, "category_id": n.id(t, "Cadeaus"), "payee_name": "Bloemenstal"},
	}
	var got struct{ Transaction ynab.Transaction }
	a.fail(400, "PUT", plan+"/transactions/"+market.ID, one(map[string]any{"subtransactions": lines[:1]}))
	a.ok(200, "PUT", plan+"/transactions/"+market.ID, one(map[string]any{"subtransactions": lines}), &got)
	split := got.Transaction
	if split.CategoryID != nil || *split.CategoryName != "Split" || len(split.Subtransactions) != 2 ||
		*split.Subtransactions[1].CategoryName != "Cadeaus" || *split.Subtransactions[1].PayeeName != "Bloemenstal" {
		t.Fatalf("split = %+v", split)
	}
	// On a split, YNAB ignores a new amount or category, and cannot change the lines.
	a.ok(200, "PATCH", plan+"/transactions", many(map[string]any{"id": market.ID, "amount": -1, "category_id": n.id(t, "Uitjes"),
		"memo": "markt", "flag_color": "yellow"}), nil)
	a.ok(200, "GET", plan+"/transactions/"+market.ID, nil, &got)
	if got.Transaction.Amount != -86400 || got.Transaction.CategoryID != nil || *got.Transaction.Memo != "markt" || *got.Transaction.FlagColor != "yellow" {
		t.Errorf("after a PATCH of the split: %+v", got.Transaction)
	}
	e := a.fail(400, "PATCH", plan+"/transactions", many(map[string]any{"id": market.ID, "subtransactions": lines}))
	if e.Detail != "Updating subtransactions on an existing split transaction is not supported. (index: 0)" || !strings.HasSuffix(e.Detail, "(index: 0)") {
		t.Errorf("detail = %q", e.Detail)
	}
	var cadeaus monthCategory
	a.ok(200, "GET", plan+"/months/current/categories/"+n.id(t, "Cadeaus"), nil, &cadeaus)
	if cadeaus.Category.Activity != -12000-36400 {
		t.Errorf("Cadeaus activity = %d: the split line did not count", cadeaus.Category.Activity)
	}
}

func TestUpdateTransactions(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	d, _ := a.sb.Export(sandbox.PlanID)
	bol := transaction(t, d, n, "Betaalrekening", "Bol.com", -34990)
	kruidvat := transaction(t, d, n, "Betaalrekening", "Kruidvat", -8470)

	var ids struct {
		TransactionIDs []string `json:"transaction_ids"`
	}
	a.ok(200, "PATCH", plan+"/transactions", many(
		map[string]any{"id": bol.ID, "category_id": n.id(t, "Uitjes"), "approved": true},
		map[string]any{"id": kruidvat.ID, "flag_color": "blue"},
	), &ids)
	if len(ids.TransactionIDs) != 2 {
		t.Errorf("transaction_ids = %v", ids.TransactionIDs)
	}
	var list struct{ Transactions []ynab.Transaction }
	a.ok(200, "GET", plan+"/transactions?type=uncategorized", nil, &list)
	if len(list.Transactions) != 3 {
		t.Errorf("%d uncategorized after categorising one, want 3", len(list.Transactions))
	}
	var got struct{ Transaction ynab.Transaction }
	a.ok(200, "GET", plan+"/transactions/"+kruidvat.ID, nil, &got)
	if *got.Transaction.FlagColor != "blue" || got.Transaction.Memo != nil || got.Transaction.Amount != -8470 {
		t.Errorf("a flag-only update changed more: %+v", got.Transaction)
	}
	// Clearing a flag with an empty string; a card payment category is ignored.
	a.ok(200, "PUT", plan+"/transactions/"+kruidvat.ID, one(map[string]any{"flag_color": "", "category_id": n.id(t, "category:Creditcard")}), &got)
	if got.Transaction.FlagColor != nil || got.Transaction.CategoryID != nil {
		t.Errorf("after clearing the flag: %+v", got.Transaction)
	}
	// Unknown ids: 400 in a body, 404 in the path.
	e := a.fail(400, "PATCH", plan+"/transactions", many(map[string]any{"id": kruidvat.ID, "memo": "ok"}, map[string]any{"id": "nope"}))
	if !strings.HasSuffix(e.Detail, "(index: 1)") {
		t.Errorf("detail = %q", e.Detail)
	}
	a.ok(200, "GET", plan+"/transactions/"+kruidvat.ID, nil, &got)
	if got.Transaction.Memo != nil {
		t.Error("a refused bulk update applied its first item")
	}
	a.fail(404, "PUT", plan+"/transactions/nope", one(map[string]any{"memo": "x"}))
}

func TestImportFromTheBank(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	var first struct {
		TransactionIDs []string `json:"transaction_ids"`
	}
	a.ok(201, "POST", plan+"/transactions/import", nil, &first)
	if len(first.TransactionIDs) != 2 {
		t.Fatalf("first import brought %v", first.TransactionIDs)
	}
	var got struct{ Transaction ynab.Transaction }
	a.ok(200, "GET", plan+"/transactions/"+first.TransactionIDs[0], nil, &got)
	tx := got.Transaction
	if tx.Date != "2026-09-14" || tx.Amount != -19990 || *tx.ImportID != "YNAB:-19990:2026-09-14:1" || tx.Approved ||
		tx.CategoryID != nil || tx.Cleared != "cleared" || *tx.PayeeName != "Coolblue" || *tx.ImportPayeeNameOriginal == "" {
		t.Errorf("imported %+v", tx)
	}
	a.ok(200, "PATCH", plan+"/transactions", many(map[string]any{"import_id": "YNAB:-19990:2026-09-14:1", "approved": true}), nil)
	a.ok(200, "GET", plan+"/transactions/"+first.TransactionIDs[0], nil, &got)
	if !got.Transaction.Approved {
		t.Error("a PATCH by import_id did not reach the transaction")
	}
	var again struct {
		TransactionIDs []string `json:"transaction_ids"`
	}
	a.ok(200, "POST", plan+"/transactions/import", nil, &again)
	if len(again.TransactionIDs) != 0 {
		t.Errorf("second import brought %v", again.TransactionIDs)
	}
}

// Reconciling through the API marks cleared transactions reconciled; the cleared balance stays.
func TestReconcileCleared(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	var before struct{ Account ynab.Account }
	a.ok(200, "GET", plan+"/accounts/"+n.id(t, "Betaalrekening"), nil, &before)
	var list struct{ Transactions []ynab.Transaction }
	a.ok(200, "GET", plan+"/accounts/"+n.id(t, "Betaalrekening")+"/transactions", nil, &list)
	var items []map[string]any
	for _, tx := range list.Transactions {
		if tx.Cleared == "cleared" {
			items = append(items, map[string]any{"id": tx.ID, "cleared": "reconciled"})
		}
	}
	if len(items) != 49 {
		t.Fatalf("%d cleared transactions on Betaalrekening, want 49", len(items))
	}
	a.ok(200, "PATCH", plan+"/transactions", map[string]any{"transactions": items}, nil)
	var after struct{ Account ynab.Account }
	a.ok(200, "GET", plan+"/accounts/"+n.id(t, "Betaalrekening"), nil, &after)
	if after.Account.ClearedBalance != before.Account.ClearedBalance || after.Account.Balance != before.Account.Balance {
		t.Errorf("balances changed: %+v → %+v", before.Account, after.Account)
	}
}
