package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// End-to-end tests of the writes that create transactions (create_transactions,
// reconcile_account, import_transactions) through the real binary: a 2025-06-18 client without
// elicitation goes preview → code → applied; a 2026-07-28 client with elicitation answers the
// question itself.

// createsClient is a client the creates tests speak through, and what its user was asked.
type createsClient struct {
	cs    *mcp.ClientSession
	mu    sync.Mutex
	asked []string
}

// createsConnect starts the binary on a fresh sandbox with a client of protocol; with elicit, the
// client shows every question and the user accepts it.
func createsConnect(t *testing.T, protocol string, elicit bool) *createsClient {
	t.Helper()
	c := &createsClient{}
	opts := &mcp.ClientOptions{}
	if elicit {
		opts.ElicitationHandler = func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			c.mu.Lock()
			c.asked = append(c.asked, r.Params.Message)
			c.mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"value": true}}, nil
		}
	}
	env, _ := isolatedEnv(t)
	c.cs = connectBinary(t, env, protocol, opts)
	return c
}

// call calls a tool that must not fail and returns its structured result.
func (c *createsClient) call(t *testing.T, tool string, args map[string]any) map[string]any {
	t.Helper()
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %+v", tool, err, res)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %s: %v", tool, b, err)
	}
	return out
}

// confirmAndApply applies a confirmed write: with the code when the client cannot ask, else
// by the user's answer. It returns the preview the user saw and the final result.
func (c *createsClient) confirmAndApply(t *testing.T, tool string, args map[string]any) (string, map[string]any) {
	t.Helper()
	out := c.call(t, tool, args)
	if out["status"] == "confirmation_required" {
		preview := out["preview"].(string)
		with := map[string]any{"confirmation": out["confirmation"]}
		for k, v := range args {
			with[k] = v
		}
		return preview, c.call(t, tool, with)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.asked) == 0 {
		t.Fatalf("%s: %v without a question", tool, out)
	}
	return c.asked[len(c.asked)-1], out
}

var createsClients = []struct {
	name, protocol string
	elicit         bool
}{
	{"2025-06-18 without elicitation", "2025-06-18", false},
	{"2026-07-28 with elicitation", "2026-07-28", true},
}

func TestCreateTransactionsOverStdio(t *testing.T) {
	for _, k := range createsClients {
		t.Run(k.name, func(t *testing.T) {
			c := createsConnect(t, k.protocol, k.elicit)
			args := map[string]any{"account": "Betaalrekening", "transactions": []any{
				map[string]any{"date": "today", "amount": "-19.99", "payee": "Coolblue", "category": "Uitjes"},
			}}
			preview, out := c.confirmAndApply(t, "create_transactions", args)
			first, line, _ := strings.Cut(preview, "\n")
			if first != "Create 1 transaction(s) on Betaalrekening?" || !strings.HasSuffix(line, " Coolblue (new payee) 19.99, Uitjes") {
				t.Fatalf("preview = %q", preview)
			}
			ids, _ := out["transaction_ids"].([]any)
			if out["status"] != "applied" || len(ids) != 1 {
				t.Fatalf("result = %v", out)
			}
			listed := c.call(t, "list_transactions", map[string]any{"payee": "Coolblue"})
			if txs, _ := listed["transactions"].([]any); len(txs) != 1 || txs[0].(map[string]any)["id"] != ids[0] {
				t.Fatalf("list_transactions after the create = %v", listed)
			}
			op := c.call(t, "get_operation", map[string]any{"operation_id": out["operation_id"]})
			if op["status"] != "applied" || op["tool"] != "create_transactions" {
				t.Fatalf("journal entry = %v", op)
			}
		})
	}
}

func TestReconcileAccountOverStdio(t *testing.T) {
	for _, k := range createsClients {
		t.Run(k.name, func(t *testing.T) {
			c := createsConnect(t, k.protocol, k.elicit)
			cleared := createsClearedBalance(t, c)
			args := map[string]any{"account": "Betaalrekening", "bank_balance": createsDecimal(cleared + 10000)}
			preview, out := c.confirmAndApply(t, "reconcile_account", args)
			first, adjustment, _ := strings.Cut(preview, "\n")
			if first != "Reconcile Betaalrekening: mark 49 cleared transaction(s) reconciled?" ||
				!strings.Contains(adjustment, " Reconciliation Balance Adjustment +10.00, Inflow: Ready to Assign, cleared") {
				t.Fatalf("preview = %q", preview)
			}
			if out["status"] != "applied" || createsClearedBalance(t, c) != cleared+10000 {
				t.Fatalf("result = %v", out)
			}
			listed := c.call(t, "list_transactions", map[string]any{"account": "Betaalrekening", "limit": 500})
			for _, tx := range listed["transactions"].([]any) {
				if tx.(map[string]any)["cleared"] == "cleared" {
					t.Fatalf("a cleared transaction is left after reconciling: %v", tx)
				}
			}
		})
	}
}

func TestImportTransactionsOverStdio(t *testing.T) {
	for _, k := range createsClients {
		t.Run(k.name, func(t *testing.T) {
			c := createsConnect(t, k.protocol, k.elicit)
			out := c.call(t, "import_transactions", map[string]any{})
			if ids, _ := out["transaction_ids"].([]any); out["status"] != "applied" || len(ids) != 2 {
				t.Fatalf("import = %v", out)
			}
			again := c.call(t, "import_transactions", map[string]any{})
			if again["status"] != "applied" || again["transaction_ids"] != nil || !strings.HasPrefix(again["message"].(string), "No new transactions") {
				t.Fatalf("second import = %v", again)
			}
			op := c.call(t, "get_operation", map[string]any{"operation_id": out["operation_id"]})
			if op["status"] != "applied" || op["confirmed_via"] != "none" {
				t.Fatalf("journal entry = %v", op)
			}
			if len(c.asked) != 0 {
				t.Fatalf("an import asked the user: %q", c.asked)
			}
		})
	}
}

// createsClearedBalance reads Betaalrekening's cleared balance through list_accounts.
func createsClearedBalance(t *testing.T, c *createsClient) int64 {
	t.Helper()
	for _, a := range c.call(t, "list_accounts", map[string]any{})["accounts"].([]any) {
		if acct := a.(map[string]any); acct["name"] == "Betaalrekening" {
			return int64(acct["cleared_balance_milliunits"].(float64))
		}
	}
	t.Fatal("list_accounts has no Betaalrekening")
	return 0
}

// createsDecimal writes milliunits as an exact decimal argument ("1234.560").
func createsDecimal(m int64) string {
	sign := ""
	if m < 0 {
		sign, m = "-", -m
	}
	return fmt.Sprintf("%s%d.%03d", sign, m/1000, m%1000)
}
