package sandbox_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

// The package doc promises these facts about the sample to other packages' tests; they must
// hold whatever day the sandbox is dated by.
func TestSampleKeepsItsDocumentedFacts(t *testing.T) {
	days := []time.Time{
		sandboxtest.FixedNow(),
		time.Date(2026, time.March, 1, 0, 0, 0, 0, time.UTC),       // the 1st: everything this month is today
		time.Date(2028, time.February, 29, 23, 59, 0, 0, time.UTC), // leap day
		time.Date(2026, time.December, 31, 12, 0, 0, 0, time.UTC),  // year's end
		time.Date(2027, time.January, 2, 8, 0, 0, 0, time.UTC),     // months spanning two years
	}
	for _, now := range days {
		t.Run(now.Format("2006-01-02"), func(t *testing.T) {
			sb, err := sandbox.New(sandbox.Options{Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			d, err := sb.Export("last-used")
			if err != nil {
				t.Fatal(err)
			}
			checkSample(t, d, now)
		})
	}
}

func checkSample(t *testing.T, d ynab.PlanDetail, now time.Time) {
	today := now.UTC().Format("2006-01-02")
	current := today[:8] + "01"
	n := names{}
	closed := map[string]bool{}
	for _, a := range d.Accounts {
		n[a.Name], closed[a.ID] = a.ID, a.Closed
	}
	for _, c := range d.Categories {
		n[c.Name] = c.ID
	}
	for _, p := range d.Payees {
		n["payee:"+p.Name] = p.ID
	}
	if d.ID != sandbox.PlanID || d.Name != "Huishouden" || d.CurrencyFormat.ISOCode != "EUR" ||
		d.CurrencyFormat.DecimalSeparator != "," || d.DateFormat.Format != "DD-MM-YYYY" {
		t.Errorf("plan = %s %q %+v %+v", d.ID, d.Name, d.CurrencyFormat, d.DateFormat)
	}
	for _, want := range []struct {
		name, typ string
		closed    bool
	}{{"Betaalrekening", ynab.AccountChecking, false}, {"Spaarrekening", ynab.AccountSavings, false},
		{"Creditcard", ynab.AccountCreditCard, false}, {"Contant", ynab.AccountCash, false}, {"Oude rekening", ynab.AccountChecking, true}} {
		found := false
		for _, a := range d.Accounts {
			if a.Name == want.name {
				found = true
				if a.Type != want.typ || a.Closed != want.closed || (a.Closed && a.Balance != 0) {
					t.Errorf("account %s = %s closed=%v balance=%d", a.Name, a.Type, a.Closed, a.Balance)
				}
			}
		}
		if !found {
			t.Errorf("no account %s", want.name)
		}
	}
	for _, absent := range []string{"Huisdieren", "Sport"} {
		if _, ok := n[absent]; ok {
			t.Errorf("category %s exists; the confirmation examples need it not to", absent)
		}
	}

	// Assigned amounts and targets.
	months := map[string]ynab.Month{}
	for _, m := range d.Months {
		months[m.Month] = m
	}
	assigned := func(month, name string) int64 {
		for _, c := range months[month].Categories {
			if c.ID == n[name] {
				return c.Budgeted
			}
		}
		t.Fatalf("month %s has no category %s", month, name)
		return 0
	}
	for back := range 3 {
		m := addMonths(current, -back)
		if got := assigned(m, "Restaurants"); got != 120000 {
			t.Errorf("Restaurants assigned in %s = %d, want 120000", m, got)
		}
		if got := assigned(m, "Tennis"); got != 45000 {
			t.Errorf("Tennis assigned in %s = %d, want 45000", m, got)
		}
	}
	if got := months[current].ToBeBudgeted; got != 727830 {
		t.Errorf("Ready to Assign = %d, want 727830", got)
	}
	goals := map[string]string{}
	for _, c := range d.Categories {
		if c.GoalType != nil {
			goals[c.Name] = *c.GoalType
			if c.GoalCadence != nil && *c.GoalCadence == 2 {
				goals[c.Name] += " weekly"
			}
			if c.GoalCadence != nil && *c.GoalCadence == 13 {
				goals[c.Name] += " yearly"
			}
			if *c.GoalType == ynab.GoalNeed && c.GoalTargetDate != nil && *c.GoalCadence == 0 {
				goals[c.Name] += " by date"
			}
			if *c.GoalType == ynab.GoalNeed && c.GoalNeedsWholeAmount != nil && !*c.GoalNeedsWholeAmount {
				goals[c.Name] += " refill"
			}
		}
		if c.Name == "Fotografie" && !c.Hidden {
			t.Error("Fotografie is not hidden")
		}
	}
	wantGoals := map[string]string{"Boodschappen": "NEED weekly", "Noodfonds": "TB", "Nieuwe fiets": "TBD",
		"Cadeaus": "MF", "Onderhoud huis": "NEED refill", "Tandarts": "NEED by date", "Verzekeringen": "NEED yearly"}
	if !reflect.DeepEqual(goals, wantGoals) {
		t.Errorf("targets = %v, want %v (and Vakantie without one)", goals, wantGoals)
	}

	// Transactions.
	split := map[string]bool{}
	for _, s := range d.Subtransactions {
		split[s.TransactionID] = true
	}
	var onOpen, plainUncategorized, unapproved, flagged, clearedOnBetaal, splits, transfers int
	market := 0
	for _, tx := range d.Transactions {
		if tx.Date > today {
			t.Errorf("transaction %s is dated %s, after today", tx.ID, tx.Date)
		}
		if !closed[tx.AccountID] {
			onOpen++
		}
		if tx.CategoryID == nil && tx.TransferAccountID == nil && !split[tx.ID] {
			plainUncategorized++
		}
		if !tx.Approved {
			unapproved++
		}
		if tx.FlagColor != nil {
			flagged++
		}
		if tx.AccountID == n["Betaalrekening"] && tx.Cleared == ynab.Cleared {
			clearedOnBetaal++
		}
		if split[tx.ID] {
			splits++
		}
		if tx.TransferAccountID != nil {
			transfers++
		}
		if tx.PayeeID != nil && *tx.PayeeID == n["payee:Market"] {
			market++
			if tx.Amount != -86400 || tx.AccountID != n["Betaalrekening"] || tx.CategoryID == nil || split[tx.ID] ||
				tx.Date < addDays(today, -13) {
				t.Errorf("Market = %+v: want a plain categorised outflow of 86.40 in the last two weeks", tx)
			}
		}
	}
	counts := map[string]int{"total": len(d.Transactions), "on open accounts": onOpen, "uncategorized": plainUncategorized,
		"unapproved": unapproved, "flagged": flagged, "cleared on Betaalrekening": clearedOnBetaal, "split": splits,
		"transfer sides": transfers, "Market": market}
	want := map[string]int{"total": 83, "on open accounts": 82, "uncategorized": 4, "unapproved": 5, "flagged": 4,
		"cleared on Betaalrekening": 49, "split": 1, "transfer sides": 2, "Market": 1}
	if !reflect.DeepEqual(counts, want) {
		t.Errorf("counts = %v, want %v", counts, want)
	}
	for _, st := range d.ScheduledTransactions {
		if st.DateNext <= today {
			t.Errorf("scheduled %s is due %s, not after today", st.ID, st.DateNext)
		}
	}
	if len(d.ScheduledTransactions) != 5 {
		t.Errorf("%d scheduled transactions, want 5", len(d.ScheduledTransactions))
	}
}

func TestSampleIsDeterministic(t *testing.T) {
	export := func() []byte {
		sb, err := sandbox.New(sandbox.Options{Now: sandboxtest.FixedNow})
		if err != nil {
			t.Fatal(err)
		}
		var all []ynab.PlanDetail
		for _, id := range []string{sandbox.PlanID, sandbox.SecondPlanID} {
			d, err := sb.Export(id)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, d)
		}
		b, _ := json.Marshal(all)
		return b
	}
	if a, b := export(), export(); string(a) != string(b) {
		t.Error("two sandboxes on the same day serve different samples")
	}
}

// Every id a sample entity points at names an entity of the same plan.
func TestSampleReferencesResolve(t *testing.T) {
	sb, _ := sandbox.New(sandbox.Options{Now: sandboxtest.FixedNow})
	for _, id := range []string{sandbox.PlanID, sandbox.SecondPlanID} {
		d, _ := sb.Export(id)
		known := map[string]bool{}
		for _, a := range d.Accounts {
			known[a.ID] = true
		}
		for _, p := range d.Payees {
			known[p.ID] = true
		}
		for _, c := range d.Categories {
			known[c.ID] = true
		}
		for _, g := range d.CategoryGroups {
			known[g.ID] = true
		}
		for _, tx := range d.Transactions {
			known[tx.ID] = true
		}
		check := func(what string, ids ...*string) {
			for _, id := range ids {
				if id != nil && !known[*id] {
					t.Errorf("%s points at unknown id %s", what, *id)
				}
			}
		}
		for _, tx := range d.Transactions {
			check("transaction "+tx.ID, &tx.AccountID, tx.PayeeID, tx.CategoryID, tx.TransferAccountID, tx.TransferTransactionID)
		}
		for _, s := range d.Subtransactions {
			check("subtransaction "+s.ID, &s.TransactionID, s.PayeeID, s.CategoryID)
		}
		for _, c := range d.Categories {
			check("category "+c.Name, &c.CategoryGroupID)
		}
		for _, st := range d.ScheduledTransactions {
			check("scheduled "+st.ID, &st.AccountID, st.PayeeID, st.CategoryID)
		}
	}
}

func addDays(date string, n int) string {
	t, _ := time.Parse("2006-01-02", date)
	return t.AddDate(0, 0, n).Format("2006-01-02")
}

func addMonths(month string, n int) string {
	t, _ := time.Parse("2006-01-02", month)
	return t.AddDate(0, n, 0).Format("2006-01-02")
}
