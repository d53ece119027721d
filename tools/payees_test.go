package tools

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// rename_payee and merge_payees.

const payeePatchRoute = "PATCH /plans/{plan_id}/payees/{payee_id}"

// payeeListed reports whether list_payees shows a payee of that name, and its id.
func payeeListed(e *testEnv, name string) (string, bool) {
	e.t.Helper()
	var out listPayeesOut
	e.ok("list_payees", nil, &out)
	for _, y := range out.Payees {
		if y.Name == name {
			return y.ID, true
		}
	}
	return "", false
}

// payeeTxCount counts the live transactions of the payee named name in the sandbox.
func payeeTxCount(e *testEnv, name string) int {
	e.t.Helper()
	p := e.txeditsExport()
	var id string
	for _, y := range p.Payees {
		if y.Name == name {
			id = y.ID
		}
	}
	n := 0
	for _, t := range p.Transactions {
		if !t.Deleted && str(t.PayeeID) == id {
			n++
		}
	}
	return n
}

var renamePayeeArgs = func(*testEnv) map[string]any { return map[string]any{"payee": "market", "name": " Boerenmarkt "} }

func TestRenamePayee(t *testing.T) {
	t.Parallel()
	op := wrAcrossClients(t, wrCase{tool: "rename_payee", args: renamePayeeArgs,
		first:  "Rename payee ‘Market’ to ‘Boerenmarkt’?",
		writes: map[string]int{payeePatchRoute: 1},
		check: func(t *testing.T, e *testEnv) {
			if _, ok := payeeListed(e, "Boerenmarkt"); !ok {
				t.Fatal("list_payees does not show the new name")
			}
			if _, ok := payeeListed(e, "Market"); ok {
				t.Fatal("list_payees still shows the old name")
			}
		}})
	if !strings.HasPrefix(op.Preview, "Rename payee ‘Market’ to ‘Boerenmarkt’?\n") || !strings.Contains(op.Preview, "transaction(s) and 0 scheduled transaction(s) have this payee.") {
		t.Fatalf("preview = %q", op.Preview)
	}
}

// Undo (after a restart) puts the old name back, redo the new one; a name someone gave it since
// is left alone.
func TestRenamePayeeUndo(t *testing.T) {
	t.Parallel()
	e, _, _, r := wrRoundTrip(t, "rename_payee", renamePayeeArgs)
	id, _ := payeeListed(e, "Boerenmarkt")
	if _, err := e.client.UpdatePayee(context.Background(), sandbox.PlanID, id, ynab.SavePayee{Name: "Markt"}); err != nil {
		t.Fatal(err)
	}
	e.fails("undo_operation", map[string]any{"operation_id": r.ID}, "nothing is left to undo: payee ‘Market’ (changed since)")
}

func TestRenamePayeeRefusals(t *testing.T) {
	t.Parallel()
	other := wrOtherPlan(t).Payees[0].ID
	moneyRefusals(t, "rename_payee", []moneyRefusal{
		{"no name", map[string]any{"payee": "Market", "name": " "}, "name: give the payee a name; it cannot be empty"},
		{"a name too long", map[string]any{"payee": "Market", "name": strings.Repeat("n", 501)}, "name: the name is 501 characters long; a payee name can have at most 500"},
		{"a name YNAB keeps", map[string]any{"payee": "Market", "name": "Starting Balance"}, `name: "Starting Balance" is a payee name YNAB keeps for itself`},
		{"a transfer name", map[string]any{"payee": "Market", "name": "Transfer : Kluis"}, `name: "Transfer : Kluis" is a payee name YNAB keeps for itself`},
		{"the name of another payee", map[string]any{"payee": "Market", "name": "JUMBO"}, "name: there is already a payee ‘Jumbo’; to put the transactions of both under one payee, use merge_payees"},
		{"the name it has", map[string]any{"payee": "Market", "name": "Market"}, "payee: Market is already called ‘Market’: nothing to change"},
		{"an unknown payee", map[string]any{"payee": "Markt", "name": "X"}, `payee: there is no payee "Markt" in this plan; the closest are: Market`},
		{"a payee of another plan", map[string]any{"payee": other, "name": "X"}, "payee: there is no payee"},
		{"a transfer payee", map[string]any{"payee": "Transfer : Spaarrekening", "name": "Sparen"}, "payee: Transfer : Spaarrekening is the transfer payee of the account Spaarrekening"},
		{"YNAB's own payee", map[string]any{"payee": "Starting Balance", "name": "Begin"}, "payee: Starting Balance is YNAB's own payee"},
	})
}

func TestMergePayees(t *testing.T) {
	t.Parallel()
	var n int
	args := func(e *testEnv) map[string]any {
		n = payeeTxCount(e, "Jumbo") + payeeTxCount(e, "Lidl")
		return map[string]any{"payees": []string{"Jumbo", "lidl"}, "into": "Albert Heijn"}
	}
	probe := newEnv(t, envOptions{kind: noElicit})
	args(probe)
	wrAcrossClients(t, wrCase{tool: "merge_payees", args: args,
		first:  "Merge 2 payee(s) into ‘Albert Heijn’ (" + strconv.Itoa(n) + " transaction(s))?",
		writes: map[string]int{txeditsPatchRoute: 1},
		check: func(t *testing.T, e *testEnv) {
			var out listTransactionsOut
			e.ok("list_transactions", map[string]any{"payee": "Jumbo", "since": "2021-12-03"}, &out)
			if len(out.Transactions) != 0 || payeeTxCount(e, "Jumbo")+payeeTxCount(e, "Lidl") != 0 {
				t.Fatalf("Jumbo still has %d transaction(s)", len(out.Transactions))
			}
			if _, ok := payeeListed(e, "Jumbo"); !ok {
				t.Fatal("list_payees no longer shows Jumbo: YNAB's API cannot delete a payee")
			}
		}})
}

