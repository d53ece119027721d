package main

import (
	"fmt"
	"strings"

	"github.com/avenir-mcp/avenir/confirm"
)

// confirmOptions reads how writes are confirmed from the environment:
// AVENIR_MCP_REQUIRE_ELICITATION=1 (only the user's own answer in the client) and
// AVENIR_MCP_CONFIRM=code (codes even where the client declares elicitation, for clients
// that declare it and never show the question). Both at once is refused here, at start, with
// the reason, rather than by a write that cannot be confirmed.
func confirmOptions(getenv func(string) string) (confirm.Options, error) {
	opts := confirm.Options{RequireElicitation: getenv("AVENIR_MCP_REQUIRE_ELICITATION") == "1"}
	switch mode := strings.TrimSpace(getenv("AVENIR_MCP_CONFIRM")); strings.ToLower(mode) {
	case "", "auto":
	case "code":
		opts.AlwaysCode = true
	default:
		return opts, fmt.Errorf("AVENIR_MCP_CONFIRM=%q: use code (confirm every write by code, for clients whose questions never show), or leave it unset", mode)
	}
	if opts.AlwaysCode && opts.RequireElicitation {
		return opts, confirm.ErrContradictoryModes
	}
	return opts, nil
}
