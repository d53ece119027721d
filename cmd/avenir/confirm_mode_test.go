package main

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestConfirmByCodeOverStdio: with AVENIR_MCP_CONFIRM=code the real server never sends a
// client that declares elicitation a question, on either protocol era; the write goes through
// the preview and the code, and the journal records it as confirmed by code.
func TestConfirmByCodeOverStdio(t *testing.T) {
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(protocol, func(t *testing.T) {
			env, _ := isolatedEnv(t, "AVENIR_MCP_CONFIRM=code")
			var asked atomic.Int32
			opts := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked.Add(1) // a client whose questions never show: it declines at once
				return &mcp.ElicitResult{Action: "decline"}, nil
			}}
			cs := connectBinary(t, env, protocol, opts)
			args := map[string]any{"category": "Restaurants", "month": "current", "amount": "150.00"}
			preview := moneyCall(t, cs, "set_category_budget", args)
			if preview.Status != "confirmation_required" || len(preview.Confirmation) != 11 {
				t.Fatalf("first call: %+v; want confirmation_required with a code", preview)
			}
			args["confirmation"] = preview.Confirmation
			if applied := moneyCall(t, cs, "set_category_budget", args); applied.Status != "applied" {
				t.Fatalf("with the code: %+v; want applied", applied)
			}
			if n := asked.Load(); n != 0 {
				t.Fatalf("the client was asked %d time(s); want never", n)
			}
			ops := moneyJournal(t, env)
			if len(ops) != 1 || ops[0].ConfirmedVia != "code" {
				t.Fatalf("journal %+v; want one operation confirmed by code", ops)
			}
		})
	}
}

func TestConfirmModeRefusedAtStart(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		want string
	}{
		{"code with require elicitation", []string{"AVENIR_MCP_CONFIRM=code", "AVENIR_MCP_REQUIRE_ELICITATION=1"},
			"contradict each other"},
		{"an unknown mode", []string{"AVENIR_MCP_CONFIRM=always"}, `AVENIR_MCP_CONFIRM="always": use code`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, _ := isolatedEnv(t, tt.env...)
			_, errOut, code := runBinary(t, env, "serve", "--sandbox")
			if code != 1 || !strings.Contains(errOut, tt.want) {
				t.Fatalf("serve: exit %d, stderr %q; want exit 1 and %q", code, errOut, tt.want)
			}
		})
	}
}
