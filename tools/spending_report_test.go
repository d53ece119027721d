package tools

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// reportGroup finds a group by name, or fails.
func reportGroup(t *testing.T, out spendingReportOut, name string) spendingGroup {
	t.Helper()
	for _, g := range out.Groups {
		if g.Name == name {
			return g
		}
	}
	t.Fatalf("no group %q in %+v", name, out.Groups)
	return spendingGroup{}
}

// The sample's November (today is 2 December 2026), summed by hand from the sample's source:
// its bills, shopping, the Albert Heijn split, a Tikkie refund, two salaries and interest, and a
// transfer to savings that must not count.
func TestSpendingReportOnTheSample(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	type want struct {
		group              string
		transactions       int
		outflow, inflow    int64
		outflowChange      int64
		formattedOutflow   string
		formattedInflow    string
		formattedOutChange string
	}
	for _, c := range []struct {
		name  string
		args  map[string]any
		wants []want
	}{
		{"by category", map[string]any{"since": "2026-11", "until": "2026-11"}, []want{
			// AH 68.94, Jumbo 41.27, Bakkerij 7.80, the split's 82.35, Lidl 33.71, Jumbo 52.88,
			// AH 61.09 and AH 45.20 on the card; October had 322.13.
			{"Dagelijks: Boodschappen", 8, 393240, 0, 71110, "€393,24", "€0,00", "€71,11"},
			// Loetje 54.00 out, the Tikkie 18.50 back in; October had De Zwaan 68.50 and
			// Thuisbezorgd 31.45.
			{"Dagelijks: Restaurants", 2, 54000, 18500, -45950, "€54,00", "€18,50", "-€45,95"},
			// HEMA 11.50, the split's 30.00 drugstore line, Kapper Knip 32.00.
			{"Dagelijks: Persoonlijke verzorging", 3, 73500, 0, 45060, "€73,50", "€0,00", "€45,06"},
			// Two salaries and the savings interest.
			{readyToAssign, 3, 0, 5059690, 0, "€0,00", "€5.059,69", "€0,00"},
			{"Uncategorized", 1, 59990, 0, 59990, "€59,99", "€0,00", "€59,99"},
		}},
		{"by payee", map[string]any{"since": "2026-11-01", "until": "2026-11-30", "group_by": "payee", "top": 40}, []want{
			// 68.94 + the whole split 112.35 + 61.09 + 45.20 on the card.
			{"Albert Heijn", 4, 287580, 0, 96250, "€287,58", "€0,00", "€96,25"},
			{"Tikkie", 1, 0, 18500, 0, "€0,00", "€18,50", "€0,00"},
		}},
		{"by account", map[string]any{"since": "2026-11", "until": "2026-11", "group_by": "account"}, []want{
			{"Creditcard", 4, 203240, 0, -216610, "€203,24", "€0,00", "-€216,61"},
			{"Contant", 2, 11000, 0, 4200, "€11,00", "€0,00", "€4,20"},
		}},
		{"by group", map[string]any{"since": "2026-11", "until": "2026-11", "group_by": "category_group"}, []want{
			// Huur 1150, Zorgverzekering 298, Energie 145, Internet 55.
			{"Vaste lasten", 4, 1648000, 0, 0, "€1.648,00", "€0,00", "€0,00"},
		}},
		{"one category: the split counts its line only", map[string]any{"since": "2026-11", "until": "2026-11", "category": "Persoonlijke verzorging", "group_by": "payee"}, []want{
			{"Albert Heijn", 1, 30000, 0, 30000, "€30,00", "€0,00", "€30,00"},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out spendingReportOut
			e.ok("spending_report", c.args, &out)
			for _, w := range c.wants {
				g := reportGroup(t, out, w.group)
				got := fmt.Sprint(g.Transactions, g.OutflowMilliunits, g.InflowMilliunits, g.OutflowChangeMilliunits)
				if exp := fmt.Sprint(w.transactions, w.outflow, w.inflow, w.outflowChange); got != exp {
					t.Errorf("%s: transactions, outflow, inflow, outflow change = %s, want %s", w.group, got, exp)
				}
				if g.Outflow != w.formattedOutflow || g.Inflow != w.formattedInflow || g.OutflowChange != w.formattedOutChange {
					t.Errorf("%s: formatted %s %s %s, want %s %s %s", w.group, g.Outflow, g.Inflow, g.OutflowChange,
						w.formattedOutflow, w.formattedInflow, w.formattedOutChange)
				}
			}
		})
	}

	t.Run("totals", func(t *testing.T) {
		var out spendingReportOut
		e.ok("spending_report", map[string]any{"since": "2026-11", "until": "2026-11"}, &out)
		// Bills 1,679.98; checking 538.74; card 203.24; cash 11.00. In: 5,055.57 salaries,
		// 4.12 interest, 18.50 Tikkie. 28 transactions: the transfer to savings is left out.
		if out.Transactions != 28 || out.OutflowMilliunits != 2432960 || out.InflowMilliunits != 5078190 ||
			out.NetMilliunits != 2645230 || out.IncomeMilliunits != 5059690 || out.Net != "€2.645,23" {
			t.Errorf("totals = %+v", out.spendingTotals)
		}
		// October: 2,809.50 out; starting balances 8,470.00 and salaries 5,055.57 in.
		p := out.Previous
		if p.Since != "2026-10-01" || p.Until != "2026-10-31" || p.OutflowMilliunits != 2809500 || p.IncomeMilliunits != 13525570 || p.Transactions != 31 {
			t.Errorf("previous = %+v, want October with 2,809.50 out and 13,525.57 income", p)
		}
		if len(out.Months) != 1 || out.Months[0].Month != "2026-11" || out.Months[0].OutflowMilliunits != 2432960 {
			t.Errorf("months = %+v", out.Months)
		}
	})

	t.Run("default period: the last 3 full months and this one", func(t *testing.T) {
		var out spendingReportOut
		e.ok("spending_report", nil, &out)
		if out.Since != "2026-09-01" || out.Until != "2026-12-02" || out.Previous.Since != "2026-05-31" || out.Previous.Until != "2026-08-31" || out.GroupBy != "category" {
			t.Errorf("period %s..%s, previous %s..%s, group_by %s", out.Since, out.Until, out.Previous.Since, out.Previous.Until, out.GroupBy)
		}
		if len(out.Months) != 3 || out.Months[0].Month != "2026-10" || out.Months[2].Month != "2026-12" {
			t.Errorf("months = %+v, want October to December (September has no transactions)", out.Months)
		}
	})

	t.Run("top folds the rest into other", func(t *testing.T) {
		var out spendingReportOut
		e.ok("spending_report", map[string]any{"since": "2026-11", "until": "2026-11", "top": 2}, &out)
		if len(out.Groups) != 2 || out.Groups[0].Name != "Vaste lasten: Huur" || out.Groups[1].Name != "Dagelijks: Boodschappen" || out.Other == nil {
			t.Fatalf("groups = %+v, other %+v; want Huur, Boodschappen and the rest in other", out.Groups, out.Other)
		}
		checkAddsUp(t, out)
	})
}

