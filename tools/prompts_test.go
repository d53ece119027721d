package tools

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestPrompts(t *testing.T) {
	ctx := context.Background()
	list := func(e *testEnv) []string {
		res, err := e.session.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range res.Prompts {
			names = append(names, p.Name)
		}
		slices.Sort(names)
		return names
	}
	e := newEnv(t, envOptions{kind: modernNone})
	if got := list(e); !slices.Equal(got, []string{"categorize_uncategorized", "import_bank_statement", "review_month", "what_changed_today"}) {
		t.Fatalf("prompts = %v", got)
	}
	if got := list(newEnv(t, envOptions{kind: modernNone, readOnly: true})); !slices.Equal(got, []string{"review_month", "what_changed_today"}) {
		t.Fatalf("read-only prompts = %v; a prompt that leads to a write has no place there", got)
	}
	// Each prompt leads through tools the server offers, by their names.
	tools, err := e.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	offered := map[string]bool{}
	for _, tl := range tools.Tools {
		offered[tl.Name] = true
	}
	for _, name := range list(e) {
		res, err := e.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: map[string]string{"month": "2026-11", "account": "Betaalrekening"}})
		if err != nil || len(res.Messages) != 1 {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		body := res.Messages[0].Content.(*mcp.TextContent).Text
		named := 0
		for _, word := range regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)+\b`).FindAllString(body, -1) {
			if word == "operation_id" {
				continue
			}
			if !offered[word] {
				t.Errorf("%s leads to %s, which the server does not offer", name, word)
			}
			named++
		}
		if named == 0 {
			t.Errorf("%s names no tool: %s", name, body)
		}
		if name == "review_month" && !strings.Contains(body, "2026-11") {
			t.Errorf("review_month ignores its month: %s", body)
		}
	}
	if _, err := e.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "import_bank_statement"}); err == nil || !strings.Contains(err.Error(), "account") {
		t.Errorf("import_bank_statement without an account: %v; want an error naming account", err)
	}
}
