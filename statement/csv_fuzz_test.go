package statement

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzOptions are the csv arguments the fuzzer combines with its files, by a byte.
var fuzzOptions = []CSVOptions{
	{},
	{Delimiter: ";"},
	{Decimal: ","},
	{DateFormat: "DD-MM-YYYY"},
	{Date: "1", Amount: "3", Payee: "2"},
	{Date: "1", Debit: "2", Credit: "3", Memo: "4"},
	{Delimiter: "\t", Date: "Datum", Amount: "Bedrag", DebitCredit: "Af Bij"},
}

// FuzzParseCSV feeds parseCSV arbitrary files: it must never panic, fail only with an *Error,
// and what it returns must keep the contract (real dates, at most 3 decimals, lines in the
// file's order, every statement with a line).
func FuzzParseCSV(f *testing.F) {
	entries, err := os.ReadDir(filepath.Join("testdata", "csv"))
	if err != nil {
		f.Fatal(err)
	}
	for i, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join("testdata", "csv", e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(i))
	}
	f.Add([]byte("Date,Amount\n2024-01-01,\"1,00\n"), uint8(0))
	f.Add([]byte("'a,'b\n'c','d'\n"), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, opt uint8) {
		_ = looksCSV(data)
		sts, err := parseCSV(data, fuzzOptions[int(opt)%len(fuzzOptions)])
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || err != error(e) {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			if e.Msg == "" {
				t.Fatalf("an *Error without a message: %+v", e)
			}
			return
		}
		if len(sts) == 0 {
			t.Fatal("no statement and no error")
		}
		for _, st := range sts {
			if st.Format != FormatCSV || len(st.Lines) == 0 {
				t.Fatalf("statement %+v", st)
			}
			prev := 0
			for _, l := range st.Lines {
				if !isISODate(l.Date) || (l.ValueDate != "" && !isISODate(l.ValueDate)) {
					t.Fatalf("line %d: dates %q, %q", l.Source, l.Date, l.ValueDate)
				}
				if l.Decimals < 0 || l.Decimals > 3 {
					t.Fatalf("line %d: %d decimals", l.Source, l.Decimals)
				}
				if l.Source <= prev {
					t.Fatalf("line %d after line %d", l.Source, prev)
				}
				prev = l.Source
			}
			for _, b := range []*Balance{st.Opening, st.Closing} {
				if b != nil && !isISODate(b.Date) {
					t.Fatalf("balance date %q", b.Date)
				}
			}
		}
	})
}

func isISODate(s string) bool {
	f := mustDateFormat("YYYY-MM-DD")
	got, ok := f.parse(s)
	return ok && got == s
}

// BenchmarkParseCSV reads a 10,000-line export: ING's semicolon layout (newest first, with
// its running balance), and a generic one whose decimal mark and date format are detected.
func BenchmarkParseCSV(b *testing.B) {
	const n = 10000
	var ing, generic strings.Builder
	ing.WriteString(`"Datum";"Naam / Omschrijving";"Rekening";"Tegenrekening";"Code";"Af Bij";"Bedrag (EUR)";"Mutatiesoort";"Mededelingen";"Saldo na mutatie";"Tag"` + "\n")
	generic.WriteString("Buchungstag;Wertstellung;Empfänger;Verwendungszweck;Betrag\n")
	balance := int64(100_000_00) // cents
	for i := range n {
		day := 20240101 + i%28
		amount := int64(i%5000 + 1)
		af := "Af"
		if i%3 == 0 {
			af = "Bij"
		}
		fmt.Fprintf(&ing, `"%d";"Fictieve Winkel %d";"NL00TEST0123456789";"NL00TEST%010d";"BA";"%s";"%d,%02d";"Betaalautomaat";"Pasvolgnr: 001 Transactie: X%d Valutadatum: 01-01-2024";"%d,%02d";""`+"\n",
			day, i%50, i, af, amount/100, amount%100, i, balance/100, balance%100)
		fmt.Fprintf(&generic, "%02d.%02d.2024;%02d.%02d.2024;Fiktive Firma %d;Rechnung %d;%s%d.%03d,%02d\n",
			i%28+1, i%12+1, i%28+1, i%12+1, i%50, i, map[bool]string{true: "-", false: ""}[i%2 == 0], 1+i%9, i%1000, i%100)
	}
	for _, c := range []struct {
		name string
		data []byte
	}{{"ING", []byte(ing.String())}, {"generic", []byte(generic.String())}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			for b.Loop() {
				sts, err := parseCSV(c.data, CSVOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if len(sts) != 1 || len(sts[0].Lines) != n {
					b.Fatalf("%d statements", len(sts))
				}
			}
		})
	}
}
