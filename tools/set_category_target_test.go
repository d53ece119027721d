package tools

import (
	"encoding/json"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
)

var targetArgs = map[string]any{"category": "Vakantie", "amount": "1200", "date": "2027-06-01"}

const targetPreview = "Set the target of Vakantie: no target → 1200.00 by 2027-06-01?"

// moneyTarget returns the target fields of a category in the sandbox, as the journal records them.
func moneyTarget(e *testEnv, name string) string {
	e.t.Helper()
	c, ok := moneyCategory(e, name)
	if !ok {
		e.t.Fatalf("no category %s in the sandbox", name)
	}
	return string(targetOf(&c).fields())
}

const noTargetFields = `{"goal_cadence":null,"goal_cadence_frequency":null,"goal_needs_whole_amount":null,"goal_target":null,"goal_target_date":null,"goal_type":null}`

func TestSetCategoryTargetWithCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	preview, op := moneyApply(e, "set_category_target", targetArgs, 1)
	if preview != targetPreview {
		t.Fatalf("preview = %q; want %q", preview, targetPreview)
	}
	const after = `{"goal_cadence":0,"goal_cadence_frequency":null,"goal_needs_whole_amount":true,"goal_target":1200000,"goal_target_date":"2027-06-01","goal_type":"NEED"}`
	if got := moneyTarget(e, "Vakantie"); got != after {
		t.Fatalf("Vakantie's target = %s; want %s", got, after)
	}
	vakantie, _ := moneyCategory(e, "Vakantie")
	if len(op.Changes) != 1 {
		t.Fatalf("journaled changes = %+v", op.Changes)
	}
	ch := op.Changes[0]
	if ch.Kind != "category" || ch.ID != vakantie.ID || ch.Label != "Sparen: Vakantie" || string(ch.Before) != noTargetFields || string(ch.After) != after {
		t.Fatalf("journaled change = %+v\nwant before %s, after %s", ch, noTargetFields, after)
	}
}

func TestSetCategoryTargetByForm(t *testing.T) {
	t.Parallel()
	e := moneyApplyByForm(t, "set_category_target", targetArgs, targetPreview)
	if moneyTarget(e, "Vakantie") == noTargetFields {
		t.Fatal("Vakantie has no target")
	}
}

func TestSetCategoryTargetRemove(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	before := moneyTarget(e, "Noodfonds")
	_, op := moneyApply(e, "set_category_target", map[string]any{"category": "Noodfonds", "remove": true}, 1)
	if got := moneyTarget(e, "Noodfonds"); got != noTargetFields {
		t.Fatalf("Noodfonds's target = %s; want none", got)
	}
	if ch := op.Changes[0]; string(ch.Before) != before || string(ch.After) != noTargetFields {
		t.Fatalf("journaled change = %+v; want before %s", ch, before)
	}
}

// The preview describes the target before and after in words, and warns when undo could not
// put the current one back because YNAB's API cannot create a target of its kind.
func TestSetCategoryTargetPreviews(t *testing.T) {
	t.Parallel()
	const warn = "\nWarning: undo could not restore the current target of "
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"removing a target balance", map[string]any{"category": "Noodfonds", "remove": true},
			"Set the target of Noodfonds: a balance of 15000.00 → no target?" + warn + "Noodfonds (a balance of 15000.00) exactly: YNAB's API cannot create a target of that kind."},
		{"a new amount keeps the kind", map[string]any{"category": "Noodfonds", "amount": 16000},
			"Set the target of Noodfonds: a balance of 15000.00 → a balance of 16000.00?"},
		{"a date for a target balance", map[string]any{"category": "Noodfonds", "amount": 15000, "date": "2028-01-01"},
			"Set the target of Noodfonds: a balance of 15000.00 → a balance of 15000.00 by 2028-01-01?" + warn + "Noodfonds (a balance of 15000.00) exactly: YNAB's API cannot create a target of that kind."},
		{"a new date for a dated target", map[string]any{"category": "Nieuwe fiets", "amount": "1300", "date": "2027-09-01"},
			"Set the target of Nieuwe fiets: a balance of 1200.00 by 2027-08-01 → a balance of 1300.00 by 2027-09-01?"},
		{"monthly funding made weekly", map[string]any{"category": "Cadeaus", "amount": 10, "frequency": "Weekly"},
			"Set the target of Cadeaus: 40.00 a month (monthly funding) → 10.00 a week?" + warn + "Cadeaus (40.00 a month (monthly funding)) exactly: YNAB's API cannot create a target of that kind."},
		{"a monthly refill set aside", map[string]any{"category": "Onderhoud huis", "amount": 150, "frequency": "monthly", "needs_whole_amount": true},
			"Set the target of Onderhoud huis: refill up to 100.00 a month → set aside 150.00 a month?"},
		{"a need by a date moved", map[string]any{"category": "Tandarts", "amount": 400},
			"Set the target of Tandarts: 350.00 by 2027-04-15 → 400.00 by 2027-04-15?"},
		{"a weekly need made monthly", map[string]any{"category": "Boodschappen", "amount": 400, "frequency": "monthly", "needs_whole_amount": false},
			"Set the target of Boodschappen: set aside 100.00 a week → refill up to 400.00 a month?"},
		{"a yearly need given a date", map[string]any{"category": "Verzekeringen", "amount": 420, "date": "2027-06-01"},
			"Set the target of Verzekeringen: set aside 420.00 a year, next by 2027-05-01 → set aside 420.00 a year, next by 2027-06-01?"},
		{"a monthly target for a category without one", map[string]any{"category": "Tennis", "amount": "45"},
			"Set the target of Tennis: no target → 45.00 a month?"},
	}
	e := newEnv(t, envOptions{kind: noElicit})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.t = t
			if preview := e.preview("set_category_target", tt.args).Preview; preview != tt.want {
				t.Errorf("preview =\n%s\nwant\n%s", preview, tt.want)
			}
		})
	}
}