// checkAddsUp asserts that the groups and other add up to the totals exactly, the change too.
func checkAddsUp(t *testing.T, out spendingReportOut) {
	t.Helper()
	var outflow, inflow, outChange, inChange int64
	figs := []spendingGroupFigures{}
	for _, g := range out.Groups {
		figs = append(figs, g.spendingGroupFigures)
	}
	if out.Other != nil {
		figs = append(figs, out.Other.spendingGroupFigures)
	}
	for _, g := range figs {
		if g.OutflowMilliunits < 0 || g.InflowMilliunits < 0 {
			t.Errorf("a group's outflow or inflow is negative: %+v", g)
		}
		outflow += g.OutflowMilliunits
		inflow += g.InflowMilliunits
		outChange += g.OutflowChangeMilliunits
		inChange += g.InflowChangeMilliunits
	}
	if outflow != out.OutflowMilliunits || inflow != out.InflowMilliunits {
		t.Errorf("groups add up to %d out, %d in; the totals say %d, %d", outflow, inflow, out.OutflowMilliunits, out.InflowMilliunits)
	}
	if out.GroupBy != "month" && (outChange != out.OutflowMilliunits-out.Previous.OutflowMilliunits || inChange != out.InflowMilliunits-out.Previous.InflowMilliunits) {
		t.Errorf("the groups' changes add up to %d, %d; the totals changed by %d, %d", outChange, inChange,
			out.OutflowMilliunits-out.Previous.OutflowMilliunits, out.InflowMilliunits-out.Previous.InflowMilliunits)
	}
	if out.NetMilliunits != out.InflowMilliunits-out.OutflowMilliunits {
		t.Errorf("net %d is not inflow %d − outflow %d", out.NetMilliunits, out.InflowMilliunits, out.OutflowMilliunits)
	}
	var months int64
	for _, m := range out.Months {
		months += m.InflowMilliunits - m.OutflowMilliunits
	}
	if out.GroupBy != "month" && months != out.NetMilliunits {
		t.Errorf("the months add up to %d net, the total is %d", months, out.NetMilliunits)
	}
}

