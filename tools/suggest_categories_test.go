package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// suggestionFor finds the row of a transaction, or fails.
func suggestionFor(t *testing.T, out suggestCategoriesOut, id string) suggestionRow {
	t.Helper()
	for _, r := range out.Transactions {
		if r.TransactionID == id {
			return r
		}
	}
	t.Fatalf("no row for transaction %s in %+v", id, out.Transactions)
	return suggestionRow{}
}

type wantSuggestion struct {
	category   string
	times, of  int
	confidence float64
	why        string
}

func checkSuggestions(t *testing.T, row suggestionRow, want []wantSuggestion, note string) {
	t.Helper()
	var got, exp []string
	for _, s := range row.Suggestions {
		got = append(got, fmt.Sprintf("%s %d/%d %.2f %q", s.Category, s.Times, s.Of, s.Confidence, s.Why))
		if s.CategoryID == "" {
			t.Errorf("%s: a suggestion without a category id: %+v", row.Payee, s)
		}
	}
	for _, s := range want {
		exp = append(exp, fmt.Sprintf("%s %d/%d %.2f %q", s.category, s.times, s.of, s.confidence, s.why))
	}
	if strings.Join(got, "\n") != strings.Join(exp, "\n") {
		t.Errorf("%s %s:\ngot  %s\nwant %s", row.Payee, row.Amount, strings.Join(got, "\n     "), strings.Join(exp, "\n     "))
	}
	if row.Note != note {
		t.Errorf("%s: note %q, want %q", row.Payee, row.Note, note)
	}
}

func TestSuggestCategoriesOnTheSample(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	var out suggestCategoriesOut
	e.ok("suggest_categories", nil, &out)
	// The sample's four uncategorized transactions, newest first.
	if out.Uncategorized != 4 || len(out.Transactions) != 4 || out.OmittedIDs != nil {
		t.Fatalf("%d rows of %d uncategorized (omitted %v), want the sample's 4", len(out.Transactions), out.Uncategorized, out.OmittedIDs)
	}
	byPayee := map[string]suggestionRow{}
	for _, r := range out.Transactions {
		byPayee[r.Payee+" "+r.Amount] = r
	}
	checkSuggestions(t, byPayee["Kruidvat -€8,47"], []wantSuggestion{{"Dagelijks: Persoonlijke verzorging", 1, 1, 0.5,
		"The one earlier Kruidvat transaction was Dagelijks: Persoonlijke verzorging, on 2026-10-20"}}, "")
	// Tikkie paid back a dinner once (an inflow); this one is a payment: weaker evidence.
	checkSuggestions(t, byPayee["Tikkie -€12,50"], []wantSuggestion{{"Dagelijks: Restaurants", 1, 1, 0.25,
		"The one earlier Tikkie transaction was Dagelijks: Restaurants, on 2026-11-28 (that was an inflow, this is an outflow)"}}, "")
	noHistory := "no history: no earlier approved Bol.com transaction has a category, and no memo word matches one that has"
	checkSuggestions(t, byPayee["Bol.com -€34,99"], nil, noHistory)
	checkSuggestions(t, byPayee["Bol.com -€59,99"], nil, noHistory)
	if e.writes() != 0 {
		t.Error("suggest_categories wrote to YNAB")
	}
}

