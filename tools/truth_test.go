package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/journal/bolt"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// The journal tells the truth when YNAB's answer is lost: the status of the operation and the
// outcome of each of its changes (as get_operation shows them) are what YNAB holds, and the
// tool's error says what YNAB holds now and, where that is not known, that the operation stays
// prepared, and claims nothing else. An identical retry of a create whose answer was lost
// enters nothing twice, owns nothing, and its undo deletes nothing.

// truthChange is a change as get_operation shows it.
type truthChange struct {
	Kind    string          `json:"kind"`
	ID      string          `json:"id"`
	Month   string          `json:"month"`
	Label   string          `json:"label"`
	Before  json.RawMessage `json:"before"`
	After   json.RawMessage `json:"after"`
	Outcome string          `json:"outcome"`
	// EnteredBy names the operation that entered a created transaction an identical retry
	// found already in YNAB: the retry does not own it.
	EnteredBy string `json:"entered_by"`
}

// truthOp is an operation as get_operation shows it.
type truthOp struct {
	ID      string        `json:"id"`
	Status  string        `json:"status"`
	Changes []truthChange `json:"changes"`
	raw     string
}

// truthOperation reads an operation through get_operation. Where get_operation shows a change
// without its outcome, that is an error, and the journal's own record gives the outcome, so
// that the rest of the test still judges it.
func truthOperation(e *testEnv, id string) truthOp {
	e.t.Helper()
	res := e.call("get_operation", map[string]any{"operation_id": id})
	if res.IsError {
		e.t.Fatalf("get_operation %s: %s", id, text(res))
	}
	var op truthOp
	decode(e.t, res, &op)
	b, _ := json.Marshal(res.StructuredContent)
	op.raw = string(b)
	recorded, err := e.journal.Get(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	missing := 0
	for i := range op.Changes {
		if op.Changes[i].Outcome == "" && i < len(recorded.Changes) {
			missing++
			op.Changes[i].Outcome = truthRecorded(recorded.Changes[i])
			op.Changes[i].EnteredBy = truthRecordedEnteredBy(recorded.Changes[i])
		}
	}
	if missing > 0 {
		e.t.Errorf("get_operation %s shows %d of its %d changes without their outcome", id, missing, len(op.Changes))
	}
	return op
}

// truthRecorded is the outcome the journal holds for a change, read through its JSON, so that
// this test builds whatever the journal's Go fields are.
func truthRecorded(ch journal.Change) string {
	var f struct{ Outcome string }
	b, _ := json.Marshal(ch)
	_ = json.Unmarshal(b, &f)
	return f.Outcome
}

func truthRecordedEnteredBy(ch journal.Change) string {
	var f struct {
		EnteredBy string `json:"entered_by"`
	}
	b, _ := json.Marshal(ch)
	_ = json.Unmarshal(b, &f)
	return f.EnteredBy
}

// truthNewest returns the id of the newest operation in the journal.
func truthNewest(e *testEnv) string {
	e.t.Helper()
	ops, err := e.journal.List(context.Background(), journal.Filter{Limit: 1})
	if err != nil || len(ops) == 0 {
		e.t.Fatalf("the journal holds no operation (%v)", err)
	}
	return ops[0].ID
}

// truthAgrees checks that the operation's status follows from its changes' outcomes and that
// each outcome is what YNAB holds, and returns the operation.
func truthAgrees(e *testEnv, id string) truthOp {
	e.t.Helper()
	op := truthOperation(e, id)
	p := createsExport(e)
	n := map[string]int{}
	for i, ch := range op.Changes {
		n[ch.Outcome]++
		var inYNAB bool // whether YNAB holds the change's after
		var absent bool // whether YNAB holds its before (the change is not there)
		switch ch.Kind {
		case journal.KindMonthCategory:
			var before, after struct{ Budgeted int64 }
			_ = json.Unmarshal(ch.Before, &before)
			_ = json.Unmarshal(ch.After, &after)
			now := truthAssigned(e, ch.Month, ch.ID)
			inYNAB, absent = now == after.Budgeted, now == before.Budgeted
		case journal.KindNewTransaction:
			memo := truthMemo(ch.After)
			live := truthLive(e, memo)
			inYNAB, absent = ch.ID != "" && len(live) == 1 && live[0] == ch.ID, len(live) == 0
			if ch.Outcome == "applied" && ch.ID == "" {
				e.t.Errorf("%s change %d (%s) is applied but carries no id of the transaction YNAB created", id, i+1, ch.Label)
			}
		case journal.KindDeletedTransaction:
			live := false
			for _, t := range p.Transactions {
				live = live || t.ID == ch.ID && !t.Deleted
			}
			inYNAB, absent = !live, live
		default:
			e.t.Fatalf("%s change %d has the kind %q, which this test does not read", id, i+1, ch.Kind)
		}
		switch ch.Outcome {
		case "applied":
			if !inYNAB {
				e.t.Errorf("%s change %d (%s) is applied, but YNAB does not hold its after %s", id, i+1, ch.Label, ch.After)
			}
		case "not_applied":
			if !absent {
				e.t.Errorf("%s change %d (%s) is not_applied, but YNAB does not hold its before %s", id, i+1, ch.Label, ch.Before)
			}
		case "unknown":
			if op.Status != "prepared" {
				e.t.Errorf("%s is %s but change %d (%s) is unknown", id, op.Status, i+1, ch.Label)
			}
		default:
			e.t.Errorf("%s change %d (%s) has the outcome %q; want applied, not_applied or unknown", id, i+1, ch.Label, ch.Outcome)
		}
	}
	total := len(op.Changes)
	ok := map[string]bool{
		"applied":  n["applied"] == total,
		"failed":   n["not_applied"] == total,
		"partial":  n["applied"] > 0 && n["not_applied"] > 0 && n["unknown"] == 0,
		"prepared": n["unknown"] > 0,
	}[op.Status]
	if !ok {
		e.t.Errorf("%s is %s, but its changes' outcomes are %v", id, op.Status, n)
	}
	return op
}

// truthAssigned is what a category has assigned in a month in the sandbox.
func truthAssigned(e *testEnv, month, categoryID string) int64 {
	e.t.Helper()
	for _, m := range createsExport(e).Months {
		if m.Month != month {
			continue
		}
		for _, c := range m.Categories {
			if c.ID == categoryID {
				return c.Budgeted
			}
		}
	}
	e.t.Fatalf("no category %s in %s in the sandbox", categoryID, month)
	return 0
}

func truthMemo(fields json.RawMessage) string {
	var f struct{ Memo string }
	_ = json.Unmarshal(fields, &f)
	return f.Memo
}

// truthLive returns the ids of the live transactions with the memo.
func truthLive(e *testEnv, memo string) []string {
	e.t.Helper()
	var ids []string
	for _, t := range createsExport(e).Transactions {
		if !t.Deleted && t.Memo != nil && *t.Memo == memo {
			ids = append(ids, t.ID)
		}
	}
	return ids
}

// truthReadsBeforeWrite is how many reads the confirming call of a write makes before its first
// write request: the write is refused (a 400, so nothing is in doubt and nothing is read back)
// on a fresh sandbox after setup.
func truthReadsBeforeWrite(t *testing.T, setup func(e *testEnv) (tool string, args map[string]any), method string) int {
	t.Helper()
	e := newEnv(t, envOptions{kind: noElicit})
	tool, args := setup(e)
	var first writeOut
	e.ok(tool, args, &first)
	if first.Status != "confirmation_required" {
		t.Fatalf("%s: %+v; want confirmation_required", tool, first)
	}
	e.sb.InjectFault(sandbox.Fault{Method: method, Status: 400})
	e.sb.ResetCounts()
	e.call(tool, withArg(args, "confirmation", first.Confirmation))
	return e.sb.Counts().Reads
}

// truthFailReads makes every read after the first skip ones fail, as long as they are tried.
func truthFailReads(e *testEnv, skip int) {
	e.sb.InjectFault(sandbox.Fault{Method: "GET", Skip: skip, Count: 200, Status: 503})
}

// truthDrain answers the reads truthFailReads left queued, so that YNAB reads well again.
func truthDrain(e *testEnv) {
	e.t.Helper()
	for range 201 {
		req, _ := http.NewRequest("GET", e.url+"/user", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			e.t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == http.StatusOK {
			return
		}
	}
	e.t.Fatal("the sandbox keeps failing reads")
}

// truthRecover runs what the next start of avenir runs: recovery of the operations left
// prepared, by reading YNAB.
func truthRecover(e *testEnv) {
	e.t.Helper()
	next, err := bolt.Open(e.journalPath, bolt.Options{})
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := next.Recover(context.Background(), NewRecovery(Deps{YNAB: e.client, Journal: next})); err != nil {
		e.t.Fatalf("recovery with YNAB reading well: %v", err)
	}
}

// truthClaimsNothingElse fails when an error claims, after a lost answer, that nothing was
// written: YNAB took at least the request whose answer was lost.
func truthClaimsNothingElse(t *testing.T, msg string) {
	t.Helper()
	for _, claim := range []string{"nothing was written", "nothing was moved", "none was created", "none of the transactions"} {
		if strings.Contains(msg, claim) {
			t.Errorf("the error says %q, which YNAB does not show: %s", claim, msg)
		}
	}
}

// The answer to move_money's second PATCH is lost after YNAB applied it; a read shows it is
// there. The journal holds the move as applied, both changes applied.
func TestTruthMoveSecondAnswerLost(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	code := e.preview("move_money", moveArgs).Confirmation
	restaurants, _ := moneyCategory(e, "Restaurants")
	e.sb.InjectFault(sandbox.Fault{Method: "PATCH", PathContains: restaurants.ID, DropAfter: true})
	out, _, msg := moneyConfirm(e, "move_money", moveArgs, code)
	if moneyAssigned(e, "Tennis") != 15000 || moneyAssigned(e, "Restaurants") != 150000 {
		t.Fatalf("YNAB holds Tennis %d, Restaurants %d; want the move made", moneyAssigned(e, "Tennis"), moneyAssigned(e, "Restaurants"))
	}
	op := truthAgrees(e, truthNewest(e))
	if out == nil || out.Status != "applied" || op.Status != "applied" {
		t.Errorf("result %+v %q, journal %s; want applied: a read of YNAB shows the whole move is there", out, msg, op.Status)
	}
}

// The answer to move_money's second PATCH is lost and YNAB cannot be read either: what the
// first PATCH did is known from its answer, the second's is not. The move stays prepared, the
// error says so and what YNAB holds, and recovery settles it from YNAB.
func TestTruthMoveSecondAnswerLostAndReadFails(t *testing.T) {
	t.Parallel()
	reads := truthReadsBeforeWrite(t, func(*testEnv) (string, map[string]any) { return "move_money", moveArgs }, "PATCH")
	e := newEnv(t, envOptions{kind: noElicit})
	code := e.preview("move_money", moveArgs).Confirmation
	restaurants, _ := moneyCategory(e, "Restaurants")
	e.sb.InjectFault(sandbox.Fault{Method: "PATCH", PathContains: restaurants.ID, DropAfter: true})
	truthFailReads(e, reads)
	out, _, msg := moneyConfirm(e, "move_money", moveArgs, code)
	truthDrain(e)
	id := truthNewest(e)
	op := truthAgrees(e, id)
	if out != nil || op.Status != "prepared" {
		t.Fatalf("result %+v %q, journal %s; want an error and the move prepared: whether Restaurants got the money is not known", out, msg, op.Status)
	}
	if !strings.Contains(msg, id) || !strings.Contains(msg, "prepared") {
		t.Errorf("error = %q; want it to say that %s stays prepared", msg, id)
	}
	if !strings.Contains(msg, "Tennis") || !strings.Contains(msg, "15.00") {
		t.Errorf("error = %q; want it to say what YNAB's answer showed: Tennis has 15.00 assigned now", msg)
	}
	truthClaimsNothingElse(t, msg)
	if moneyAssigned(e, "Tennis") != 15000 || moneyAssigned(e, "Restaurants") != 150000 {
		t.Errorf("YNAB holds Tennis %d, Restaurants %d; want the move as YNAB took it: nothing is put back before its outcome is known",
			moneyAssigned(e, "Tennis"), moneyAssigned(e, "Restaurants"))
	}
	truthRecover(e)
	if op := truthAgrees(e, id); op.Status != "applied" {
		t.Errorf("after recovery %s is %s; want applied: YNAB holds the whole move", id, op.Status)
	}
}

// The answer to the first request of the undo of a move is lost: whatever the undo did next,
// the journal holds, change by change, what YNAB holds, and an error says what that is.
func TestTruthUndoOfMoveFirstAnswerLost(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	_, moved := e.apply("move_money", moveArgs)
	undo := map[string]any{"operation_id": moved.OperationID}
	code := e.preview("undo_operation", undo).Confirmation
	e.sb.InjectFault(sandbox.Fault{Method: "PATCH", DropAfter: true})
	out, c, msg := moneyConfirm(e, "undo_operation", undo, code)
	id := truthNewest(e)
	if id == moved.OperationID {
		t.Fatal("the undo was not journaled")
	}
	op := truthAgrees(e, id)
	tennis, restaurants := moneyAssigned(e, "Tennis"), moneyAssigned(e, "Restaurants")
	t.Logf("undo: %d write(s); YNAB holds Tennis %d, Restaurants %d; journal %s; result %+v %q", c.Writes, tennis, restaurants, op.Status, out, msg)
	if out != nil {
		if tennis != 45000 || restaurants != 120000 || op.Status != "applied" {
			t.Errorf("the undo says applied, but YNAB holds Tennis %d, Restaurants %d and the journal %s", tennis, restaurants, op.Status)
		}
		return
	}
	// Each category is named; one whose change is in YNAB with what it has now.
	for i, ch := range op.Changes {
		name := map[int]string{0: "Tennis", 1: "Restaurants"}[i]
		if !strings.Contains(ch.Label, name) {
			t.Fatalf("change %d is %s; want the undo's changes in the move's order, Tennis then Restaurants", i+1, ch.Label)
		}
		now := map[string]int64{"Tennis": tennis, "Restaurants": restaurants}[name]
		if !strings.Contains(msg, name) || ch.Outcome == "applied" && !strings.Contains(msg, FormatPlain(now, 2)) {
			t.Errorf("error = %q; want it to say what %s holds now (%s, change %s)", msg, name, FormatPlain(now, 2), ch.Outcome)
		}
	}
	if op.Status == "prepared" && (!strings.Contains(msg, "prepared") || !strings.Contains(msg, id)) {
		t.Errorf("error = %q; want it to say %s stays prepared", msg, id)
	}
	truthClaimsNothingElse(t, msg)
}

// createsTruthArgs enter two transactions, one with a payee YNAB creates; the memos tell them
// apart in YNAB.
var createsTruthArgs = map[string]any{"account": "Betaalrekening", "transactions": []any{
	map[string]any{"date": "2026-12-01", "amount": "-12.50", "payee": "Albert Heijn", "memo": "truth 1"},
	map[string]any{"date": "2026-12-01", "amount": "-40.00", "payee": "Fietsenmaker Spaak", "category": "Uitjes", "memo": "truth 2"},
}}

// truthCreateLost makes create_transactions' POST land in YNAB with its answer lost; with
// readsFail, the reads after it fail too. It returns the operation's id and the error.
func truthCreateLost(t *testing.T, e *testEnv, readsFail bool) (string, string) {
	t.Helper()
	reads := 0
	if readsFail {
		reads = truthReadsBeforeWrite(t, func(*testEnv) (string, map[string]any) { return "create_transactions", createsTruthArgs }, "POST")
	}
	var first createdOut
	e.ok("create_transactions", createsTruthArgs, &first)
	e.sb.InjectFault(sandbox.Fault{Method: "POST", DropAfter: true})
	if readsFail {
		truthFailReads(e, reads)
	}
	res := e.call("create_transactions", withArg(createsTruthArgs, "confirmation", first.Confirmation))
	if readsFail {
		truthDrain(e)
	}
	msg := ""
	if res.IsError {
		msg = text(res)
	}
	for _, memo := range []string{"truth 1", "truth 2"} {
		if n := len(truthLive(e, memo)); n != 1 {
			t.Fatalf("YNAB holds %d transaction(s) with the memo %q after the POST; want the one it applied", n, memo)
		}
	}
	return truthNewest(e), msg
}

// A create's answer is lost and reading YNAB fails too: the operation stays prepared, the error
// says so and claims nothing else, and recovery finds both transactions, each owned once.
func TestTruthCreateAnswerLostAndReadFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	id, msg := truthCreateLost(t, e, true)
	op := truthAgrees(e, id)
	if msg == "" || op.Status != "prepared" {
		t.Fatalf("error %q, journal %s; want an error and the create prepared: whether YNAB has it is not known", msg, op.Status)
	}
	if !strings.Contains(msg, id) || !strings.Contains(msg, "prepared") {
		t.Errorf("error = %q; want it to say %s stays prepared", msg, id)
	}
	truthClaimsNothingElse(t, msg)
	truthRecover(e)
	op = truthAgrees(e, id)
	if op.Status != "applied" || len(op.Changes) != 2 {
		t.Fatalf("after recovery %s is %s with %d changes; want applied, both transactions found in YNAB", id, op.Status, len(op.Changes))
	}
}

// An identical retry of a create whose answer was lost (known applied after a read back, or
// left prepared when that failed too): YNAB holds each transaction once, the retry owns
// nothing and says which operation entered them, and undoing the retry deletes nothing.
func TestTruthIdenticalRetryOfCreate(t *testing.T) {
	for _, readsFail := range []bool{false, true} {
		t.Run(fmt.Sprintf("reads fail %v", readsFail), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{kind: noElicit})
			first, _ := truthCreateLost(t, e, readsFail)
			_, retried := truthRetryEntersNothing(t, e)
			retry := truthAgrees(e, retried.OperationID)
			for i, ch := range retry.Changes {
				if ch.Kind == journal.KindNewTransaction && ch.Outcome == "applied" && ch.ID != "" && ch.EnteredBy == "" {
					t.Errorf("the retry %s owns %s (change %d), which %s entered", retry.ID, ch.ID, i+1, first)
				}
			}
			if recorded := e.operation(retry.ID); !strings.Contains(fmt.Sprint(recorded), first) {
				t.Errorf("the retry's journal entry does not name %s, the operation that entered the transactions: %+v", first, recorded)
			} else if !strings.Contains(retry.raw, first) {
				t.Errorf("get_operation does not show that %s entered the retry's transactions: %s", first, retry.raw)
			}

			e.sb.ResetCounts()
			undo := map[string]any{"operation_id": retry.ID}
			if res := e.call("undo_operation", undo); !res.IsError {
				var out writeOut
				decode(t, res, &out)
				if out.Status == "confirmation_required" {
					e.call("undo_operation", withArg(undo, "confirmation", out.Confirmation))
				}
			}
			if n := e.sb.Counts().ByRoute["DELETE /plans/{plan_id}/transactions/{transaction_id}"]; n != 0 {
				t.Errorf("undoing the retry sent %d DELETE(s); it entered nothing, so it must delete nothing", n)
			}
			for _, memo := range []string{"truth 1", "truth 2"} {
				if n := len(truthLive(e, memo)); n != 1 {
					t.Errorf("YNAB holds %d transaction(s) with the memo %q after undoing the retry; want 1", n, memo)
				}
			}
			if readsFail {
				truthRecover(e)
			}
			if op := truthAgrees(e, first); op.Status != "applied" {
				t.Errorf("the first create %s is %s; want applied: YNAB holds what it entered", first, op.Status)
			}
		})
	}
}

