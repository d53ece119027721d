package statement

import (
	"path/filepath"
	"testing"
)

func TestMT940Testdata(t *testing.T) {
	const acct = "NL00TEST0123456789"
	tests := []struct {
		file string
		want []Statement
	}{
		{
			// Rabobank: CR LF, ":940:" header, zero-padded amounts, the counterparty's IBAN on
			// the line after :61:, structured :86: cut inside a name, an RC and an RD reversal,
			// an empty statement between two others.
			file: "rabobank-three.sta",
			want: []Statement{
				{Format: FormatMT940, Account: acct, Currency: "EUR", Opening: balAt("2023-03-01", 1500000), Closing: balAt("2023-03-03", 1665000), Lines: []Line{
					{Date: "2023-03-01", ValueDate: "2023-03-01", Amount: -42500, Decimals: 2, Payee: "Bakkerij De Gouden Krent en Zonen B.V.", Description: "Factuur 2023-0042", Counterparty: "NL11TEST0000000001", Source: 6},
					{Date: "2023-03-02", ValueDate: "2023-03-02", Amount: 250000, Decimals: 2, Payee: "Fictief Verhuur B.V.", Description: "Huur retour maart", Counterparty: "NL22TEST0000000002", BankID: "RABO0123456", Source: 10},
					{Date: "2023-03-03", ValueDate: "2023-03-03", Amount: -42500, Decimals: 2, Payee: "Bakkerij De Gouden Krent en Zonen B.V.", Description: "Storno Factuur 2023-0042", Reversal: true, Source: 14},
				}},
				{Format: FormatMT940, Account: acct, Currency: "EUR", Opening: balAt("2023-03-03", 1665000), Closing: balAt("2023-03-04", 1665000)},
				{Format: FormatMT940, Account: acct, Currency: "EUR", Opening: balAt("2023-03-04", 1665000), Closing: balAt("2023-03-05", 1675000), Lines: []Line{
					{Date: "2023-03-05", ValueDate: "2023-03-05", Amount: 10000, Decimals: 2, Description: "Terugboeking incasso", Reversal: true, Source: 27},
				}},
			},
		},
		{
			// ING: SWIFT blocks, the currency written onto the IBAN, entry dates across the new
			// year both ways, "//" bank references, /TRCD/ supplementary lines, CNTP and
			// REMI/USTD, a funds code letter, :64: and a statement-level :86: after :62F:.
			file: "ing-blocks.sta",
			want: []Statement{
				{Format: FormatMT940, Account: acct, Currency: "EUR", Opening: balAt("2023-12-29", 100000), Closing: balAt("2024-01-02", 1087660), Lines: []Line{
					{Date: "2023-12-29", ValueDate: "2023-12-29", Amount: -12340, Decimals: 2, Payee: "Jansen Fictief", Description: "Cadeau", Counterparty: "NL33TEST0000000003", BankID: "10000000000001", Source: 6},
					{Date: "2024-01-02", ValueDate: "2023-12-31", Amount: 1000000, Decimals: 0, Payee: "Werkgever Fictief B.V.", Description: "Salaris december 2023", Counterparty: "NL44TEST0000000004", BankID: "10000000000002", Source: 9},
				}},
				{Format: FormatMT940, Account: acct, Currency: "EUR", Opening: balAt("2024-01-02", 1087660), Closing: balAt("2024-01-02", 1092660), Lines: []Line{
					{Date: "2023-12-31", ValueDate: "2024-01-01", Amount: 5000, Decimals: 2, Description: "Correctie rente 2023", Source: 22},
				}},
			},
		},
		{
			// ABN AMRO: its header lines, amounts without decimals ("9,") and with one ("11,8"),
			// free text cut at 65 characters inside a word, an empty line, and a statement
			// split over two messages by :62M:/:60M: that reads as one.
			file: "abnamro-intermediate.sta",
			want: []Statement{
				{Format: FormatMT940, Account: "123456789", Currency: "EUR", Opening: balAt("2023-06-01", 500000), Closing: balAt("2023-06-03", 500000), Lines: []Line{
					{Date: "2023-06-01", ValueDate: "2023-06-01", Amount: -9000, Decimals: 0, Description: "BEA NR:TEST01 01.06.23/10.00 FICTIEVE SUPERMARKT AMSTERDAM,PAS001", Source: 8},
					{Date: "2023-06-02", ValueDate: "2023-06-01", Amount: -11800, Decimals: 1, Description: "GIRO 7654321 FICTIEVE ENERGIE NV BETALINGSKENM. 1234567 KLANTNUMMER 998877 JUNI 2023", Source: 10},
					{Date: "2023-06-03", ValueDate: "2023-06-03", Amount: 20800, Decimals: 2, Description: "GIRO 1234567 FICTIEF FONDS TERUGGAAF", Source: 23},
				}},
			},
		},
		{
			// A German bank's ?-subfields, with the SEPA purpose's SVWZ+ part as description.
			file: "german.sta",
			want: []Statement{
				{Format: FormatMT940, Account: "10020030/0123456789", Currency: "EUR", Opening: balAt("2023-05-15", 1234560), Closing: balAt("2023-05-15", 1188890), Lines: []Line{
					{Date: "2023-05-15", ValueDate: "2023-05-15", Amount: -45670, Decimals: 2, Payee: "Fiktive Stadtwerke GmbH", Description: "Stromabschlag Mai 2023 Kundennr 4711", Counterparty: "DE00TEST00000000000001", BankID: "TEST00001", Source: 5},
				}},
			},
		},
		{
			// Windows-1252 with CR LF; a debit opening balance.
			file: "latin1-crlf.sta",
			want: []Statement{
				{Format: FormatMT940, Account: acct, Currency: "EUR", Opening: balAt("2023-07-01", -10000), Closing: balAt("2023-07-01", 20000), Lines: []Line{
					{Date: "2023-07-01", ValueDate: "2023-07-01", Amount: 30000, Decimals: 2, Description: "Terugbetaling café De Fictieve Hoek € 30", Source: 5},
				}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := readFile(t, filepath.Join("testdata", "mt940", tt.file))
			if f, err := Detect(data); err != nil || f != FormatMT940 {
				t.Errorf("Detect = %q, %v; want mt940", f, err)
			}
			got, err := Parse(data, FormatAuto, CSVOptions{})
			if err != nil {
				t.Fatal(err)
			}
			compareStatements(t, got, tt.want)
		})
	}
}

func TestMT940Malformed(t *testing.T) {
	tests := []struct {
		file string
		line int
		msg  string
	}{
		{"bad-truncated.sta", 1, "has no closing balance (:62F:): the file may be truncated"},
		{"bad-date.sta", 5, "has a value date that is not a date (YYMMDD)"},
		{"bad-entry-date.sta", 5, "has an entry date that is not a date (MMDD)"},
		{"bad-decimals.sta", 5, "amount has more than 3 decimals"},
		{"bad-balance.sta", 4, "the :60F: balance is not C or D, a date (YYMMDD), a currency and an amount"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := Parse(readFile(t, filepath.Join("testdata", "mt940", tt.file)), FormatMT940, CSVOptions{})
			wantError(t, err, tt.line, tt.msg)
		})
	}
}

