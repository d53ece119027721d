package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// Helpers of the analysis tools' tests: plans with known answers are made by writing
// transactions into the sandbox through YNAB's API, as a bank feed or a person would.

// planted is a transaction to write: amounts in milliunits (negative for an outflow), names of
// the sample's accounts, categories and payees (a payee that does not exist is created).
type planted struct {
	date, account, payee, category, memo string
	amount                               int64
	transferTo                           string // an account: a transfer instead of a payee
	lines                                []plantedLine
	unapproved                           bool
}

type plantedLine struct {
	category string
	amount   int64
	memo     string
}

// analysisIDs names the sample plan's accounts, categories and payees by id.
func analysisIDs(e *testEnv) (accounts, categories, payees map[string]string, transferPayee map[string]string) {
	e.t.Helper()
	p, err := e.sb.Export(sandbox.PlanID)
	if err != nil {
		e.t.Fatal(err)
	}
	accounts, categories, payees, transferPayee = map[string]string{}, map[string]string{}, map[string]string{}, map[string]string{}
	for _, a := range p.Accounts {
		accounts[a.Name] = a.ID
		transferPayee[a.Name] = str(a.TransferPayeeID)
	}
	for _, c := range p.Categories {
		categories[c.Name] = c.ID
	}
	for _, y := range p.Payees {
		payees[y.Name] = y.ID
	}
	return accounts, categories, payees, transferPayee
}

// plant writes txs in one bulk request and returns their ids in order.
func plant(e *testEnv, txs ...planted) []string {
	e.t.Helper()
	accounts, categories, payees, transferPayee := analysisIDs(e)
	must := func(m map[string]string, kind, name string) string {
		id, ok := m[name]
		if !ok {
			e.t.Fatalf("the sample has no %s %q", kind, name)
		}
		return id
	}
	save := make([]ynab.SaveTransaction, 0, len(txs))
	for _, t := range txs {
		account := t.account
		if account == "" {
			account = "Betaalrekening"
		}
		s := ynab.SaveTransaction{AccountID: must(accounts, "account", account), Date: t.date,
			Amount: ynab.Some(t.amount), Approved: ynab.Some(!t.unapproved), Cleared: ynab.Cleared}
		switch {
		case t.transferTo != "":
			s.PayeeID = ynab.Some(must(transferPayee, "account", t.transferTo))
		case payees[t.payee] != "":
			s.PayeeID = ynab.Some(payees[t.payee])
		case t.payee != "":
			s.PayeeName = ynab.Some(t.payee)
		}
		if t.category != "" {
			s.CategoryID = ynab.Some(must(categories, "category", t.category))
		}
		if t.memo != "" {
			s.Memo = ynab.Some(t.memo)
		}
		for _, l := range t.lines {
			id := must(categories, "category", l.category)
			line := ynab.SaveSubTransaction{Amount: l.amount, CategoryID: &id}
			if l.memo != "" {
				line.Memo = &l.memo
			}
			s.Subtransactions = append(s.Subtransactions, line)
		}
		save = append(save, s)
	}
	res, err := e.client.CreateTransactions(context.Background(), sandbox.PlanID, save)
	if err != nil {
		e.t.Fatalf("planting %d transactions: %v", len(txs), err)
	}
	if len(res.TransactionIDs) != len(txs) {
		e.t.Fatalf("planted %d transactions, YNAB made %d", len(txs), len(res.TransactionIDs))
	}
	return res.TransactionIDs
}

// trackingAccount adds a tracking (off-budget) account to the sample through YNAB's API, with
// its starting balance.
func trackingAccount(e *testEnv, name string, balance int64) {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"account": map[string]any{"name": name, "type": "otherAsset", "balance": balance}})
	req, err := http.NewRequest(http.MethodPost, e.url+"/plans/"+sandbox.PlanID+"/accounts", bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		b, _ := io.ReadAll(res.Body)
		e.t.Fatalf("creating the account %s: %s %s", name, res.Status, b)
	}
}

