package tools

import (
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

var createArgs = map[string]any{"group": "Dagelijks", "name": "Huisdieren"}

const createPreview = "Create category ‘Huisdieren’ in Dagelijks?\n" +
	"This cannot be undone through avenir: YNAB's API cannot delete or hide a category. To remove it later, hide or delete it in YNAB."

func TestCreateCategoryWithCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	preview, op := moneyApply(e, "create_category", createArgs, 1)
	if preview != createPreview {
		t.Fatalf("preview =\n%s\nwant\n%s", preview, createPreview)
	}
	created, ok := moneyCategory(e, "Huisdieren")
	group := moneyGroupID(e, "Dagelijks")
	if !ok || created.CategoryGroupID != group {
		t.Fatalf("Huisdieren = %+v; want it created in Dagelijks", created)
	}
	ch := op.Changes[0]
	if len(op.Changes) != 1 || ch.Kind != "new_category" || ch.ID != created.ID || ch.Before != nil ||
		string(ch.After) != `{"category_group_id":"`+group+`","name":"Huisdieren"}` || len(op.CreatedIDs) != 1 || op.CreatedIDs[0] != created.ID {
		t.Fatalf("journal = %+v; want the new category with the id YNAB gave it", op)
	}
	// The same call again is refused: the name is taken now.
	e.fails("create_category", createArgs, "name: Dagelijks already has a category ‘Huisdieren’")
}

func TestCreateCategoryByForm(t *testing.T) {
	t.Parallel()
	e := moneyApplyByForm(t, "create_category", createArgs, createPreview)
	if _, ok := moneyCategory(e, "Huisdieren"); !ok {
		t.Fatal("Huisdieren was not created")
	}
}

// YNAB creates the category but its answer is lost: the journal says applied, with its id.
func TestCreateCategoryLostAnswer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	code := e.preview("create_category", createArgs).Confirmation
	e.sb.InjectFault(sandbox.Fault{Method: "POST", PathContains: "/categories", DropAfter: true})
	out, _, msg := moneyConfirm(e, "create_category", createArgs, code)
	if out == nil || out.Status != "applied" {
		t.Fatalf("result = %+v %q; want applied", out, msg)
	}
	created, ok := moneyCategory(e, "Huisdieren")
	if op := e.onlyOperation(); !ok || len(op.CreatedIDs) != 1 || op.CreatedIDs[0] != created.ID || op.Changes[0].ID != created.ID {
		t.Fatalf("journal = %+v; want the category YNAB created (%s)", op, created.ID)
	}
}

func TestCreateCategoryRefusals(t *testing.T) {
	t.Parallel()
	moneyRefusals(t, "create_category", []moneyRefusal{
		{"a name the group has", withArg(createArgs, "name", " restaurants "), "name: Dagelijks already has a category ‘Restaurants’"},
		{"an empty name", withArg(createArgs, "name", ""), "name: give the category a name"},
		{"a name too long", withArg(createArgs, "name", strings.Repeat("x", 51)), "name: the name is 51 characters long"},
		{"an internal group", withArg(createArgs, "group", "Internal Master Category"), "group: Internal Master Category is YNAB's internal group"},
		{"an unknown group", withArg(createArgs, "group", "Huisdieren"), `group: there is no category group "Huisdieren"`},
	})
}
