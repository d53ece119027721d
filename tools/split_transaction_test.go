package tools

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

const txeditsPutRoute = "PUT /plans/{plan_id}/transactions/{transaction_id}"

const txeditsSplitPreview = "Split 2026-12-01 Market 86.40 into 2 lines?\n" +
	"Boodschappen 50.00\n" +
	"Restaurants 36.40 (memo: Koffie)\n" +
	"Only YNAB can undo a split: YNAB's API cannot change or remove a split's lines, so avenir cannot undo this."

func txeditsSplitArgs(id string, lines ...map[string]any) map[string]any {
	return map[string]any{"transaction_id": id, "lines": lines}
}

// txeditsMarketLines split Market's 86.40 into 50.00 of groceries and 36.40 of coffee.
var txeditsMarketLines = []map[string]any{
	{"amount": "-50.00", "category": "Boodschappen"},
	{"amount": -36.4, "category": "Restaurants", "memo": "Koffie"},
}

// txeditsCheckSplit checks that Market is a split of the two lines in the sandbox.
func (e *testEnv) txeditsCheckSplit(id string) {
	e.t.Helper()
	p := e.txeditsExport()
	var lines []string
	for _, s := range p.Subtransactions {
		if s.TransactionID == id && !s.Deleted {
			lines = append(lines, fmt.Sprintf("%d %s %s", s.Amount, *s.CategoryID, str(s.Memo)))
		}
	}
	want := []string{"-50000 " + e.txeditsCategory("Boodschappen") + " ", "-36400 " + e.txeditsCategory("Restaurants") + " Koffie"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		e.t.Fatalf("Market's lines in the sandbox: %q, want %q", lines, want)
	}
	if c := e.txeditsTx("Market", -86400).CategoryID; c != nil {
		e.t.Fatalf("Market still has category %s after the split", *c)
	}
}

func TestSplitTransactionByCode(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	market := e.txeditsTx("Market", -86400)
	out := e.txeditsByCode("split_transaction", txeditsSplitArgs(market.ID, txeditsMarketLines...), txeditsSplitPreview,
		map[string]int{txeditsPutRoute: 1})
	e.txeditsCheckSplit(market.ID)

	op := e.txeditsOperation(out.OperationID, "code")
	want := fmt.Sprintf(`transaction 2026-12-01 Market 86.40: {"category_id":"%s"} → {"category_id":null,"subtransactions":[`+
		`{"amount":-50000,"category_id":"%s","memo":null},{"amount":-36400,"category_id":"%s","memo":"Koffie"}]}`,
		e.txeditsCategory("Boodschappen"), e.txeditsCategory("Boodschappen"), e.txeditsCategory("Restaurants"))
	if got := txeditsChanges(op.Changes); len(got) != 1 || got[0] != want || op.Changes[0].ID != market.ID {
		t.Fatalf("journaled changes:\n%q\nwant:\n%q", got, want)
	}
	// Once split, it cannot be split again.
	e.txeditsRefuses("split_transaction", txeditsSplitArgs(market.ID, txeditsMarketLines...), "is already a split")
}

func TestSplitTransactionByElicitation(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernYes})
	market := e.txeditsTx("Market", -86400)
	e.sb.ResetCounts()
	var out writeOut
	e.ok("split_transaction", txeditsSplitArgs(market.ID, txeditsMarketLines...), &out)
	if q := e.questions(); len(q) != 1 || q[0] != txeditsSplitPreview {
		t.Fatalf("the user was asked %q, want once:\n%s", q, txeditsSplitPreview)
	}
	if c := e.sb.Counts(); out.Status != "applied" || c.Writes != 1 || c.ByRoute[txeditsPutRoute] != 1 {
		t.Fatalf("result %+v, counts %+v; want applied with one PUT", out, c)
	}
	e.txeditsOperation(out.OperationID, "mrtr")
	e.txeditsCheckSplit(market.ID)
}

