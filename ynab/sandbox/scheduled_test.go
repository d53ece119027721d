package sandbox_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

func scheduledBody(fields map[string]any) map[string]any {
	return map[string]any{"scheduled_transaction": fields}
}

// TestScheduledAlwaysHaveSubtransactions checks the field the spec requires on every
// ScheduledTransactionDetail, split or not: YNAB's JS SDK refuses an answer without it.
func TestScheduledAlwaysHaveSubtransactions(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	_, _, raw := a.do("GET", plan+"/scheduled_transactions", nil)
	var env struct {
		Data struct {
			ScheduledTransactions []map[string]json.RawMessage `json:"scheduled_transactions"`
		}
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	if len(env.Data.ScheduledTransactions) != 5 {
		t.Fatalf("%d scheduled transactions, want 5", len(env.Data.ScheduledTransactions))
	}
	for _, st := range env.Data.ScheduledTransactions {
		for _, field := range []string{"subtransactions", "account_name", "payee_name", "category_name"} {
			if _, ok := st[field]; !ok {
				t.Errorf("scheduled transaction %s has no %s", st["id"], field)
			}
		}
		if string(st["subtransactions"]) != "[]" {
			t.Errorf("subtransactions = %s, want []", st["subtransactions"])
		}
	}
}

func TestScheduledTransactionWrites(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	k := a.knowledge()
	var created struct {
		ScheduledTransaction ynab.ScheduledTransaction `json:"scheduled_transaction"`
	}
	a.ok(201, "POST", plan+"/scheduled_transactions", scheduledBody(map[string]any{
		"account_id": n.id(t, "Betaalrekening"), "date": "2026-10-05", "amount": -4500, "frequency": "monthly",
		"payee_name": "Sportschool Fit", "category_id": n.id(t, "Tennis"), "memo": "Abonnement", "flag_color": "green"}), &created)
	st := created.ScheduledTransaction
	if st.DateFirst != "2026-10-05" || st.DateNext != "2026-10-05" || st.Frequency != "monthly" || st.Amount != -4500 ||
		st.PayeeName == nil || *st.PayeeName != "Sportschool Fit" || st.CategoryName == nil || *st.CategoryName != "Tennis" ||
		st.AccountName != "Betaalrekening" || st.FlagColor == nil || *st.FlagColor != "green" || st.AmountFormatted != "-€4,50" {
		t.Fatalf("created %+v", st)
	}

	var updated struct {
		ScheduledTransaction ynab.ScheduledTransaction `json:"scheduled_transaction"`
	}
	a.ok(200, "PUT", plan+"/scheduled_transactions/"+st.ID, scheduledBody(map[string]any{
		"account_id": n.id(t, "Betaalrekening"), "date": "2026-10-07", "amount": -4750, "frequency": "weekly", "category_id": nil}), &updated)
	var got struct {
		ScheduledTransaction ynab.ScheduledTransaction `json:"scheduled_transaction"`
	}
	a.ok(200, "GET", plan+"/scheduled_transactions/"+st.ID, nil, &got)
	g := got.ScheduledTransaction
	if g.DateNext != "2026-10-07" || g.Amount != -4750 || g.Frequency != "weekly" || g.CategoryID != nil ||
		g.Memo == nil || *g.Memo != "Abonnement" || g.PayeeName == nil || *g.PayeeName != "Sportschool Fit" {
		t.Errorf("after the PUT: %+v (the memo and payee it left out stay)", g)
	}

	var transfer struct {
		ScheduledTransaction ynab.ScheduledTransaction `json:"scheduled_transaction"`
	}
	a.ok(201, "POST", plan+"/scheduled_transactions", scheduledBody(map[string]any{
		"account_id": n.id(t, "Betaalrekening"), "date": "2026-10-25", "amount": -10000, "frequency": "monthly",
		"payee_id": n.id(t, "payee:Transfer : Spaarrekening"), "category_id": n.id(t, "Vakantie")}), &transfer)
	if tr := transfer.ScheduledTransaction; tr.TransferAccountID == nil || *tr.TransferAccountID != n.id(t, "Spaarrekening") || tr.CategoryID != nil {
		t.Errorf("a scheduled transfer within the budget = %+v, want transfer_account_id Spaarrekening and no category", tr)
	}

	var deleted struct {
		ScheduledTransaction ynab.ScheduledTransaction `json:"scheduled_transaction"`
	}
	a.ok(200, "DELETE", plan+"/scheduled_transactions/"+st.ID, nil, &deleted)
	if !deleted.ScheduledTransaction.Deleted {
		t.Errorf("the answer to DELETE is not deleted: %+v", deleted.ScheduledTransaction)
	}
	a.fail(404, "GET", plan+"/scheduled_transactions/"+st.ID, nil)
	var list struct {
		ScheduledTransactions []ynab.ScheduledTransaction `json:"scheduled_transactions"`
		ServerKnowledge       int64                       `json:"server_knowledge"`
	}
	a.ok(200, "GET", plan+"/scheduled_transactions", nil, &list)
	if len(list.ScheduledTransactions) != 6 {
		t.Errorf("%d scheduled transactions in a full read, want the sample's 5 and the transfer", len(list.ScheduledTransactions))
	}
	a.ok(200, "GET", plan+"/scheduled_transactions?last_knowledge_of_server="+itoa(k), nil, &list)
	if len(list.ScheduledTransactions) != 2 {
		t.Fatalf("delta = %+v, want the deleted one and the transfer", list.ScheduledTransactions)
	}
	for _, s := range list.ScheduledTransactions {
		if s.ID == st.ID && !s.Deleted {
			t.Errorf("the delta shows the deleted schedule as live")
		}
	}
}

func TestScheduledTransactionRefusals(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	base := func(extra map[string]any) map[string]any {
		f := map[string]any{"account_id": n.id(t, "Betaalrekening"), "date": "2026-10-01", "amount": -1000, "frequency": "monthly"}
		for k, v := range extra {
			f[k] = v
		}
		return scheduledBody(f)
	}
	var tennis string
	var list struct {
		ScheduledTransactions []ynab.ScheduledTransaction `json:"scheduled_transactions"`
	}
	a.ok(200, "GET", plan+"/scheduled_transactions", nil, &list)
	for _, st := range list.ScheduledTransactions {
		if st.Frequency == "every3Months" {
			tennis = st.ID
		}
	}
	tests := []struct {
		name, method, path string
		body               any
		status             int
		detail             string
	}{
		{"every other week", "POST", "", base(map[string]any{"frequency": "everyOtherWeek"}), 400, "frequency must be one of never, daily, weekly, monthly, yearly"},
		{"an unknown frequency", "POST", "", base(map[string]any{"frequency": "hourly"}), 400, "frequency must be"},
		{"today", "POST", "", base(map[string]any{"date": "2026-09-15"}), 400, "future date"},
		{"yesterday", "POST", "", base(map[string]any{"date": "2026-09-14"}), 400, "future date"},
		{"over five years ahead", "POST", "", base(map[string]any{"date": "2031-09-16"}), 400, "no more than 5 years"},
		{"a split", "POST", "", base(map[string]any{"subtransactions": []map[string]any{{"amount": -500}, {"amount": -500}}}), 400, "split scheduled transaction"},
		{"a card payment category", "POST", "", base(map[string]any{"category_id": n.id(t, "category:Creditcard")}), 400, "credit card payment category"},
		{"no account", "POST", "", scheduledBody(map[string]any{"date": "2026-10-01"}), 400, "account_id is required"},
		{"no date", "POST", "", scheduledBody(map[string]any{"account_id": n.id(t, "Betaalrekening")}), 400, "date is required"},
		{"a reserved payee name", "POST", "", base(map[string]any{"payee_name": "Transfer : Ergens"}), 400, "reserves"},
		{"a schedule every 3 months", "PUT", "/" + tennis, base(map[string]any{"amount": -14000, "frequency": "monthly"}), 400, "every3Months"},
		{"an unknown schedule", "PUT", "/0f0f0f0f-0000-4000-8000-000000000000", base(nil), 404, "No scheduled transaction"},
		{"deleting an unknown schedule", "DELETE", "/0f0f0f0f-0000-4000-8000-000000000000", nil, 404, "No scheduled transaction"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := a.fail(tt.status, tt.method, plan+"/scheduled_transactions"+tt.path, tt.body)
			if !strings.Contains(e.Detail, tt.detail) {
				t.Errorf("detail %q does not say %q", e.Detail, tt.detail)
			}
		})
	}
	if k := a.knowledge(); k != 1000 {
		t.Errorf("refused writes raised the knowledge to %d", k)
	}
}