// resultSize is the size of a result's JSON, as a client receives it.
func resultSize(t testing.TB, v any) int {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// The analysis tools cost nothing beyond the usual delta: none within the freshness window,
// one delta with fresh; list_money_movements asks YNAB once more for the movements.
func TestAnalysisRequestCounts(t *testing.T) {
	for _, c := range []struct {
		tool       string
		args       map[string]any
		warm, asks int // requests on a warm cache, and with fresh: true
		route      string
	}{
		{"spending_report", nil, 0, 1, ""},
		{"spending_report", map[string]any{"group_by": "month", "since": "2026-10", "until": "2026-11"}, 0, 1, ""},
		{"suggest_categories", nil, 0, 1, ""},
		{"find_recurring", nil, 0, 1, ""},
		{"list_money_movements", nil, 1, 2, "GET /plans/{plan_id}/months/{month}/money_movements"},
	} {
		t.Run(c.tool, func(t *testing.T) {
			e := newEnv(t, envOptions{kind: modernNone})
			var warmup listAccountsOut
			e.ok("list_accounts", nil, &warmup)

			e.sb.ResetCounts()
			var out struct {
				YNABRequests int    `json:"ynab_requests"`
				AsOf         string `json:"as_of"`
			}
			e.ok(c.tool, c.args, &out)
			if n := e.sb.Counts(); out.YNABRequests != c.warm || n.Total != c.warm || c.route != "" && n.ByRoute[c.route] != 1 {
				t.Errorf("on a warm cache: ynab_requests %d, the sandbox saw %v; want %d", out.YNABRequests, n.ByRoute, c.warm)
			}
			if out.AsOf == "" {
				t.Error("as_of is missing")
			}

			e.sb.ResetCounts()
			e.ok(c.tool, withArg(c.args, "fresh", true), &out)
			if n := e.sb.Counts(); out.YNABRequests != c.asks || n.Total != c.asks || n.ByRoute["GET /plans/{plan_id}"] != 1 {
				t.Errorf("with fresh: ynab_requests %d, the sandbox saw %v; want %d with one delta of the plan", out.YNABRequests, n.ByRoute, c.asks)
			}
			if e.writes() != 0 {
				t.Errorf("%s wrote to YNAB", c.tool)
			}
		})
	}
}

// BenchmarkAnalysis10k: the analysis tools over a plan of 10,000 transactions from a warm cache
// (no YNAB request), through the MCP surface. Forty shops are each paid about every 11 days,
// so find_recurring weighs many long payees, and spending_report sums a year.
func BenchmarkAnalysis10k(b *testing.B) {
	e := newEnv(b, envOptions{kind: modernNone, maxAge: time.Hour})
	ctx := context.Background()
	accounts, categories, _, _ := analysisIDs(e)
	cats := []string{"Boodschappen", "Restaurants", "Vervoer", "Uitjes", "Streaming"}
	for n := 0; n < 10000; {
		batch := make([]ynab.SaveTransaction, 0, 100)
		for i := 0; i < 100 && n < 10000; i, n = i+1, n+1 {
			s := ynab.SaveTransaction{AccountID: accounts["Betaalrekening"], Date: fmt.Sprintf("2026-%02d-%02d", 1+n%11, 1+n%28),
				Amount: ynab.Some(int64(-1000 - n*10)), PayeeName: ynab.Some(fmt.Sprintf("Winkel %d", n%40)),
				Memo: ynab.Some(fmt.Sprintf("bon %d", n)), Approved: ynab.Some(true)}
			if n%7 != 0 {
				s.CategoryID = ynab.Some(categories[cats[n%len(cats)]])
			}
			batch = append(batch, s)
		}
		if _, err := e.client.CreateTransactions(ctx, sandbox.PlanID, batch); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"spending_report", map[string]any{"since": "2026-01", "group_by": "payee"}},
		{"suggest_categories", nil},
		{"find_recurring", nil},
	} {
		b.Run(c.tool, func(b *testing.B) {
			params := &mcp.CallToolParams{Name: c.tool, Arguments: c.args}
			res, err := e.session.CallTool(ctx, params) // warms the cache
			if err != nil || res.IsError {
				b.Fatalf("%v %v", err, res)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.session.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Every result stays well inside what clients accept (about 60 KB), however much the plan holds:
// the report by its top and its months, the suggestions and the rhythms by their size budget.
func TestAnalysisResultsStaySmall(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	var txs []planted
	for i := range 400 {
		tx := planted{date: fmt.Sprintf("%d-%02d-%02d", 2022+i%5, 1+i%11, 1+i%28), amount: int64(-1000 - 137*i),
			payee: fmt.Sprintf("Een winkel met een heel lange naam, filiaal nummer %d", i%200),
			memo:  fmt.Sprintf("Aankoop %d met een lange omschrijving over wat er precies gekocht is", i)}
		if i%2 == 0 {
			tx.category = "Boodschappen"
		}
		txs = append(txs, tx)
	}
	// 150 payees each paid monthly for a year: more rhythms than one result holds.
	for i := range 150 {
		for m := range 12 {
			txs = append(txs, planted{date: fmt.Sprintf("2025-%02d-%02d", 1+m, 2+i%26), amount: int64(-5000 - 10*i),
				payee: fmt.Sprintf("Abonnement met een lange naam nummer %d", i), category: "Streaming"})
		}
	}
	for start := 0; start < len(txs); start += 500 {
		plant(e, txs[start:min(start+500, len(txs))]...)
	}
	var report spendingReportOut
	e.ok("spending_report", map[string]any{"since": "2022-01", "group_by": "payee", "top": 100}, &report)
	var suggestions suggestCategoriesOut
	e.ok("suggest_categories", nil, &suggestions)
	var rhythms findRecurringOut
	e.ok("find_recurring", map[string]any{"since": "2025-01"}, &rhythms)
	for name, out := range map[string]any{"spending_report": report, "suggest_categories": suggestions, "find_recurring": rhythms} {
		if n := resultSize(t, out); n > 60000 {
			t.Errorf("%s: %d bytes, want at most 60 KB", name, n)
		}
	}
	if len(report.Groups) != 100 || report.Other == nil || len(report.Months) != 60 {
		t.Errorf("report: %d groups, other %v, %d months; want 100, the rest in other, and the 60 months from January 2022 to December 2026", len(report.Groups), report.Other != nil, len(report.Months))
	}
	if suggestions.Uncategorized < 200 || len(suggestions.Transactions)+len(suggestions.OmittedIDs) != 100 {
		t.Errorf("suggestions: %d rows and %d omitted of %d uncategorized; want the newest 100 between them",
			len(suggestions.Transactions), len(suggestions.OmittedIDs), suggestions.Uncategorized)
	}
	if rhythms.More == 0 || len(rhythms.Recurring)+rhythms.More < 150 {
		t.Errorf("rhythms: %d listed, %d more; want at least the 150 planted, some left out", len(rhythms.Recurring), rhythms.More)
	}
	t.Logf("sizes: report %d, suggestions %d, rhythms %d bytes", resultSize(t, report), resultSize(t, suggestions), resultSize(t, rhythms))

	// Sixty-one months of transactions are more than one report lists.
	plant(e, planted{date: "2021-12-24", payee: "Albert Heijn", category: "Boodschappen", amount: -10000})
	e.fails("spending_report", map[string]any{"since": "2021-01", "group_by": "payee"},
		"since: the period holds transactions over more than 60 months (2021-12 to 2026-12); give a shorter period")
}
