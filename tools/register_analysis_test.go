package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

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
