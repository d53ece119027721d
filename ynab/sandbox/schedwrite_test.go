package sandbox_test

import (
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// A create and an update take the same dates, as YNAB's spec gives both one body
// (SaveScheduledTransaction, "a future date no more than 5 years into the future"): from
// tomorrow to five years ahead; today, yesterday and a week ago are refused on both, and a
// refused update leaves the schedule as it was. The sandbox's today is 2026-09-15.
func TestScheduledDatesOnCreateAndUpdate(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	account := n.id(t, "Betaalrekening")
	body := func(date string) map[string]any {
		return scheduledBody(map[string]any{"account_id": account, "date": date, "amount": -4500, "frequency": "monthly"})
	}
	var made struct {
		ScheduledTransaction ynab.ScheduledTransaction `json:"scheduled_transaction"`
	}
	a.ok(201, "POST", plan+"/scheduled_transactions", body("2026-10-05"), &made)
	id := made.ScheduledTransaction.ID

	dates := []struct {
		name, date string
		ok         bool
	}{
		{"a week ago", "2026-09-08", false},
		{"six days ago", "2026-09-09", false},
		{"yesterday", "2026-09-14", false},
		{"today", "2026-09-15", false},
		{"tomorrow", "2026-09-16", true},
		{"five years ahead", "2031-09-15", true},
		{"a day past five years", "2031-09-16", false},
	}
	for _, w := range []struct{ method, path string }{{"POST", ""}, {"PUT", "/" + id}} {
		for _, d := range dates {
			t.Run(w.method+" "+d.name, func(t *testing.T) {
				if d.ok {
					a.ok(map[string]int{"POST": 201, "PUT": 200}[w.method], w.method, plan+"/scheduled_transactions"+w.path, body(d.date), nil)
					return
				}
				var before struct {
					ScheduledTransaction ynab.ScheduledTransaction `json:"scheduled_transaction"`
				}
				a.ok(200, "GET", plan+"/scheduled_transactions/"+id, nil, &before)
				e := a.fail(400, w.method, plan+"/scheduled_transactions"+w.path, body(d.date))
				if !strings.Contains(e.Detail, "future date no more than 5 years") {
					t.Errorf("detail %q", e.Detail)
				}
				var after struct {
					ScheduledTransaction ynab.ScheduledTransaction `json:"scheduled_transaction"`
				}
				a.ok(200, "GET", plan+"/scheduled_transactions/"+id, nil, &after)
				if after.ScheduledTransaction.DateNext != before.ScheduledTransaction.DateNext {
					t.Errorf("a refused write moved the schedule from %s to %s", before.ScheduledTransaction.DateNext, after.ScheduledTransaction.DateNext)
				}
			})
		}
	}
}