// A payee with a scheduled transaction: one PATCH and one PUT; undo (after a restart) moves
// each back, redo moves them again.
func TestMergePayeesWithSchedules(t *testing.T) {
	t.Parallel()
	args := func(*testEnv) map[string]any { return map[string]any{"payees": []string{"Netflix"}, "into": "Spotify"} }
	op := wrAcrossClients(t, wrCase{tool: "merge_payees", args: args,
		first:  "Merge 1 payee(s) into ‘Spotify’ (3 transaction(s))?",
		writes: map[string]int{txeditsPatchRoute: 1, schedPutRoute: 1},
		check: func(t *testing.T, e *testEnv) {
			if s, ok := schedListed(e, "Spotify"); !ok || s.AmountMilliunits != -13990 {
				t.Fatalf("the schedule did not move: %+v", s)
			}
		}})
	if !strings.Contains(op.Preview, "scheduled Netflix -13.99 (monthly): payee Netflix → Spotify") ||
		!strings.Contains(op.Preview, "‘Netflix’ stay in YNAB, unused: its API cannot delete a payee") {
		t.Fatalf("preview = %q", op.Preview)
	}
	wrRoundTrip(t, "merge_payees", args)
}

// What someone moved to another payee since is left alone by the undo; a schedule YNAB's API
// cannot write is left as it is, and said.
func TestMergePayeesUndoLeavesAloneAndSchedulesItCannotWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	preview, w := e.apply("merge_payees", map[string]any{"payees": []string{"Tennisvereniging Smash"}, "into": "Market"})
	if !strings.Contains(preview, "Left as they are: YNAB's API cannot change a scheduled transaction that repeats so: Tennisvereniging Smash -135.00 (every3Months) (it repeats every3Months)") {
		t.Fatalf("preview = %q", preview)
	}
	if _, ok := schedListed(e, "Tennisvereniging Smash"); !ok {
		t.Fatal("the schedule YNAB cannot write was changed")
	}
	moved := e.txeditsTx("Market", -135000)
	jumbo, _ := payeeListed(e, "Jumbo")
	if _, err := e.client.UpdateTransactions(context.Background(), sandbox.PlanID, []ynab.SaveTransaction{{ID: moved.ID, PayeeID: ynab.Some(jumbo)}}); err != nil {
		t.Fatal(err)
	}
	preview, _ = e.apply("undo_operation", map[string]any{"operation_id": w.OperationID})
	if !strings.Contains(preview, "Left alone, changed since: "+moved.Date+" Tennisvereniging Smash 135.00") {
		t.Fatalf("undo preview = %q", preview)
	}
	if e.txeditsTx("Jumbo", -135000).ID != moved.ID {
		t.Fatal("the undo moved back what someone changed since")
	}
}

func TestMergePayeesRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	// A payee without transactions (YNAB's POST /payees, as another app would make one).
	req, _ := http.NewRequest("POST", e.url+"/plans/"+sandbox.PlanID+"/payees", strings.NewReader(`{"payee":{"name":"Kapper"}}`))
	req.Header.Set("Authorization", "Bearer t")
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 201 {
		t.Fatalf("creating a payee: %v %v", res, err)
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = "Jumbo"
	}
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no payees", map[string]any{"payees": []string{}, "into": "Albert Heijn"}, "payees: the list is empty"},
		{"too many", map[string]any{"payees": many, "into": "Albert Heijn"}, "payees: 101 payees is more than the 100"},
		{"into itself", map[string]any{"payees": []string{"Jumbo", "albert heijn"}, "into": "Albert Heijn"}, "payees[1]: Albert Heijn is the payee they are merged into (into)"},
		{"twice", map[string]any{"payees": []string{"Jumbo", "jumbo"}, "into": "Albert Heijn"}, "payees[1]: Jumbo is already in payees[0]"},
		{"an unknown payee", map[string]any{"payees": []string{"Jumb"}, "into": "Albert Heijn"}, `payees[0]: there is no payee "Jumb" in this plan; the closest are: Jumbo`},
		{"an unknown into", map[string]any{"payees": []string{"Jumbo"}, "into": "AH"}, `into: there is no payee "AH"`},
		{"a transfer payee", map[string]any{"payees": []string{"Transfer : Spaarrekening"}, "into": "Albert Heijn"}, "payees[0]: Transfer : Spaarrekening is the transfer payee of the account Spaarrekening"},
		{"into YNAB's own payee", map[string]any{"payees": []string{"Jumbo"}, "into": "Starting Balance"}, "into: Starting Balance is YNAB's own payee"},
		{"nothing to merge", map[string]any{"payees": []string{"Kapper"}, "into": "Albert Heijn"}, "payees: ‘Kapper’ has no transactions or scheduled transactions YNAB's API can move: nothing to merge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.t = t
			e.txeditsRefuses("merge_payees", tt.args, tt.want)
		})
	}
}