func TestSplitTransactionRefuses(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	market := e.txeditsTx("Market", -86400)
	split := e.txeditsTx("Albert Heijn", -112350)
	transfer := e.txeditsTx("Transfer : Spaarrekening", -250000)
	line := func(amount any, category string) map[string]any {
		return map[string]any{"amount": amount, "category": category}
	}
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"one line", txeditsSplitArgs(market.ID, line("-86.40", "Boodschappen")), "lines: a split needs at least 2 lines, got 1"},
		{"an unknown transaction", txeditsSplitArgs("nope", txeditsMarketLines...), `transaction_id: there is no transaction "nope"`},
		{"a split already", txeditsSplitArgs(split.ID, line("-100", "Boodschappen"), line("-12.35", "Uitjes")),
			"transaction_id: " + split.Date + " Albert Heijn 112.35 is already a split"},
		{"a transfer", txeditsSplitArgs(transfer.ID, line("-200", "Vakantie"), line("-50", "Uitjes")), "is a transfer, which YNAB cannot split"},
		{"lines that do not add up", txeditsSplitArgs(market.ID, line("-50", "Boodschappen"), line("-30", "Restaurants")),
			"lines: the lines add up to -80.00, but the transaction's amount is -86.40 (negative is an outflow); they differ by 6.40"},
		{"an outflow's lines as positive amounts", txeditsSplitArgs(market.ID, line("50", "Boodschappen"), line("36.40", "Restaurants")),
			"lines: the lines add up to 86.40, the opposite of the transaction's -86.40: give an outflow's lines as negative amounts"},
		{"too many decimals", txeditsSplitArgs(market.ID, line("-50.001", "Boodschappen"), line("-36.399", "Restaurants")),
			`lines[0].amount: "-50.001" has more decimals than the plan's currency allows (2)`},
		{"amounts too large to add", txeditsSplitArgs(market.ID, line("9007199254740", "Boodschappen"), line("9007199254740", "Restaurants")),
			"lines: the amounts are too large to add up"},
		{"a hidden category", txeditsSplitArgs(market.ID, line("-50", "Boodschappen"), line("-36.40", "Fotografie")), "lines[1].category: Vrije tijd: Fotografie is hidden"},
		{"an unknown category", txeditsSplitArgs(market.ID, line("-50", "Huisdieren"), line("-36.40", "Restaurants")), `lines[0].category: there is no category "Huisdieren"`},
		{"a memo too long", txeditsSplitArgs(market.ID, line("-50", "Boodschappen"),
			map[string]any{"amount": "-36.40", "category": "Restaurants", "memo": strings.Repeat("é", 501)}),
			"lines[1].memo: it is 501 characters long; YNAB takes at most 500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.txeditsRefuses("split_transaction", tt.args, tt.want)
		})
	}
}

// YNAB documents turning a transaction into a split with PUT, but an answer without the lines
// means it did not: the result must say what happened, and the journal what changed.
func TestSplitOutcomeChecksYNABsAnswer(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	p, err := e.client.Plan(context.Background(), sandbox.PlanID, ynab.Fresh)
	if err != nil {
		t.Fatal(err)
	}
	market, _ := p.Transaction(e.txeditsTx("Market", -86400).ID)
	answer := func(category *string, lines int) ynab.Transaction {
		res := ynab.Transaction{TransactionSummary: *market}
		res.CategoryID = category
		for range lines {
			res.Subtransactions = append(res.Subtransactions, ynab.SubTransaction{TransactionID: market.ID})
		}
		return res
	}
	tests := []struct {
		name        string
		res         ynab.Transaction
		wantErr     string
		wantPartial bool
		wantChange  string
	}{
		{name: "split as asked", res: answer(nil, 2)},
		{name: "nothing done", res: answer(market.CategoryID, 0), wantErr: "YNAB answered without splitting 2026-12-01 Market 86.40, which is unchanged"},
		{name: "uncategorized but not split", res: answer(nil, 0), wantPartial: true,
			wantChange: fmt.Sprintf(`transaction 2026-12-01 Market 86.40: {"category_id":"%s"} → {"category_id":null}`, *market.CategoryID)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := splitOutcome(p, market, tt.res, 2)
			if (err != nil) != (tt.wantErr != "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if out.Partial != tt.wantPartial {
				t.Fatalf("partial = %v, want %v", out.Partial, tt.wantPartial)
			}
			if tt.wantPartial {
				if got := txeditsChanges(out.Changes); len(got) != 1 || got[0] != tt.wantChange || !strings.Contains(out.Note, "uncategorized now") {
					t.Fatalf("outcome %+v, want the change %s and a note", out, tt.wantChange)
				}
			}
		})
	}
}
