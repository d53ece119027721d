package bolt

import (
	"github.com/avenir-mcp/avenir/journal"
	"reflect"
	"testing"
	"time"
)

// seedForList writes, one minute apart from 14:03 on 2026-11-28 (UTC):
//
//	0 plan-a set_category_budget applied
//	1 plan-a flag_transactions   failed
//	2 plan-b set_category_budget applied
//	3 plan-b apply_categories    partial
//	4 plan-a set_category_budget prepared
//	5 plan-a apply_categories    applied
func seedForList(t *testing.T) (*Journal, []string) {
	t.Helper()
	c := newClock()
	c.step = 0
	j, err := Open(t.TempDir()+"/journal.db", Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		plan, tool string
		settle     func(id string) error
	}{
		{"plan-a", "set_category_budget", func(id string) error { _, err := j.Applied(t.Context(), id, journal.Outcome{}); return err }},
		{"plan-a", "flag_transactions", func(id string) error { _, err := j.Failed(t.Context(), id, "no", 0); return err }},
		{"plan-b", "set_category_budget", func(id string) error { _, err := j.Applied(t.Context(), id, journal.Outcome{}); return err }},
		{"plan-b", "apply_categories", func(id string) error {
			_, err := j.Applied(t.Context(), id, journal.Outcome{Partial: true})
			return err
		}},
		{"plan-a", "set_category_budget", func(string) error { return nil }},
		{"plan-a", "apply_categories", func(id string) error { _, err := j.Applied(t.Context(), id, journal.Outcome{}); return err }},
	}
	var ids []string
	for _, r := range rows {
		op := mustPrepare(t, j, testDraft(r.plan, r.tool))
		if err := r.settle(op.ID); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, op.ID)
		c.mu.Lock()
		c.t = c.t.Add(time.Minute)
		c.mu.Unlock()
	}
	return j, ids
}

func TestList(t *testing.T) {
	j, ids := seedForList(t)
	at := func(minute int) time.Time { return time.Date(2026, 11, 28, 14, 3+minute, 0, 0, time.UTC) }
	cases := []struct {
		name   string
		filter journal.Filter
		want   []int // rows of seedForList, newest first
	}{
		{"everything", journal.Filter{}, []int{5, 4, 3, 2, 1, 0}},
		{"limit", journal.Filter{Limit: 2}, []int{5, 4}},
		{"plan", journal.Filter{PlanID: "plan-b"}, []int{3, 2}},
		{"tool", journal.Filter{Tool: "set_category_budget"}, []int{4, 2, 0}},
		{"status applied", journal.Filter{Status: journal.StatusApplied}, []int{5, 2, 0}},
		{"status prepared", journal.Filter{Status: journal.StatusPrepared}, []int{4}},
		{"status partial", journal.Filter{Status: journal.StatusPartial}, []int{3}},
		{"status failed", journal.Filter{Status: journal.StatusFailed}, []int{1}},
		{"plan and tool", journal.Filter{PlanID: "plan-a", Tool: "set_category_budget"}, []int{4, 0}},
		{"plan, tool and status", journal.Filter{PlanID: "plan-a", Tool: "set_category_budget", Status: journal.StatusApplied}, []int{0}},
		{"applied in a plan", journal.Filter{PlanID: "plan-a", Status: journal.StatusApplied}, []int{5, 0}},
		{"since", journal.Filter{Since: at(3)}, []int{5, 4, 3}},
		{"since, to the sub-millisecond", journal.Filter{Since: at(3).Add(time.Millisecond / 2)}, []int{5, 4}},
		{"since and tool with limit", journal.Filter{Since: at(1), Tool: "set_category_budget", Limit: 1}, []int{4}},
		{"since long ago", journal.Filter{Since: time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), Limit: 3}, []int{5, 4, 3}},
		{"unknown plan", journal.Filter{PlanID: "plan-z"}, nil},
		{"unknown status", journal.Filter{Status: "lost"}, nil},
		{"nothing that recent", journal.Filter{Since: at(10)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ops, err := j.List(t.Context(), c.filter)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, op := range ops {
				got = append(got, indexOf(ids, op.ID))
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("rows %v, want %v", got, c.want)
			}
		})
	}
}

func indexOf(ids []string, id string) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return -1
}

func TestListDefaultLimit(t *testing.T) {
	j, _ := openTest(t)
	for range journal.DefaultLimit + 3 {
		mustPrepare(t, j, testDraft("plan-1", "set_category_budget"))
	}
	ops, err := j.List(t.Context(), journal.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != journal.DefaultLimit {
		t.Errorf("%d operations, want %d", len(ops), journal.DefaultLimit)
	}
}

func TestListCarriesEvents(t *testing.T) {
	j, _ := seedForList(t)
	ops, err := j.List(t.Context(), journal.Filter{Status: journal.StatusFailed})
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 1 || !reflect.DeepEqual(eventTypes(ops[0]), []string{"prepared", "failed"}) || ops[0].Error != "no" {
		t.Errorf("listed %+v", ops)
	}
}

func TestPending(t *testing.T) {
	j, ids := seedForList(t)
	ops, err := j.Pending(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 1 || ops[0].ID != ids[4] {
		t.Errorf("pending = %v, want only row 4", ops)
	}
}
