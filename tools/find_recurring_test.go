package tools

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// recurringLine is a row of find_recurring in one line, for exact comparison.
func recurringLine(v recurringView) string {
	sched := "-"
	if v.Scheduled {
		sched = "scheduled"
		if v.ScheduledID == "" {
			sched = "scheduled without an id"
		}
	}
	missed := ""
	if v.Missed {
		missed = " MISSED"
	}
	return fmt.Sprintf("%s %s ×%d typical %s (%d) %s..%s last %s on %s next %s%s [%s] on %s %s",
		v.Payee, v.Rhythm, v.Occurrences, v.Typical, v.TypicalMilliunits, v.Smallest, v.Largest, v.LastAmount, v.LastDate,
		v.NextDate, missed, v.Category, v.Account, sched)
}

func checkRecurring(t *testing.T, out findRecurringOut, want []string) {
	t.Helper()
	var got []string
	for _, v := range out.Recurring {
		got = append(got, recurringLine(v))
		if v.PayeeID == "" || v.AccountID == "" || v.Category != "" && v.Category != "Split" && v.CategoryID == "" {
			t.Errorf("%s: an id is missing: %+v", v.Payee, v)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("recurring:\ngot\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

func TestFindRecurringOnTheSample(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	var out findRecurringOut
	e.ok("find_recurring", nil, &out)
	if out.Since != "2025-12-02" {
		t.Errorf("since = %s, want a year before today", out.Since)
	}
	// Three months of history: the rent and the health insurance, each on the 1st and each
	// scheduled. The groceries, several a month on no rhythm, are not listed.
	checkRecurring(t, out, []string{
		"Woonstichting De Key monthly ×3 typical -€1.150,00 (-1150000) -€1.150,00..-€1.150,00 last -€1.150,00 on 2026-12-01 next 2027-01-01 [Vaste lasten: Huur] on Betaalrekening scheduled",
		"Zilveren Kruis monthly ×3 typical -€298,00 (-298000) -€298,00..-€298,00 last -€298,00 on 2026-12-01 next 2027-01-01 [Vaste lasten: Zorgverzekering] on Betaalrekening scheduled",
	})
}

// A year of planted rhythms, with the weekend shifts and price rises of real debits, beside
// the sample's three months.
func TestFindRecurringFindsPlantedRhythms(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	var txs []planted
	// Netflix on the 9th since January (the sample has October and November), 12.99 until a
	// price rise in April; a 9th on a weekend is paid on the Monday.
	for _, d := range []string{"01-09", "02-09", "03-09", "04-09", "05-11", "06-09", "07-09", "08-10", "09-09"} {
		amount := int64(-13990)
		if d < "04" {
			amount = -12990
		}
		txs = append(txs, planted{date: "2026-" + d, payee: "Netflix", category: "Streaming", amount: amount})
	}
	// A gym every Monday from June, once on the Tuesday after a holiday.
	for d := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC); d.Before(sandboxToday); d = d.AddDate(0, 0, 7) {
		day := d
		if day.Format(time.DateOnly) == "2026-08-03" {
			day = day.AddDate(0, 0, 1)
		}
		txs = append(txs, planted{date: day.Format(time.DateOnly), payee: "Sportschool FitFun", category: "Uitjes", amount: -7500})
	}
	// A streaming service paid on the 20th until June, then cancelled.
	for _, d := range []string{"01-20", "02-20", "03-20", "04-20", "05-20", "06-22"} {
		txs = append(txs, planted{date: "2026-" + d, payee: "Disney+", category: "Streaming", amount: -9990})
	}
	// The tennis club's quarterly fee (the sample has October's, and a court hire in November).
	for _, d := range []string{"01-08", "04-08", "07-08"} {
		txs = append(txs, planted{date: "2026-" + d, payee: "Tennisvereniging Smash", category: "Tennis", amount: -135000})
	}
	// A salary on the 24th, or the Friday before when that is a weekend.
	for _, d := range []string{"01-23", "02-24", "03-24", "04-24", "05-22", "06-24", "07-24", "08-24", "09-24"} {
		txs = append(txs, planted{date: "2026-" + d, payee: "Acme Nederland B.V.", category: readyToAssign, amount: 2215400, memo: "Salaris"})
	}
	// A yearly membership: the 15th of March, or the Monday after.
	for _, d := range []string{"2024-03-15", "2025-03-17", "2026-03-16"} {
		txs = append(txs, planted{date: d, payee: "ANWB", category: "Vervoer", amount: -59000})
	}
	// A shop visited now and then, not on a rhythm.
	for _, d := range []string{"2026-02-03", "2026-02-17", "2026-03-30", "2026-05-02", "2026-05-09", "2026-07-21", "2026-09-01"} {
		txs = append(txs, planted{date: d, payee: "Blokker", category: "Onderhoud huis", amount: -12500})
	}
	plant(e, txs...)
	e.sb.ResetCounts()

	var out findRecurringOut
	e.ok("find_recurring", nil, &out)
	checkRecurring(t, out, []string{
		"Acme Nederland B.V. monthly ×11 typical €2.215,40 (2215400) €2.215,40..€2.215,40 last €2.215,40 on 2026-11-24 next 2026-12-24 [Inflow: Ready to Assign] on Betaalrekening -",
		"Woonstichting De Key monthly ×3 typical -€1.150,00 (-1150000) -€1.150,00..-€1.150,00 last -€1.150,00 on 2026-12-01 next 2027-01-01 [Vaste lasten: Huur] on Betaalrekening scheduled",
		"Zilveren Kruis monthly ×3 typical -€298,00 (-298000) -€298,00..-€298,00 last -€298,00 on 2026-12-01 next 2027-01-01 [Vaste lasten: Zorgverzekering] on Betaalrekening scheduled",
		"Tennisvereniging Smash every3Months ×4 typical -€135,00 (-135000) -€135,00..-€135,00 last -€135,00 on 2026-10-08 next 2027-01-08 [Vrije tijd: Tennis] on Betaalrekening scheduled",
		"Sportschool FitFun weekly ×27 typical -€7,50 (-7500) -€7,50..-€7,50 last -€7,50 on 2026-11-30 next 2026-12-07 [Vrije tijd: Uitjes] on Betaalrekening -",
		"Netflix monthly ×11 typical -€13,99 (-13990) -€12,99..-€13,99 last -€13,99 on 2026-11-09 next 2026-12-09 [Vrije tijd: Streaming] on Betaalrekening scheduled",
		"Disney+ monthly ×6 typical -€9,99 (-9990) -€9,99..-€9,99 last -€9,99 on 2026-06-22 next 2026-07-20 MISSED [Vrije tijd: Streaming] on Betaalrekening -",
	})
	if e.writes() != 0 {
		t.Errorf("find_recurring wrote %d times", e.writes())
	}

	// A yearly rhythm shows once the history reaches back far enough.
	var longer findRecurringOut
	e.ok("find_recurring", map[string]any{"since": "2024-01"}, &longer)
	var anwb []string
	for _, v := range longer.Recurring {
		if v.Payee == "ANWB" {
			anwb = append(anwb, recurringLine(v))
		}
	}
	if want := "ANWB yearly ×3 typical -€59,00 (-59000) -€59,00..-€59,00 last -€59,00 on 2026-03-16 next 2027-03-15 [Dagelijks: Vervoer] on Betaalrekening -"; strings.Join(anwb, "") != want {
		t.Errorf("ANWB = %q, want %q", anwb, want)
	}
	if longer.Since != "2024-01-01" {
		t.Errorf("since = %s", longer.Since)
	}
}

func TestFindRecurringRefusesBadSince(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	e.fails("find_recurring", map[string]any{"since": "a while ago"}, `since: "a while ago" is neither a date`)
	e.fails("find_recurring", map[string]any{"since": "2026-02-29"}, `since: "2026-02-29" is not a calendar date`)
}
