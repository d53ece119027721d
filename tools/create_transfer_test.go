package tools

import (
	"testing"
)

// create_transactions' transfer_account: a transfer, whose other side YNAB enters.

func transferArgs(*testEnv) map[string]any {
	return map[string]any{"account": "Betaalrekening", "transactions": []map[string]any{
		{"date": "today", "amount": "-100", "transfer_account": "spaarrekening", "memo": "sparen"}}}
}

func TestCreateTransactionsTransfer(t *testing.T) {
	t.Parallel()
	op := wrAcrossClients(t, wrCase{tool: "create_transactions", args: transferArgs,
		first:  "Create 1 transaction(s) on Betaalrekening?",
		writes: map[string]int{"POST /plans/{plan_id}/transactions": 1},
		check: func(t *testing.T, e *testEnv) {
			var out listTransactionsOut
			e.ok("list_transactions", map[string]any{"since": "today", "text": "sparen"}, &out)
			sides := map[string]transactionView{}
			for _, v := range out.Transactions {
				sides[v.Account] = v
			}
			from, to := sides["Betaalrekening"], sides["Spaarrekening"]
			if len(out.Transactions) != 2 || from.Transfer != "Spaarrekening" || from.AmountMilliunits != -100000 ||
				to.Transfer != "Betaalrekening" || to.AmountMilliunits != 100000 {
				t.Fatalf("list_transactions shows %+v; want the transfer's two sides", out.Transactions)
			}
		}})
	if op.Preview != "Create 1 transaction(s) on Betaalrekening?\n2026-12-02 Transfer : Spaarrekening 100.00, a transfer: YNAB enters the other side on Spaarrekening, memo \"sparen\"" {
		t.Fatalf("preview = %q", op.Preview)
	}
}

// Its undo (after a restart) deletes both sides; the redo enters the transfer again.
func TestCreateTransactionsTransferUndo(t *testing.T) {
	t.Parallel()
	wrRoundTrip(t, "create_transactions", transferArgs)
}

func TestCreateTransactionsTransferRefusals(t *testing.T) {
	t.Parallel()
	one := func(tx map[string]any) map[string]any {
		tx["date"], tx["amount"] = "today", "-10"
		return map[string]any{"account": "Betaalrekening", "transactions": []map[string]any{tx}}
	}
	moneyRefusals(t, "create_transactions", []moneyRefusal{
		{"payee and transfer_account", one(map[string]any{"payee": "Market", "transfer_account": "Spaarrekening"}), "transactions[0]: give payee or transfer_account, not both"},
		{"neither", one(map[string]any{}), "transactions[0].payee: give a payee"},
		{"to itself", one(map[string]any{"transfer_account": "Betaalrekening"}), "transactions[0].transfer_account: Betaalrekening is the account the transaction is on"},
		{"to a closed account", one(map[string]any{"transfer_account": "Oude rekening"}), "transactions[0].transfer_account: Oude rekening is closed"},
		{"to an unknown account", one(map[string]any{"transfer_account": "Spaarpot"}), `transactions[0].transfer_account: there is no account "Spaarpot"`},
		{"a category between budget accounts", one(map[string]any{"transfer_account": "Spaarrekening", "category": "Vakantie"}),
			"transactions[0].category: a transfer between two budget accounts (Betaalrekening to Spaarrekening) takes no category"},
		{"a payee name YNAB keeps", one(map[string]any{"payee": "Transfer : Nergens"}), `transactions[0].payee: "Transfer : Nergens" is a payee name YNAB keeps for itself`},
	})
}
