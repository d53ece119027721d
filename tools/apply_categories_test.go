package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// apply_categories, and the helpers the transaction edits' tests share (prefixed txedits).
// On the tests' today, 2026-12-02, the sample's current-month transactions of the days before
// are dated 2026-12-01: the Market outflow of 86.40 and its three plain uncategorized
// transactions on Betaalrekening, Bol.com 34.99 (unapproved), Tikkie 12.50 (unapproved) and
// Kruidvat 8.47.

const txeditsPatchRoute = "PATCH /plans/{plan_id}/transactions"

// txeditsExport returns the sandbox's plan as YNAB would export it now.
func (e *testEnv) txeditsExport() ynab.PlanDetail {
	e.t.Helper()
	p, err := e.sb.Export(sandbox.PlanID)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// txeditsTx returns the one live transaction to payee of amount (milliunits) in the sandbox.
func (e *testEnv) txeditsTx(payee string, amount int64) ynab.TransactionSummary {
	e.t.Helper()
	p := e.txeditsExport()
	var payeeID string
	for _, y := range p.Payees {
		if y.Name == payee {
			payeeID = y.ID
		}
	}
	var hits []ynab.TransactionSummary
	for _, t := range p.Transactions {
		if !t.Deleted && t.Amount == amount && t.PayeeID != nil && *t.PayeeID == payeeID {
			hits = append(hits, t)
		}
	}
	if len(hits) != 1 {
		e.t.Fatalf("the sandbox has %d transactions to %s of %d, want 1", len(hits), payee, amount)
	}
	return hits[0]
}

// txeditsCategory returns the id of the category named name in the sandbox.
func (e *testEnv) txeditsCategory(name string) string {
	e.t.Helper()
	for _, c := range e.txeditsExport().Categories {
		if c.Name == name {
			return c.ID
		}
	}
	e.t.Fatalf("no category %s in the sandbox", name)
	return ""
}

// txeditsByCode takes a confirmed write through the code path: the preview must be want,
// nothing may be written before the code comes back, and the call with the code must cost
// at most one read and exactly the writes given per route.
func (e *testEnv) txeditsByCode(tool string, args map[string]any, want string, writes map[string]int) writeOut {
	e.t.Helper()
	first := e.preview(tool, args)
	if first.Preview != want {
		e.t.Fatalf("%s preview:\n%s\nwant the preview:\n%s", tool, first.Preview, want)
	}
	var out writeOut
	decode(e.t, e.confirmByCode(tool, args, first.Confirmation), &out)
	e.txeditsCheckCost(tool, out, writes)
	return out
}

// txeditsCheckCost checks an applied result and what it cost since the counts were reset.
func (e *testEnv) txeditsCheckCost(tool string, out writeOut, writes map[string]int) {
	e.t.Helper()
	c := e.sb.Counts()
	total := 0
	for route, n := range writes {
		total += n
		if c.ByRoute[route] != n {
			e.t.Errorf("%s: %d requests %s, want %d (all: %v)", tool, c.ByRoute[route], route, n, c.ByRoute)
		}
	}
	if out.Status != "applied" || out.OperationID == "" || c.Reads > 1 || c.Writes != total || out.YNABRequests != c.Total {
		e.t.Fatalf("%s: %+v, sandbox counts %+v; want applied with at most one read and %d write(s)", tool, out, c, total)
	}
}

// txeditsRefuses checks that a call fails with an error containing want and writes nothing.
func (e *testEnv) txeditsRefuses(tool string, args map[string]any, want string) {
	e.t.Helper()
	e.sb.ResetCounts()
	e.fails(tool, args, want)
	if e.writes() != 0 {
		e.t.Fatalf("%s(%v) was refused but wrote to YNAB", tool, args)
	}
}

// txeditsOperation returns the journal's operation id, which must be applied and confirmed via.
func (e *testEnv) txeditsOperation(id, via string) journal.Operation {
	e.t.Helper()
	op, err := e.journal.Get(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	if op.Status != journal.StatusApplied || op.ConfirmedVia != via || op.Client.Name != "avenir-test" {
		e.t.Fatalf("journal entry %+v; want applied, confirmed via %s", op, via)
	}
	return op
}

// txeditsChanges renders journaled changes as "label: before → after" for comparison.
func txeditsChanges(cs []journal.Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = fmt.Sprintf("%s %s: %s → %s", c.Kind, c.Label, c.Before, c.After)
	}
	return out
}

// txeditsPairs builds the arguments of a transaction edit from (transaction id, value) pairs:
// {list: [{"transaction_id": id, field: value}, …]}.
func txeditsPairs(list, field string, pairs ...string) map[string]any {
	var items []any
	for i := 0; i < len(pairs); i += 2 {
		items = append(items, map[string]any{"transaction_id": pairs[i], field: pairs[i+1]})
	}
	return map[string]any{list: items}
}

func txeditsChangeArgs(pairs ...string) map[string]any {
	return txeditsPairs("changes", "category", pairs...)
}

const txeditsRecategorisePreview = "Recategorise 2 transaction(s)?\n" +
	"2026-12-01 Kruidvat 8.47: Uncategorized → Persoonlijke verzorging\n" +
	"2026-12-01 Tikkie 12.50: Uncategorized → Restaurants"

func TestApplyCategoriesByCode(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	kruidvat, tikkie, market := e.txeditsTx("Kruidvat", -8470), e.txeditsTx("Tikkie", -12500), e.txeditsTx("Market", -86400)
	// Market already is Boodschappen: left out of the preview and the write.
	args := txeditsChangeArgs(kruidvat.ID, "Persoonlijke verzorging", tikkie.ID, "Dagelijks: Restaurants", market.ID, "boodschappen")
	out := e.txeditsByCode("apply_categories", args, txeditsRecategorisePreview, map[string]int{txeditsPatchRoute: 1})

	if got := e.txeditsTx("Kruidvat", -8470).CategoryID; got == nil || *got != e.txeditsCategory("Persoonlijke verzorging") {
		t.Errorf("Kruidvat's category is %v after the write", got)
	}
	if got := e.txeditsTx("Tikkie", -12500).CategoryID; got == nil || *got != e.txeditsCategory("Restaurants") {
		t.Errorf("Tikkie's category is %v after the write", got)
	}
	op := e.txeditsOperation(out.OperationID, "code")
	want := []string{
		fmt.Sprintf(`transaction 2026-12-01 Kruidvat 8.47: {"category_id":null} → {"category_id":"%s"}`, e.txeditsCategory("Persoonlijke verzorging")),
		fmt.Sprintf(`transaction 2026-12-01 Tikkie 12.50: {"category_id":null} → {"category_id":"%s"}`, e.txeditsCategory("Restaurants")),
	}
	if got := txeditsChanges(op.Changes); !slices.Equal(got, want) {
		t.Fatalf("journaled changes:\n%q\nwant:\n%q", got, want)
	}
	if op.Changes[0].ID != kruidvat.ID || op.Summary != "Recategorised 2 transaction(s)" || !strings.HasPrefix(op.Preview, "Recategorise 2 transaction(s)?\n") {
		t.Fatalf("journal entry %+v", op)
	}
}

func TestApplyCategoriesByElicitation(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernYes})
	kruidvat, tikkie := e.txeditsTx("Kruidvat", -8470), e.txeditsTx("Tikkie", -12500)
	e.sb.ResetCounts()
	var out writeOut
	e.ok("apply_categories", txeditsChangeArgs(kruidvat.ID, "Persoonlijke verzorging", tikkie.ID, "Restaurants"), &out)
	if q := e.questions(); len(q) != 1 || q[0] != txeditsRecategorisePreview {
		t.Fatalf("the user was asked %q, want once:\n%s", q, txeditsRecategorisePreview)
	}
	// Two legs, each reading the plan fresh: a read each, and the one PATCH.
	if c := e.sb.Counts(); out.Status != "applied" || c.Writes != 1 || c.ByRoute[txeditsPatchRoute] != 1 {
		t.Fatalf("result %+v, counts %+v; want applied with one PATCH", out, c)
	}
	e.txeditsOperation(out.OperationID, "mrtr")
	if got := e.txeditsTx("Tikkie", -12500).CategoryID; got == nil || *got != e.txeditsCategory("Restaurants") {
		t.Fatalf("Tikkie's category is %v after the write", got)
	}
}

