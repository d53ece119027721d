package tools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// create_scheduled_transaction, update_scheduled_transaction and delete_scheduled_transaction.
// The sample schedules, on Betaalrekening, Netflix -13.99 monthly (next 2027-01-09) and
// Tennisvereniging Smash -135.00 every three months, which YNAB's API cannot write.

const (
	schedPostRoute   = "POST /plans/{plan_id}/scheduled_transactions"
	schedPutRoute    = "PUT /plans/{plan_id}/scheduled_transactions/{scheduled_transaction_id}"
	schedDeleteRoute = "DELETE /plans/{plan_id}/scheduled_transactions/{scheduled_transaction_id}"
)

func scheduleArgs(payee string) func(*testEnv) map[string]any {
	return func(*testEnv) map[string]any {
		return map[string]any{"account": "Betaalrekening", "date": "2027-01-05", "frequency": "Monthly", "amount": "-45",
			"payee": payee, "category": "Tennis", "memo": "contributie"}
	}
}

// schedListed is the scheduled transaction of payee as list_scheduled_transactions shows it.
func schedListed(e *testEnv, payee string) (scheduledView, bool) {
	e.t.Helper()
	var out listScheduledOut
	e.ok("list_scheduled_transactions", nil, &out)
	for _, s := range out.Scheduled {
		if s.Payee == payee {
			return s, true
		}
	}
	return scheduledView{}, false
}

// schedID is the id of the sample's scheduled transaction to payee.
func schedID(e *testEnv, payee string) string {
	e.t.Helper()
	s, ok := schedListed(e, payee)
	if !ok {
		e.t.Fatalf("no scheduled transaction to %s", payee)
	}
	return s.ID
}

func TestCreateScheduledTransaction(t *testing.T) {
	t.Parallel()
	op := wrAcrossClients(t, wrCase{tool: "create_scheduled_transaction", args: scheduleArgs("Tennisclub"),
		first:  "Schedule -45.00 to Tennisclub on Betaalrekening, monthly from 2027-01-05?",
		writes: map[string]int{schedPostRoute: 1},
		check: func(t *testing.T, e *testEnv) {
			s, ok := schedListed(e, "Tennisclub")
			if !ok || s.DateNext != "2027-01-05" || s.Frequency != "monthly" || s.AmountMilliunits != -45000 || s.Category != "Tennis" || s.Memo != "contributie" {
				t.Fatalf("list_scheduled_transactions shows %+v (%v)", s, ok)
			}
		}})
	if op.Preview != "Schedule -45.00 to Tennisclub on Betaalrekening, monthly from 2027-01-05?\nTennisclub is a new payee, which YNAB creates, category Tennis, memo \"contributie\"" {
		t.Fatalf("preview = %q", op.Preview)
	}
	if op.Changes[0].ID == "" {
		t.Fatal("the journal does not record the id YNAB gave")
	}
}

// Undo (after a restart) deletes it; redo schedules it again.
func TestCreateScheduledTransactionUndo(t *testing.T) {
	t.Parallel()
	_, w, u, r := wrRoundTrip(t, "create_scheduled_transaction", scheduleArgs("Netflix"))
	if u.Changes[0].Kind != journal.KindDeletedScheduled || u.Changes[0].ID != w.Changes[0].ID || r.Changes[0].ID == w.Changes[0].ID {
		t.Fatalf("undo %+v, redo %+v", u.Changes, r.Changes)
	}
}

func TestCreateScheduledTransactionAfterALostAnswer(t *testing.T) {
	t.Parallel()
	e, op := wrLostAnswer(t, "create_scheduled_transaction", scheduleArgs("Tennisclub"), "POST", "/scheduled_transactions")
	if s, _ := schedListed(e, "Tennisclub"); s.ID != op.Changes[0].ID {
		t.Fatalf("the journal records %s, YNAB holds %s", op.Changes[0].ID, s.ID)
	}
}

