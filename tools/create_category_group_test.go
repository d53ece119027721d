package tools

import (
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/journal"
)

const groupsPostRoute = "POST /plans/{plan_id}/category_groups"

func TestCreateCategoryGroup(t *testing.T) {
	t.Parallel()
	op := wrAcrossClients(t, wrCase{tool: "create_category_group",
		args:   func(*testEnv) map[string]any { return map[string]any{"name": " Huisdieren "} },
		first:  "Create category group ‘Huisdieren’?",
		writes: map[string]int{groupsPostRoute: 1},
		check: func(t *testing.T, e *testEnv) {
			if wrGroupID(e, "Huisdieren") == "" {
				t.Fatal("list_categories does not show the new group")
			}
			// It takes categories at once.
			e.apply("create_category", map[string]any{"group": "Huisdieren", "name": "Voer"})
		}})
	if ch := op.Changes[0]; ch.Kind != journal.KindNewCategoryGroup || ch.ID == "" || string(ch.After) != `{"name":"Huisdieren"}` {
		t.Fatalf("journaled change = %+v", ch)
	}
	if !strings.Contains(op.Preview, "YNAB's API cannot delete or hide a category group") {
		t.Fatalf("the preview does not warn that the group cannot be undone: %q", op.Preview)
	}
}

func TestCreateCategoryGroupCannotBeUndone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	_, out := e.apply("create_category_group", map[string]any{"name": "Huisdieren"})
	wrUndoRefused(e, out.OperationID, "YNAB's API cannot delete or hide a group: delete or hide it in YNAB yourself")
}

func TestCreateCategoryGroupAfterALostAnswer(t *testing.T) {
	t.Parallel()
	e, op := wrLostAnswer(t, "create_category_group", func(*testEnv) map[string]any { return map[string]any{"name": "Huisdieren"} },
		"POST", "/category_groups")
	if id := wrGroupID(e, "Huisdieren"); id != op.Changes[0].ID {
		t.Fatalf("the journal records group %s, YNAB holds %s", op.Changes[0].ID, id)
	}
}

func TestCreateCategoryGroupRefusals(t *testing.T) {
	t.Parallel()
	moneyRefusals(t, "create_category_group", []moneyRefusal{
		{"no name", map[string]any{}, "name: missing"},
		{"an empty name", map[string]any{"name": ""}, "name: give the category group a name; it cannot be empty"},
		{"a blank name", map[string]any{"name": "  "}, "name: give the category group a name; it cannot be empty"},
		{"a name too long", map[string]any{"name": strings.Repeat("é", 51)}, "name: the name is 51 characters long; a category group name can have at most 50"},
		{"the name of a group", map[string]any{"name": "vrije TIJD"}, "name: there is already a category group ‘Vrije tijd’; choose another name"},
	})
}
