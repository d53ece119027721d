package sandbox_test

import (
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

type monthCategory struct {
	Category        ynab.Category `json:"category"`
	ServerKnowledge int64         `json:"server_knowledge"`
}

func (a *api) readyToAssign(month string) int64 {
	a.t.Helper()
	var got struct{ Month ynab.Month }
	a.ok(200, "GET", plan+"/months/"+month, nil, &got)
	return got.Month.ToBeBudgeted
}

func budget(milliunits int64) map[string]any {
	return map[string]any{"category": map[string]any{"budgeted": milliunits}}
}

func TestAssigningMoneyMovesReadyToAssign(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	before := a.readyToAssign("current")

	var got monthCategory
	a.ok(200, "PATCH", plan+"/months/current/categories/"+n.id(t, "Restaurants"), budget(150000), &got)
	if got.Category.Budgeted != 150000 || got.Category.Balance != 183150 || got.ServerKnowledge != 1001 {
		t.Errorf("Restaurants = %d assigned, %d available, knowledge %d; want 150000, 183150, 1001",
			got.Category.Budgeted, got.Category.Balance, got.ServerKnowledge)
	}
	if after := a.readyToAssign("current"); after != before-30000 {
		t.Errorf("Ready to Assign %d → %d, want it 30000 lower", before, after)
	}

	// Moving money is two assignments: Ready to Assign stays.
	a.ok(200, "PATCH", plan+"/months/2026-09-01/categories/"+n.id(t, "Tennis"), budget(15000), nil)
	a.ok(200, "PATCH", plan+"/months/2026-09-01/categories/"+n.id(t, "Restaurants"), budget(180000), nil)
	if after := a.readyToAssign("current"); after != before-30000 {
		t.Errorf("after moving 30.00 from Tennis to Restaurants, Ready to Assign = %d, want %d", after, before-30000)
	}

	// Money assigned in a future month comes off this month's Ready to Assign too, and the
	// month is served from then on.
	a.ok(200, "PATCH", plan+"/months/2027-01-01/categories/"+n.id(t, "Vakantie"), budget(100000), nil)
	if after := a.readyToAssign("current"); after != before-130000 {
		t.Errorf("after assigning in January, Ready to Assign = %d, want %d", after, before-130000)
	}
	var months struct{ Months []ynab.Month }
	a.ok(200, "GET", plan+"/months", nil, &months)
	if last := months.Months[len(months.Months)-1].Month; last != "2027-01-01" {
		t.Errorf("last month served = %s, want 2027-01-01", last)
	}
}

// An overspent category does not carry its negative balance: it comes off Ready to Assign in
// the next month. In the sample, Tennis is overspent in the first month (135.00 club fee).
func TestOverspendingComesOffNextMonth(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	var jul, aug monthCategory
	a.ok(200, "GET", plan+"/months/2026-07-01/categories/"+n.id(t, "Tennis"), nil, &jul)
	a.ok(200, "GET", plan+"/months/2026-08-01/categories/"+n.id(t, "Tennis"), nil, &aug)
	if jul.Category.Balance != -90000 || aug.Category.Balance != 45000-25000 {
		t.Fatalf("Tennis: July %d, August %d; want -90000 and 20000", jul.Category.Balance, aug.Category.Balance)
	}
	var july, august struct{ Month ynab.Month }
	a.ok(200, "GET", plan+"/months/2026-07-01", nil, &july)
	a.ok(200, "GET", plan+"/months/2026-08-01", nil, &august)
	var overspent int64
	for _, c := range july.Month.Categories {
		if !c.Internal && c.Balance < 0 {
			overspent -= c.Balance
		}
	}
	if got, want := august.Month.ToBeBudgeted-july.Month.ToBeBudgeted, august.Month.Income-overspent; got != want {
		t.Errorf("Ready to Assign grew %d from July to August, want income %d − July's overspending %d",
			got, august.Month.Income, overspent)
	}
}

func TestMonthCategoryRefusals(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	tests := []struct {
		name, path string
		body       any
		status     int
	}{
		{"no budgeted", "/months/current/categories/" + n.id(t, "Tennis"), map[string]any{"category": map[string]any{"activity": 1}}, 400},
		{"budgeted not a whole number", "/months/current/categories/" + n.id(t, "Tennis"), `{"category":{"budgeted":12.5}}`, 400},
		{"Ready to Assign itself", "/months/current/categories/" + n.id(t, "Inflow: Ready to Assign"), budget(1000), 400},
		{"unknown category", "/months/current/categories/0f0f0f0f-0000-4000-8000-000000000000", budget(1000), 404},
		{"more than a year ahead", "/months/2027-11-01/categories/" + n.id(t, "Tennis"), budget(1000), 404},
		{"not a month's first day", "/months/2026-09-02/categories/" + n.id(t, "Tennis"), budget(1000), 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.fail(tt.status, "PATCH", plan+tt.path, tt.body)
		})
	}
	if k := a.knowledge(); k != 1000 {
		t.Errorf("refused writes raised the knowledge to %d", k)
	}
}

