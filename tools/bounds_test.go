package tools

import (
	"testing"

	"github.com/avenir-mcp/avenir/journal"
)

// Amounts stay within what YNAB's apps and JavaScript clients hold exactly (±(2^53-1)
// milliunits): an amount past it is refused with the bound, and so is a write that would take a
// total past it. Nothing is written or journaled.
func TestWritesStayWithinTheAmountBound(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	e.sb.ResetCounts()
	tx := func(amount string) map[string]any {
		return map[string]any{"date": "today", "amount": amount, "payee": "Albert Heijn"}
	}
	tests := []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"the wrap of the original report", "set_category_budget", map[string]any{"category": "Restaurants", "amount": "9223372036854775.80"},
			`amount: "9223372036854775.80" is too large for an amount: amounts must lie between -9007199254740.99 and 9007199254740.99`},
		{"an assigned amount that takes the available amount past the bound", "set_category_budget",
			map[string]any{"category": "Restaurants", "amount": "9007199254740.99"},
			"amount: this would take the available amount of Restaurants past 9007199254740.99 either way"},
		{"a bank balance that takes the adjustment past the bound", "reconcile_account",
			map[string]any{"account": "Betaalrekening", "bank_balance": "-9007199254740.99"},
			"bank_balance: this would take the adjustment or the account's balance past 9007199254740.99"},
		{"transactions that take the balance past the bound", "create_transactions",
			map[string]any{"account": "Betaalrekening", "transactions": []any{tx("9007199254740"), tx("9007199254740")}},
			"transactions: this would take the balance of Betaalrekening past 9007199254740.99"},
		{"a transaction past the bound", "create_transactions",
			map[string]any{"account": "Betaalrekening", "transactions": []any{tx("-9007199254741")}},
			`transactions[0].amount: "-9007199254741" is too large for an amount`},
		{"a target past the bound", "set_category_target", map[string]any{"category": "Vakantie", "amount": 1e16},
			`amount: "10000000000000000" is too large for an amount`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.t = t
			checkErrorText(t, e.fails(tt.tool, tt.args, tt.want))
		})
	}
	e.t = t
	if n := e.writes(); n != 0 {
		t.Fatalf("refused calls made %d write request(s)", n)
	}
	if ops := e.operations(journal.Filter{}); len(ops) != 0 {
		t.Fatalf("refused calls were journaled: %+v", ops)
	}
}

func TestSumMilliunits(t *testing.T) {
	tests := []struct {
		terms []int64
		want  int64
		ok    bool
	}{
		{[]int64{1, 2, 3}, 6, true},
		{[]int64{MaxMilliunits, 0}, MaxMilliunits, true},
		{[]int64{MaxMilliunits, 1}, 0, false},
		{[]int64{-MaxMilliunits, -1}, 0, false},
		{[]int64{MaxMilliunits, -MaxMilliunits}, 0, true},
		{[]int64{MaxMilliunits + 1, -2}, 0, false}, // a term past the bound, even if the sum is not
		{[]int64{-1 << 63, 1}, 0, false},
		{[]int64{1<<63 - 1}, 0, false},
		{nil, 0, true},
	}
	for _, tt := range tests {
		got, ok := sumMilliunits(tt.terms...)
		if got != tt.want || ok != tt.ok {
			t.Errorf("sumMilliunits(%v) = %d, %v; want %d, %v", tt.terms, got, ok, tt.want, tt.ok)
		}
	}
}
