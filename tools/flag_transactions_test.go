package tools

import (
	"fmt"
	"slices"
	"testing"
)

func txeditsFlagArgs(pairs ...string) map[string]any { return txeditsPairs("flags", "color", pairs...) }

const txeditsFlagPreview = "Change the flag of 2 transaction(s)?\n" +
	"2026-12-01 Market 86.40: none → red\n" +
	"2026-11-23 Bol.com 59.99: red → none"

func TestFlagTransactionsByCode(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	market, bol, loetje := e.txeditsTx("Market", -86400), e.txeditsTx("Bol.com", -59990), e.txeditsTx("Restaurant Loetje", -54000)
	// Loetje is blue already: left out of the preview and the write.
	args := txeditsFlagArgs(market.ID, "red", bol.ID, "none", loetje.ID, " Blue")
	out := e.txeditsByCode("flag_transactions", args, txeditsFlagPreview, map[string]int{txeditsPatchRoute: 1})

	if f := e.txeditsTx("Market", -86400).FlagColor; f == nil || *f != "red" {
		t.Errorf("Market's flag is %v after the write, want red", f)
	}
	if f := e.txeditsTx("Bol.com", -59990).FlagColor; f != nil && *f != "" {
		t.Errorf("Bol.com's flag is %q after the write, want none", *f)
	}
	if f := e.txeditsTx("Restaurant Loetje", -54000).FlagColor; f == nil || *f != "blue" {
		t.Errorf("Loetje's flag is %v after the write, want blue still", f)
	}
	op := e.txeditsOperation(out.OperationID, "code")
	want := []string{
		`transaction 2026-12-01 Market 86.40: {"flag_color":null} → {"flag_color":"red"}`,
		`transaction 2026-11-23 Bol.com 59.99: {"flag_color":"red"} → {"flag_color":null}`,
	}
	if got := txeditsChanges(op.Changes); !slices.Equal(got, want) || op.Changes[1].ID != bol.ID {
		t.Fatalf("journaled changes:\n%q\nwant:\n%q", got, want)
	}
}

func TestFlagTransactionsByElicitation(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernYes})
	market, bol := e.txeditsTx("Market", -86400), e.txeditsTx("Bol.com", -59990)
	e.sb.ResetCounts()
	var out writeOut
	e.ok("flag_transactions", txeditsFlagArgs(market.ID, "red", bol.ID, "none"), &out)
	if q := e.questions(); len(q) != 1 || q[0] != txeditsFlagPreview {
		t.Fatalf("the user was asked %q, want once:\n%s", q, txeditsFlagPreview)
	}
	if c := e.sb.Counts(); out.Status != "applied" || c.Writes != 1 || c.ByRoute[txeditsPatchRoute] != 1 {
		t.Fatalf("result %+v, counts %+v; want applied with one PATCH", out, c)
	}
	e.txeditsOperation(out.OperationID, "mrtr")
	if f := e.txeditsTx("Market", -86400).FlagColor; f == nil || *f != "red" {
		t.Fatalf("Market's flag is %v after the write, want red", f)
	}
}

func TestFlagTransactionsRefuses(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	market, loetje := e.txeditsTx("Market", -86400), e.txeditsTx("Restaurant Loetje", -54000)
	thousandAndOne := make([]string, 0, 2002)
	for i := range 1001 {
		thousandAndOne = append(thousandAndOne, fmt.Sprintf("tx-%d", i), "red")
	}
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no flags", map[string]any{"flags": []any{}}, "flags: the list is empty"},
		{"more than 1000", txeditsFlagArgs(thousandAndOne...), "flags: 1001 transactions is more than the 1000"},
		{"an invalid colour", txeditsFlagArgs(market.ID, "red", loetje.ID, "pink"), `flags[1].color: "pink" is not a flag colour: use red, orange, yellow, green, blue, purple, or none`},
		{"no colour", txeditsFlagArgs(market.ID, ""), `flags[0].color: "" is not a flag colour`},
		{"an unknown transaction", txeditsFlagArgs("nope", "red"), `flags[0]: there is no transaction "nope"`},
		{"the same transaction twice", txeditsFlagArgs(market.ID, "red", market.ID, "blue"), "flags[1]: transaction " + market.ID + " is already in flags[0]"},
		{"nothing to change", txeditsFlagArgs(loetje.ID, "blue", market.ID, "none"), "flags: every transaction named already has the flag given: nothing to change"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.txeditsRefuses("flag_transactions", tt.args, tt.want)
		})
	}
}
