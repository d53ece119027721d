package sandbox_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

// api talks to a sandbox over HTTP as a client would.
type api struct {
	t     testing.TB
	sb    *sandbox.Sandbox
	base  string
	token string
}

func newAPI(t testing.TB, opts sandbox.Options) *api {
	t.Helper()
	sb, srv := sandboxtest.New(t, opts)
	return &api{t: t, sb: sb, base: srv.URL, token: "test-token"}
}

// do sends a request (body encoded as JSON unless it is a string) and returns the status,
// headers and body.
func (a *api) do(method, path string, body any) (int, http.Header, []byte) {
	a.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = bytes.NewReader([]byte(b))
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			a.t.Fatal(err)
		}
		r = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, a.base+path, r)
	if err != nil {
		a.t.Fatal(err)
	}
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	return res.StatusCode, res.Header, raw
}

// ok sends a request that must succeed with the given status, and decodes its data into into.
func (a *api) ok(status int, method, path string, body, into any) {
	a.t.Helper()
	got, _, raw := a.do(method, path, body)
	if got != status {
		a.t.Fatalf("%s %s: status %d, want %d: %s", method, path, got, status, raw)
	}
	if into == nil {
		return
	}
	var env struct{ Data json.RawMessage }
	if err := json.Unmarshal(raw, &env); err != nil || env.Data == nil {
		a.t.Fatalf("%s %s: no data wrapper in %s (%v)", method, path, raw, err)
	}
	if err := json.Unmarshal(env.Data, into); err != nil {
		a.t.Fatalf("%s %s: decode %s: %v", method, path, env.Data, err)
	}
}

// fail sends a request that must fail with the given status, and returns YNAB's error detail.
func (a *api) fail(status int, method, path string, body any) ynab.ErrorDetail {
	a.t.Helper()
	got, _, raw := a.do(method, path, body)
	var e ynab.ErrorBody
	if err := json.Unmarshal(raw, &e); err != nil || e.Error.ID == "" {
		a.t.Fatalf("%s %s: status %d, not YNAB's error body: %s", method, path, got, raw)
	}
	if got != status {
		a.t.Fatalf("%s %s: status %d, want %d: %s", method, path, got, status, raw)
	}
	return e.Error
}

// names maps the sample's names to ids: accounts and categories by name, payees as
// "payee:Name", groups as "group:Name".
type names map[string]string

func sampleNames(t testing.TB, sb *sandbox.Sandbox, planID string) names {
	t.Helper()
	d, err := sb.Export(planID)
	if err != nil {
		t.Fatal(err)
	}
	n := names{}
	for _, c := range d.Categories {
		n[c.Name], n["category:"+c.Name] = c.ID, c.ID
	}
	for _, a := range d.Accounts {
		n[a.Name] = a.ID // "Creditcard" is the account; its payment category is "category:Creditcard"
	}
	for _, g := range d.CategoryGroups {
		n["group:"+g.Name] = g.ID
	}
	for _, p := range d.Payees {
		n["payee:"+p.Name] = p.ID
	}
	return n
}

func (n names) id(t testing.TB, name string) string {
	t.Helper()
	id, ok := n[name]
	if !ok {
		t.Fatalf("the sample has no %q", name)
	}
	return id
}

// transaction finds a transaction of the export by account, payee and amount.
func transaction(t testing.TB, d ynab.PlanDetail, n names, account, payee string, amount int64) ynab.TransactionSummary {
	t.Helper()
	for _, tx := range d.Transactions {
		if tx.AccountID == n[account] && tx.PayeeID != nil && *tx.PayeeID == n["payee:"+payee] && tx.Amount == amount {
			return tx
		}
	}
	t.Fatalf("no transaction %s %s %d", account, payee, amount)
	return ynab.TransactionSummary{}
}

func ptr[T any](v T) *T { return &v }

const plan = "/plans/" + sandbox.PlanID

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