func TestApplyCategoriesTakesReadyToAssignForIncome(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	tikkie := e.txeditsTx("Tikkie", 18500) // the repaid dinner, an inflow in Restaurants
	var out writeOut
	e.ok("apply_categories", txeditsChangeArgs(tikkie.ID, "Inflow: Ready to Assign"), &out)
	if want := "Recategorise 1 transaction(s)?\n2026-11-28 Tikkie +18.50: Restaurants → Inflow: Ready to Assign"; out.Preview != want {
		t.Fatalf("preview %q, want %q", out.Preview, want)
	}
}

func TestApplyCategoriesRefuses(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	kruidvat, bol := e.txeditsTx("Kruidvat", -8470), e.txeditsTx("Bol.com", -34990)
	split := e.txeditsTx("Albert Heijn", -112350)
	transfer := e.txeditsTx("Transfer : Spaarrekening", -250000)
	gone := e.txeditsTx("Shell", -64300)
	if _, err := e.client.DeleteTransaction(context.Background(), sandbox.PlanID, gone.ID); err != nil {
		t.Fatal(err)
	}
	market := e.txeditsTx("Market", -86400)
	thousandAndOne := make([]string, 0, 2002)
	for i := range 1001 {
		thousandAndOne = append(thousandAndOne, fmt.Sprintf("tx-%d", i), "Restaurants")
	}
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no changes", map[string]any{"changes": []any{}}, "changes: the list is empty"},
		{"more than 1000", txeditsChangeArgs(thousandAndOne...), "changes: 1001 transactions is more than the 1000"},
		{"an unknown transaction", txeditsChangeArgs(kruidvat.ID, "Restaurants", "nope", "Restaurants"), `changes[1]: there is no transaction "nope"`},
		{"a deleted transaction", txeditsChangeArgs(gone.ID, "Vervoer"), "changes[0]: there is no transaction"},
		{"the same transaction twice", txeditsChangeArgs(kruidvat.ID, "Restaurants", bol.ID, "Uitjes", kruidvat.ID, "Uitjes"), "changes[2]: transaction " + kruidvat.ID + " is already in changes[0]"},
		{"a split", txeditsChangeArgs(split.ID, "Boodschappen"), "changes[0]: " + split.Date + " Albert Heijn 112.35 is a split"},
		{"a transfer between budget accounts", txeditsChangeArgs(bol.ID, "Uitjes", transfer.ID, "Vakantie"), "changes[1]: " + transfer.Date + " Transfer : Spaarrekening 250.00 is a transfer between two budget accounts"},
		{"a hidden category", txeditsChangeArgs(kruidvat.ID, "Fotografie"), "changes[0].category: Vrije tijd: Fotografie is hidden"},
		{"a credit card payment category", txeditsChangeArgs(kruidvat.ID, "Credit Card Payments: Creditcard"), "changes[0].category: Credit Card Payments: Creditcard is a credit card payment category"},
		{"an unknown category", txeditsChangeArgs(kruidvat.ID, "Huisdieren"), `changes[0].category: there is no category "Huisdieren"`},
		{"no category", txeditsChangeArgs(kruidvat.ID, " "), "changes[0].category: give a category"},
		{"nothing to change", txeditsChangeArgs(market.ID, "Boodschappen"), "changes: every transaction named already has the category given: nothing to change"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.txeditsRefuses("apply_categories", tt.args, tt.want)
		})
	}
}