// TestMT940Inline covers what the testdata files do not, each case a small statement.
func TestMT940Inline(t *testing.T) {
	const head = ":20:X\n:25:NL00TEST0123456789\n:28C:1\n:60F:C230101EUR10,00\n"
	tests := []struct {
		name    string
		text    string
		lines   []Line
		closing *Balance
		line    int    // of the error, with msg
		msg     string // "" for no error
	}{
		{
			name:    "a statement without lines",
			text:    head + ":62F:C230101EUR10,00\n",
			closing: balAt("2023-01-01", 10000),
		},
		{
			name:    "an amount of three decimals is exact",
			text:    head + ":61:230101D1,005NMSCNONREF\n:62F:C230101EUR8,995\n",
			lines:   []Line{{Date: "2023-01-01", ValueDate: "2023-01-01", Amount: -1005, Decimals: 3, Source: 5}},
			closing: balAt("2023-01-01", 8995),
		},
		{
			name:    "more decimals of zeros are exact",
			text:    head + ":61:230101D1,00000NMSCNONREF\n:62F:C230101EUR9,00\n",
			lines:   []Line{{Date: "2023-01-01", ValueDate: "2023-01-01", Amount: -1000, Decimals: 5, Source: 5}},
			closing: balAt("2023-01-01", 9000),
		},
		{
			name:    "a leap day exists in 2024",
			text:    head + ":61:2402290229C1,00NMSCNONREF\n:62F:C240229EUR11,00\n",
			lines:   []Line{{Date: "2024-02-29", ValueDate: "2024-02-29", Amount: 1000, Decimals: 2, Source: 5}},
			closing: balAt("2024-02-29", 11000),
		},
		{
			name: "a leap day does not in 2023",
			text: head + ":61:230229C1,00NMSCNONREF\n:62F:C230301EUR11,00\n",
			line: 5, msg: "has a value date that is not a date",
		},
		{
			name: "a closing balance's date that does not exist",
			text: head + ":62F:C230431EUR10,00\n",
			line: 5, msg: "the :62F: balance's date is not a date (YYMMDD)",
		},
		{
			name: "a :61: without a mark",
			text: head + ":61:230101X1,00NMSCNONREF\n:62F:C230101EUR10,00\n",
			line: 5, msg: "has no debit/credit mark",
		},
		{
			name: "a :61: without a transaction type",
			text: head + ":61:230101D1,00\n:62F:C230101EUR9,00\n",
			line: 5, msg: "has no transaction type",
		},
		{
			name: "a :61: without an amount",
			text: head + ":61:230101DNMSCNONREF\n:62F:C230101EUR9,00\n",
			line: 5, msg: "has no amount",
		},
		{
			name: "a :61: after the closing balance",
			text: head + ":62F:C230101EUR10,00\n:61:230101D1,00NMSCNONREF\n",
			line: 6, msg: "comes after its statement's closing balance",
		},
		{
			name: "balances in two currencies",
			text: head + ":62F:C230101USD10,00\n",
			line: 5, msg: "another currency",
		},
		{
			name: "a statement without an opening balance",
			text: ":20:X\n:25:NL00TEST0123456789\n:62F:C230101EUR10,00\n",
			line: 1, msg: "has no opening balance",
		},
		{
			name: "an amount too large for milliunits",
			text: head + ":61:230101C1234567890123456,00NMSCNONREF\n:62F:C230101EUR10,00\n",
			line: 5, msg: "is too large an amount",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.text), FormatMT940, CSVOptions{})
			if tt.msg != "" {
				wantError(t, err, tt.line, tt.msg)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := []Statement{{Format: FormatMT940, Account: "NL00TEST0123456789", Currency: "EUR", Opening: balAt("2023-01-01", 10000), Closing: tt.closing, Lines: tt.lines}}
			compareStatements(t, got, want)
		})
	}
}

