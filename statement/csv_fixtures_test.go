package statement

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fixturesDir finds ../shared/statements/fixtures from the repository root (the directory of
// go.mod), whatever directory the test runs in, and skips the test where it is absent.
func fixturesDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test's directory")
		}
		dir = parent
	}
	fx := filepath.Join(dir, "..", "shared", "statements", "fixtures")
	if _, err := os.Stat(fx); err != nil {
		t.Skipf("real statement files not present (%v)", err)
	}
	return fx
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixturesDir(t), name))
	if err != nil {
		t.Skipf("fixture %s not present: %v", name, err)
	}
	return b
}

// fixtureOracle is what ../shared/statements/SOURCES.md's oracle table says of a CSV fixture.
type fixtureOracle struct {
	file             string
	lines            int
	first, last      string // the earliest and the latest line's date
	currency         string
	opening, closing *int64
}

func milli(v int64) *int64 { return &v }

// TestParseCSVFixtures reads the real bank exports others published and checks them against
// the oracle: number of lines, dates, currency, balances, and the quirks it names.
func TestParseCSVFixtures(t *testing.T) {
	oracles := []fixtureOracle{
		{file: "ing_ok.csv", lines: 6, first: "2019-12-13", last: "2020-02-13", currency: "EUR"},
		{file: "transactie-historie_NL00ASNB9999999999_20220717204133.csv", lines: 11, first: "2022-06-17", last: "2022-07-11", currency: "EUR", opening: milli(130440), closing: milli(84240)},
		{file: "Knab_transactieoverzicht_ok.csv", lines: 28, first: "2019-01-07", last: "2019-06-21", currency: "EUR"},
		{file: "2019-03-02_11-50-46_bunq-statement.csv", lines: 7, first: "2018-12-06", last: "2018-12-17", currency: "EUR"},
	}
	for _, o := range oracles {
		t.Run(o.file, func(t *testing.T) {
			data := readFixture(t, o.file)
			if !looksCSV(data) {
				t.Errorf("looksCSV is false")
			}
			sts, err := parseCSV(data, CSVOptions{})
			if err != nil {
				t.Fatalf("parseCSV: %v", err)
			}
			if len(sts) != 1 {
				t.Fatalf("%d statements, want 1", len(sts))
			}
			st := sts[0]
			if len(st.Lines) != o.lines {
				t.Errorf("%d lines, want %d", len(st.Lines), o.lines)
			}
			first, last := st.Lines[0].Date, st.Lines[0].Date
			for _, l := range st.Lines {
				first, last = min(first, l.Date), max(last, l.Date)
			}
			if first != o.first || last != o.last {
				t.Errorf("dates %s … %s, want %s … %s", first, last, o.first, o.last)
			}
			if st.Currency != o.currency {
				t.Errorf("currency %q, want %q", st.Currency, o.currency)
			}
			switch {
			case o.opening == nil && (st.Opening != nil || st.Closing != nil):
				t.Errorf("balances %v → %v, want none", st.Opening, st.Closing)
			case o.opening != nil && (st.Opening == nil || st.Closing == nil):
				t.Errorf("balances %v → %v, want %d → %d", st.Opening, st.Closing, *o.opening, *o.closing)
			case o.opening != nil:
				if st.Opening.Amount != *o.opening || st.Closing.Amount != *o.closing {
					t.Errorf("balances %d → %d, want %d → %d", st.Opening.Amount, st.Closing.Amount, *o.opening, *o.closing)
				}
				checkAddsUp(t, st)
			}
		})
	}
}

