package main

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

// Nothing is read from YNAB before a tool needs it: the real binary, started against a sandbox
// standing in for YNAB, initialized and asked for its tools, has made no request.
func TestServeReadsNothingAtStart(t *testing.T) {
	sb, srv := sandboxtest.New(t, sandbox.Options{})
	env, _ := isolatedEnv(t, "YNAB_ACCESS_TOKEN=tok-test", "AVENIR_MCP_YNAB_URL="+srv.URL)
	s := connectServe(t, env, "2025-06-18", nil)
	if _, err := s.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if n := sb.Counts().Total; n != 0 {
		t.Fatalf("initialize and tools/list cost %d YNAB requests (%v), want none", n, sb.Counts().ByRoute)
	}
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_accounts", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("list_accounts: %v %v", err, res)
	}
	if n := sb.Counts().Total; n != 1 {
		t.Fatalf("the first read cost %d requests, want the plan's export", n)
	}
}

func TestServeRefusesABadFreshness(t *testing.T) {
	env, _ := isolatedEnv(t, "AVENIR_MCP_FRESHNESS=5m")
	_, errOut, code := runBinary(t, env, "serve", "--sandbox")
	if code == 0 || !strings.Contains(errOut, "AVENIR_MCP_FRESHNESS") || !strings.Contains(errOut, "0 to 60") {
		t.Fatalf("serve with AVENIR_MCP_FRESHNESS=5m: exit %d, %q; want a refusal naming the variable and its range", code, errOut)
	}
}