// knowledge is the plan's server knowledge, read without changing it.
func (a *api) knowledge() int64 {
	a.t.Helper()
	var got struct {
		ServerKnowledge int64 `json:"server_knowledge"`
	}
	a.ok(200, "GET", plan+"/payees?last_knowledge_of_server=0", nil, &got)
	return got.ServerKnowledge
}

func TestUpdateCategoryTargets(t *testing.T) {
	tests := []struct {
		name     string
		category string
		body     map[string]any
		check    func(t *testing.T, c ynab.Category)
	}{
		{"a target by a date on a category without one", "Vakantie",
			map[string]any{"goal_target": 1200000, "goal_target_date": "2027-06-01"},
			func(t *testing.T, c ynab.Category) {
				want(t, c, "NEED", 1200000, ptr("2027-06-01"), ptr(0))
				if *c.GoalMonthsToBudget != 10 || *c.GoalCreationMonth != "2026-09-01" {
					t.Errorf("months to budget %d, created %s", *c.GoalMonthsToBudget, *c.GoalCreationMonth)
				}
			}},
		{"goal_target alone makes a monthly NEED", "Vakantie", map[string]any{"goal_target": 50000},
			func(t *testing.T, c ynab.Category) { want(t, c, "NEED", 50000, nil, ptr(1)) }},
		{"on a card payment category it is MF", "category:Creditcard", map[string]any{"goal_target": 200000},
			func(t *testing.T, c ynab.Category) { want(t, c, "MF", 200000, nil, nil) }},
		{"null removes the target", "Noodfonds", map[string]any{"goal_target": nil},
			func(t *testing.T, c ynab.Category) {
				if c.GoalType != nil || c.GoalTarget != nil || c.GoalUnderFunded != nil {
					t.Errorf("target left: %v %v", c.GoalType, c.GoalTarget)
				}
			}},
		{"weekly frequency replaces the target", "Tennis", map[string]any{"goal_target": 10000, "goal_frequency": "weekly"},
			func(t *testing.T, c ynab.Category) {
				want(t, c, "NEED", 10000, nil, ptr(2))
				if *c.GoalDay != 2 { // FixedNow is a Tuesday
					t.Errorf("goal_day = %d, want 2", *c.GoalDay)
				}
			}},
		{"yearly frequency", "Cadeaus", map[string]any{"goal_target": 60000, "goal_frequency": "yearly"},
			func(t *testing.T, c ynab.Category) { want(t, c, "NEED", 60000, ptr("2027-09-15"), ptr(13)) }},
		{"a date turns TB into TBD", "Noodfonds", map[string]any{"goal_target_date": "2027-12-01"},
			func(t *testing.T, c ynab.Category) { want(t, c, "TBD", 15000000, ptr("2027-12-01"), nil) }},
		{"a null date turns TBD into TB", "Nieuwe fiets", map[string]any{"goal_target_date": nil},
			func(t *testing.T, c ynab.Category) { want(t, c, "TB", 1200000, nil, nil) }},
		{"refill becomes set aside", "Onderhoud huis", map[string]any{"goal_needs_whole_amount": true},
			func(t *testing.T, c ynab.Category) {
				if !*c.GoalNeedsWholeAmount || *c.GoalUnderFunded != 50000 {
					t.Errorf("needs whole %v, under-funded %d; want true, 50000", *c.GoalNeedsWholeAmount, *c.GoalUnderFunded)
				}
			}},
		{"rename and move", "Tennis", map[string]any{"name": "Padel", "category_group_id": "Dagelijks", "note": "dinsdag"},
			func(t *testing.T, c ynab.Category) {
				if c.Name != "Padel" || c.CategoryGroupName != "Dagelijks" || *c.Note != "dinsdag" {
					t.Errorf("category = %q in %q, note %v", c.Name, c.CategoryGroupName, c.Note)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAPI(t, sandbox.Options{})
			n := sampleNames(t, a.sb, sandbox.PlanID)
			if g, ok := tt.body["category_group_id"].(string); ok {
				tt.body["category_group_id"] = n.id(t, "group:"+g)
			}
			var got monthCategory
			a.ok(200, "PATCH", plan+"/categories/"+n.id(t, tt.category), map[string]any{"category": tt.body}, &got)
			tt.check(t, got.Category)
			var read monthCategory
			a.ok(200, "GET", plan+"/categories/"+n.id(t, tt.category), nil, &read)
			if read.Category.Name != got.Category.Name || !same(read.Category.GoalType, got.Category.GoalType) {
				t.Errorf("a read after the write shows %+v", read.Category)
			}
		})
	}
}

func want(t *testing.T, c ynab.Category, goalType string, target int64, date *string, cadence *int) {
	t.Helper()
	if c.GoalType == nil || *c.GoalType != goalType || c.GoalTarget == nil || *c.GoalTarget != target ||
		!same(c.GoalTargetDate, date) || !same(c.GoalCadence, cadence) {
		t.Errorf("target = %v %v date %v cadence %v; want %s %d %v %v",
			deref(c.GoalType), deref(c.GoalTarget), deref(c.GoalTargetDate), deref(c.GoalCadence), goalType, target, deref(date), deref(cadence))
	}
}

func same[T comparable](a, b *T) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestUpdateCategoryRefusals(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	tests := []struct {
		name, category string
		body           any
		status         int
		detail         string
	}{
		{"frequency without target", "Tennis", map[string]any{"goal_frequency": "monthly"}, 400, "requires goal_target"},
		{"frequency with a date", "Tennis", map[string]any{"goal_target": 1, "goal_frequency": "monthly", "goal_target_date": "2027-01-01"}, 400, "cannot be combined"},
		{"unknown frequency", "Tennis", map[string]any{"goal_target": 1, "goal_frequency": "daily"}, 400, "monthly, weekly or yearly"},
		{"frequency on a card payment category", "category:Creditcard", map[string]any{"goal_target": 1, "goal_frequency": "monthly"}, 400, "credit card"},
		{"whole amount on a TB target", "Noodfonds", map[string]any{"goal_needs_whole_amount": true}, 400, "only to NEED"},
		{"a date on MF", "Cadeaus", map[string]any{"goal_target_date": "2027-01-01"}, 400, "has no date"},
		{"a date without a target", "Vakantie", map[string]any{"goal_target_date": "2027-01-01"}, 400, "has no target"},
		{"a negative target", "Vakantie", map[string]any{"goal_target": -5}, 400, "negative"},
		{"an empty name", "Tennis", map[string]any{"name": "  "}, 400, "empty"},
		{"into the internal group", "Tennis", map[string]any{"category_group_id": n.id(t, "group:Internal Master Category")}, 400, "internal"},
		{"into an unknown group", "Tennis", map[string]any{"category_group_id": "0f0f0f0f-0000-4000-8000-000000000000"}, 400, "not a category group"},
		{"the internal category", "Inflow: Ready to Assign", map[string]any{"name": "RTA"}, 400, "cannot be changed"},
		{"a card payment category out of its group", "category:Creditcard", map[string]any{"category_group_id": n.id(t, "group:Sparen")}, 400, "stays in its group"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := a.fail(tt.status, "PATCH", plan+"/categories/"+n.id(t, tt.category), map[string]any{"category": tt.body})
			if !strings.Contains(e.Detail, tt.detail) {
				t.Errorf("detail %q does not say %q", e.Detail, tt.detail)
			}
		})
	}
	a.fail(404, "PATCH", plan+"/categories/0f0f0f0f-0000-4000-8000-000000000000", map[string]any{"category": map[string]any{"name": "x"}})
	if k := a.knowledge(); k != 1000 {
		t.Errorf("refused writes raised the knowledge to %d", k)
	}
}

