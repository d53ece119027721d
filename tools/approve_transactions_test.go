package tools

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/journal"
)

func TestApproveTransactionsWithoutAsking(t *testing.T) {
	for _, kind := range []clientKind{noElicit, modernYes} {
		t.Run(kind.name, func(t *testing.T) {
			e := newEnv(t, envOptions{kind: kind})
			bol, tikkie, ah := e.txeditsTx("Bol.com", -34990), e.txeditsTx("Tikkie", -12500), e.txeditsTx("Albert Heijn", -23150)
			market := e.txeditsTx("Market", -86400)              // approved already: left out
			e.ok("list_accounts", map[string]any{}, &struct{}{}) // the plan's id known, as after any read
			e.sb.ResetCounts()
			var out writeOut
			e.ok("approve_transactions", map[string]any{"transaction_ids": []string{bol.ID, tikkie.ID, market.ID, ah.ID}}, &out)
			e.txeditsCheckCost("approve_transactions", out, map[string]int{txeditsPatchRoute: 1})
			if q := e.questions(); len(q) != 0 {
				t.Fatalf("approving asked the user %q", q)
			}
			for _, payee := range []struct {
				name   string
				amount int64
			}{{"Bol.com", -34990}, {"Tikkie", -12500}, {"Albert Heijn", -23150}} {
				if !e.txeditsTx(payee.name, payee.amount).Approved {
					t.Errorf("%s is not approved after the write", payee.name)
				}
			}
			op := e.txeditsOperation(out.OperationID, "none")
			want := []string{
				`transaction 2026-12-01 Bol.com 34.99: {"approved":false} → {"approved":true}`,
				`transaction 2026-12-01 Tikkie 12.50: {"approved":false} → {"approved":true}`,
				`transaction 2026-12-02 Albert Heijn 23.15: {"approved":false} → {"approved":true}`,
			}
			if got := txeditsChanges(op.Changes); !slices.Equal(got, want) {
				t.Fatalf("journaled changes:\n%q\nwant:\n%q", got, want)
			}
			if op.Summary != "Approved 3 transaction(s)" || out.Summary != op.Summary || !strings.HasPrefix(op.Preview, "Approve 3 transaction(s)?\n") {
				t.Fatalf("journal summary %q, preview %q, result summary %q; want what happened, and the question as the preview", op.Summary, op.Preview, out.Summary)
			}
		})
	}
}

func TestApproveTransactionsRefuses(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	bol, market := e.txeditsTx("Bol.com", -34990), e.txeditsTx("Market", -86400)
	thousandAndOne := make([]string, 1001)
	for i := range thousandAndOne {
		thousandAndOne[i] = fmt.Sprintf("tx-%d", i)
	}
	tests := []struct {
		name string
		ids  []string
		want string
	}{
		{"no transactions", []string{}, "transaction_ids: the list is empty"},
		{"more than 1000", thousandAndOne, "transaction_ids: 1001 transactions is more than the 1000"},
		{"an unknown transaction", []string{bol.ID, "nope"}, `transaction_ids[1]: there is no transaction "nope"`},
		{"the same transaction twice", []string{bol.ID, bol.ID}, "transaction_ids[1]: transaction " + bol.ID + " is already in transaction_ids[0]"},
		{"nothing to change", []string{market.ID}, "transaction_ids: every transaction named is already approved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.txeditsRefuses("approve_transactions", map[string]any{"transaction_ids": tt.ids}, tt.want)
		})
	}
	if ops := e.operations(journal.Filter{}); len(ops) != 0 {
		t.Fatalf("refused approvals were journaled: %+v", ops)
	}
}
