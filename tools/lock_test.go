package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// someoneElse is another YNAB app on the same plan: what it writes, avenir learns only by
// reading YNAB.
func someoneElse(e *testEnv) *ynab.Client {
	return ynab.New(ynab.Options{BaseURL: e.url, Token: testToken, MaxAge: -1})
}

// On an older protocol the question is asked during the call. Someone clears a transaction in
// YNAB while the person reads it: the reconcile they agreed to (its difference) is no longer
// what would be written, so nothing is, with the confirmation contract's sentence.
func TestPlanChangedWhileAsked(t *testing.T) {
	e := newEnv(t, envOptions{kind: legacy1125})
	args := reconcileArgs(e, 12340)
	acct := createsAccount(e, "Betaalrekening")
	var uncleared string
	for _, tx := range createsExport(e).Transactions {
		if tx.AccountID == acct.ID && !tx.Deleted && tx.Cleared == "uncleared" {
			uncleared = tx.ID
			break
		}
	}
	if uncleared == "" {
		t.Fatal("the sample has no uncleared transaction on Betaalrekening")
	}
	e.duringQuestion = func() {
		if _, err := someoneElse(e).UpdateTransactions(context.Background(), sandbox.PlanID, []ynab.SaveTransaction{{ID: uncleared, Cleared: ynab.Cleared}}); err != nil {
			t.Error(err)
		}
	}
	e.sb.ResetCounts()
	e.fails("reconcile_account", args, "The plan changed between the preview and the answer")
	if w := e.sb.Counts().Writes; w != 1 { // the edit made during the question, nothing of avenir's
		t.Fatalf("%d writes; want only the edit made during the question", w)
	}
	if ops := e.operations(journal.Filter{}); len(ops) != 0 {
		t.Fatalf("the journal holds %+v; want nothing", ops)
	}
}

// Someone assigns money to the source category while the person reads the question: the move
// they agreed to (its categories, month and amount) is the same, so it is applied to the plan
// as it is now, and the result and the journal say the before-state moved. The journal keeps
// the preview the person saw, and the before-state read when the write was applied.
func TestBeforeStateMovedWhileAsked(t *testing.T) {
	e := newEnv(t, envOptions{kind: legacy1125})
	tennis, _ := moneyCategory(e, "Tennis")
	e.duringQuestion = func() {
		if _, err := someoneElse(e).UpdateMonthCategory(context.Background(), sandbox.PlanID, moneyMonth, tennis.ID, 50000); err != nil {
			t.Error(err)
		}
	}
	var out writeOut
	e.ok("move_money", moveArgs, &out)
	if out.Status != "applied" || !strings.Contains(out.Message, "Since the preview") || !strings.Contains(out.Message, "50.00 → 20.00") {
		t.Fatalf("result %+v; want applied, saying the before-state moved", out)
	}
	if moneyAssigned(e, "Tennis") != 20000 || moneyAssigned(e, "Restaurants") != 150000 {
		t.Fatalf("Tennis %d, Restaurants %d; want 20.00 and 150.00", moneyAssigned(e, "Tennis"), moneyAssigned(e, "Restaurants"))
	}
	op := e.onlyOperation()
	if q := e.questions(); len(q) != 1 || !strings.Contains(q[0], op.Preview) || !strings.Contains(op.Preview, "45.00 → 15.00") {
		t.Fatalf("journaled preview %q; want the one the person was asked: %q", op.Preview, q)
	}
	if string(op.Changes[0].Before) != `{"budgeted":50000}` || !strings.Contains(op.Note, "Since the preview") {
		t.Fatalf("journaled %s before, note %q; want the before-state read when applying, and a note", op.Changes[0].Before, op.Note)
	}
}

// Two servers on one plan and journal, two callers each, all moving money into one category at
// once: every move is applied, none is lost, and the total assigned is unchanged to the
// milliunit — the plan's write lock keeps each read-then-write whole.
func TestConcurrentMovesConserveMoney(t *testing.T) {
	e := newEnv(t, envOptions{kind: legacy1125})
	other := e.restart(legacy1125)
	sources := []string{"Tennis", "Boodschappen", "Uitjes", "Vervoer"}
	const target = "Restaurants"
	before := map[string]int64{}
	var total int64
	for _, c := range append(sources, target) {
		before[c] = moneyAssigned(e, c)
		total += before[c]
	}
	const perCaller = 6
	var wg sync.WaitGroup
	moved := make([]map[string]int64, 4)
	for caller := range 4 {
		env := []*testEnv{e, other}[caller%2]
		moved[caller] = map[string]int64{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perCaller {
				from := sources[(caller+i)%len(sources)]
				cents := int64(100 + 37*caller + i)
				res, err := env.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "move_money", Arguments: map[string]any{
					"from_category": from, "to_category": target, "month": "current", "amount": fmt.Sprintf("%d.%02d", cents/100, cents%100)}})
				if err != nil || res.IsError {
					t.Errorf("caller %d move %d: %v %+v", caller, i, err, res)
					return
				}
				moved[caller][from] += cents * 10
			}
		}()
	}
	wg.Wait()
	var after int64
	for _, c := range append(sources, target) {
		after += moneyAssigned(e, c)
	}
	if after != total {
		t.Fatalf("total assigned %d after the moves, %d before: %d milliunits appeared or vanished", after, total, after-total)
	}
	want := map[string]int64{}
	for _, m := range moved {
		for from, n := range m {
			want[from] -= n
			want[target] += n
		}
	}
	for _, c := range append(sources, target) {
		if got := moneyAssigned(e, c) - before[c]; got != want[c] {
			t.Errorf("%s changed by %d, want %d: an applied move is missing", c, got, want[c])
		}
	}
	ops := e.operations(journal.Filter{Limit: 100})
	if len(ops) != 4*perCaller {
		t.Fatalf("%d operations journaled, want %d", len(ops), 4*perCaller)
	}
	for _, op := range ops {
		if op.Status != journal.StatusApplied {
			t.Errorf("operation %s is %s", op.ID, op.Status)
		}
	}
}