// A plan with known answers: a payee always categorised one way, a payee mostly one way, a memo
// word, history that must not count (unapproved, or in a hidden category).
func TestSuggestCategoriesLearnsFromThePlan(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	var history []planted
	for i, amount := range []int64{-4350, -5100, -4350, -3950, -6200, -4350} {
		history = append(history, planted{date: fmt.Sprintf("2026-%02d-%02d", 6+i, 6), payee: "Bakker Bas", category: "Boodschappen", amount: amount})
	}
	// Gamma: 14 purchases, the 3rd and 9th newest in Uitjes, the rest in Onderhoud huis; none
	// within 10% of the new one's amount.
	for i := range 14 {
		cat := "Onderhoud huis"
		if i == 11 || i == 5 {
			cat = "Uitjes"
		}
		history = append(history, planted{date: fmt.Sprintf("2026-%02d-%02d", 1+i/2, 3+10*(i%2)), payee: "Gamma", category: cat, amount: int64(-100000 - 20000*i)})
	}
	history = append(history,
		planted{date: "2026-10-02", payee: "Fietsenmaker Piet", category: "Vervoer", amount: -25000, unapproved: true},
		planted{date: "2026-11-02", payee: "Fietsenmaker Piet", category: "Vervoer", amount: -25000, unapproved: true},
		planted{date: "2026-10-12", payee: "Foto Digitaal", category: "Fotografie", amount: -12000},
	)
	plant(e, history...)
	ids := plant(e,
		planted{date: "2026-11-28", payee: "Bakker Bas", amount: -4350},
		planted{date: "2026-11-27", payee: "Gamma", amount: -2500},
		planted{date: "2026-11-26", payee: "P+R Jaarbeurs", amount: -6000, memo: "Parkeren beurs"},
		planted{date: "2026-11-25", payee: "Fietsenmaker Piet", amount: -25000},
		planted{date: "2026-11-24", payee: "Foto Digitaal", amount: -12000},
	)
	e.sb.ResetCounts()
	var out suggestCategoriesOut
	e.ok("suggest_categories", map[string]any{"transaction_ids": ids}, &out)
	if len(out.Transactions) != 5 || out.Uncategorized != 0 {
		t.Fatalf("%d rows, uncategorized %d; want the 5 asked for and no count", len(out.Transactions), out.Uncategorized)
	}
	checkSuggestions(t, suggestionFor(t, out, ids[0]), []wantSuggestion{{"Dagelijks: Boodschappen", 6, 6, 0.86,
		"All 6 earlier Bakker Bas transactions were Dagelijks: Boodschappen, the latest on 2026-11-06; 4 of them within 10% of this amount"}}, "")
	checkSuggestions(t, suggestionFor(t, out, ids[1]), []wantSuggestion{
		{"Sparen: Onderhoud huis", 12, 14, 0.79, "12 of the 14 earlier Gamma transactions were Sparen: Onderhoud huis, the latest on 2026-07-13"},
		{"Vrije tijd: Uitjes", 2, 14, 0.15, "2 of the 14 earlier Gamma transactions were Vrije tijd: Uitjes, the latest on 2026-06-13"},
	}, "")
	// No history for the payee: the memo word ‘parkeren’ was on the sample's Q-Park parking.
	checkSuggestions(t, suggestionFor(t, out, ids[2]), []wantSuggestion{{"Dagelijks: Vervoer", 1, 1, 0.38,
		"The one earlier transaction with ‘parkeren’ in the memo was Dagelijks: Vervoer, on 2026-11-03"}}, "")
	// Unapproved categories are YNAB's guesses, not the person's choices.
	checkSuggestions(t, suggestionFor(t, out, ids[3]), nil,
		"no history: no earlier approved Fietsenmaker Piet transaction has a category, and no memo word matches one that has")
	checkSuggestions(t, suggestionFor(t, out, ids[4]), nil,
		"the earlier Foto Digitaal transactions are in hidden or internal categories, which apply_categories cannot give")

	// Without ids: every uncategorized transaction, newest first: the sample's 4 and these 5.
	var all suggestCategoriesOut
	e.ok("suggest_categories", nil, &all)
	if all.Uncategorized != 9 || len(all.Transactions) != 9 || all.Transactions[0].Date < all.Transactions[8].Date {
		t.Errorf("uncategorized %d, %d rows; want 9, newest first", all.Uncategorized, len(all.Transactions))
	}
	if e.writes() != 0 {
		t.Error("suggest_categories wrote to YNAB")
	}
}

func TestSuggestCategoriesExplainsWhatTakesNone(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	p, err := e.sb.Export(sandbox.PlanID)
	if err != nil {
		t.Fatal(err)
	}
	var split, transfer string
	for _, s := range p.Subtransactions {
		split = s.TransactionID
	}
	for _, tx := range p.Transactions {
		if tx.TransferAccountID != nil {
			transfer = tx.ID
		}
	}
	var out suggestCategoriesOut
	e.ok("suggest_categories", map[string]any{"transaction_ids": []string{split, transfer, split}}, &out)
	if len(out.Transactions) != 2 {
		t.Fatalf("%d rows, want 2 (an id given twice counts once)", len(out.Transactions))
	}
	checkSuggestions(t, suggestionFor(t, out, split), nil, "a split: each of its lines has its own category")
	checkSuggestions(t, suggestionFor(t, out, transfer), nil, "a transfer between budget accounts: it needs no category")

	e.fails("suggest_categories", map[string]any{"transaction_ids": []string{"no-such-id"}},
		`transaction_ids: there is no transaction "no-such-id" in this plan; list_transactions shows their ids`)
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprint("id-", i)
	}
	e.fails("suggest_categories", map[string]any{"transaction_ids": many}, "transaction_ids: 101 ids is more than the 100 one call takes")
}
