package statement

import (
	"path/filepath"
	"testing"
)

func TestOFXTestdata(t *testing.T) {
	tests := []struct {
		file string
		want []Statement
	}{
		{
			// OFX 1.02 SGML, Windows-1252 and CR LF: two accounts, an entity, a date with a
			// zone, a PAYEE aggregate, BANKACCTTO, a comma decimal with a plus sign, a MEMO that
			// repeats the NAME, an empty BANKTRANLIST.
			file: "sgml-two-accounts.ofx",
			want: []Statement{
				{Format: FormatOFX, Account: "NL00TEST0123456789", Currency: "EUR", Closing: balAt("2023-06-10", 1734550), Lines: []Line{
					{Date: "2023-06-02", ValueDate: "2023-06-03", Amount: -12500, Decimals: 1, Payee: "Café & Bar De Test", Description: "Pinbetaling 02-06", BankID: "T-0001", Source: 39},
					{Date: "2023-06-05", Amount: 1250000, Decimals: 2, Payee: "Fictief Uitzendbureau", Description: "Loon mei", Counterparty: "NL55TEST0000000005", BankID: "T-0002", Source: 48},
					{Date: "2023-06-10", Amount: -2950, Decimals: 2, Payee: "Kosten betaalpakket", BankID: "T-0003", Source: 67},
				}},
				{Format: FormatOFX, Account: "NL66TEST0000000006", Currency: "EUR", Closing: balAt("2023-06-10", 5000000)},
			},
		},
		{
			// OFX 2.2 XML, a QFX credit-card statement in two BANKTRANLISTs: a comment, CDATA,
			// an empty element, escaped text, three decimals, an ORIGCURRENCY (the amount is in
			// the statement's currency still).
			file: "xml-creditcard.qfx",
			want: []Statement{
				{Format: FormatOFX, Account: "4000000000000002", Currency: "USD", Closing: balAt("2023-06-30", -1234560), Lines: []Line{
					{Date: "2023-06-03", Amount: -45100, Decimals: 2, Payee: "FICTIONAL BOOKSHOP", Description: "Books & maps", BankID: "2023060300001", Source: 22},
					{Date: "2023-06-20", Amount: 300000, Decimals: 2, Payee: "PAYMENT THANK YOU", BankID: "2023062000002", Source: 33},
					{Date: "2023-06-29", Amount: -12345, Decimals: 3, Payee: "FOREIGN FEE", Description: "Currency <conversion>", BankID: "2023062900003", Source: 41},
				}},
			},
		},
		{
			// No header, lower-case names, some leaves closed and some not, a stray end tag, an
			// SGML leaf with no value, no LEDGERBAL.
			file: "sgml-lenient.ofx",
			want: []Statement{
				{Format: FormatOFX, Account: "NL00TEST0123456789", Currency: "EUR", Lines: []Line{
					{Date: "2023-08-15", Amount: -7000, Decimals: 2, Payee: "Fictieve Kiosk", BankID: "L-1", Source: 12},
				}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := readFile(t, filepath.Join("testdata", "ofx", tt.file))
			if f, err := Detect(data); err != nil || f != FormatOFX {
				t.Errorf("Detect = %q, %v; want ofx", f, err)
			}
			got, err := Parse(data, FormatAuto, CSVOptions{})
			if err != nil {
				t.Fatal(err)
			}
			compareStatements(t, got, tt.want)
		})
	}
}

func TestOFXMalformed(t *testing.T) {
	tests := []struct {
		file string
		line int
		msg  string
	}{
		{"bad-truncated.ofx", 11, "ends before the <OFX> element that starts here is closed: it is truncated"},
		{"bad-date.ofx", 31, "DTPOSTED is not a date (YYYYMMDD)"},
		{"bad-decimals.ofx", 31, "TRNAMT has more than 3 decimals"},
		{"bad-amount.ofx", 31, "TRNAMT is not an amount"},
		{"bad-no-amount.ofx", 31, "has no TRNAMT"},
		{"investment.ofx", 0, "investment statement (INVSTMTRS)"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := Parse(readFile(t, filepath.Join("testdata", "ofx", tt.file)), FormatAuto, CSVOptions{})
			wantError(t, err, tt.line, tt.msg)
		})
	}
}

