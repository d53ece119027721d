package sandbox_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

func largeExport(t testing.TB, n int, now time.Time) ynab.PlanDetail {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{Now: func() time.Time { return now }, Sample: sandbox.LargeSample(n)})
	if err != nil {
		t.Fatal(err)
	}
	d, err := sb.Export("last-used")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The large sample keeps YNAB's rules and the promises of its doc, at any size and on any day.
func TestLargeSampleInvariants(t *testing.T) {
	for _, tt := range []struct {
		n   int
		now time.Time
	}{
		{sandbox.MinLargeSample, sandboxtest.FixedNow()},
		{3000, time.Date(2027, time.March, 1, 8, 0, 0, 0, time.UTC)},      // the 1st of a month
		{6000, time.Date(2028, time.December, 31, 22, 0, 0, 0, time.UTC)}, // a leap year's end, 20 months
	} {
		t.Run(strconv.Itoa(tt.n)+" on "+tt.now.Format("2006-01-02"), func(t *testing.T) {
			checkLarge(t, largeExport(t, tt.n, tt.now), tt.n, tt.now)
		})
	}
}

func checkLarge(t *testing.T, d ynab.PlanDetail, n int, now time.Time) {
	today := now.UTC().Format("2006-01-02")
	current := today[:8] + "01"
	if d.ID != sandbox.LargePlanID || d.Name != "Gezin" || d.CurrencyFormat.ISOCode != "EUR" {
		t.Errorf("plan %s %q %s", d.ID, d.Name, d.CurrencyFormat.ISOCode)
	}
	if len(d.Transactions) != n {
		t.Fatalf("%d transactions, want exactly %d", len(d.Transactions), n)
	}
	wantMonths := min(max(n/300, 12), 240)
	if got := monthsFrom(d.FirstMonth, current) + 1; got < wantMonths-1 || got > wantMonths {
		t.Errorf("history from %s: %d months, want about %d", d.FirstMonth, got, wantMonths)
	}

	accounts := map[string]ynab.Account{}
	byName := map[string]string{}
	for _, a := range d.Accounts {
		accounts[a.ID], byName[a.Name] = a, a.ID
	}
	payees := map[string]ynab.Payee{}
	for _, p := range d.Payees {
		payees[p.ID] = p
	}
	categories := map[string]ynab.Category{}
	for _, c := range d.Categories {
		categories[c.ID] = c
	}
	if len(d.Payees) < 200 {
		t.Errorf("%d payees, want hundreds", len(d.Payees))
	}
	subs := map[string][]ynab.SubTransaction{}
	for _, s := range d.Subtransactions {
		subs[s.TransactionID] = append(subs[s.TransactionID], s)
	}
	txns := map[string]ynab.TransactionSummary{}
	for _, tx := range d.Transactions {
		txns[tx.ID] = tx
	}

	balance := map[string]int64{}
	var splits, transfers, offBudget, uncategorized, unapproved, flagged int
	salaries := map[string]map[string]int{} // month → payee → salaries
	for _, tx := range d.Transactions {
		a, ok := accounts[tx.AccountID]
		switch {
		case !ok:
			t.Fatalf("transaction %s on an unknown account", tx.ID)
		case tx.Date > today || tx.Date < d.FirstMonth:
			t.Errorf("transaction %s dated %s, outside %s…%s", tx.ID, tx.Date, d.FirstMonth, today)
		case tx.Amount%10 != 0:
			t.Errorf("transaction %s of %d milliunits: not whole cents", tx.ID, tx.Amount)
		case tx.PayeeID == nil:
			t.Errorf("transaction %s has no payee", tx.ID)
		case tx.Deleted:
			t.Errorf("transaction %s is deleted in a full export", tx.ID)
		}
		balance[tx.AccountID] += tx.Amount
		if lines := subs[tx.ID]; len(lines) > 0 {
			splits++
			var sum int64
			for _, l := range lines {
				sum += l.Amount
				if l.CategoryID == nil || categories[*l.CategoryID].Name == "" {
					t.Errorf("split line %s has no category", l.ID)
				}
			}
			if sum != tx.Amount || tx.CategoryID != nil {
				t.Errorf("split %s: lines add up to %d, amount %d, category %v", tx.ID, sum, tx.Amount, tx.CategoryID)
			}
		}
		if tx.TransferAccountID != nil {
			transfers++
			other, ok := txns[strOf(tx.TransferTransactionID)]
			switch {
			case !ok:
				t.Errorf("transfer %s has no other side", tx.ID)
			case other.Amount != -tx.Amount || other.Date != tx.Date || other.AccountID != *tx.TransferAccountID ||
				strOf(other.TransferTransactionID) != tx.ID || strOf(other.TransferAccountID) != tx.AccountID:
				t.Errorf("transfer %s and %s do not mirror each other", tx.ID, other.ID)
			case strOf(tx.PayeeID) != strOf(accounts[other.AccountID].TransferPayeeID):
				t.Errorf("transfer %s's payee is not %s's transfer payee", tx.ID, accounts[other.AccountID].Name)
			}
			leaves := a.OnBudget && !accounts[*tx.TransferAccountID].OnBudget
			if leaves != (tx.CategoryID != nil) {
				t.Errorf("transfer %s from %s to %s has category %v: only money leaving the budget has one",
					tx.ID, a.Name, accounts[*tx.TransferAccountID].Name, tx.CategoryID)
			}
			if leaves {
				offBudget++
			}
		} else if tx.CategoryID == nil && len(subs[tx.ID]) == 0 && a.OnBudget {
			uncategorized++
			if tx.Date < dayPlus(today, -10) {
				t.Errorf("transaction %s of %s is uncategorized", tx.ID, tx.Date)
			}
		}
		if !a.OnBudget && tx.CategoryID != nil {
			t.Errorf("transaction %s on the off-budget %s has a category", tx.ID, a.Name)
		}
		if !tx.Approved {
			unapproved++
		}
		if tx.FlagColor != nil {
			flagged++
		}
		if p := payees[strOf(tx.PayeeID)]; strOf(tx.Memo) == "Salaris" {
			m := tx.Date[:8] + "01"
			if salaries[m] == nil {
				salaries[m] = map[string]int{}
			}
			salaries[m][p.Name]++
		}
		wantCleared := ynab.Cleared
		switch {
		case tx.Date < monthPlus(current, -1):
			wantCleared = ynab.Reconciled
		case tx.Date > dayPlus(today, -3):
			wantCleared = ynab.Uncleared
		}
		if tx.Cleared != wantCleared {
			t.Errorf("transaction %s of %s is %s, want %s", tx.ID, tx.Date, tx.Cleared, wantCleared)
		}
	}
	if splits < n/100 || transfers < n/30 || offBudget == 0 || flagged == 0 || unapproved == 0 {
		t.Errorf("%d splits, %d transfer sides (%d leaving the budget), %d flagged, %d unapproved: want some of each",
			splits, transfers, offBudget, flagged, unapproved)
	}
	for m := d.FirstMonth; m < current; m = monthPlus(m, 1) {
		if s := salaries[m]; s["Acme Nederland B.V."] != 1 || s["Gemeente Utrecht"] != 1 {
			t.Errorf("salaries in %s: %v, want one from each employer", m, s)
		}
	}

	// Derived figures come from the sandbox's own rules: balances are the sums.
	for id, a := range accounts {
		if a.Balance != balance[id] || a.ClearedBalance+a.UnclearedBalance != a.Balance {
			t.Errorf("%s: balance %d (cleared %d, uncleared %d), transactions add up to %d",
				a.Name, a.Balance, a.ClearedBalance, a.UnclearedBalance, balance[id])
		}
	}
	if old := accounts[byName["Oude spaarrekening"]]; !old.Closed || old.Balance != 0 {
		t.Errorf("Oude spaarrekening: closed %v, balance %d", old.Closed, old.Balance)
	}
	if card := accounts[byName["Creditcard"]]; card.Balance > 0 || card.Balance < -euroCents(500000) {
		t.Errorf("the credit card owes %d: it is paid off every month", -card.Balance)
	}
	var month ynab.Month
	for _, m := range d.Months {
		if m.Month == current {
			month = m
		}
	}
	if month.ToBeBudgeted < 0 || month.ToBeBudgeted > month.Income+euroCents(200000) {
		t.Errorf("Ready to Assign is %d with %d income this month: it should stay small", month.ToBeBudgeted, month.Income)
	}
	for _, c := range d.Categories {
		if c.Name == "Fotografie" && !c.Hidden {
			t.Error("Fotografie is not hidden")
		}
	}

	if len(d.ScheduledTransactions) < 9 {
		t.Errorf("%d scheduled transactions, want at least 9", len(d.ScheduledTransactions))
	}
	for _, st := range d.ScheduledTransactions {
		if st.DateNext <= today || st.DateFirst > st.DateNext || st.Amount%10 != 0 {
			t.Errorf("scheduled %s: first %s, next %s (today %s), amount %d", st.ID, st.DateFirst, st.DateNext, today, st.Amount)
		}
	}
}

