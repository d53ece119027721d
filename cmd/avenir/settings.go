package main

import (
	"fmt"
	"regexp"
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

// unfilledSetting is a value that is still a Claude Desktop extension's placeholder for one of
// its settings, "${user_config.NAME}": the manifest names the setting in avenir's environment,
// and a host may pass the placeholder through as it is when the person left an optional
// setting empty (modelcontextprotocol/mcpb#250; the reference implementation in
// @anthropic-ai/mcpb also keeps a placeholder it has no value for).
var unfilledSetting = regexp.MustCompile(`^\$\{user_config\.[^}]*\}$`)

// withoutUnfilledSettings reads the environment as getenv does, except that a variable whose
// whole value is an unfilled placeholder reads as unset: AVENIR_MCP_PLAN="${user_config.plan}"
// means "no default plan", not a plan of that name, and YNAB_ACCESS_TOKEN set to its
// placeholder means "find the token elsewhere", not a token YNAB will refuse. Every setting
// avenir reads goes through it (run wraps the environment once), so no reader can forget.
func withoutUnfilledSettings(getenv func(string) string) func(string) string {
	return func(key string) string {
		v := getenv(key)
		if unfilledSetting.MatchString(strings.TrimSpace(v)) {
			return ""
		}
		return v
	}
}
