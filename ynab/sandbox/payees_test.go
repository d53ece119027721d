package sandbox_test

import (
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

func payeeBody(name string) map[string]any {
	return map[string]any{"payee": map[string]any{"name": name}}
}

func TestCreateAndRenamePayee(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	k := a.knowledge()
	var created ynab.SavePayeeResult
	a.ok(201, "POST", plan+"/payees", payeeBody("  Fietsenmaker Piet "), &created)
	if created.Payee.Name != "Fietsenmaker Piet" || created.Payee.TransferAccountID != nil || created.ServerKnowledge != k+1 {
		t.Fatalf("created %+v", created)
	}
	var renamed ynab.SavePayeeResult
	a.ok(200, "PATCH", plan+"/payees/"+created.Payee.ID, payeeBody("Fietsenmaker Piet & Zn"), &renamed)
	var got struct{ Payee ynab.Payee }
	a.ok(200, "GET", plan+"/payees/"+created.Payee.ID, nil, &got)
	if got.Payee.Name != "Fietsenmaker Piet & Zn" {
		t.Errorf("after the rename GET gives %q", got.Payee.Name)
	}
	var delta struct{ Payees []ynab.Payee }
	a.ok(200, "GET", plan+"/payees?last_knowledge_of_server="+itoa(k), nil, &delta)
	if len(delta.Payees) != 1 || delta.Payees[0].ID != created.Payee.ID {
		t.Errorf("delta after the writes = %+v, want just the new payee", delta.Payees)
	}
}

func TestPayeeWriteRefusals(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	albert := plan + "/payees/" + n.id(t, "payee:Albert Heijn")
	tests := []struct {
		name, method, path string
		body               any
		status             int
		detail             string
	}{
		{"create Starting Balance", "POST", plan + "/payees", payeeBody("Starting Balance"), 400, "reserves"},
		{"create a transfer payee", "POST", plan + "/payees", payeeBody("Transfer : Vakantiegeld"), 400, "reserves"},
		{"create a transfer payee in other case", "POST", plan + "/payees", payeeBody("transfer : x"), 400, "reserves"},
		{"create Manual Balance Adjustment", "POST", plan + "/payees", payeeBody("manual balance adjustment"), 400, "reserves"},
		{"create an existing name", "POST", plan + "/payees", payeeBody("Jumbo"), 400, "already exists"},
		{"create without a name", "POST", plan + "/payees", map[string]any{"payee": map[string]any{}}, 400, "name is required"},
		{"create an empty name", "POST", plan + "/payees", payeeBody("  "), 400, "cannot be empty"},
		{"create 501 characters", "POST", plan + "/payees", payeeBody(strings.Repeat("p", 501)), 400, "at most 500"},
		{"rename to a reserved name", "PATCH", albert, payeeBody("Reconciliation Balance Adjustment"), 400, "reserves"},
		{"rename to another payee's name", "PATCH", albert, payeeBody("Jumbo"), 400, "already exists"},
		{"rename a transfer payee", "PATCH", plan + "/payees/" + n.id(t, "payee:Transfer : Spaarrekening"), payeeBody("Spaarpot"), 400, "cannot be renamed"},
		{"rename Starting Balance", "PATCH", plan + "/payees/" + n.id(t, "payee:Starting Balance"), payeeBody("Begin"), 400, "cannot be renamed"},
		{"rename an unknown payee", "PATCH", plan + "/payees/0f0f0f0f-0000-4000-8000-000000000000", payeeBody("X"), 404, "No payee"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := a.fail(tt.status, tt.method, tt.path, tt.body)
			if !strings.Contains(e.Detail, tt.detail) {
				t.Errorf("detail %q does not say %q", e.Detail, tt.detail)
			}
		})
	}
	if k := a.knowledge(); k != 1000 {
		t.Errorf("refused payee writes raised the knowledge to %d", k)
	}
	// A transaction's payee_name cannot create a reserved payee either.
	e := a.fail(400, "POST", plan+"/transactions", one(map[string]any{"account_id": n.id(t, "Betaalrekening"),
		"date": "2026-09-14", "amount": -1000, "payee_name": "Transfer : Nergens"}))
	if !strings.Contains(e.Detail, "reserves") {
		t.Errorf("payee_name Transfer : Nergens: %q", e.Detail)
	}
}