// A create whose outcome was journaled but never reached the client (avenir was killed between
// the two) is retried by the client with the same arguments: the retry enters nothing twice.
// Once the outcome was answered, the same arguments are a new call that enters them again.
func TestTruthRetryOfAnUnansweredCreate(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit, answeredByTransport: true})
	var first createdOut
	e.ok("create_transactions", createsTruthArgs, &first)
	e.ok("create_transactions", withArg(createsTruthArgs, "confirmation", first.Confirmation), &first)
	if first.Status != "applied" {
		t.Fatalf("first create = %+v, want applied", first)
	}
	if op := e.operation(first.OperationID); op.Answered {
		t.Fatal("the journal says the first create was answered; only the transport may say so")
	}

	preview, retried := truthRetryEntersNothing(t, e)
	if !strings.Contains(preview.Preview, "2 of these are already in YNAB") {
		t.Errorf("the retry's preview does not say what is already in YNAB:\n%s", preview.Preview)
	}

	for _, id := range []string{first.OperationID, retried.OperationID} {
		if err := e.journal.Answered(t.Context(), id); err != nil {
			t.Fatal(err)
		}
	}
	e.ok("create_transactions", createsTruthArgs, &preview)
	if strings.Contains(preview.Preview, "already in YNAB") {
		t.Errorf("a call after the answer was heard is taken for a retry:\n%s", preview.Preview)
	}
	var again createdOut
	e.ok("create_transactions", withArg(createsTruthArgs, "confirmation", preview.Confirmation), &again)
	for _, memo := range []string{"truth 1", "truth 2"} {
		if n := len(truthLive(e, memo)); n != 2 {
			t.Errorf("YNAB holds %d transaction(s) with the memo %q after a new identical create; want 2", n, memo)
		}
	}
}

// truthRetryEntersNothing makes createsTruthArgs' call again, by code: it must apply without a
// write, YNAB holding each transaction once. It returns the preview and the result.
func truthRetryEntersNothing(t *testing.T, e *testEnv) (preview, retried createdOut) {
	t.Helper()
	e.ok("create_transactions", createsTruthArgs, &preview)
	e.sb.ResetCounts()
	e.ok("create_transactions", withArg(createsTruthArgs, "confirmation", preview.Confirmation), &retried)
	if retried.Status != "applied" || e.writes() != 0 {
		t.Fatalf("retry = %+v with %d write(s); want applied without writing", retried, e.writes())
	}
	for _, memo := range []string{"truth 1", "truth 2"} {
		if n := len(truthLive(e, memo)); n != 1 {
			t.Errorf("YNAB holds %d transaction(s) with the memo %q after the retry; want 1", n, memo)
		}
	}
	return preview, retried
}
