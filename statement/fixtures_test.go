package statement

import (
	"path/filepath"
	"testing"
)

// TestFixtures reads the real statements in ../shared/statements/fixtures (published by
// others; see its SOURCES.md) and checks what SOURCES.md's table says each holds: the number of
// lines, their first and last booking date, the currency, the opening balance of the file's
// first statement and the closing balance of its last, and whether the lines add up from one to
// the other. Each case then checks the quirk its notes name.
func TestFixtures(t *testing.T) {
	dir := fixturesDir(t)
	const (
		unknown = iota // the file gives no opening balance
		addsUp
		doesNotAddUp
	)
	tests := []struct {
		file             string
		format           Format
		statements       int
		lines            int
		first, last      string
		currency         string
		opening, closing *Balance
		balances         int
		check            func(t *testing.T, sts []Statement)
	}{
		{
			file: "ing.sta", format: FormatMT940, statements: 1, lines: 7,
			first: "2010-07-22", last: "2010-07-23", currency: "EUR",
			opening: balAt("2010-07-22", 0), closing: balAt("2010-07-23", 3470), balances: doesNotAddUp,
			check: func(t *testing.T, sts []Statement) {
				// The :86: after :62F: (ING's totals) describes no line.
				l := sts[0].Lines[6]
				if l.Amount != 1000 || l.Description != "0111111111 Hr S Marechal ROSMALEN Hr S Marechal ROSMALEN Betaling transactiedatum: 22-07-2010" {
					t.Errorf("last line %+v", l)
				}
			},
		},
		{
			file: "rabobank-iban.sta", format: FormatMT940, statements: 2, lines: 4,
			first: "2013-01-01", last: "2013-01-09", currency: "EUR",
			opening: balAt("2013-01-01", 1000000), closing: balAt("2013-01-15", 930000), balances: addsUp,
			check: func(t *testing.T, sts []Statement) {
				want := []Line{
					{Date: "2013-01-01", ValueDate: "2013-01-01", Amount: -25000, Decimals: 2, Payee: "CONTRA ACCOUNT HOLDER", Counterparty: "NL70ABNA0987654321", Source: 6},
					{Date: "2013-01-02", ValueDate: "2013-01-02", Amount: -10000, Decimals: 2, Payee: "JOHN DOE", Description: "Reference 201301234", Counterparty: "P001234567", Source: 10},
				}
				for i, w := range want {
					if g := sts[0].Lines[i]; g != w {
						t.Errorf("line %d:\n got %+v\nwant %+v", i, g, w)
					}
				}
				if sts[0].Account != "NL71RABO0123456789" || sts[1].Lines[0].Amount != -25000 || sts[1].Lines[1].Amount != -10000 {
					t.Errorf("second statement %+v", sts[1])
				}
			},
		},
		{
			file: "abnamro.sta", format: FormatMT940, statements: 2, lines: 10,
			first: "2011-05-23", last: "2011-05-24", currency: "EUR",
			opening: balAt("2011-05-22", 3236280), closing: balAt("2011-05-24", 1849750), balances: doesNotAddUp,
			check: func(t *testing.T, sts []Statement) {
				ls := sts[0].Lines
				// :61:1105240524D9, — :61:1105210523D11,59 — :61:1105220523D11,8 — :61:1105210523D107,
				checks := []struct {
					i           int
					date, value string
					amount      int64
					decimals    int
				}{
					{0, "2011-05-24", "2011-05-24", -9000, 0},
					{1, "2011-05-23", "2011-05-21", -11590, 2},
					{3, "2011-05-23", "2011-05-22", -11800, 1},
					{6, "2011-05-23", "2011-05-21", -107000, 0},
				}
				for _, c := range checks {
					l := ls[c.i]
					if l.Date != c.date || l.ValueDate != c.value || l.Amount != c.amount || l.Decimals != c.decimals {
						t.Errorf("line %d: %+v", c.i, l)
					}
				}
				// The first part ends with :62F:, so the :60M: after it starts a statement of its
				// own rather than continuing one.
				if sts[0].Closing.Amount != 876840 || sts[1].Opening.Amount != 2876840 {
					t.Errorf("balances %s, %s", balString(sts[0].Closing), balString(sts[1].Opening))
				}
			},
		},
		{
			file: "asnb-mt940.txt", format: FormatMT940, statements: 31, lines: 8,
			first: "2020-01-01", last: "2020-01-31", currency: "EUR",
			opening: balAt("2020-01-01", 444290), closing: balAt("2020-01-31", 501230), balances: addsUp,
			check: func(t *testing.T, sts []Statement) {
				want := Line{Date: "2020-01-01", ValueDate: "2020-01-01", Amount: -65000, Decimals: 2, Payee: "hr gjlm paulissen", Description: "Betaling sieraden", Counterparty: "NL47INGB9999999999", Source: 6}
				if g := sts[0].Lines[0]; g != want {
					t.Errorf("first line\n got %+v\nwant %+v", g, want)
				}
				// A line of :86: cut at 65 characters inside a word.
				if d := sts[28].Lines[0].Description; d != "2020-01-28T14:32:46-000000000000089-NL25INGB9999999999-Transfer Solutions BV-DIVIDEND 28/01/2020" {
					t.Errorf("description %q", d)
				}
			},
		},
		{
			file: "dnb-camt053-simple.xml", format: FormatCAMT, statements: 1, lines: 4,
			first: "2015-12-31", last: "2015-12-31", currency: "EUR",
			opening: balAt("2015-12-01", 306530), closing: balAt("2015-12-31", 125520), balances: addsUp,
			check: func(t *testing.T, sts []Statement) {
				ls := sts[0].Lines
				want := Line{Date: "2015-12-31", ValueDate: "2016-01-01", Amount: -290, Decimals: 2, Payee: "AB DNB Bankas", Description: "Sąskaitos aptarnavimo mokestis", BankID: "FC1261858984", Source: 82}
				if ls[0] != want {
					t.Errorf("first line\n got %+v\nwant %+v", ls[0], want)
				}
				if ls[1].Amount != -290 || ls[1].Date != "2015-12-31" || ls[1].BankID != "FC1262466699" {
					t.Errorf("second line %+v", ls[1])
				}
			},
		},
		{
			file: "test-camt053", format: FormatCAMT, statements: 1, lines: 3,
			first: "2014-01-05", last: "2014-01-05", currency: "EUR",
			opening: balAt("2014-01-05", 15568270), closing: balAt("2014-01-05", 15121120), balances: doesNotAddUp,
			check: func(t *testing.T, sts []Statement) {
				// The batch: one Ntry of 664,05 with two TxDtls (564,05 + 100,00), a reversal
				// booked as DBIT.
				want := Line{Date: "2014-01-05", ValueDate: "2014-01-05", Amount: -664050, Decimals: 2, Payee: "Test Customer", Description: "Direct Debit S14 0410", Counterparty: "NL46ABNA0499998748", Reversal: true, Source: 113}
				if g := sts[0].Lines[1]; g != want {
					t.Errorf("batch line\n got %+v\nwant %+v", g, want)
				}
				if sts[0].Account != "NL77ABNA0574908765" {
					t.Errorf("account %q", sts[0].Account)
				}
			},
		},
		{
			file: "camt053-v08-chf.xml", format: FormatCAMT, statements: 1, lines: 1,
			first: "2023-01-25", last: "2023-01-25", currency: "CHF",
			opening: balAt("2023-01-25", 832010), closing: balAt("2023-01-25", 2116310), balances: addsUp,
			check: func(t *testing.T, sts []Statement) {
				want := Line{Date: "2023-01-25", ValueDate: "2023-01-25", Amount: 1284300, Decimals: 2, Payee: "PAYEE", Description: "PAYMENT INFO", BankID: "8082230156M02SJ62/1010", Source: 99}
				if g := sts[0].Lines[0]; g != want {
					t.Errorf("line\n got %+v\nwant %+v", g, want)
				}
				if sts[0].Account != "0035-2915203-10-000" {
					t.Errorf("account %q", sts[0].Account)
				}
			},
		},
		{
			file: "checking.ofx", format: FormatOFX, statements: 1, lines: 3,
			first: "2011-03-31", last: "2011-04-07", currency: "USD",
			closing: balAt("2013-05-25", 100990), balances: unknown,
			check: func(t *testing.T, sts []Statement) {
				for i, id := range []string{"0000486", "0000487", "0000488"} {
					if g := sts[0].Lines[i].BankID; g != id {
						t.Errorf("line %d FITID %q, want %q", i, g, id)
					}
				}
				if l := sts[0].Lines[1]; l.Amount != -34510 || l.Payee != "AUTOMATIC WITHDRAWAL, ELECTRIC BILL" || l.Description != "AUTOMATIC WITHDRAWAL, ELECTRIC BILL WEB(S )" {
					t.Errorf("second line %+v", l)
				}
			},
		},
		{
			file: "test_ofx.ofx", format: FormatOFX, statements: 2, lines: 4,
			first: "2013-08-24", last: "2013-08-24", currency: "USD",
			closing: balAt("2013-08-31", -562000), balances: unknown,
			check: func(t *testing.T, sts []Statement) {
				// Four BANKTRANLISTs in one STMTRS, then an empty credit-card statement.
				if len(sts[0].Lines) != 4 || len(sts[1].Lines) != 0 || sts[1].Account != "123412341234" {
					t.Fatalf("statements %+v", sts)
				}
				if c := sts[0].Closing; c == nil || c.Amount != 2156560 {
					t.Errorf("closing %s", balString(c))
				}
				want := Line{Date: "2013-08-24", Amount: -80000, Decimals: 0, Payee: "Agrolait", BankID: "219378", Source: 31}
				if g := sts[0].Lines[0]; g != want {
					t.Errorf("first line\n got %+v\nwant %+v", g, want)
				}
				if a, b := sts[0].Lines[1], sts[0].Lines[3]; a.Amount != -90000 || b.Amount != -90000 || a.Payee != "China Export" || b.Payee != "China Scuba" {
					t.Errorf("the two lines of -90: %+v, %+v", a, b)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := readFile(t, filepath.Join(dir, tt.file))
			if f, err := Detect(data); err != nil || f != tt.format {
				t.Fatalf("Detect = %q, %v; want %q", f, err, tt.format)
			}
			sts, err := Parse(data, FormatAuto, CSVOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(sts) != tt.statements {
				t.Fatalf("%d statements, want %d", len(sts), tt.statements)
			}
			var n int
			var sum int64
			first, last := "9999-12-31", "0000-01-01"
			for _, st := range sts {
				if st.Format != tt.format || st.Currency != tt.currency {
					t.Errorf("statement %s in %q, want %s in %q", st.Format, st.Currency, tt.format, tt.currency)
				}
				for _, l := range st.Lines {
					n++
					sum += l.Amount
					first, last = min(first, l.Date), max(last, l.Date)
				}
			}
			if n != tt.lines || first != tt.first || last != tt.last {
				t.Errorf("%d lines from %s to %s, want %d from %s to %s", n, first, last, tt.lines, tt.first, tt.last)
			}
			opening, closing := sts[0].Opening, sts[len(sts)-1].Closing
			if balString(opening) != balString(tt.opening) || balString(closing) != balString(tt.closing) {
				t.Errorf("opening %s, closing %s; want %s, %s", balString(opening), balString(closing), balString(tt.opening), balString(tt.closing))
			}
			switch tt.balances {
			case addsUp:
				if opening.Amount+sum != closing.Amount {
					t.Errorf("%d + %d ≠ %d, and SOURCES.md says the balances add up", opening.Amount, sum, closing.Amount)
				}
			case doesNotAddUp:
				if opening.Amount+sum == closing.Amount {
					t.Errorf("the balances add up, and SOURCES.md says they do not")
				}
			}
			tt.check(t, sts)
		})
	}
}