func TestCreateAccount(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	before := a.readyToAssign("current")
	create := func(name, typ string, balance int64) ynab.Account {
		t.Helper()
		var got struct{ Account ynab.Account }
		a.ok(201, "POST", plan+"/accounts", map[string]any{"account": map[string]any{"name": name, "type": typ, "balance": balance}}, &got)
		return got.Account
	}
	checking := create("Gezamenlijke rekening", "checking", 250000)
	if !checking.OnBudget || checking.Balance != 250000 || checking.ClearedBalance != 250000 || checking.BalanceFormatted != "€250,00" ||
		checking.TransferPayeeID == nil || checking.Closed {
		t.Fatalf("checking account = %+v", checking)
	}
	if got := a.readyToAssign("current"); got != before+250000 {
		t.Errorf("Ready to Assign %d after a budget account of 250.00, want %d", got, before+250000)
	}
	var txs struct{ Transactions []ynab.Transaction }
	a.ok(200, "GET", plan+"/accounts/"+checking.ID+"/transactions", nil, &txs)
	if len(txs.Transactions) != 1 || txs.Transactions[0].PayeeName == nil || *txs.Transactions[0].PayeeName != "Starting Balance" ||
		txs.Transactions[0].Date != "2026-09-15" || txs.Transactions[0].CategoryName == nil || *txs.Transactions[0].CategoryName != "Inflow: Ready to Assign" {
		t.Errorf("the new account's transactions = %+v", txs.Transactions)
	}
	var payee struct{ Payee ynab.Payee }
	a.ok(200, "GET", plan+"/payees/"+*checking.TransferPayeeID, nil, &payee)
	if payee.Payee.Name != "Transfer : Gezamenlijke rekening" || payee.Payee.TransferAccountID == nil || *payee.Payee.TransferAccountID != checking.ID {
		t.Errorf("transfer payee = %+v", payee.Payee)
	}

	card := create("Tweede creditcard", "creditCard", -30000)
	var cats struct {
		CategoryGroups []ynab.CategoryGroup `json:"category_groups"`
	}
	a.ok(200, "GET", plan+"/categories", nil, &cats)
	found := false
	for _, g := range cats.CategoryGroups {
		for _, c := range g.Categories {
			if c.Name == "Tweede creditcard" {
				found = g.Name == "Credit Card Payments"
			}
		}
	}
	if !found || !card.OnBudget || card.Balance != -30000 {
		t.Errorf("a credit card: %+v; its payment category in Credit Card Payments: %v", card, found)
	}
	asset := create("Huis", "otherAsset", 30000000)
	if asset.OnBudget {
		t.Errorf("an asset account is on budget: %+v", asset)
	}

	for _, tt := range []struct {
		name   string
		body   any
		detail string
	}{
		{"a mortgage", map[string]any{"account": map[string]any{"name": "Hypotheek", "type": "mortgage", "balance": -1}}, "type must be"},
		{"no balance", map[string]any{"account": map[string]any{"name": "X", "type": "cash"}}, "balance is required"},
		{"no type", map[string]any{"account": map[string]any{"name": "X", "balance": 0}}, "type is required"},
		{"an empty name", map[string]any{"account": map[string]any{"name": " ", "type": "cash", "balance": 0}}, "cannot be empty"},
		{"no account", map[string]any{}, "account object"},
	} {
		if e := a.fail(400, "POST", plan+"/accounts", tt.body); !strings.Contains(e.Detail, tt.detail) {
			t.Errorf("%s: detail %q does not say %q", tt.name, e.Detail, tt.detail)
		}
	}
	var all struct{ Accounts []ynab.Account }
	a.ok(200, "GET", plan+"/accounts", nil, &all)
	if len(all.Accounts) != 8 {
		t.Errorf("%d accounts, want the sample's 5 and 3 new", len(all.Accounts))
	}
}