// A month of known totals, written into the sandbox: income, a split over two categories, a
// refund, a transfer to savings (left out), an uncategorized purchase, and a card purchase.
func TestSpendingReportKnownMonth(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	plant(e,
		planted{date: "2026-03-25", payee: "Acme Nederland B.V.", category: readyToAssign, amount: 3000000, memo: "Salaris"},
		planted{date: "2026-03-02", payee: "Albert Heijn", amount: -50000, lines: []plantedLine{
			{category: "Boodschappen", amount: -40000}, {category: "Persoonlijke verzorging", amount: -10000}}},
		planted{date: "2026-03-10", payee: "Restaurant De Zwaan", category: "Restaurants", amount: -72500},
		planted{date: "2026-03-12", payee: "Restaurant De Zwaan", category: "Restaurants", amount: 15000, memo: "Teveel betaald"},
		planted{date: "2026-03-15", transferTo: "Spaarrekening", amount: -500000},
		planted{date: "2026-03-31", payee: "Onbekende winkel", amount: -20000},
		planted{date: "2026-03-20", account: "Creditcard", payee: "Shell", category: "Vervoer", amount: -60000},
		// February, the period before: one grocery trip and one dinner.
		planted{date: "2026-02-14", payee: "Albert Heijn", category: "Boodschappen", amount: -30000},
		planted{date: "2026-02-28", payee: "Restaurant De Zwaan", category: "Restaurants", amount: -40000},
		// Outside both: April.
		planted{date: "2026-04-01", payee: "Albert Heijn", category: "Boodschappen", amount: -99000},
	)
	var out spendingReportOut
	e.ok("spending_report", map[string]any{"since": "2026-03", "until": "2026-03"}, &out)
	if out.Since != "2026-03-01" || out.Until != "2026-03-31" || out.Previous.Since != "2026-02-01" || out.Previous.Until != "2026-02-28" {
		t.Fatalf("period %s..%s against %s..%s, want March against February", out.Since, out.Until, out.Previous.Since, out.Previous.Until)
	}
	// Out: 50.00 + 72.50 + 20.00 + 60.00 = 202.50; in: 3,000.00 + 15.00; six transactions.
	if out.Transactions != 6 || out.OutflowMilliunits != 202500 || out.InflowMilliunits != 3015000 || out.IncomeMilliunits != 3000000 || out.NetMilliunits != 2812500 || out.Net != "€2.812,50" {
		t.Errorf("totals = %+v", out.spendingTotals)
	}
	if out.Previous.OutflowMilliunits != 70000 || out.Previous.Transactions != 2 {
		t.Errorf("February = %+v, want 70.00 out in 2 transactions", out.Previous)
	}
	for _, w := range []struct {
		name                 string
		n                    int
		out, in, outCh, inCh int64
	}{
		{"Dagelijks: Restaurants", 2, 72500, 15000, 32500, 15000},
		{"Dagelijks: Vervoer", 1, 60000, 0, 60000, 0},
		{"Dagelijks: Boodschappen", 1, 40000, 0, 10000, 0},
		{"Uncategorized", 1, 20000, 0, 20000, 0},
		{"Dagelijks: Persoonlijke verzorging", 1, 10000, 0, 10000, 0},
		{readyToAssign, 1, 0, 3000000, 0, 3000000},
	} {
		g := reportGroup(t, out, w.name)
		if g.Transactions != w.n || g.OutflowMilliunits != w.out || g.InflowMilliunits != w.in || g.OutflowChangeMilliunits != w.outCh || g.InflowChangeMilliunits != w.inCh {
			t.Errorf("%s = %+v, want %d transactions, %d out, %d in, changes %d, %d", w.name, g.spendingGroupFigures, w.n, w.out, w.in, w.outCh, w.inCh)
		}
	}
	if len(out.Groups) != 6 || out.Other != nil {
		t.Errorf("%d groups (other %+v), want exactly the six above", len(out.Groups), out.Other)
	}
	checkAddsUp(t, out)

	var months spendingReportOut
	e.ok("spending_report", map[string]any{"since": "2026-02", "until": "2026-04", "group_by": "month"}, &months)
	if len(months.Groups) != 3 || months.Groups[1].Name != "2026-03" || months.Groups[1].OutflowMilliunits != 202500 ||
		months.Groups[1].OutflowChangeMilliunits != 202500-70000 || months.Groups[0].OutflowChangeMilliunits != 70000 ||
		months.Groups[2].OutflowMilliunits != 99000 || months.Months != nil {
		t.Errorf("by month = %+v", months.Groups)
	}
	checkAddsUp(t, months)

	var cash spendingReportOut
	e.ok("spending_report", map[string]any{"since": "2026-03", "until": "2026-03", "account": "creditcard", "payee": "Shell"}, &cash)
	if cash.Transactions != 1 || cash.OutflowMilliunits != 60000 || len(cash.Groups) != 1 {
		t.Errorf("Shell on the card = %+v", cash)
	}
}

