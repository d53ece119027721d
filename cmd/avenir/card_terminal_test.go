package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
)

// A terminal that declares MCP Apps and never draws the card (confirmation.md §2.4.6): Qwen Code
// 0.24.4 declares io.modelcontextprotocol/ui and, run as `qwen -p "set Internet to 60"`, ended
// with confirmation_pending and nothing written — writes were impossible there. Through the real
// binary over stdio, as such a client: the first call is pending on a card nobody draws; the same
// call again 10 s later (the binary's own clock: nothing to inject, so the test waits) gets a
// code; the code, passed back, writes, and the journal records code.
func TestCardNotDrawnInATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 10 s of the binary's clock")
	}
	env, _ := isolatedEnv(t)
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(confirm.AppExtension, map[string]any{"mimeTypes": []string{confirm.AppMIMEType}})
	cs := connectBinary(t, env, "2025-06-18", &mcp.ClientOptions{Capabilities: caps})
	ctx := context.Background()
	args := map[string]any{"category": "Restaurants", "month": "current", "amount": "60"}
	call := func(args map[string]any) (map[string]any, string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "set_category_budget", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		var text string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		if res.IsError {
			t.Fatalf("set_category_budget: %s", text)
		}
		var out map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		return out, text
	}
	first, text := call(args)
	if first["status"] != "confirmation_pending" || first["confirmation"] != nil || !strings.Contains(text, "not sooner than 10 seconds") {
		t.Fatalf("the first call: %s; want pending on a card, no code, and the model told when to ask again", text)
	}
	time.Sleep(confirm.NotDrawnAfter)
	again, text := call(args)
	code, _ := again["confirmation"].(string)
	if again["status"] != "confirmation_required" || code == "" {
		t.Fatalf("the same call 10 s later, no card drawn: %s; want a code", text)
	}
	done, text := call(map[string]any{"category": "Restaurants", "month": "current", "amount": "60", "confirmation": code})
	if done["status"] != "applied" {
		t.Fatalf("the code passed back: %s; want applied", text)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_operations", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("list_operations: %v %v", err, res)
	}
	var list struct {
		Operations []struct {
			ID           string `json:"id"`
			ConfirmedVia string `json:"confirmed_via"`
		} `json:"operations"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &list); err != nil || len(list.Operations) != 1 || list.Operations[0].ConfirmedVia != "code" {
		t.Fatalf("the journal: %s; want one operation, confirmed by code", b)
	}
}
