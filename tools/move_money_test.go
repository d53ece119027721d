package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// Helpers of the money group's tests (move_money, set_category_target, update_category,
// create_category).

// moneyMonth is the sandbox's current month in the tools tests.
const moneyMonth = "2026-12-01"

// moneyCategory returns a category of the sandbox's plan as YNAB exports it now; ok is false
// when there is none of that name.
func moneyCategory(e *testEnv, name string) (ynab.Category, bool) {
	e.t.Helper()
	p, err := e.sb.Export(sandbox.PlanID)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, c := range p.Categories {
		if c.Name == name && !c.Deleted {
			return c, true
		}
	}
	return ynab.Category{}, false
}

// moneyGroupID returns the id of a category group of the sandbox's plan.
func moneyGroupID(e *testEnv, name string) string {
	e.t.Helper()
	p, err := e.sb.Export(sandbox.PlanID)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, g := range p.CategoryGroups {
		if g.Name == name {
			return g.ID
		}
	}
	e.t.Fatalf("no group %s in the sandbox", name)
	return ""
}

// moneyAssigned returns what a category has assigned in the sandbox's current month.
func moneyAssigned(e *testEnv, name string) int64 {
	e.t.Helper()
	c, ok := moneyCategory(e, name)
	if !ok {
		e.t.Fatalf("no category %s in the sandbox", name)
	}
	p, err := e.sb.Export(sandbox.PlanID)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, m := range p.Months {
		for _, mc := range m.Categories {
			if m.Month == moneyMonth && mc.ID == c.ID {
				return mc.Budgeted
			}
		}
	}
	e.t.Fatalf("no %s in %s in the sandbox", name, moneyMonth)
	return 0
}

// moneyConfirm passes the code back (confirmByCode) and returns the applied result (nil on a
// tool error), what the confirming call cost in requests to the sandbox, and the error's text.
func moneyConfirm(e *testEnv, tool string, args map[string]any, code string) (*writeOut, sandbox.Counts, string) {
	e.t.Helper()
	res := e.confirmByCode(tool, args, code)
	if res.IsError {
		return nil, e.sb.Counts(), text(res)
	}
	var out writeOut
	decode(e.t, res, &out)
	return &out, e.sb.Counts(), ""
}

// moneyApply previews and confirms a write with a code; it must be applied with at most one
// read and exactly writes writes. It returns the preview and the journal's entry.
func moneyApply(e *testEnv, tool string, args map[string]any, writes int) (string, journal.Operation) {
	e.t.Helper()
	shown := e.preview(tool, args)
	preview := shown.Preview
	out, c, msg := moneyConfirm(e, tool, args, shown.Confirmation)
	if out == nil || out.Status != "applied" || out.OperationID == "" {
		e.t.Fatalf("%s with the code: %+v %s; want applied", tool, out, msg)
	}
	if c.Reads > 1 || c.Writes != writes || out.YNABRequests != c.Total {
		e.t.Fatalf("%s cost %+v (reported %d); want at most 1 read and %d write(s)", tool, c, out.YNABRequests, writes)
	}
	op, err := e.journal.Get(context.Background(), out.OperationID)
	if err != nil || op.Status != journal.StatusApplied || op.ConfirmedVia != "code" || op.Preview != preview {
		e.t.Fatalf("journal entry %+v (%v); want applied, confirmed by code, with the preview", op, err)
	}
	return preview, op
}

// moneyApplyByForm applies a write through a 2026-07-28 client that ticks the box: the user
// must have been asked once, with want.
func moneyApplyByForm(t *testing.T, tool string, args map[string]any, want string) *testEnv {
	t.Helper()
	e := newEnv(t, envOptions{kind: modernYes})
	var out writeOut
	e.ok(tool, args, &out)
	if out.Status != "applied" || out.OperationID == "" {
		t.Fatalf("%s = %+v; want applied", tool, out)
	}
	if q := e.questions(); len(q) != 1 || q[0] != want {
		t.Fatalf("the user was asked %q; want once:\n%s", q, want)
	}
	if op := e.onlyOperation(); op.ConfirmedVia != "mrtr" || op.Status != journal.StatusApplied {
		t.Fatalf("journal = %+v; want applied through mrtr", op)
	}
	return e
}

// moneyRefusals calls tool with each case's arguments: each must fail with an error containing
// want, and nothing may be written or journaled.
func moneyRefusals(t *testing.T, tool string, cases []moneyRefusal) {
	t.Helper()
	e := newEnv(t, envOptions{kind: noElicit})
	e.sb.ResetCounts()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.t = t
			e.fails(tool, c.args, c.want)
		})
	}
	e.t = t
	if n := e.sb.Counts().Writes; n != 0 {
		t.Fatalf("refused calls made %d write request(s)", n)
	}
	if ops := e.operations(journal.Filter{}); len(ops) != 0 {
		t.Fatalf("refused calls were journaled: %+v", ops)
	}
}

type moneyRefusal struct {
	name string
	args map[string]any
	want string
}

var moveArgs = map[string]any{"from_category": "Tennis", "to_category": "Restaurants", "month": "current", "amount": "30"}

const movePreview = "Move 30.00 from Tennis to Restaurants for 2026-12-01?\nTennis: 45.00 → 15.00\nRestaurants: 120.00 → 150.00"

func TestMoveMoneyWithCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	preview, op := moneyApply(e, "move_money", moveArgs, 2)
	if preview != movePreview {
		t.Fatalf("preview =\n%s\nwant\n%s", preview, movePreview)
	}
	if tennis, restaurants := moneyAssigned(e, "Tennis"), moneyAssigned(e, "Restaurants"); tennis != 15000 || restaurants != 150000 {
		t.Fatalf("after the move Tennis has %d and Restaurants %d assigned; want 15000 and 150000", tennis, restaurants)
	}
	want := []struct{ label, before, after string }{
		{"Vrije tijd: Tennis 2026-12", `{"budgeted":45000}`, `{"budgeted":15000}`},
		{"Dagelijks: Restaurants 2026-12", `{"budgeted":120000}`, `{"budgeted":150000}`},
	}
	if len(op.Changes) != len(want) {
		t.Fatalf("journaled changes = %+v", op.Changes)
	}
	for i, w := range want {
		ch := op.Changes[i]
		if ch.Kind != journal.KindMonthCategory || ch.Month != moneyMonth || ch.Label != w.label || string(ch.Before) != w.before || string(ch.After) != w.after {
			t.Errorf("change %d = %+v; want %s %s → %s", i, ch, w.label, w.before, w.after)
		}
	}
}

func TestMoveMoneyByForm(t *testing.T) {
	t.Parallel()
	e := moneyApplyByForm(t, "move_money", moveArgs, movePreview)
	if moneyAssigned(e, "Tennis") != 15000 || moneyAssigned(e, "Restaurants") != 150000 {
		t.Fatal("the money was not moved")
	}
}

func TestMoveMoneyRefusals(t *testing.T) {
	t.Parallel()
	moneyRefusals(t, "move_money", []moneyRefusal{
		{"zero", withArg(moveArgs, "amount", 0), "amount: 0.00 is not more than zero"},
		{"negative", withArg(moveArgs, "amount", "-30"), "amount: -30.00 is not more than zero"},
		{"too many decimals", withArg(moveArgs, "amount", "30.005"), "amount: "},
		{"too large", withArg(moveArgs, "amount", "9007199254740"), "amount: this would take an assigned amount past 9007199254740.99 either way"},
		{"past the bound", withArg(moveArgs, "amount", "9223372036854775"), `amount: "9223372036854775" is too large for an amount: amounts must lie between -9007199254740.99 and 9007199254740.99`},
		{"the same category", withArg(moveArgs, "to_category", "vrije tijd: tennis"), "to_category: Vrije tijd: Tennis is also from_category"},
		{"unknown from", withArg(moveArgs, "from_category", "Tenis"), `from_category: there is no category "Tenis"`},
		{"hidden to", withArg(moveArgs, "to_category", "Fotografie"), "to_category: Vrije tijd: Fotografie is hidden"},
		{"internal from", withArg(moveArgs, "from_category", "Inflow: Ready to Assign"), "from_category: Internal Master Category: Inflow: Ready to Assign is one of YNAB's internal categories"},
		{"bad month", withArg(moveArgs, "month", "2026-13"), "month: "},
		{"month outside the plan", withArg(moveArgs, "month", "2020-01"), "month 2020-01 is outside this plan"},
	})
}

// The second PATCH fails: nothing is put back. A read of YNAB settles what each category holds;
// the journal says the move is partial, change by change, and the result says what is in YNAB
// now and what is not.
func TestMoveMoneySecondWriteFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	code := e.preview("move_money", moveArgs).Confirmation
	restaurants, _ := moneyCategory(e, "Restaurants")
	e.sb.InjectFault(sandbox.Fault{Method: "PATCH", PathContains: restaurants.ID, Status: 503})
	out, c, msg := moneyConfirm(e, "move_money", moveArgs, code)
	if out != nil || !strings.Contains(msg, "Only part of the change is in YNAB") ||
		!strings.Contains(msg, "In YNAB now: Vrije tijd: Tennis") || !strings.Contains(msg, "(assigned now 15.00)") ||
		!strings.Contains(msg, "Not in YNAB: Dagelijks: Restaurants") || strings.Contains(msg, "add ") {
		t.Fatalf("result = %+v %q; want an error naming what is in YNAB and what is not", out, msg)
	}
	if c.Writes != 2 {
		t.Fatalf("writes = %d; want the two PATCHes and nothing put back", c.Writes)
	}
	if moneyAssigned(e, "Tennis") != 15000 || moneyAssigned(e, "Restaurants") != 120000 {
		t.Fatal("the plan is not as the journal says")
	}
	op := e.onlyOperation()
	if op.Status != journal.StatusPartial || op.Requests != c.Total || len(op.Changes) != 2 ||
		op.Changes[0].Outcome != journal.OutcomeApplied || op.Changes[1].Outcome != journal.OutcomeNotApplied {
		t.Fatalf("journal = %+v; want partial: Tennis applied, Restaurants not", op)
	}
}

// The answer to the second PATCH is lost after YNAB applied it: the move is complete, and
// nothing is put back.
func TestMoveMoneyLostAnswer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	code := e.preview("move_money", moveArgs).Confirmation
	restaurants, _ := moneyCategory(e, "Restaurants")
	e.sb.InjectFault(sandbox.Fault{Method: "PATCH", PathContains: restaurants.ID, DropAfter: true})
	out, c, msg := moneyConfirm(e, "move_money", moveArgs, code)
	if out == nil || out.Status != "applied" {
		t.Fatalf("result = %+v %q; want applied", out, msg)
	}
	if c.Writes != 2 || moneyAssigned(e, "Tennis") != 15000 || moneyAssigned(e, "Restaurants") != 150000 {
		t.Fatalf("writes %d; want the two PATCHes, and the move complete", c.Writes)
	}
	if op := e.onlyOperation(); op.Status != journal.StatusApplied {
		t.Fatalf("journal = %+v; want applied", op)
	}
}