// The spec's largest call: 1,000 recategorisations, previewed in 20 lines, written in one PATCH.
func TestApplyCategoriesThousand(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit, maxAge: time.Hour})
	ids := txeditsCreate(t, e.client, 1000)
	pairs := make([]string, 0, 2*len(ids))
	for _, id := range ids {
		pairs = append(pairs, id, "Boodschappen")
	}
	args := txeditsChangeArgs(pairs...)
	var first writeOut
	e.ok("apply_categories", args, &first)
	lines := strings.Split(first.Preview, "\n")
	if len(lines) != 22 || lines[0] != "Recategorise 1000 transaction(s)?" || lines[21] != "… and 980 more" ||
		!strings.HasSuffix(lines[1], ": Uncategorized → Boodschappen") {
		t.Fatalf("preview has %d lines: first %q, last %q; want the first line, 20 changes and … and 980 more", len(lines), lines[0], lines[len(lines)-1])
	}
	e.sb.ResetCounts()
	var out writeOut
	e.ok("apply_categories", withArg(args, "confirmation", first.Confirmation), &out)
	e.txeditsCheckCost("apply_categories", out, map[string]int{txeditsPatchRoute: 1})
	boodschappen := e.txeditsCategory("Boodschappen")
	done := 0
	for _, t := range e.txeditsExport().Transactions {
		if slices.Contains(ids, t.ID) && t.CategoryID != nil && *t.CategoryID == boodschappen {
			done++
		}
	}
	if done != 1000 {
		t.Fatalf("%d of the 1000 transactions are in Boodschappen after the write", done)
	}
	if op := e.txeditsOperation(out.OperationID, "code"); len(op.Changes) != 1000 {
		t.Fatalf("the journal holds %d changes, want 1000", len(op.Changes))
	}
}

// txeditsCreate adds n uncategorized outflows on Betaalrekening to the sandbox, and returns
// their ids. They are entered, not imported (no import_id), so none is matched to one of the
// sample's transactions of the same amount.
func txeditsCreate(tb testing.TB, c *ynab.Client, n int) []string {
	tb.Helper()
	ctx := context.Background()
	p, err := c.Plan(ctx, sandbox.PlanID, ynab.Fresh)
	if err != nil {
		tb.Fatal(err)
	}
	var account string
	for _, a := range p.Accounts {
		if a.Name == "Betaalrekening" {
			account = a.ID
		}
	}
	batch := make([]ynab.SaveTransaction, n)
	for i := range batch {
		batch[i] = ynab.SaveTransaction{AccountID: account, Date: fmt.Sprintf("2026-11-%02d", 1+i%28),
			Amount: ynab.Some(int64(-1000 - 10*i)), PayeeName: ynab.Some(fmt.Sprintf("Winkel %d", i%40))}
	}
	res, err := c.CreateTransactions(ctx, sandbox.PlanID, batch)
	if err != nil || len(res.TransactionIDs) != n {
		tb.Fatalf("creating %d transactions: %v (%d created)", n, err, len(res.TransactionIDs))
	}
	return res.TransactionIDs
}
