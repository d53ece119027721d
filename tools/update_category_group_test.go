package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

var renameGroupArgs = func(*testEnv) map[string]any { return map[string]any{"group": "vrije tijd", "name": "Hobby’s"} }

func TestUpdateCategoryGroup(t *testing.T) {
	t.Parallel()
	wrAcrossClients(t, wrCase{tool: "update_category_group", args: renameGroupArgs,
		first:  "Rename category group ‘Vrije tijd’ to ‘Hobby’s’?",
		writes: map[string]int{"PATCH /plans/{plan_id}/category_groups/{category_group_id}": 1},
		check: func(t *testing.T, e *testEnv) {
			if wrGroupID(e, "Hobby’s") == "" || wrGroupID(e, "Vrije tijd") != "" {
				t.Fatal("list_categories does not show the group renamed")
			}
		}})
}

// Undo (after a restart) puts the old name back, redo the new one; a name someone gave the
// group since is left alone.
func TestUpdateCategoryGroupUndo(t *testing.T) {
	t.Parallel()
	e, _, u, r := wrRoundTrip(t, "update_category_group", renameGroupArgs)
	if u.Preview != "Undo: rename category group ‘Vrije tijd’ to ‘Hobby’s’?\ncategory group Vrije tijd: ‘Hobby’s’ → ‘Vrije tijd’" {
		t.Fatalf("undo preview = %q", u.Preview)
	}
	// The redo left it Hobby’s; someone renames it in YNAB; undoing the write again is refused.
	id := wrGroupID(e, "Hobby’s")
	if _, err := e.client.UpdateCategoryGroup(context.Background(), sandbox.PlanID, id, ynab.SaveCategoryGroup{Name: "Sport"}); err != nil {
		t.Fatal(err)
	}
	e.sb.ResetCounts()
	e.fails("undo_operation", map[string]any{"operation_id": r.ID}, "nothing is left to undo: category group Vrije tijd (changed since)")
	if e.writes() != 0 || wrGroupID(e, "Sport") != id {
		t.Fatal("the undo overwrote a later rename")
	}
}

func TestUpdateCategoryGroupRefusals(t *testing.T) {
	t.Parallel()
	otherPlanGroup := wrOtherPlan(t).CategoryGroups[0].ID
	moneyRefusals(t, "update_category_group", []moneyRefusal{
		{"no name", map[string]any{"group": "Vrije tijd"}, "name: missing"},
		{"an empty name", map[string]any{"group": "Vrije tijd", "name": ""}, "name: give the category group a name; it cannot be empty"},
		{"a name too long", map[string]any{"group": "Vrije tijd", "name": strings.Repeat("x", 51)}, "name: the name is 51 characters long"},
		{"the name it has", map[string]any{"group": "Vrije tijd", "name": "Vrije tijd"}, "group: Vrije tijd is already called ‘Vrije tijd’: nothing to change"},
		{"the name of another group", map[string]any{"group": "Vrije tijd", "name": "dagelijks"}, "name: there is already a category group ‘Dagelijks’"},
		{"an unknown group", map[string]any{"group": "Vrij tijd", "name": "Hobby"}, `group: there is no category group "Vrij tijd" in this plan; the closest are: Vrije tijd`},
		{"a group of another plan", map[string]any{"group": otherPlanGroup, "name": "Hobby"}, "group: there is no category group"},
		{"YNAB's internal group", map[string]any{"group": "Internal Master Category", "name": "Hobby"}, "group: Internal Master Category is YNAB's internal group, which cannot be renamed"},
	})
}
