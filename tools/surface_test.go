package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"

	"github.com/avenir-mcp/avenir/internal/golden"
)

// The MCP surface as clients parse it: the names of spec/tools.md, annotations, output schemas,
// and schemas that strict clients accept.
func TestToolSurface(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	res, err := e.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	reads := []string{"list_plans", "get_plan_overview", "list_accounts", "list_categories", "list_transactions",
		"list_payees", "list_scheduled_transactions", "list_operations", "get_operation",
		"spending_report", "suggest_categories", "find_recurring", "list_money_movements"}
	confirmed := []string{"apply_categories", "set_category_budget", "move_money", "flag_transactions", "set_category_target",
		"update_category", "create_category", "create_transactions", "reconcile_account", "split_transaction", "undo_operation",
		"create_category_group", "update_category_group", "update_transactions",
		"delete_transactions", "create_scheduled_transaction", "update_scheduled_transaction", "delete_scheduled_transaction",
		"rename_payee", "merge_payees", "create_account", "import_statement"}
	unconfirmed := []string{"approve_transactions", "import_transactions"}
	var names, views []string
	for _, tool := range res.Tools {
		if appOnly(tool) { // the card's own tools, listed to every client, offered to no model
			views = append(views, tool.Name)
		} else {
			names = append(names, tool.Name)
		}
		if tool.Annotations == nil || tool.OutputSchema == nil || tool.Description == "" {
			t.Errorf("%s: annotations, output schema and description are required", tool.Name)
			continue
		}
		// The hints themselves are pinned, with their reasons, in TestToolAnnotationsAndClaims.
		in, _ := json.Marshal(tool.InputSchema)
		out, _ := json.Marshal(tool.OutputSchema)
		for _, s := range []string{string(in), string(out)} {
			if strings.Contains(s, ":true") && !strings.Contains(s, `"additionalProperties":true`) || strings.Contains(s, ":{}") {
				t.Errorf("%s: a schema holds an any-value property, which the TypeScript SDK 1.x rejects: %s", tool.Name, s)
			}
		}
		if slices.Contains(confirmed, tool.Name) {
			var schema struct {
				Properties map[string]struct {
					Type    any `json:"type"`
					Pattern string
				} `json:"properties"`
			}
			json.Unmarshal(in, &schema)
			c, ok := schema.Properties["confirmation"]
			if !ok || c.Type != "string" || c.Pattern != "" {
				t.Errorf("%s: confirmation must be a plain optional string, got %+v", tool.Name, c)
			}
			if !strings.HasSuffix(tool.Description, confirm.ToolRule) {
				t.Errorf("%s: the description must tell the agent when a code may be passed back", tool.Name)
			}
		}
	}
	want := slices.Concat(reads, confirmed, unconfirmed)
	slices.Sort(want)
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want the spec's %v", names, want)
	}
	slices.Sort(views)
	if want := []string{"answer_confirmation", "open_confirmation"}; !slices.Equal(views, want) {
		t.Fatalf("app-only tools = %v, want %v", views, want)
	}
}

func TestGuideCarriesTheAgentRule(t *testing.T) {
	if !strings.Contains(guide, "Only if the user agrees") || !strings.Contains(guide, "Never pass a code back without the user's agreement") {
		t.Fatal("the guide must say a code may be passed back only after the user agreed")
	}
}

// TestToolsListGolden keeps the MCP surface as clients see it (names, descriptions, schemas,
// annotations) in testdata/tools.golden.json, so that any change to it is a visible diff in a
// commit. Regenerate with: go test ./tools -run ToolsListGolden -update-golden
func TestToolsListGolden(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	res, err := e.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(res.Tools, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	got, err := json.MarshalIndent(res.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "tools.golden.json"), append(got, '\n'))
}