func TestCreateCategoryAndGroup(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	var created monthCategory
	a.ok(201, "POST", plan+"/categories", map[string]any{"category": map[string]any{
		"name": "Huisdieren", "category_group_id": n.id(t, "group:Dagelijks"), "goal_target": 25000}}, &created)
	if created.Category.Name != "Huisdieren" || created.Category.CategoryGroupName != "Dagelijks" ||
		*created.Category.GoalType != "NEED" || created.ServerKnowledge != 1001 {
		t.Errorf("created %+v at knowledge %d", created.Category, created.ServerKnowledge)
	}
	var month struct{ Month ynab.Month }
	a.ok(200, "GET", plan+"/months/current", nil, &month)
	if len(month.Month.Categories) != 22 {
		t.Errorf("the month has %d categories after creating one, want 22", len(month.Month.Categories))
	}

	var group struct {
		CategoryGroup   ynab.CategoryGroup `json:"category_group"`
		ServerKnowledge int64              `json:"server_knowledge"`
	}
	a.ok(201, "POST", plan+"/category_groups", map[string]any{"category_group": map[string]any{"name": "Huisdieren & co"}}, &group)
	if group.CategoryGroup.Name != "Huisdieren & co" || group.CategoryGroup.Internal {
		t.Errorf("group = %+v", group.CategoryGroup)
	}
	a.ok(200, "PATCH", plan+"/category_groups/"+group.CategoryGroup.ID, map[string]any{"category_group": map[string]any{"name": "Dieren"}}, &group)
	if group.CategoryGroup.Name != "Dieren" {
		t.Errorf("renamed group = %+v", group.CategoryGroup)
	}

	refusals := []struct {
		name, method, path string
		body               any
		status             int
	}{
		{"category without name", "POST", "/categories", map[string]any{"category": map[string]any{"category_group_id": n.id(t, "group:Dagelijks")}}, 400},
		{"category without group", "POST", "/categories", map[string]any{"category": map[string]any{"name": "X"}}, 400},
		{"category in the internal group", "POST", "/categories", map[string]any{"category": map[string]any{"name": "X", "category_group_id": n.id(t, "group:Internal Master Category")}}, 400},
		{"group name over 50", "POST", "/category_groups", map[string]any{"category_group": map[string]any{"name": strings.Repeat("x", 51)}}, 400},
		{"group without name", "POST", "/category_groups", map[string]any{"category_group": map[string]any{}}, 400},
		{"rename the internal group", "PATCH", "/category_groups/" + n.id(t, "group:Internal Master Category"), map[string]any{"category_group": map[string]any{"name": "X"}}, 400},
		{"rename an unknown group", "PATCH", "/category_groups/0f0f0f0f-0000-4000-8000-000000000000", map[string]any{"category_group": map[string]any{"name": "X"}}, 404},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) { a.fail(tt.status, tt.method, plan+tt.path, tt.body) })
	}
}
