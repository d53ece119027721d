package sandbox_test

import (
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// YNAB matches an imported transaction (one created with an import_id, or brought in by a bank
// import) to a user-entered one on the same account with the same amount, dated within ±10
// days (spec 1.86, import_id). See the package doc for how the pair shows.

func TestImportIDMatchesAUserEnteredTransaction(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	contant := func() []ynab.Transaction {
		var got struct{ Transactions []ynab.Transaction }
		a.ok(200, "GET", plan+"/accounts/"+n.id(t, "Contant")+"/transactions", nil, &got)
		return got.Transactions
	}
	create := func(fields map[string]any) saved {
		t.Helper()
		fields["account_id"] = n.id(t, "Contant")
		var got saved
		a.ok(201, "POST", plan+"/transactions", one(fields), &got)
		return got
	}
	before := len(contant())
	user := create(map[string]any{"date": "2026-09-08", "amount": -1234, "payee_name": "Bakker Bart", "category_id": n.id(t, "Boodschappen"), "approved": true})
	imported := create(map[string]any{"date": "2026-09-14", "amount": -1234, "payee_name": "BAKKERIJ BART UTR", "import_id": "kas:2026-09-14:1", "cleared": "cleared"})
	got := imported.Transaction
	if imported.TransactionIDs[0] != user.Transaction.ID || got.ID != user.Transaction.ID || got.MatchedTransactionID == nil ||
		*got.ImportID != "kas:2026-09-14:1" || got.Date != "2026-09-08" || *got.PayeeName != "Bakker Bart" ||
		*got.CategoryName != "Boodschappen" || got.Cleared != ynab.Cleared || !got.Approved {
		t.Fatalf("the import matched as %+v (ids %v), want the user-entered one, cleared, with the import_id", got, imported.TransactionIDs)
	}
	if list := contant(); len(list) != before+1 {
		t.Errorf("%d transactions on Contant, want %d: a matched pair shows as one", len(list), before+1)
	}
	a.fail(404, "GET", plan+"/transactions/"+*got.MatchedTransactionID, nil)
	// The import_id is now taken on the account.
	a.fail(409, "POST", plan+"/transactions", one(map[string]any{"account_id": n.id(t, "Contant"), "date": "2026-09-14", "amount": -1234, "import_id": "kas:2026-09-14:1"}))

	// Eleven days apart is too far; an imported one never matches another imported one.
	create(map[string]any{"date": "2026-09-01", "amount": -5555})
	far := create(map[string]any{"date": "2026-09-12", "amount": -5555, "import_id": "kas:far"})
	first := create(map[string]any{"date": "2026-09-10", "amount": -777, "import_id": "kas:a"})
	second := create(map[string]any{"date": "2026-09-11", "amount": -777, "import_id": "kas:b"})
	if far.Transaction.MatchedTransactionID != nil || first.Transaction.MatchedTransactionID != nil || second.Transaction.MatchedTransactionID != nil ||
		second.Transaction.ID == first.Transaction.ID {
		t.Errorf("unmatchable imports matched: %+v %+v %+v", far.Transaction, first.Transaction, second.Transaction)
	}
	if list := contant(); len(list) != before+5 {
		t.Errorf("%d transactions on Contant, want %d", len(list), before+5)
	}
}

func TestBankImportMatchesUserEnteredTransactions(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	var user saved
	a.ok(201, "POST", plan+"/transactions", one(map[string]any{"account_id": n.id(t, "Betaalrekening"), "date": "2026-09-11",
		"amount": -19990, "payee_name": "Coolblue", "category_id": n.id(t, "Uitjes"), "memo": "Koptelefoon"}), &user)
	var imported struct {
		TransactionIDs []string `json:"transaction_ids"`
	}
	a.ok(201, "POST", plan+"/transactions/import", nil, &imported)
	if len(imported.TransactionIDs) != 2 || imported.TransactionIDs[0] != user.Transaction.ID {
		t.Fatalf("import ids %v, want the matched user-entered one first", imported.TransactionIDs)
	}
	var got struct{ Transaction ynab.Transaction }
	a.ok(200, "GET", plan+"/transactions/"+user.Transaction.ID, nil, &got)
	g := got.Transaction
	if g.Cleared != ynab.Cleared || g.ImportID == nil || *g.ImportID != "YNAB:-19990:2026-09-14:1" || g.MatchedTransactionID == nil ||
		*g.Memo != "Koptelefoon" || *g.CategoryName != "Uitjes" || *g.ImportPayeeNameOriginal != "COOLBLUE B.V. ROTTERDAM NLD" {
		t.Errorf("the matched transaction = %+v", g)
	}
	var other struct{ Transaction ynab.Transaction }
	a.ok(200, "GET", plan+"/transactions/"+imported.TransactionIDs[1], nil, &other)
	if other.Transaction.MatchedTransactionID != nil || other.Transaction.Amount != -4350 {
		t.Errorf("the unmatched import = %+v", other.Transaction)
	}
}