func TestCreateScheduledTransactionRefusals(t *testing.T) {
	t.Parallel()
	with := func(k string, v any) map[string]any { return withArg(scheduleArgs("Tennisclub")(nil), k, v) }
	moneyRefusals(t, "create_scheduled_transaction", []moneyRefusal{
		{"today", with("date", "today"), "date: 2026-12-02 is not after today (2026-12-02); a scheduled transaction's date must be in the future"},
		{"a past date", with("date", "2026-11-01"), "date: 2026-11-01 is not after today"},
		{"over 5 years ahead", with("date", "2031-12-03"), "date: 2031-12-03 is more than 5 years ahead; YNAB takes no scheduled date after 2031-12-02"},
		{"no date", with("date", "soon"), `date: "soon" is not a date`},
		{"a frequency the API cannot write", with("frequency", "every3Months"), "frequency: YNAB's API cannot write the frequency every3Months: use never, daily, weekly, monthly, yearly"},
		{"no frequency", with("frequency", "often"), `frequency: "often" is not a frequency`},
		{"too many decimals", with("amount", "-45.001"), `amount: "-45.001" has more decimals than the plan's currency allows (2)`},
		{"an unknown account", with("account", "Spaarpot"), `account: there is no account "Spaarpot"`},
		{"a closed account", with("account", "Oude rekening"), "account: Oude rekening is closed"},
		{"a payee name YNAB keeps", with("payee", "Transfer : Nergens"), `payee: "Transfer : Nergens" is a payee name YNAB keeps for itself`},
		{"a transfer to itself", with("payee", "Transfer : Betaalrekening"), "payee: Transfer : Betaalrekening is a transfer to Betaalrekening itself"},
		{"a category on a budget transfer", with("payee", "Transfer : Spaarrekening"), "category: a transfer between two budget accounts takes no category"},
		{"an unknown category", with("category", "Padel"), `category: there is no category "Padel"`},
		{"a memo too long", with("memo", strings.Repeat("m", 501)), "memo: it is 501 characters long"},
		{"an unknown flag", with("flag", "pink"), `flag: "pink" is not a flag colour`},
	})
}

func TestUpdateScheduledTransaction(t *testing.T) {
	t.Parallel()
	args := func(e *testEnv) map[string]any {
		return map[string]any{"scheduled_transaction_id": schedID(e, "Netflix"), "amount": "-15.99", "date": "2027-01-10", "flag": "blue"}
	}
	op := wrAcrossClients(t, wrCase{tool: "update_scheduled_transaction", args: args,
		first:  "Change the scheduled transaction Netflix -13.99 (monthly)?",
		writes: map[string]int{schedPutRoute: 1},
		check: func(t *testing.T, e *testEnv) {
			if s, _ := schedListed(e, "Netflix"); s.AmountMilliunits != -15990 || s.DateNext != "2027-01-10" || s.Flag != "blue" || s.Category != "Streaming" {
				t.Fatalf("list_scheduled_transactions shows %+v", s)
			}
		}})
	if op.Preview != "Change the scheduled transaction Netflix -13.99 (monthly)?\nNetflix -13.99 (monthly): amount 13.99 → 15.99, date 2027-01-09 → 2027-01-10, flag none → blue" {
		t.Fatalf("preview = %q", op.Preview)
	}

	// Undo (after a restart) puts the old fields back, redo the new ones.
	e, _, _, r := wrRoundTrip(t, "update_scheduled_transaction", args)
	// Once someone changed the amount again in YNAB, an undo leaves it alone.
	id := schedID(e, "Netflix")
	acct := e.txeditsTx("Market", -86400).AccountID
	if _, err := e.client.UpdateScheduledTransaction(context.Background(), sandbox.PlanID, id,
		ynab.SaveScheduledTransaction{AccountID: acct, Date: "2027-01-10", Amount: ynab.Some[int64](-17990)}); err != nil {
		t.Fatal(err)
	}
	e.fails("undo_operation", map[string]any{"operation_id": r.ID}, "nothing is left to undo: Netflix -13.99 (monthly) (changed since)")
}