// A tracking account's own transactions are not the plan's money, but a transfer to one from a
// budget account is spending, in the category YNAB gives it.
func TestSpendingReportLeavesTrackingAccountsOut(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	trackingAccount(e, "Beleggingen", 1000000)
	plant(e,
		planted{date: "2026-12-01", transferTo: "Beleggingen", category: "Noodfonds", amount: -500000},
		planted{date: "2026-12-01", account: "Beleggingen", payee: "Dividend", amount: 12000},
		planted{date: "2026-12-02", account: "Beleggingen", payee: "Koerswinst", category: "Uitjes", amount: 30000},
	)
	var out spendingReportOut
	e.ok("spending_report", map[string]any{"since": "2026-12", "until": "2026-12", "category": "Noodfonds"}, &out)
	if out.Transactions != 1 || out.OutflowMilliunits != 500000 || out.InflowMilliunits != 0 || len(out.Groups) != 1 || out.Groups[0].Name != "Sparen: Noodfonds" {
		t.Errorf("the transfer to the tracking account: %+v %+v", out.spendingTotals, out.Groups)
	}
	var all spendingReportOut
	e.ok("spending_report", map[string]any{"since": "2026-12", "until": "2026-12", "group_by": "account"}, &all)
	for _, g := range all.Groups {
		if g.Name == "Beleggingen" {
			t.Errorf("the tracking account is in the report: %+v", g)
		}
	}
	// December's 2,166.01 out and two salaries in, and now the 500.00 transfer; neither the
	// dividend, the gain nor the account's starting balance.
	if all.OutflowMilliunits != 2166010+500000 || all.InflowMilliunits != 5055570 {
		t.Errorf("December: %d out, %d in; want 2,666.01 and 5,055.57", all.OutflowMilliunits, all.InflowMilliunits)
	}
	e.fails("spending_report", map[string]any{"account": "Beleggingen"},
		"account: Beleggingen is a tracking account; the report counts the money of budget accounts only")
}

func TestSpendingReportRefusesBadArguments(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"group_by": "week"}, "group_by: \"week\" is not one of category, category_group, payee, month, account"},
		{map[string]any{"top": 101}, "top: 101 is out of range; give 1 to 100"},
		{map[string]any{"top": -1}, "top: -1 is out of range"},
		{map[string]any{"since": "2026-11", "until": "2026-10"}, "since (2026-11-01) is after until (2026-10-31)"},
		{map[string]any{"since": "last week"}, `since: "last week" is neither a date`},
		{map[string]any{"until": "2026-02-30"}, "until: \"2026-02-30\" is not a calendar date"},
		{map[string]any{"since": "2026-13"}, "since: \"2026-13\" has no month 13"},
		{map[string]any{"category": "Boodschapen"}, "category: there is no category \"Boodschapen\" in this plan; the closest are: Dagelijks: Boodschappen"},
		{map[string]any{"category": "Vervoer", "account": "Nergens"}, "account: there is no account"},
		{map[string]any{"category": "Vervoer", "payee": "Nobody Known"}, "payee: there is no payee"},
	} {
		e.fails("spending_report", c.args, c.want)
		if _, named := c.args["category"]; !named && e.sb.Counts().Total != 0 {
			t.Errorf("%v cost a YNAB request before it was refused", c.args)
		}
	}
	if e.writes() != 0 {
		t.Error("a refused report wrote to YNAB")
	}
}

