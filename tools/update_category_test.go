package tools

import (
	"strings"
	"testing"
)

var renameArgs = map[string]any{"category": "Tennis", "name": "Sport"}

const renamePreview = "Change category ‘Tennis’ (Vrije tijd) to ‘Sport’ (Vrije tijd)?"

func TestUpdateCategoryWithCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	tennis, _ := moneyCategory(e, "Tennis")
	preview, op := moneyApply(e, "update_category", renameArgs, 1)
	if preview != renamePreview {
		t.Fatalf("preview = %q; want %q", preview, renamePreview)
	}
	sport, ok := moneyCategory(e, "Sport")
	if !ok || sport.ID != tennis.ID || sport.CategoryGroupID != tennis.CategoryGroupID {
		t.Fatalf("after the rename: %+v; want Tennis renamed Sport in its group", sport)
	}
	group := moneyGroupID(e, "Vrije tijd")
	ch := op.Changes[0]
	if len(op.Changes) != 1 || ch.Kind != "category" || ch.ID != tennis.ID || ch.Label != "Vrije tijd: Tennis" ||
		string(ch.Before) != `{"category_group_id":"`+group+`","name":"Tennis"}` || string(ch.After) != `{"category_group_id":"`+group+`","name":"Sport"}` {
		t.Fatalf("journaled changes = %+v", op.Changes)
	}
}

func TestUpdateCategoryByForm(t *testing.T) {
	t.Parallel()
	e := moneyApplyByForm(t, "update_category", renameArgs, renamePreview)
	if _, ok := moneyCategory(e, "Sport"); !ok {
		t.Fatal("Tennis was not renamed")
	}
}

// Moving to another group keeps the category's money: what it has assigned goes with it.
func TestUpdateCategoryMovesGroup(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	preview, _ := moneyApply(e, "update_category", map[string]any{"category": "Tennis", "group": "Dagelijks"}, 1)
	if want := "Change category ‘Tennis’ (Vrije tijd) to ‘Tennis’ (Dagelijks)?"; preview != want {
		t.Fatalf("preview = %q; want %q", preview, want)
	}
	tennis, _ := moneyCategory(e, "Tennis")
	if tennis.CategoryGroupID != moneyGroupID(e, "Dagelijks") || moneyAssigned(e, "Tennis") != 45000 {
		t.Fatalf("Tennis = %+v, assigned %d; want it in Dagelijks with 45000", tennis, moneyAssigned(e, "Tennis"))
	}
}

func TestUpdateCategoryRefusals(t *testing.T) {
	t.Parallel()
	moneyRefusals(t, "update_category", []moneyRefusal{
		{"nothing to change given", map[string]any{"category": "Tennis"}, "name: give a new name, a group"},
		{"an empty name", withArg(renameArgs, "name", ""), "name: give the category a name; it cannot be empty"},
		{"a blank name", withArg(renameArgs, "name", "   "), "name: give the category a name"},
		{"a name too long", withArg(renameArgs, "name", strings.Repeat("é", 51)), "name: the name is 51 characters long; a category name can have at most 50"},
		{"the name it has", withArg(renameArgs, "name", " Tennis "), "Vrije tijd: Tennis is already called ‘Tennis’ and in Vrije tijd: nothing to change"},
		{"the name of another category in the group", withArg(renameArgs, "name", "uitjes"), "name: Vrije tijd already has a category ‘Uitjes’"},
		{"moving next to a namesake", map[string]any{"category": "Tennis", "group": "Dagelijks", "name": "Restaurants"}, "name: Dagelijks already has a category ‘Restaurants’"},
		{"an internal group", withArg(renameArgs, "group", "Internal Master Category"), "group: Internal Master Category is YNAB's internal group"},
		{"an unknown group", withArg(renameArgs, "group", "Dagelijk"), `group: there is no category group "Dagelijk"`},
		{"an internal category", map[string]any{"category": "Inflow: Ready to Assign", "name": "Income"}, "category: Internal Master Category: Inflow: Ready to Assign is one of YNAB's internal categories"},
		{"an unknown category", withArg(renameArgs, "category", "Padel"), `category: there is no category "Padel"`},
	})
}

// A category's note: set, shown before → after, journaled, read back by list_categories, and
// its undo (after a restart) puts the old note back.
func TestUpdateCategoryNote(t *testing.T) {
	t.Parallel()
	args := func(*testEnv) map[string]any {
		return map[string]any{"category": "Tennis", "note": "Contributie per kwartaal"}
	}
	wrAcrossClients(t, wrCase{tool: "update_category", args: args,
		first:  "Change category ‘Tennis’ (Vrije tijd) to ‘Tennis’ (Vrije tijd)?",
		writes: map[string]int{"PATCH /plans/{plan_id}/categories/{category_id}": 1},
		check: func(t *testing.T, e *testEnv) {
			if n := moneyNote(e, "Tennis"); n != "Contributie per kwartaal" {
				t.Fatalf("list_categories shows Tennis's note as %q", n)
			}
		}})

	e, w, _, _ := wrRoundTrip(t, "update_category", args)
	if ch := w.Changes[0]; string(ch.Before) != `{"category_group_id":"`+moneyGroupID(e, "Vrije tijd")+`","name":"Tennis","note":null}` {
		t.Fatalf("journaled before = %s", ch.Before)
	}
	if w.Preview != "Change category ‘Tennis’ (Vrije tijd) to ‘Tennis’ (Vrije tijd)?\nNote: no note → \"Contributie per kwartaal\"" {
		t.Fatalf("preview = %q", w.Preview)
	}
	// Removing it again: an empty note.
	_, out := e.apply("update_category", map[string]any{"category": "Tennis", "note": ""})
	if n := moneyNote(e, "Tennis"); n != "" || out.Status != "applied" {
		t.Fatalf("after removing the note list_categories shows %q", n)
	}
	e.fails("update_category", map[string]any{"category": "Tennis", "note": " "}, "Vrije tijd: Tennis is already called ‘Tennis’ and in Vrije tijd with that note: nothing to change")
}

// moneyNote is a category's note as list_categories shows it.
func moneyNote(e *testEnv, name string) string {
	e.t.Helper()
	var out listCategoriesOut
	e.ok("list_categories", nil, &out)
	for _, g := range out.Groups {
		for _, c := range g.Categories {
			if c.Name == name {
				return c.Note
			}
		}
	}
	e.t.Fatalf("list_categories has no %s", name)
	return ""
}