// An undo cannot put back a date that has passed: YNAB takes only future dates.
func TestUpdateScheduledTransactionUndoAfterItsDate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	_, w := e.apply("update_scheduled_transaction", map[string]any{"scheduled_transaction_id": schedID(e, "Netflix"), "date": "2027-02-09"})
	e.setNow(time.Date(2027, 1, 9, 12, 0, 0, 0, time.UTC))
	e.sb.ResetCounts()
	e.fails("undo_operation", map[string]any{"operation_id": w.OperationID},
		"Netflix -13.99 (monthly) cannot be put back: its date, 2027-01-09, has passed (today is 2027-01-09)")
	if e.writes() != 0 {
		t.Fatal("a refused undo wrote")
	}
}

func TestUpdateScheduledTransactionRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	netflix, smash := schedID(e, "Netflix"), schedID(e, "Tennisvereniging Smash")
	var other string
	if o := wrOtherPlan(t).ScheduledTransactions; len(o) > 0 {
		other = o[0].ID
	}
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no field", map[string]any{"scheduled_transaction_id": netflix}, "give at least one field to change"},
		{"an unknown id", map[string]any{"scheduled_transaction_id": "nope", "amount": "-1"}, `scheduled_transaction_id: there is no scheduled transaction "nope"`},
		{"a transaction's id", map[string]any{"scheduled_transaction_id": e.txeditsTx("Market", -86400).ID, "amount": "-1"}, "scheduled_transaction_id: there is no scheduled transaction"},
		{"a frequency YNAB's API cannot write", map[string]any{"scheduled_transaction_id": smash, "amount": "-140"},
			"scheduled_transaction_id: Tennisvereniging Smash -135.00 (every3Months) repeats every3Months, and YNAB's API cannot change a scheduled transaction that repeats so"},
		{"nothing changes", map[string]any{"scheduled_transaction_id": netflix, "amount": "-13.99", "frequency": "monthly"},
			"the scheduled transaction Netflix -13.99 (monthly) already has the values given: nothing to change"},
		{"a past date", map[string]any{"scheduled_transaction_id": netflix, "date": "yesterday"}, "date: 2026-12-01 is not after today"},
		{"to a frequency the API cannot write", map[string]any{"scheduled_transaction_id": netflix, "frequency": "twiceAYear"}, "frequency: YNAB's API cannot write the frequency twiceAYear"},
		{"too many decimals", map[string]any{"scheduled_transaction_id": netflix, "amount": "1.5555"}, `amount: "1.5555" has more decimals`},
		{"a closed account", map[string]any{"scheduled_transaction_id": netflix, "account": "Oude rekening"}, "account: Oude rekening is closed"},
		{"a payee name YNAB keeps", map[string]any{"scheduled_transaction_id": netflix, "payee": "Transfer : Nergens"}, `payee: "Transfer : Nergens" is a payee name YNAB keeps for itself`},
	}
	if other != "" {
		tests = append(tests, struct {
			name string
			args map[string]any
			want string
		}{"an id of another plan", map[string]any{"scheduled_transaction_id": other, "amount": "-1"}, "scheduled_transaction_id: there is no scheduled transaction"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.t = t
			e.txeditsRefuses("update_scheduled_transaction", tt.args, tt.want)
		})
	}
}

func TestDeleteScheduledTransaction(t *testing.T) {
	t.Parallel()
	args := func(e *testEnv) map[string]any {
		return map[string]any{"scheduled_transaction_id": schedID(e, "Netflix")}
	}
	op := wrAcrossClients(t, wrCase{tool: "delete_scheduled_transaction", args: args,
		first:  "Delete the scheduled transaction Netflix -13.99 (monthly)?",
		writes: map[string]int{schedDeleteRoute: 1},
		check: func(t *testing.T, e *testEnv) {
			if s, ok := schedListed(e, "Netflix"); ok {
				t.Fatalf("list_scheduled_transactions still shows %+v", s)
			}
		}})
	if !strings.Contains(op.Preview, "An undo schedules it again, under a new id, as long as its date (2027-01-09) has not passed.") {
		t.Fatalf("preview = %q", op.Preview)
	}
	// Undo (after a restart) schedules it again with its fields; redo deletes it again.
	_, _, u, _ := wrRoundTrip(t, "delete_scheduled_transaction", args)
	if !strings.HasPrefix(u.Preview, "Undo: delete the scheduled transaction Netflix -13.99 (monthly)?\nSchedule Netflix -13.99 (monthly)") {
		t.Fatalf("undo preview = %q", u.Preview)
	}
}