func TestOFXInline(t *testing.T) {
	tests := []struct {
		name string
		text string
		line int
		msg  string
	}{
		{"no OFX element", "<HTML><BODY>x</BODY></HTML>", 0, "holds no <OFX> element"},
		{"no statement", "<OFX><SIGNONMSGSRSV1></SIGNONMSGSRSV1></OFX>", 0, "holds no bank or credit-card statement"},
		{"a tag cut short", "<OFX>\n<BANKMSGSRSV1", 2, "a tag is not closed"},
		{"a tag without a name", "<OFX>\n<>\n</OFX>", 2, "a tag has no name"},
		{"a comment not closed", "<OFX>\n<!-- x", 2, "a tag is not closed"},
		{"a transaction in another currency", "<OFX><STMTRS><CURDEF>EUR<BANKTRANLIST>\n<STMTTRN><DTPOSTED>20230101<TRNAMT>1.00<CURRENCY><CURRATE>1.1<CURSYM>USD</CURRENCY></STMTTRN></BANKTRANLIST></STMTRS></OFX>", 2, "in another currency"},
		{"no DTPOSTED", "<OFX><STMTRS><BANKTRANLIST>\n<STMTTRN><TRNAMT>1.00</STMTTRN></BANKTRANLIST></STMTRS></OFX>", 2, "has no DTPOSTED"},
		{"a bad DTAVAIL", "<OFX><STMTRS><BANKTRANLIST>\n<STMTTRN><DTPOSTED>20230101<DTAVAIL>2023<TRNAMT>1.00</STMTTRN></BANKTRANLIST></STMTRS></OFX>", 2, "DTAVAIL is not a date"},
		{"a bad LEDGERBAL", "<OFX><STMTRS>\n<LEDGERBAL><BALAMT>x<DTASOF>20230101</LEDGERBAL></STMTRS></OFX>", 2, "BALAMT is not an amount"},
		{"a LEDGERBAL without a date", "<OFX><STMTRS>\n<LEDGERBAL><BALAMT>1.00</LEDGERBAL></STMTRS></OFX>", 2, "DTASOF is not a date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.text), FormatOFX, CSVOptions{})
			wantError(t, err, tt.line, tt.msg)
		})
	}
}

func TestOFXDate(t *testing.T) {
	tests := []struct{ in, want string }{
		{"20230602", "2023-06-02"},
		{"20230602120000", "2023-06-02"},
		{"20230602120000.000", "2023-06-02"},
		{"20230602120000.000[-5:EST]", "2023-06-02"},
		{"20230602[0:GMT]", "2023-06-02"},
		{"20240229", "2024-02-29"},
		{"20230229", ""},
		{"20231301", ""},
		{"2023060", ""},
		{"2023-06-02", ""},
		{"20230602X", ""},
	}
	for _, tt := range tests {
		got, ok := ofxDate(tt.in)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("ofxDate(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

// TestOFXUnclosedAggregates reads an SGML file that closes no STMTTRN: each one ends where the
// next starts, so none is lost inside another.
func TestOFXUnclosedAggregates(t *testing.T) {
	text := "<OFX><STMTRS><CURDEF>EUR<BANKTRANLIST>\n<STMTTRN><DTPOSTED>20230101<TRNAMT>-1.00<FITID>A\n<STMTTRN><DTPOSTED>20230102<TRNAMT>2.00<FITID>B\n</BANKTRANLIST></STMTRS></OFX>"
	got, err := Parse([]byte(text), FormatAuto, CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	compareStatements(t, got, []Statement{{Format: FormatOFX, Currency: "EUR", Lines: []Line{
		{Date: "2023-01-01", Amount: -1000, Decimals: 2, BankID: "A", Source: 2},
		{Date: "2023-01-02", Amount: 2000, Decimals: 2, BankID: "B", Source: 3},
	}}})
}