// For random plans, the report's groups add up to its totals, and its totals to the
// transactions in the period, counted here the plain way: every live transaction of a budget
// account, each split line on its own, transfers between budget accounts left out (a transfer
// to the tracking account counts; that account's own transactions do not). Set
// AVENIR_ANALYSIS_PLANS for more plans than the default 6.
func TestSpendingReportAddsUpOnRandomPlans(t *testing.T) {
	plans := 6
	if n, err := strconv.Atoi(os.Getenv("AVENIR_ANALYSIS_PLANS")); err == nil && n > 0 {
		plans = n
	}
	accounts := []string{"Betaalrekening", "Creditcard", "Contant", "Spaarrekening", "Beleggingen"}
	categories := []string{"Boodschappen", "Restaurants", "Vervoer", "Huur", "Uitjes", "Vakantie", readyToAssign, ""}
	payees := []string{"Albert Heijn", "Jumbo", "Shell", "NS", "Ergens", "Nieuwe winkel", "Tikkie"}
	groupings := []string{"category", "category_group", "payee", "month", "account"}
	for seed := range plans {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 42))
			e := newEnv(t, envOptions{kind: modernNone})
			trackingAccount(e, "Beleggingen", int64(r.IntN(1000000)))
			var txs []planted
			for range 40 + r.IntN(60) {
				tx := planted{date: fmt.Sprintf("2026-%02d-%02d", 1+r.IntN(11), 1+r.IntN(28)), account: accounts[r.IntN(len(accounts))],
					payee: payees[r.IntN(len(payees))], category: categories[r.IntN(len(categories))], amount: int64(r.IntN(400000) - 300000)}
				switch r.IntN(8) {
				case 0:
					tx.payee, tx.category = "", ""
					tx.transferTo = accounts[r.IntN(len(accounts))]
					if tx.transferTo == tx.account {
						tx.transferTo = "Betaalrekening"
						if tx.account == "Betaalrekening" {
							tx.transferTo = "Contant"
						}
					}
				case 1:
					a, b := int64(r.IntN(90000)-60000), int64(r.IntN(90000)-60000)
					tx.category, tx.amount = "", a+b
					tx.lines = []plantedLine{{category: "Boodschappen", amount: a}, {category: "Uitjes", amount: b}}
				}
				txs = append(txs, tx)
			}
			plant(e, txs...)
			p, err := e.sb.Export(sandbox.PlanID)
			if err != nil {
				t.Fatal(err)
			}
			for range 4 {
				since := fmt.Sprintf("2026-%02d-%02d", 1+r.IntN(6), 1+r.IntN(28))
				until := fmt.Sprintf("2026-%02d-%02d", 7+r.IntN(6), 1+r.IntN(28))
				by := groupings[r.IntN(len(groupings))]
				var out spendingReportOut
				e.ok("spending_report", map[string]any{"since": since, "until": until, "group_by": by, "top": 1 + r.IntN(8)}, &out)
				checkAddsUp(t, out)

				// The plain count, from YNAB's own export.
				onBudget, split := map[string]bool{}, map[string]bool{}
				for _, a := range p.Accounts {
					onBudget[a.ID] = a.OnBudget
				}
				var net, outflow int64
				n := 0
				for _, s := range p.Subtransactions {
					split[s.TransactionID] = true
				}
				for _, tx := range p.Transactions {
					if tx.Deleted || !onBudget[tx.AccountID] || tx.Date < since || tx.Date > until {
						continue
					}
					if split[tx.ID] {
						counted := false
						for _, s := range p.Subtransactions {
							if s.TransactionID == tx.ID && !s.Deleted && (s.TransferAccountID == nil || !onBudget[*s.TransferAccountID]) {
								net += s.Amount
								outflow += max(-s.Amount, 0)
								counted = true
							}
						}
						if counted {
							n++
						}
						continue
					}
					if tx.TransferAccountID != nil && onBudget[*tx.TransferAccountID] {
						continue
					}
					net += tx.Amount
					outflow += max(-tx.Amount, 0)
					n++
				}
				if out.NetMilliunits != net || out.OutflowMilliunits != outflow || out.Transactions != n {
					t.Errorf("%s..%s by %s: net %d, outflow %d over %d transactions; the export has %d, %d over %d",
						since, until, by, out.NetMilliunits, out.OutflowMilliunits, out.Transactions, net, outflow, n)
				}
			}
		})
	}
}