// What YNAB's API cannot schedule again is said in the preview, and its undo refused; so is
// one whose date has passed.
func TestDeleteScheduledTransactionUndoRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	preview, w := e.apply("delete_scheduled_transaction", map[string]any{"scheduled_transaction_id": schedID(e, "Tennisvereniging Smash")})
	if !strings.Contains(preview, "This cannot be undone through avenir: it repeats every3Months") {
		t.Fatalf("preview = %q", preview)
	}
	wrUndoRefused(e, w.OperationID, "YNAB's API cannot create it again: it repeats every3Months")

	_, w = e.apply("delete_scheduled_transaction", map[string]any{"scheduled_transaction_id": schedID(e, "Netflix")})
	e.setNow(time.Date(2027, 1, 9, 8, 0, 0, 0, time.UTC))
	e.sb.ResetCounts()
	e.fails("undo_operation", map[string]any{"operation_id": w.OperationID}, "Netflix -13.99 (monthly) cannot be put back: its date, 2027-01-09, has passed")
	if e.writes() != 0 {
		t.Fatal("a refused undo wrote")
	}
}

func TestDeleteScheduledTransactionRefusals(t *testing.T) {
	t.Parallel()
	moneyRefusals(t, "delete_scheduled_transaction", []moneyRefusal{
		{"an unknown id", map[string]any{"scheduled_transaction_id": "nope"}, `scheduled_transaction_id: there is no scheduled transaction "nope"`},
		{"no id", map[string]any{}, "scheduled_transaction_id: missing"},
	})
}

// A schedule whose outcome never reached the client is not scheduled twice by the client's
// identical retry, even when the first call created its payee; once the outcome was answered,
// the same call schedules another.
func TestScheduleRetryOfAnUnansweredCreate(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit, answeredByTransport: true})
	args := scheduleArgs("Sportschool Fit")(e) // a new payee, which YNAB creates
	count := func() int {
		var out listScheduledOut
		e.ok("list_scheduled_transactions", map[string]any{"fresh": true}, &out)
		n := 0
		for _, s := range out.Scheduled {
			if s.Payee == "Sportschool Fit" {
				n++
			}
		}
		return n
	}
	_, first := e.apply("create_scheduled_transaction", args)

	var preview writeOut
	e.ok("create_scheduled_transaction", args, &preview)
	if !strings.Contains(preview.Preview, "It is already in YNAB: an earlier identical call ("+first.OperationID+")") {
		t.Errorf("the retry's preview does not say it is in YNAB already:\n%s", preview.Preview)
	}
	e.sb.ResetCounts()
	var retried writeOut
	e.ok("create_scheduled_transaction", withArg(args, "confirmation", preview.Confirmation), &retried)
	if retried.Status != "applied" || e.writes() != 0 || !strings.Contains(retried.Message, "nothing was scheduled twice") {
		t.Fatalf("retry = %+v with %d write(s); want applied, nothing written, and said", retried, e.writes())
	}
	if n := count(); n != 1 {
		t.Fatalf("YNAB holds %d schedules to Sportschool Fit after the retry; want 1", n)
	}
	e.fails("undo_operation", map[string]any{"operation_id": retried.OperationID}, "nothing is left to undo")
	if n := count(); n != 1 {
		t.Fatalf("undoing the retry left %d schedules; want the first call's one left alone", n)
	}

	if err := e.journal.Answered(t.Context(), first.OperationID); err != nil {
		t.Fatal(err)
	}
	e.apply("create_scheduled_transaction", args)
	if n := count(); n != 2 {
		t.Fatalf("YNAB holds %d schedules to Sportschool Fit after a new identical call; want 2", n)
	}
}