func euroCents(c int64) int64 { return c * 10 }

func strOf(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func monthsFrom(a, b string) int {
	ta, _ := time.Parse("2006-01-02", a)
	tb, _ := time.Parse("2006-01-02", b)
	return (tb.Year()-ta.Year())*12 + int(tb.Month()) - int(ta.Month())
}

func dayPlus(date string, n int) string {
	t, _ := time.Parse("2006-01-02", date)
	return t.AddDate(0, 0, n).Format("2006-01-02")
}

func monthPlus(month string, n int) string {
	t, _ := time.Parse("2006-01-02", month)
	return t.AddDate(0, n, 0).Format("2006-01-02")
}

// The same size on the same day gives the same plan, ids and all; another size or another day
// gives another plan, dated from that day.
func TestLargeSampleIsDeterministic(t *testing.T) {
	day := sandboxtest.FixedNow()
	encode := func(d ynab.PlanDetail) string {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	first, again := largeExport(t, 1000, day), largeExport(t, 1000, day)
	if encode(first) != encode(again) {
		t.Fatal("two large samples of 1000 on the same day differ")
	}
	if other := largeExport(t, 1100, day); encode(other) == encode(first) || len(other.Transactions) != 1100 {
		t.Error("a larger size gave the same plan")
	}
	later := largeExport(t, 1000, day.AddDate(0, 0, 40))
	newest := func(d ynab.PlanDetail) string {
		last := ""
		for _, tx := range d.Transactions {
			last = max(last, tx.Date)
		}
		return last
	}
	if newest(first) != "2026-09-15" || newest(later) != "2026-10-25" {
		t.Errorf("newest transactions %s and %s, want each day's today", newest(first), newest(later))
	}
}

// Other packages' tests and benchmarks get the large plan through sandboxtest.New, over HTTP.
func TestLargeSampleOverHTTP(t *testing.T) {
	a := newAPI(t, sandbox.Options{Sample: sandbox.LargeSample(1000)})
	var plans struct {
		Plans       []struct{ ID, Name string }
		DefaultPlan *struct{ ID string } `json:"default_plan"`
	}
	a.ok(200, "GET", "/plans", nil, &plans)
	if len(plans.Plans) != 1 || plans.Plans[0].ID != sandbox.LargePlanID {
		t.Errorf("plans = %+v, want the large plan only", plans.Plans)
	}
	var list struct{ Transactions []ynab.Transaction }
	a.ok(200, "GET", "/plans/last-used/transactions", nil, &list)
	if len(list.Transactions) != 1000 {
		t.Errorf("GET transactions: %d, want 1000", len(list.Transactions))
	}
	if got := a.sb.Sample().String(); got != "large:1000" {
		t.Errorf("Sample() = %q", got)
	}
}

func TestParseSample(t *testing.T) {
	for in, want := range map[string]string{
		"standard": "standard", "large": "large:50000", "large:10000": "large:10000", "large:10_000": "large:10000",
		"large:1000": "large:1000", "large:200000": "large:200000",
	} {
		smp, err := sandbox.ParseSample(in)
		if err != nil || smp.String() != want {
			t.Errorf("ParseSample(%q) = %q, %v; want %q", in, smp, err, want)
		}
	}
	for in, want := range map[string]string{
		"":             "sample must be standard, large or large:N",
		"huge":         `not "huge"`,
		"large:":       "must be a whole number",
		"large:ten":    "must be a whole number",
		"large:999":    "has 1000 to 200000 transactions, not 999",
		"large:250000": "not 250000",
	} {
		if _, err := sandbox.ParseSample(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSample(%q): %v, want an error with %q", in, err, want)
		}
	}
	if _, err := sandbox.New(sandbox.Options{Sample: sandbox.LargeSample(10)}); err == nil || !strings.Contains(err.Error(), "not 10") {
		t.Errorf("New with a large sample of 10: %v", err)
	}
}

// A state file remembers its sample: asking for another one is refused rather than silently
// served the old one, and Reset restores the one it holds.
func TestLargeSampleInAStateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbox.json")
	sb, err := sandbox.New(sandbox.Options{StatePath: path, Now: sandboxtest.FixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if err := sb.Reset(); err != nil { // saves the standard sample
		t.Fatal(err)
	}
	_, err = sandbox.New(sandbox.Options{StatePath: path, Now: sandboxtest.FixedNow, Sample: sandbox.LargeSample(1000)})
	if err == nil || !strings.Contains(err.Error(), "holds the standard sample, not large:1000") ||
		!strings.Contains(err.Error(), "avenir sandbox reset --sample large:1000") {
		t.Fatalf("New with a large sample over a standard state: %v", err)
	}

	if err := sb.ResetTo(sandbox.LargeSample(1000)); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(raw), `"sample":"large:1000"`) {
		t.Fatalf("the state file does not name its sample: %v", err)
	}
	again, err := sandbox.New(sandbox.Options{StatePath: path, Now: sandboxtest.FixedNow, Sample: sandbox.LargeSample(1000)})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := again.Export("last-used")
	if d.ID != sandbox.LargePlanID || len(d.Transactions) != 1000 {
		t.Fatalf("reloaded %s with %d transactions", d.ID, len(d.Transactions))
	}
	if err := again.Reset(); err != nil { // no sample in the options: the one the state holds
		t.Fatal(err)
	}
	if d, _ := again.Export("last-used"); d.ID != sandbox.LargePlanID || len(d.Transactions) != 1000 {
		t.Errorf("Reset restored %s with %d transactions, want the large sample", d.ID, len(d.Transactions))
	}
	if _, err := sandbox.New(sandbox.Options{StatePath: path, Sample: sandbox.StandardSample()}); err == nil ||
		!strings.Contains(err.Error(), "holds the large:1000 sample, not standard") {
		t.Errorf("New with the standard sample over a large state: %v", err)
	}
}

// BenchmarkLargeSample measures building the default large sample (50,000 transactions) and
// serving its full export, and a delta, over HTTP.
func BenchmarkLargeSample(b *testing.B) {
	b.Run("build 50k", func(b *testing.B) {
		for b.Loop() {
			if _, err := sandbox.New(sandbox.Options{Now: sandboxtest.FixedNow, Sample: sandbox.LargeSample(sandbox.DefaultLargeSample)}); err != nil {
				b.Fatal(err)
			}
		}
	})
	a := newAPI(b, sandbox.Options{Sample: sandbox.LargeSample(sandbox.DefaultLargeSample)})
	var k struct {
		ServerKnowledge int64 `json:"server_knowledge"`
	}
	a.ok(200, "GET", "/plans/last-used/accounts", nil, &k) // derives the plan once
	b.Run("GET full export 50k", func(b *testing.B) {
		for b.Loop() {
			a.ok(200, "GET", "/plans/last-used", nil, nil)
		}
	})
	b.Run("GET delta export 50k", func(b *testing.B) {
		for b.Loop() {
			a.ok(200, "GET", "/plans/last-used?last_knowledge_of_server="+strconv.FormatInt(k.ServerKnowledge, 10), nil, nil)
		}
	})
}
