package statement

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "csv", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func bal(date string, milli int64) *Balance { return &Balance{Date: date, Amount: milli} }

func show(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// TestParseCSVLayouts reads the project's own statements, one or more per bank layout, and
// checks every line exactly.
func TestParseCSVLayouts(t *testing.T) {
	tests := []struct {
		file string
		opts CSVOptions
		want []Statement
	}{
		{
			file: "ing_comma.csv", // Af/Bij, thousands separator, Valutadatum and labels in Mededelingen
			want: []Statement{{
				Format: FormatCSV, Account: "NL00TEST0123456789", Currency: "EUR",
				Lines: []Line{
					{Date: "2024-03-15", ValueDate: "2024-03-15", Amount: -23450, Decimals: 2, Payee: "Fictieve Supermarkt", Description: "Pasvolgnr: 001 15-03-2024 10:12 Transactie: A1B2C3 Term: T001", Source: 2},
					{Date: "2024-03-14", ValueDate: "2024-03-14", Amount: 1234560, Decimals: 2, Payee: "J. Testpersoon", Description: "Terugbetaling vakantie", Counterparty: "NL00TEST9876543210", Source: 3},
					{Date: "2024-03-01", ValueDate: "2024-03-01", Amount: -98100, Decimals: 2, Payee: "Testverzekeraar NV", Description: "Premie maart", Counterparty: "NL00TEST1111111111", Source: 4},
				},
			}},
		},
		{
			file: "ing_semicolon.csv", // newest first, Saldo na mutatie
			want: []Statement{{
				Format: FormatCSV, Account: "NL00TEST0123456789", Currency: "EUR",
				Opening: bal("2024-03-18", 514500), Closing: bal("2024-03-20", 1500000),
				Lines: []Line{
					{Date: "2024-03-20", ValueDate: "2024-03-20", Amount: -4500, Decimals: 2, Payee: "Fictieve Bakker", Source: 2},
					{Date: "2024-03-19", ValueDate: "2024-03-19", Amount: 1000000, Decimals: 2, Payee: "Salaris Test BV", Description: "Salaris maart", Counterparty: "NL00TEST2222222222", Source: 3},
					{Date: "2024-03-18", ValueDate: "2024-03-18", Amount: -10000, Decimals: 2, Payee: "Fictieve Bakker", Source: 4},
				},
			}},
		},
		{
			file: "rabobank.csv", // two accounts in one file, signed amounts, Saldo na trn
			want: []Statement{
				{
					Format: FormatCSV, Account: "NL00TEST0123456789", Currency: "EUR",
					Opening: bal("2024-04-02", 1000000), Closing: bal("2024-04-03", 737500),
					Lines: []Line{
						{Date: "2024-04-02", ValueDate: "2024-04-01", Amount: -12500, Decimals: 2, Payee: "Fictief Café", Description: "Lunch met collega's", Counterparty: "NL00TEST3333333333", BankID: "000000000000000101", Source: 2},
						{Date: "2024-04-03", ValueDate: "2024-04-03", Amount: -250000, Decimals: 2, Payee: "J. Testpersoon", Description: "Sparen april", Counterparty: "NL00TEST5555555555", BankID: "000000000000000102", Source: 4},
					},
				},
				{
					Format: FormatCSV, Account: "NL00TEST5555555555", Currency: "EUR",
					Opening: bal("2024-04-02", 5000000), Closing: bal("2024-04-30", 5251230),
					Lines: []Line{
						{Date: "2024-04-02", ValueDate: "2024-04-02", Amount: 250000, Decimals: 2, Payee: "J. Testpersoon", Description: "Sparen april", Counterparty: "NL00TEST0123456789", BankID: "000000000000000007", Source: 3},
						{Date: "2024-04-30", ValueDate: "2024-05-01", Amount: 1230, Decimals: 2, Description: "Rente", BankID: "000000000000000008", Source: 5},
					},
				},
			},
		},
		{
			file: "abnamro.tab", // headerless TAB, begin and end balances, three description forms
			want: []Statement{{
				Format: FormatCSV, Account: "123456789", Currency: "EUR",
				Opening: bal("2024-05-02", 1000000), Closing: bal("2024-05-05", 1462550),
				Lines: []Line{
					{Date: "2024-05-02", ValueDate: "2024-05-02", Amount: -25000, Decimals: 2, Payee: "Fictieve Winkel BV", Description: "BEA NR:AB12CD 02.05.24/09.15 Fictieve Winkel BV,PAS123", Source: 1},
					{Date: "2024-05-03", ValueDate: "2024-05-03", Amount: 500000, Decimals: 2, Payee: "Fictieve Werkgever", Description: "Loon mei", Counterparty: "NL00TEST4444444444", Source: 2},
					{Date: "2024-05-04", ValueDate: "2024-05-03", Amount: -9500, Decimals: 2, Payee: "Fictieve Sportclub", Description: "Contributie mei", Counterparty: "NL00TEST6666666666", Source: 3},
					{Date: "2024-05-05", ValueDate: "2024-05-05", Amount: -2950, Decimals: 2, Description: "ABN AMRO Bank N.V. Basic Package 2,95", Source: 4},
				},
			}},
		},
		{
			file: "asn.csv", // headerless, ' quotes only on the last text columns, balance before
			want: []Statement{{
				Format: FormatCSV, Account: "NL00TEST0123456789", Currency: "EUR",
				Opening: bal("2024-01-02", 1500000), Closing: bal("2024-01-04", 773500),
				Lines: []Line{
					{Date: "2024-01-02", ValueDate: "2024-01-02", Amount: -750000, Decimals: 2, Payee: "Fictieve Huisbaas", Description: "Huur januari, appartement 2", Counterparty: "NL00TEST7777777777", BankID: "00012345", Source: 1},
					{Date: "2024-01-03", ValueDate: "2024-01-03", Amount: -1500, Decimals: 2, Description: "Kosten betaalrekening", Source: 2},
					{Date: "2024-01-04", ValueDate: "2024-01-04", Amount: 25000, Decimals: 2, Payee: "'t Fictieve Hoekje", Description: "factuur 42 Terugbetaling", Counterparty: "NL00TEST8888888888", BankID: "00012346", Source: 3},
				},
			}},
		},
		{
			file: "regiobank.csv", // the same layout with a 20th column, negative balances
			want: []Statement{{
				Format: FormatCSV, Account: "NL00TEST0123456789", Currency: "EUR",
				Opening: bal("2024-02-15", -20000), Closing: bal("2024-02-16", 2000000),
				Lines: []Line{
					{Date: "2024-02-15", ValueDate: "2024-02-15", Amount: -80000, Decimals: 2, Payee: "Fictieve Garage", Description: "Onderhoud auto", Counterparty: "NL00TEST9999999999", BankID: "00000021", Source: 1},
					{Date: "2024-02-16", ValueDate: "2024-02-16", Amount: 2100000, Decimals: 2, Payee: "Salaris Test BV", Description: "Salaris februari", Counterparty: "NL00TEST2222222222", BankID: "00000022", Source: 2},
				},
			}},
		},
		{
			file: "triodos.csv", // headerless, Debet/Credit, a balance whose meaning is read from the data
			want: []Statement{{
				Format: FormatCSV, Account: "NL00TEST0123456789",
				Opening: bal("2024-06-01", 50000), Closing: bal("2024-06-03", 1250000),
				Lines: []Line{
					{Date: "2024-06-01", Amount: 1250000, Decimals: 2, Payee: "Fictieve Werkgever", Description: "Salaris juni", Counterparty: "NL00TEST4444444444", Source: 1},
					{Date: "2024-06-03", Amount: -45100, Decimals: 2, Payee: "Fictieve Biowinkel", Description: "Boodschappen", Counterparty: "NL00TEST3333333333", Source: 2},
					{Date: "2024-06-03", Amount: -4900, Decimals: 2, Payee: "Fictief Café", Description: "Koffie", Source: 3},
				},
			}},
		},
		{
			file: "rabobank_old.csv", // headerless, C/D, the booking date after the interest date
			want: []Statement{{
				Format: FormatCSV, Account: "NL00TEST0123456789", Currency: "EUR",
				Lines: []Line{
					{Date: "2017-01-05", ValueDate: "2017-01-05", Amount: -12500, Decimals: 2, Payee: "Fictief Cafe", Description: "Lunch januari", Counterparty: "NL00TEST3333333333", Source: 1},
					{Date: "2017-01-09", ValueDate: "2017-01-06", Amount: 1000000, Decimals: 2, Payee: "Salaris Test BV", Description: "Salaris januari", Counterparty: "NL00TEST2222222222", Source: 2},
				},
			}},
		},
		{
			file: "knab.csv", // preamble, CreditDebet, Boekdatum over Transactiedatum
			want: []Statement{{
				Format: FormatCSV, Account: "NL00TEST0123456789", Currency: "EUR",
				Lines: []Line{
					{Date: "2024-07-10", ValueDate: "2024-07-10", Amount: -1500000, Decimals: 0, Payee: "Fictieve Huisbaas", Description: "Huur juli", Counterparty: "NL00TEST7777777777", BankID: "TESTREF0000000002", Source: 3},
					{Date: "2024-07-08", ValueDate: "2024-07-08", Amount: 2345670, Decimals: 2, Payee: "Salaris Test BV", Counterparty: "NL00TEST2222222222", BankID: "TESTREF0000000001", Source: 4},
				},
			}},
		},
		{
			file: "bunq_en.csv",
			want: []Statement{{
				Format: FormatCSV, Account: "NL00BUNQ0123456789", Currency: "EUR",
				Lines: []Line{
					{Date: "2024-08-01", ValueDate: "2024-08-01", Amount: -3990, Decimals: 2, Payee: "Fictieve Streaming", Description: "Monthly plan, August", Source: 2},
					{Date: "2024-08-02", ValueDate: "2024-08-02", Amount: 1000000, Decimals: 2, Payee: "J. Testpersoon", Description: "Back from savings", Counterparty: "NL00TEST2222222222", Source: 3},
				},
			}},
		},
		{
			file: "bunq_nl.csv",
			want: []Statement{{
				Format: FormatCSV, Account: "NL00BUNQ0123456789", Currency: "EUR",
				Lines: []Line{
					{Date: "2024-08-05", Amount: -12000, Decimals: 2, Payee: "Fictieve Kapper", Description: "Knippen", Counterparty: "NL00TEST3333333333", Source: 2},
				},
			}},
		},
		{
			file: "generic_en.csv", // Debit and Credit columns, MM/DD told by a day above 12, plain Balance
			want: []Statement{{
				Format:  FormatCSV,
				Opening: bal("2024-03-28", 10000000), Closing: bal("2024-04-01", 10764750),
				Lines: []Line{
					{Date: "2024-03-28", Amount: -1234500, Decimals: 2, Payee: "Fictional Hardware", Description: "Card purchase", Source: 2},
					{Date: "2024-03-29", Amount: 2000000, Decimals: 2, Payee: "Test Employer Inc", Description: "Transfer in", Source: 3},
					{Date: "2024-04-01", Amount: -750, Decimals: 2, Payee: "Test Bank", Description: "Fee", Source: 4},
				},
			}},
		},
		{
			file: "generic_de.csv", // preamble, a blank line, Soll/Haben, "(EUR)" in the header
			want: []Statement{{
				Format: FormatCSV, Currency: "EUR",
				Lines: []Line{
					{Date: "2024-05-06", ValueDate: "2024-05-07", Amount: -3200, Decimals: 2, Payee: "Fiktive Bäckerei GmbH", Description: "Brötchen", Source: 6},
					{Date: "2024-05-02", ValueDate: "2024-05-02", Amount: 2500000, Decimals: 2, Payee: "Test Arbeitgeber AG", Description: "Gehalt Mai", Source: 7},
				},
			}},
		},
		{
			file: "generic_de_sign_behind.csv", // signs behind and in front
			want: []Statement{{
				Format: FormatCSV,
				Lines: []Line{
					{Date: "2024-06-10", Amount: -12500, Decimals: 2, Payee: "Fiktiver Versand", Description: "Bestellung 123", Source: 2},
					{Date: "2024-06-11", Amount: 12500, Decimals: 2, Payee: "Fiktiver Versand", Description: "Erstattung 123", Source: 3},
					{Date: "2024-06-12", Amount: -1045000, Decimals: 2, Payee: "Fiktive Stadtwerke", Description: "Abschlag Juni", Source: 4},
				},
			}},
		},
		{
			file: "generic_fr.csv", // DD/MM from a French header, space thousands separator
			want: []Statement{{
				Format: FormatCSV,
				Lines: []Line{
					{Date: "2024-07-05", ValueDate: "2024-07-05", Amount: -1234560, Decimals: 2, Description: "PRLV Fictive Assurance", Source: 2},
					{Date: "2024-07-09", ValueDate: "2024-07-10", Amount: 2100000, Decimals: 2, Description: "VIR Test Employeur", Source: 3},
				},
			}},
		},
		{
			file: "generic_nl_pipe.csv",
			want: []Statement{{
				Format: FormatCSV,
				Lines: []Line{
					{Date: "2024-08-01", Amount: -25000, Decimals: 2, Payee: "Fictieve Bibliotheek", Description: "Lidmaatschap", Source: 2},
					{Date: "2024-08-02", Amount: -500, Decimals: 2, Payee: "Fictieve Bibliotheek", Description: "Boete", Source: 3},
				},
			}},
		},
		{
			file: "ambiguous_dates.csv",
			opts: CSVOptions{DateFormat: "DD/MM/YYYY"},
			want: []Statement{{
				Format: FormatCSV,
				Lines: []Line{
					{Date: "2024-02-01", Amount: -5000, Decimals: 2, Payee: "Fictional Deli", Source: 2},
					{Date: "2024-03-02", Amount: -6500, Decimals: 2, Payee: "Fictional Deli", Source: 3},
				},
			}},
		},
		{
			file: "ambiguous_dates.csv",
			opts: CSVOptions{DateFormat: "%m/%d/%Y"},
			want: []Statement{{
				Format: FormatCSV,
				Lines: []Line{
					{Date: "2024-01-02", Amount: -5000, Decimals: 2, Payee: "Fictional Deli", Source: 2},
					{Date: "2024-02-03", Amount: -6500, Decimals: 2, Payee: "Fictional Deli", Source: 3},
				},
			}},
		},
		{
			file: "unknown_layout.csv", // columns by number; the header in words nobody knows is skipped
			opts: CSVOptions{Date: "1", Amount: "3", Payee: "2"},
			want: []Statement{{
				Format: FormatCSV,
				Lines: []Line{
					{Date: "2024-08-01", Amount: -9990, Decimals: 2, Payee: "Fictieve Winkel", Source: 2},
					{Date: "2024-08-02", Amount: -1010, Decimals: 2, Payee: "Fictieve Winkel", Source: 3},
				},
			}},
		},
		{
			file: "unknown_layout.csv", // columns by header name
			opts: CSVOptions{Date: "veld a", Amount: "Veld C", Memo: "Veld B"},
			want: []Statement{{
				Format: FormatCSV,
				Lines: []Line{
					{Date: "2024-08-01", Amount: -9990, Decimals: 2, Description: "Fictieve Winkel", Source: 2},
					{Date: "2024-08-02", Amount: -1010, Decimals: 2, Description: "Fictieve Winkel", Source: 3},
				},
			}},
		},
		{
			file: "no_amount_column.csv",
			opts: CSVOptions{Amount: "Wert", Memo: "Text"},
			want: []Statement{{
				Format: FormatCSV,
				Lines: []Line{
					{Date: "2024-08-01", Amount: -9990, Decimals: 2, Description: "Fictieve Winkel", Source: 2},
				},
			}},
		},
		{
			file: "headerless_unknown.csv",
			opts: CSVOptions{Delimiter: ";", Date: "1", Amount: "3", Payee: "4", Decimal: ","},
			want: []Statement{{
				Format: FormatCSV,
				Lines: []Line{
					{Date: "2024-08-01", Amount: -9990, Decimals: 2, Payee: "Fictieve Winkel", Source: 1},
					{Date: "2024-08-02", Amount: 4000, Decimals: 2, Payee: "Fictieve Winkel", Source: 2},
				},
			}},
		},
		{
			// An option overrides one column of a known layout: ING's payee from Mededelingen.
			file: "ing_comma.csv",
			opts: CSVOptions{Payee: "Code", Memo: "9"},
			want: []Statement{{
				Format: FormatCSV, Account: "NL00TEST0123456789", Currency: "EUR",
				Lines: []Line{
					{Date: "2024-03-15", ValueDate: "2024-03-15", Amount: -23450, Decimals: 2, Payee: "BA", Description: "Pasvolgnr: 001 15-03-2024 10:12 Transactie: A1B2C3 Term: T001", Source: 2},
					{Date: "2024-03-14", ValueDate: "2024-03-14", Amount: 1234560, Decimals: 2, Payee: "OV", Description: "Terugbetaling vakantie", Counterparty: "NL00TEST9876543210", Source: 3},
					{Date: "2024-03-01", ValueDate: "2024-03-01", Amount: -98100, Decimals: 2, Payee: "IC", Description: "Premie maart", Counterparty: "NL00TEST1111111111", Source: 4},
				},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := parseCSV(readTestdata(t, tt.file), tt.opts)
			if err != nil {
				t.Fatalf("parseCSV: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%s\nwant\n%s", show(got), show(tt.want))
			}
			for _, st := range got {
				checkAddsUp(t, st)
			}
		})
	}
}

// TestDetectLayout checks which layout detection picks for each of the project's files ("" for
// a generic header or none).
func TestDetectLayout(t *testing.T) {
	for file, want := range map[string]string{
		"ing_comma.csv": "ING", "ing_semicolon.csv": "ING", "rabobank.csv": "Rabobank",
		"abnamro.tab": "ABN AMRO", "asn.csv": "ASN/SNS/RegioBank", "regiobank.csv": "ASN/SNS/RegioBank",
		"triodos.csv": "Triodos", "knab.csv": "Knab", "bunq_en.csv": "bunq", "bunq_nl.csv": "bunq",
		"generic_en.csv": "", "generic_de.csv": "", "generic_fr.csv": "", "generic_nl_pipe.csv": "",
		"rabobank_old.csv": "Rabobank (before 2018)",
	} {
		data := readTestdata(t, file)
		delim, _, _ := sniffDelimiter(data)
		recs, err := readCSV(data, delim, '"', 0)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		p, err := planCSV(dropBlank(recs), delim, csvOpts{})
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		got := ""
		if p.layout != nil {
			got = p.layout.name
		}
		if got != want {
			t.Errorf("%s: layout %q, want %q", file, got, want)
		}
	}
}

// checkAddsUp checks a statement's balances against its lines: the opening balance plus the
// lines is the closing one (every testdata file's balances are consistent).
func checkAddsUp(t *testing.T, st Statement) {
	t.Helper()
	if (st.Opening == nil) != (st.Closing == nil) {
		t.Errorf("%s: opening %v, closing %v: one without the other", st.Account, st.Opening, st.Closing)
		return
	}
	if st.Opening == nil {
		return
	}
	sum := st.Opening.Amount
	for _, l := range st.Lines {
		sum += l.Amount
	}
	if sum != st.Closing.Amount {
		t.Errorf("%s: opening %d + lines = %d, closing %d", st.Account, st.Opening.Amount, sum, st.Closing.Amount)
	}
}

// TestParseCSVErrors checks each kind of bad file gives an *Error that says where and what to
// pass.
func TestParseCSVErrors(t *testing.T) {
	tests := []struct {
		name    string
		file    string // a testdata file, or
		content string // the file's text
		opts    CSVOptions
		line    int
		column  string
		msg     string // a part of the message
	}{
		{name: "empty file", file: "empty.csv", msg: "the file is empty"},
		{name: "only blank lines", content: "\n\r\n  \n;;;\n", msg: "the file is empty"},
		{name: "header only", file: "header_only.csv", line: 1, msg: "header but no transaction lines"},
		{name: "truncated in a quote", file: "truncated_quote.csv", line: 3, msg: "quoted field is never closed"},
		{name: "truncated line", file: "truncated_columns.csv", line: 3, msg: "has 3 columns where the file's lines have 5"},
		{name: "bad date", file: "bad_date.csv", line: 3, column: "Date", msg: "is not a date (expected YYYY-MM-DD)"},
		{name: "too many decimals", file: "too_many_decimals.csv", line: 2, column: "Bedrag", msg: "more than 3 decimals"},
		{name: "ambiguous dates", file: "ambiguous_dates.csv", column: "Date", msg: "pass csv.date_format, DD/MM/YYYY or MM/DD/YYYY"},
		{name: "unknown layout", file: "unknown_layout.csv", msg: "cannot be told"},
		{name: "unknown headerless", file: "headerless_unknown.csv", msg: "pass csv with date and amount"},
		{name: "header without amount", file: "no_amount_column.csv", line: 1, msg: "pass csv.amount"},
		{name: "no delimiter", content: "one\ntwo\nthree\n", msg: "pass csv.delimiter"},
		{name: "not text", content: "Date,Amount\n2024-01-01,\x00\n", msg: "not text"},
		{name: "not an amount", content: "Date,Amount\n2024-01-01,12.50\n2024-01-02,twelve\n", line: 3, column: "Amount", msg: "is not an amount"},
		{name: "empty amount", content: "Date,Amount\n2024-01-01,12.50\n2024-01-02,\n", line: 3, column: "Amount", msg: "is empty (expected an amount)"},
		{name: "empty date", content: "Date,Amount\n2024-01-01,12.50\n,1.00\n", line: 3, column: "Date", msg: "is empty (expected a date)"},
		{name: "date in no known form", content: "Date,Amount\nJan 5 2024,12.50\n", line: 2, column: "Date", msg: "pass csv.date_format"},
		{name: "bad Af Bij", content: "\"Datum\",\"Naam / Omschrijving\",\"Af Bij\",\"Bedrag (EUR)\",\"Mededelingen\"\n\"20240101\",\"x\",\"Op\",\"1,00\",\"\"\n", line: 2, column: "Af Bij", msg: "neither debit nor credit"},
		{name: "debit and credit both", content: "Date,Debit,Credit\n2024-01-01,1.00,2.00\n", line: 2, msg: "both a debit and a credit"},
		{name: "neither debit nor credit", content: "Date,Debit,Credit\n2024-01-01,,\n", line: 2, msg: "neither a debit nor a credit"},
		{name: "decimal both ways", content: "Date,Amount\n2024-01-01,12.50\n2024-01-02,\"1,5\"\n", column: "Amount", msg: "pass csv.decimal"},
		{name: "decimal either way", content: "Date;Amount\n2024-01-01;1.250\n2024-01-02;2.500\n", column: "Amount", msg: "pass csv.decimal"},
		{name: "two currencies", content: "Date,Amount,Currency\n2024-01-01,1.00,EUR\n2024-01-02,1.00,USD\n", line: 3, column: "Currency", msg: "another currency"},
		{name: "too large", content: "Date,Amount\n2024-01-01,1234567890123456.00\n", line: 2, column: "Amount", msg: "too large"},
		{name: "two signs", content: "Date,Amount\n2024-01-01,-12.50-\n", line: 2, column: "Amount", msg: "is not an amount"},
		{name: "bad thousands", content: "Date,Amount\n2024-01-01,\"1,23,4.00\"\n", line: 2, column: "Amount", msg: "is not an amount"},
		{name: "no date column", content: "Wann;Wert\ngestern;1,00\n", opts: CSVOptions{Amount: "Wert"}, msg: "pass csv.date"},
		{name: "a debit column alone", content: "Date;Debit;Memo\n2024-01-01;1,00;x\n", opts: CSVOptions{Debit: "Debit"}, msg: "pass csv.credit"},
		{name: "bad option delimiter", file: "ing_comma.csv", opts: CSVOptions{Delimiter: "::"}, msg: "csv.delimiter"},
		{name: "bad option decimal", file: "ing_comma.csv", opts: CSVOptions{Decimal: "'"}, msg: "csv.decimal"},
		{name: "bad option date_format", file: "ing_comma.csv", opts: CSVOptions{DateFormat: "DD-MM"}, msg: "csv.date_format"},
		{name: "bad option column number", file: "ing_comma.csv", opts: CSVOptions{Amount: "0"}, msg: "csv.amount must be"},
		{name: "option column beyond the lines", file: "ing_comma.csv", opts: CSVOptions{Amount: "40"}, msg: "csv.amount names column 40"},
		{name: "option name not in the file", file: "ing_comma.csv", opts: CSVOptions{Payee: "Begunstigde"}, msg: "csv.payee names a column by name"},
		{name: "option name in a headerless file", file: "asn.csv", opts: CSVOptions{Payee: "Naam"}, msg: "csv.payee names a column by name"},
		{name: "amount and debit", file: "ing_comma.csv", opts: CSVOptions{Amount: "7", Debit: "7"}, msg: "not both"},
		{name: "debit without credit", file: "unknown_layout.csv", opts: CSVOptions{Date: "1", Debit: "3"}, msg: "pass csv.credit"},
		{name: "debit_credit without amount", file: "unknown_layout.csv", opts: CSVOptions{Date: "1", Debit: "3", Credit: "3", DebitCredit: "2"}, msg: "csv.debit_credit needs csv.amount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.content)
			if tt.file != "" {
				data = readTestdata(t, tt.file)
			}
			got, err := parseCSV(data, tt.opts)
			if err == nil {
				t.Fatalf("parseCSV: no error, got\n%s", show(got))
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			if e.Line != tt.line || e.Column != tt.column || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("got line %d, column %q, %q; want line %d, column %q, a message with %q", e.Line, e.Column, e.Msg, tt.line, tt.column, tt.msg)
			}
		})
	}
}

// TestParseCSVErrorsQuoteNothing puts a marker in every cell of bad files and checks that no
// error repeats it: an error names a line and a column, never what the file holds.
func TestParseCSVErrorsQuoteNothing(t *testing.T) {
	const m = "Zq9secret"
	files := []string{
		m + ";" + m + "\n" + m + ";" + m + "\n",                                  // unknown layout
		"Date;Amount;" + m + "\n2024-01-01;" + m + ";" + m + "\n",                // not an amount
		"Date;Amount;" + m + "\n" + m + "2024;1,00;" + m + "\n",                  // not a date
		"Date;Amount;Payee\n2024-01-01;1,00;\"" + m + "\n",                       // open quote
		"Datum;" + m + "\n2024-01-01;" + m + "\n",                                // no amount
		"Date,Amount\n2024-01-01,1." + m + "\n",                                  // bad decimals
		"Date,Amount,Currency\n2024-01-01,1.00,EUR\n2024-01-02,1.00," + m + "\n", // bad currency
		"\"Datum\",\"Naam / Omschrijving\",\"Af Bij\",\"Bedrag (EUR)\",\"Mededelingen\"\n\"20240101\",\"x\",\"" + m + "\",\"1,00\",\"\"\n",
	}
	for i, f := range files {
		_, err := parseCSV([]byte(f), CSVOptions{})
		if err == nil {
			t.Errorf("file %d: no error", i)
			continue
		}
		if strings.Contains(err.Error(), m) || strings.Contains(strings.ToLower(err.Error()), strings.ToLower(m)) {
			t.Errorf("file %d: error quotes the file: %v", i, err)
		}
	}
}

// TestParseCSVIndicatorWords reads a generic English export whose direction is a Debit/credit
// column of words, with compact dates and a currency symbol column.
func TestParseCSVIndicatorWords(t *testing.T) {
	data := `"Date","Name / Description","Account","Counterparty","Debit/credit","Amount (EUR)","Notifications","Currency"
"20240102","Fictional Shop","NL00TEST0123456789","","Debit","1,50","Card payment","€"
"20240103","J. Test","NL00TEST0123456789","NL00TEST2222222222","Credit","10,00","Thanks","€"
`
	got, err := parseCSV([]byte(data), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Statement{{
		Format: FormatCSV, Account: "NL00TEST0123456789", Currency: "EUR",
		Lines: []Line{
			{Date: "2024-01-02", Amount: -1500, Decimals: 2, Payee: "Fictional Shop", Description: "Card payment", Source: 2},
			{Date: "2024-01-03", Amount: 10000, Decimals: 2, Payee: "J. Test", Description: "Thanks", Counterparty: "NL00TEST2222222222", Source: 3},
		},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", show(got), show(want))
	}
}

// TestParseCSVBunqCurrency checks bunq's implied euro goes with a bunq account only.
func TestParseCSVBunqCurrency(t *testing.T) {
	data := "Date,Amount,Account,Counterparty,Name,Description\n2024-01-01,-1.00,NL00TEST0123456789,,Fictional Shop,\n"
	st, err := parseCSV([]byte(data), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st[0].Currency != "" {
		t.Errorf("currency %q for an account that is not bunq's", st[0].Currency)
	}
}

// TestParseCSVFooter checks summary lines after the transactions are left out, and a bad
// last line is not mistaken for one.
func TestParseCSVFooter(t *testing.T) {
	data := "Buchungstag;Verwendungszweck;Betrag\n01.02.2024;Miete;-500,00\n02.02.2024;Gehalt;1.000,00\nKontostand am 29.02.2024;;1.500,00\n"
	st, err := parseCSV([]byte(data), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(st[0].Lines); n != 2 {
		t.Errorf("%d lines, want 2 (the Kontostand line left out)", n)
	}
	_, err = parseCSV([]byte("Buchungstag;Verwendungszweck;Betrag\n01.02.2024;Miete;-500,00\n31.02.2024;Gehalt;1.000,00\n"), CSVOptions{})
	var e *Error
	if !errors.As(err, &e) || e.Line != 3 {
		t.Errorf("a last line with a date that does not exist: %v, want an error on line 3", err)
	}
}

// TestParseCSVExtraColumns checks a line with more filled columns than its header (an
// unquoted delimiter in a text) is refused rather than read shifted.
func TestParseCSVExtraColumns(t *testing.T) {
	_, err := parseCSV([]byte("Date,Amount,Description\n2024-01-01,1.00,Coffee\n2024-01-02,2.00,Coffee, large\n"), CSVOptions{})
	var e *Error
	if !errors.As(err, &e) || e.Line != 3 || !strings.Contains(e.Msg, "header has 3") {
		t.Errorf("got %v, want an error on line 3", err)
	}
}

// TestParseCSVLineEndings reads one file with each line ending and a UTF-8 BOM.
func TestParseCSVLineEndings(t *testing.T) {
	base := readTestdata(t, "bunq_nl.csv")
	want, err := parseCSV(base, CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"crlf":     strings.ReplaceAll(string(base), "\n", "\r\n"),
		"cr":       strings.ReplaceAll(string(base), "\n", "\r"),
		"no final": strings.TrimSuffix(string(base), "\n"),
		"bom":      "\ufeff" + string(base),
	} {
		got, err := parseCSV([]byte(data), CSVOptions{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got\n%s\nwant\n%s", name, show(got), show(want))
		}
	}
}

// TestParseCSVMultilineField checks a quoted field over two lines keeps later lines' numbers.
func TestParseCSVMultilineField(t *testing.T) {
	data := "Date,Amount,Description\n2024-01-01,1.00,\"two\nlines\"\n2024-01-02,x,y\n"
	_, err := parseCSV([]byte(data), CSVOptions{})
	var e *Error
	if !errors.As(err, &e) || e.Line != 4 || e.Column != "Amount" {
		t.Fatalf("got %v, want line 4, column Amount", err)
	}
	st, err := parseCSV([]byte("Date,Amount,Description\n2024-01-01,1.00,\"two\nlines\"\n2024-01-02,2.00,y\n"), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := st[0].Lines[0].Description; got != "two lines" {
		t.Errorf("description %q, want single spaced %q", got, "two lines")
	}
	if got := st[0].Lines[1].Source; got != 4 {
		t.Errorf("second line's source %d, want 4", got)
	}
}