// TestParseCSVFixtureLines checks the lines the oracle's notes single out.
func TestParseCSVFixtureLines(t *testing.T) {
	t.Run("ING", func(t *testing.T) {
		st := parseOne(t, readFixture(t, "ing_ok.csv"))
		if st.Account != "NL99INGB9999999999" {
			t.Errorf("account %q", st.Account)
		}
		want := Line{Date: "2020-02-13", ValueDate: "2020-02-13", Amount: -1250, Decimals: 2, Payee: "Kosten OranjePakket met korting", Description: "1 jan t/m 31 jan 2020 ING BANK N.V.", Source: 2}
		if !reflect.DeepEqual(st.Lines[0], want) {
			t.Errorf("first line\n%s\nwant\n%s", show(st.Lines[0]), show(want))
		}
		// The zero line (a Kwijtschelding of 0,00) is kept: leaving it out is the caller's.
		if l := st.Lines[2]; l.Amount != 0 || l.Decimals != 2 || l.Payee != "Kwijtschelding" {
			t.Errorf("zero line %s", show(l))
		}
		// A transfer: the name, its IBAN, and the Omschrijving out of Mededelingen.
		want = Line{Date: "2019-12-13", ValueDate: "2019-12-13", Amount: 20000, Decimals: 2, Payee: "PAULISSEN G J L M", Description: "Kosten rekening", Counterparty: "NL99ASNB9999999999", Source: 5}
		if !reflect.DeepEqual(st.Lines[3], want) {
			t.Errorf("transfer\n%s\nwant\n%s", show(st.Lines[3]), show(want))
		}
		// Two identical lines on one day, both kept, told apart only by where they are.
		a, b := st.Lines[4], st.Lines[5]
		if a.Amount != -310 || a.Source == b.Source {
			t.Errorf("identical lines %s %s", show(a), show(b))
		}
		b.Source = a.Source
		if a != b {
			t.Errorf("identical lines differ: %s %s", show(a), show(st.Lines[5]))
		}
	})
	t.Run("ASN", func(t *testing.T) {
		st := parseOne(t, readFixture(t, "transactie-historie_NL00ASNB9999999999_20220717204133.csv"))
		if st.Account != "NL00ASNB9999999999" {
			t.Errorf("account %q", st.Account)
		}
		// Bank costs: no counterparty name; the description says what it is.
		want := Line{Date: "2022-06-25", ValueDate: "2022-06-25", Amount: -2200, Decimals: 2, Description: "Kosten gebruik betaalrekening inclusief 1 betaalpas", BankID: "50951652", Source: 3}
		if !reflect.DeepEqual(st.Lines[2], want) {
			t.Errorf("third line\n%s\nwant\n%s", show(st.Lines[2]), show(want))
		}
		for i, date := range map[int]string{8: "2022-07-08", 9: "2022-07-09"} {
			if l := st.Lines[i]; l.Amount != -1000000 || l.Date != date {
				t.Errorf("line %d: %s, want -1000.00 on %s", i+1, show(l), date)
			}
		}
	})
	t.Run("Knab", func(t *testing.T) {
		st := parseOne(t, readFixture(t, "Knab_transactieoverzicht_ok.csv"))
		if st.Account != "NL99KNAB9999999999" {
			t.Errorf("account %q", st.Account)
		}
		want := Line{Date: "2019-06-21", ValueDate: "2019-06-21", Amount: -827750, Decimals: 2, Payee: "Gert Janssen (FR)", Description: "Tresorie", Counterparty: "FR9999999999999999999999999", BankID: "B9F21PGYA068V2KD", Source: 3}
		if !reflect.DeepEqual(st.Lines[0], want) {
			t.Errorf("first line\n%s\nwant\n%s", show(st.Lines[0]), show(want))
		}
		// Transactiedatum 09-06-2019, Valutadatum and Boekdatum 10-06-2019: the booking date.
		if l := st.Lines[6]; l.Date != "2019-06-10" || l.Amount != -1000000 || l.Decimals != 0 {
			t.Errorf("line booked a day after its transaction: %s", show(l))
		}
		// "2500" D and "2500" C on one day.
		if st.Lines[2].Amount != -2500000 || st.Lines[3].Amount != 2500000 || st.Lines[2].Date != st.Lines[3].Date {
			t.Errorf("transfers out and in: %s %s", show(st.Lines[2]), show(st.Lines[3]))
		}
	})
	t.Run("bunq", func(t *testing.T) {
		st := parseOne(t, readFixture(t, "2019-03-02_11-50-46_bunq-statement.csv"))
		if st.Account != "NL26BUNQ2025126409" {
			t.Errorf("account %q", st.Account)
		}
		want := Line{Date: "2018-12-06", Amount: -8780, Decimals: 2, Payee: "CLOUDFLARE", Description: "CLOUDFLARE 650-3198939, US 9.95 USD, 1 USD = 0.88241 EUR", Source: 2}
		if !reflect.DeepEqual(st.Lines[0], want) {
			t.Errorf("first line\n%s\nwant\n%s", show(st.Lines[0]), show(want))
		}
		if l := st.Lines[2]; l.Amount != 8780 || l.Date != "2018-12-06" {
			t.Errorf("refund %s", show(l))
		}
	})
}

func parseOne(t *testing.T, data []byte) Statement {
	t.Helper()
	sts, err := parseCSV(data, CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sts) != 1 {
		t.Fatalf("%d statements, want 1", len(sts))
	}
	return sts[0]
}

// TestLooksCSV checks the detector's test on every real file and the project's own: the CSV
// exports pass, the tagged formats do not.
func TestLooksCSV(t *testing.T) {
	own, err := os.ReadDir(filepath.Join("testdata", "csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range own {
		if e.Name() == "empty.csv" || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if !looksCSV(readTestdata(t, e.Name())) {
			t.Errorf("%s: looksCSV false", e.Name())
		}
	}
	for _, bad := range []string{"", "   \n", "just one line of words\n", "<xml/>", "a,b\x00,c\n"} {
		if looksCSV([]byte(bad)) {
			t.Errorf("looksCSV(%q) true", bad)
		}
	}
	dir := fixturesDir(t)
	for name, want := range map[string]bool{
		"ing_ok.csv": true, "transactie-historie_NL00ASNB9999999999_20220717204133.csv": true,
		"Knab_transactieoverzicht_ok.csv": true, "2019-03-02_11-50-46_bunq-statement.csv": true,
		"ing.sta": false, "rabobank-iban.sta": false, "abnamro.sta": false, "asnb-mt940.txt": false,
		"dnb-camt053-simple.xml": false, "test-camt053": false, "camt053-v08-chf.xml": false,
		"checking.ofx": false, "test_ofx.ofx": false,
	} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Logf("%s: %v", name, err)
			continue
		}
		if got := looksCSV(b); got != want {
			t.Errorf("%s: looksCSV %v, want %v", name, got, want)
		}
	}
}
