package sandbox_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/statement"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// The sample's statements read as what they are, in every format, and say the same: the same
// lines (dates, amounts, the bank's ids where the format has them) and closing balance, for the
// sample's IBAN, in euros. ING's CSV lists its lines newest first and has no id for a line; its
// balances come from "Saldo na mutatie".
func TestSampleStatementsParse(t *testing.T) {
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	var first, withIDs []statement.Line
	var closing statement.Balance
	for _, s := range sandbox.SampleStatements(now) {
		t.Run(s.Name, func(t *testing.T) {
			got, err := statement.Parse(s.Data, statement.FormatAuto, statement.CSVOptions{})
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if len(got) != 1 || got[0].Format != statement.Format(s.Format) || got[0].Account != sandbox.SampleIBAN || got[0].Currency != "EUR" || got[0].Closing == nil {
				t.Fatalf("statements = %+v", got)
			}
			lines := slices.Clone(got[0].Lines)
			if s.Format == "csv" {
				slices.Reverse(lines) // newest first, as ING lists them
			}
			if len(lines) < 8 {
				t.Fatalf("%d lines, want the sample's two weeks", len(lines))
			}
			hasID := s.Format != "csv"
			var sum int64
			for i, l := range lines {
				if l.Date > "2026-12-02" || l.Date < "2026-11-17" || l.Amount == 0 || (l.BankID != "") != hasID || l.Decimals != 2 {
					t.Errorf("line %+v", l)
				}
				if i > 0 && l.Date < lines[i-1].Date {
					t.Errorf("line %d (%s) is older than the line before it (%s)", i, l.Date, lines[i-1].Date)
				}
				if s.Format == "csv" && (l.ValueDate != l.Date || strings.Contains(l.Description, "Valutadatum")) {
					t.Errorf("line %d: value date %q, description %q: want Valutadatum read out of Mededelingen", i, l.ValueDate, l.Description)
				}
				sum += l.Amount
			}
			if o := got[0].Opening; o != nil && o.Amount+sum != got[0].Closing.Amount {
				t.Errorf("opening %d + lines %d != closing %d", o.Amount, sum, got[0].Closing.Amount)
			}
			if s.Format == "csv" && got[0].Opening == nil {
				t.Errorf("no opening balance from Saldo na mutatie")
			}
			if hasID && withIDs == nil {
				withIDs = lines
			}
			if hasID && len(lines) == len(withIDs) {
				for i := range lines {
					if lines[i].BankID != withIDs[i].BankID {
						t.Errorf("line %d: bank id %q, another format's %q", i, lines[i].BankID, withIDs[i].BankID)
					}
				}
			}
			if first == nil {
				first, closing = lines, *got[0].Closing
				return
			}
			if *got[0].Closing != closing {
				t.Errorf("closing %+v, the first format's %+v", *got[0].Closing, closing)
			}
			if len(lines) != len(first) {
				t.Fatalf("%d lines, the first format has %d", len(lines), len(first))
			}
			for i := range first {
				if first[i].Date != lines[i].Date || first[i].Amount != lines[i].Amount {
					t.Fatalf("line %d differs between the formats: %+v and %+v", i, first[i], lines[i])
				}
			}
		})
	}
}