func TestMT940EntryDate(t *testing.T) {
	tests := []struct{ value, mmdd, want string }{
		{"2023-12-31", "0102", "2024-01-02"},
		{"2024-01-01", "1231", "2023-12-31"},
		{"2023-06-01", "0602", "2023-06-02"},
		{"2023-05-21", "0523", "2023-05-23"},
		{"2024-02-28", "0229", "2024-02-29"},
		{"2023-02-28", "0229", "2024-02-29"}, // the nearest 29 February is a year on
		{"2023-01-01", "1301", ""},
		{"2023-01-01", "0132", ""},
	}
	for _, tt := range tests {
		got, ok := mt940EntryDate(tt.value, tt.mmdd)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("mt940EntryDate(%s, %s) = %q, %v; want %q", tt.value, tt.mmdd, got, ok, tt.want)
		}
	}
}

func TestMT940Account(t *testing.T) {
	tests := []struct{ in, acct, ccy string }{
		{"NL00TEST0123456789", "NL00TEST0123456789", ""},
		{"NL00TEST0123456789EUR", "NL00TEST0123456789", "EUR"},
		{"NL00TEST0123456789 EUR", "NL00TEST0123456789", "EUR"},
		{"DE00TEST00000000000001EUR", "DE00TEST00000000000001", "EUR"},
		{"TESTNL2A/0123456789", "0123456789", ""},
		{"10020030/0123456789", "10020030/0123456789", ""},
		{"0001234567", "0001234567", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		acct, ccy := mt940Account(tt.in, "")
		if acct != tt.acct || ccy != tt.ccy {
			t.Errorf("mt940Account(%q) = %q, %q; want %q, %q", tt.in, acct, ccy, tt.acct, tt.ccy)
		}
	}
}

func TestMT940Dutch(t *testing.T) {
	tests := []struct {
		name, text                     string
		payee, description, counterpty string
	}{
		{"Rabobank", "/EREF/X//BENM//NAME/JOHN DOE/REMI/Reference 1/ISDT/2013-01-02", "JOHN DOE", "Reference 1", ""},
		{"ABN AMRO", "/TRTP/SEPA OVERBOEKING/IBAN/NL00TEST0000000001/BIC/TESTNL2A/NAME/J. Fictief/REMI/Factuur 12/EREF/NOTPROVIDED", "J. Fictief", "Factuur 12", "NL00TEST0000000001"},
		{"ING structured reference", "/EREF/X//CNTP/NL00TEST0000000002/TESTNL2A/Fictieve Gemeente///REMI/STRD/CUR/1234567890123456/", "Fictieve Gemeente", "1234567890123456", "NL00TEST0000000002"},
		{"no remittance: the type", "/TRTP/Acceptgiro/REMI/", "", "Acceptgiro", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l Line
			mt940Describe(&l, []string{tt.text})
			if l.Payee != tt.payee || l.Description != tt.description || l.Counterparty != tt.counterpty {
				t.Errorf("got payee %q, description %q, counterparty %q; want %q, %q, %q", l.Payee, l.Description, l.Counterparty, tt.payee, tt.description, tt.counterpty)
			}
		})
	}
}