// What the preview predicts is what the sandbox, which follows YNAB's rules, then reports.
// Each case writes, so each has a sandbox of its own.
func TestSetCategoryTargetPredictsYNAB(t *testing.T) {
	t.Parallel()
	for _, args := range []map[string]any{
		{"category": "Noodfonds", "amount": 15000, "date": "2028-01-01"},
		{"category": "Onderhoud huis", "amount": 150, "frequency": "monthly", "needs_whole_amount": true},
		{"category": "Verzekeringen", "amount": 500},
		{"category": "Tennis", "amount": "45", "date": "2027-03-01"},
	} {
		e := newEnv(t, envOptions{kind: noElicit})
		before, _ := moneyCategory(e, args["category"].(string))
		_, op := moneyApply(e, "set_category_target", args, 1)
		var s targetSubject
		if err := json.Unmarshal(op.Subject, &s); err != nil {
			t.Fatal(err)
		}
		predicted := targetOf(&before).after(s)
		reported := op.Changes[0].After
		if predicted.NeedsWholeAmount == nil {
			// Unknown before YNAB answers (the preview then says nothing of it): YNAB picks.
			var c ynab.Category
			if err := json.Unmarshal(reported, &c); err != nil {
				t.Fatal(err)
			}
			predicted.NeedsWholeAmount = c.GoalNeedsWholeAmount
		}
		if string(predicted.fields()) != string(reported) {
			t.Errorf("%v: predicted %s, YNAB reports %s", args, predicted.fields(), reported)
		}
	}
}

func TestSetCategoryTargetRefusals(t *testing.T) {
	t.Parallel()
	moneyRefusals(t, "set_category_target", []moneyRefusal{
		{"remove with an amount", map[string]any{"category": "Noodfonds", "remove": true, "amount": 10}, "remove: removing the target takes no amount"},
		{"remove without a target", map[string]any{"category": "Vakantie", "remove": true}, "remove: Vakantie has no target"},
		{"no amount", map[string]any{"category": "Vakantie", "date": "2027-06-01"}, "amount: give the target amount"},
		{"zero", withArg(targetArgs, "amount", 0), "amount: a target must be more than zero"},
		{"negative", withArg(targetArgs, "amount", -5), "amount: a target must be more than zero"},
		{"too many decimals", withArg(targetArgs, "amount", "1200.001"), "amount: "},
		{"date and frequency", withArg(targetArgs, "frequency", "monthly"), "date: a target is either needed by a date or every period"},
		{"needs_whole_amount without frequency", withArg(targetArgs, "needs_whole_amount", true), "needs_whole_amount: "},
		{"an unknown frequency", map[string]any{"category": "Vakantie", "amount": 10, "frequency": "daily"}, `frequency: "daily" is not a frequency`},
		{"a date in the past", withArg(targetArgs, "date", "2026-12-01"), "date: 2026-12-01 has passed"},
		{"not a date", withArg(targetArgs, "date", "2027-02-30"), "date: "},
		{"a hidden category", withArg(targetArgs, "category", "Fotografie"), "category: Vrije tijd: Fotografie is hidden"},
		{"an internal category", withArg(targetArgs, "category", "Inflow: Ready to Assign"), "one of YNAB's internal categories"},
		{"an unknown category", withArg(targetArgs, "category", "Vakantiee"), `category: there is no category "Vakantiee"`},
		{"the target it has", map[string]any{"category": "Noodfonds", "amount": "15000.00"}, "Noodfonds already has that target (a balance of 15000.00): nothing to change"},
	})
}

// Targets the sample plan does not have: how they read, and whether undo could set them again.
func TestTargetWordsAndRestorable(t *testing.T) {
	t.Parallel()
	need := func(cadence, every int) target {
		return target{Type: ptr(ynab.GoalNeed), Amount: ptr(int64(100000)), Cadence: ptr(cadence), CadenceFrequency: ptr(every)}
	}
	tests := []struct {
		target     target
		words      string
		restorable bool
	}{
		{need(1, 2), "100.00 every 2 months", false},
		{need(4, 1), "100.00 every 3 months", false},
		{need(14, 1), "100.00 every 2 years", false},
		{need(2, 3), "100.00 every 3 weeks", false},
		{need(2, 1), "100.00 a week", true},
		{target{Type: ptr(ynab.GoalNeed), Amount: ptr(int64(100000)), Cadence: ptr(0)}, "100.00", false},
		{target{Type: ptr(ynab.GoalDebt), Amount: ptr(int64(250000))}, "250.00 a month towards a debt", false},
	}
	for _, tt := range tests {
		if got := tt.target.words(2); got != tt.words || tt.target.restorable() != tt.restorable {
			t.Errorf("%+v: words %q, restorable %v; want %q, %v", tt.target, got, tt.target.restorable(), tt.words, tt.restorable)
		}
	}
}