// TestMT940Statements checks where statements start and end: a :60F: after a :62F: with no :20:
// between starts the account's next statement; a :62M:/:60M: pair continues a statement only
// for the same account.
func TestMT940Statements(t *testing.T) {
	line := func(src int, amount int64) Line {
		return Line{Date: "2023-01-02", ValueDate: "2023-01-02", Amount: amount, Decimals: 2, Source: src}
	}
	tests := []struct {
		name string
		text string
		want []Statement
	}{
		{
			name: "no :20: between two statements",
			text: ":20:X\n:25:NL00TEST0123456789\n:60F:C230101EUR10,00\n:62F:C230101EUR10,00\n:60F:C230101EUR10,00\n:61:230102D1,00NMSCX\n:62F:C230102EUR9,00\n",
			want: []Statement{
				{Format: FormatMT940, Account: "NL00TEST0123456789", Currency: "EUR", Opening: balAt("2023-01-01", 10000), Closing: balAt("2023-01-01", 10000)},
				{Format: FormatMT940, Account: "NL00TEST0123456789", Currency: "EUR", Opening: balAt("2023-01-01", 10000), Closing: balAt("2023-01-02", 9000), Lines: []Line{line(6, -1000)}},
			},
		},
		{
			name: "an intermediate pair of another account",
			text: ":20:X\n:25:NL00TEST0000000001\n:60F:C230101EUR10,00\n:62M:C230101EUR10,00\n-\n:20:Y\n:25:NL00TEST0000000002\n:60M:C230101EUR10,00\n:61:230102C1,00NMSCX\n:62F:C230102EUR11,00\n-\n",
			want: []Statement{
				{Format: FormatMT940, Account: "NL00TEST0000000001", Currency: "EUR", Opening: balAt("2023-01-01", 10000), Closing: balAt("2023-01-01", 10000)},
				{Format: FormatMT940, Account: "NL00TEST0000000002", Currency: "EUR", Opening: balAt("2023-01-01", 10000), Closing: balAt("2023-01-02", 11000), Lines: []Line{line(9, 1000)}},
			},
		},
		{
			name: "three parts of one statement",
			text: ":20:X\n:25:NL00TEST0000000001\n:60F:C230101EUR10,00\n:61:230102C1,00NMSCX\n:62M:C230102EUR11,00\n" +
				":20:X\n:25:NL00TEST0000000001\n:60M:C230102EUR11,00\n:61:230102C1,00NMSCX\n:62M:C230102EUR12,00\n" +
				":20:X\n:25:NL00TEST0000000001\n:60M:C230102EUR12,00\n:61:230102D1,00NMSCX\n:62F:C230102EUR11,00\n",
			want: []Statement{
				{Format: FormatMT940, Account: "NL00TEST0000000001", Currency: "EUR", Opening: balAt("2023-01-01", 10000), Closing: balAt("2023-01-02", 11000), Lines: []Line{line(4, 1000), line(9, 1000), line(14, -1000)}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.text), FormatMT940, CSVOptions{})
			if err != nil {
				t.Fatal(err)
			}
			compareStatements(t, got, tt.want)
		})
	}
}
