package statement

import (
	"reflect"
	"testing"
)

func TestParseAmount(t *testing.T) {
	tests := []struct {
		in       string
		dec      byte
		milli    int64
		decimals int
		msg      string
	}{
		{"12,50", ',', 12500, 2, ""},
		{"-12,50", ',', -12500, 2, ""},
		{"+12,50", ',', 12500, 2, ""},
		{"12,50-", ',', -12500, 2, ""},
		{"12,50 -", ',', -12500, 2, ""},
		{"12.50+", '.', 12500, 2, ""},
		{"(12.50)", '.', -12500, 2, ""},
		{"1.234,56", ',', 1234560, 2, ""},
		{"1.234.567,89", ',', 1234567890, 2, ""},
		{"1,234,567.89", '.', 1234567890, 2, ""},
		{"1 234,56", ',', 1234560, 2, ""},
		{"1\u00a0234,56", ',', 1234560, 2, ""},
		{"1'234.56", '.', 1234560, 2, ""},
		{"1,234", '.', 1234000, 0, ""},
		{"1,234", ',', 1234, 3, ""},
		{"9,", ',', 9000, 0, ""},
		{"11,8", ',', 11800, 1, ""},
		{",50", ',', 500, 2, ""},
		{"0,00", ',', 0, 2, ""},
		{"2500", ',', 2500000, 0, ""},
		{"000000000025,00", ',', 25000, 2, ""},
		{"€ 12,50", ',', 12500, 2, ""},
		{"-€12.50", '.', -12500, 2, ""},
		{"12.50 EUR", '.', 12500, 2, ""},
		{"EUR -12.50", '.', -12500, 2, ""},
		{"\u221212.50", '.', -12500, 2, ""},
		{"0.001", '.', 1, 3, ""},
		{"999999999999999.999", '.', 999999999999999999, 3, ""},
		{"", ',', 0, 0, "is empty (expected an amount)"},
		{"   ", ',', 0, 0, "is empty (expected an amount)"},
		{"12,5000", ',', 0, 0, "has more than 3 decimals"},
		{"0.0001", '.', 0, 0, "has more than 3 decimals"},
		{"1234567890123456", '.', 0, 0, "is too large for an amount"},
		{"--12", '.', 0, 0, "is not an amount"},
		{"-12-", '.', 0, 0, "is not an amount"},
		{"12,50,00", ',', 0, 0, "is not an amount"},
		{"1.23.4,00", ',', 0, 0, "is not an amount"},
		{"1234.567,00", ',', 0, 0, "is not an amount"},
		{"1.234 567,00", ',', 0, 0, "is not an amount"},
		{"12a", '.', 0, 0, "is not an amount"},
		{"-", '.', 0, 0, "is not an amount"},
		{".", '.', 0, 0, "is not an amount"},
		{"1e5", '.', 0, 0, "is not an amount"},
		{"0x10", '.', 0, 0, "is not an amount"},
	}
	for _, tt := range tests {
		milli, decimals, msg := parseAmount(tt.in, tt.dec)
		if milli != tt.milli || decimals != tt.decimals || msg != tt.msg {
			t.Errorf("parseAmount(%q, %q) = %d, %d, %q; want %d, %d, %q", tt.in, tt.dec, milli, decimals, msg, tt.milli, tt.decimals, tt.msg)
		}
	}
}

func TestVoteDecimal(t *testing.T) {
	tests := []struct {
		in   string
		want decimalVote
	}{
		{"12,50", voteComma},
		{"12.50", votePoint},
		{"1.234,56", voteComma},
		{"1,234.56", votePoint},
		{"1.234.567", voteComma},
		{"1,234,567", votePoint},
		{"1,234", voteEither},
		{"1.234", voteEither},
		{"2500", voteNone},
		{"9,", voteComma},
		{"+5257,28", voteComma},
		{"nonsense", voteNone},
	}
	for _, tt := range tests {
		if got := voteDecimal(tt.in); got != tt.want {
			t.Errorf("voteDecimal(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestDateFormat(t *testing.T) {
	tests := []struct {
		format, in, want string
	}{
		{"YYYYMMDD", "20200213", "2020-02-13"},
		{"YYYY-MM-DD", "2024-02-29", "2024-02-29"},
		{"YYYY-MM-DD", "2023-02-29", ""},
		{"YYYY-MM-DD", "2023-02-30", ""},
		{"YYYY-MM-DD", "2023-13-01", ""},
		{"YYYY-MM-DD", "2023-00-01", ""},
		{"YYYY-MM-DD", "2023-04-31", ""},
		{"YYYY-MM-DD", "2000-02-29", "2000-02-29"},
		{"YYYY-MM-DD", "1900-02-29", ""},
		{"YYYY-MM-DD", "2023-01-05 14:22:01", "2023-01-05"},
		{"YYYY-MM-DD", "2023-01-05T14:22:01Z", "2023-01-05"},
		{"DD-MM-YYYY", "21-06-2019", "2019-06-21"},
		{"DD-MM-YYYY", "2019-06-21", ""},
		{"DD.MM.YYYY", "5.3.2023", "2023-03-05"},
		{"DD.MM.YY", "05.03.23", "2023-03-05"},
		{"dd/mm/yyyy", "31/12/2023", "2023-12-31"},
		{"MM/DD/YYYY", "12/31/2023", "2023-12-31"},
		{"MM/DD/YYYY", "31/12/2023", ""},
		{"%d-%m-%Y", "01-02-2024", "2024-02-01"},
		{"YYYYMMDD", "2020021", ""},
		{"YYYYMMDD", "2020-02-13", ""},
		{"DD-MM-YYYY", "01-02-024", ""},
		{"DD-MM-YYYY", "", ""},
	}
	for _, tt := range tests {
		f, ok := parseDateFormat(tt.format)
		if !ok {
			t.Errorf("parseDateFormat(%q) refused", tt.format)
			continue
		}
		got, _ := f.parse(tt.in)
		if got != tt.want {
			t.Errorf("%s.parse(%q) = %q, want %q", tt.format, tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{"", "DD-MM", "DD-MM-YYYY-", "DD-MM/YYYY", "YYYY-YYYY-MM", "DDMM-YYYY", "D-M-Y", "DD-MM-YYYYX", "MM-MM-YYYY"} {
		if _, ok := parseDateFormat(bad); ok {
			t.Errorf("parseDateFormat(%q) accepted", bad)
		}
	}
	for _, s := range []string{"DD-MM-YYYY", "YYYYMMDD", "MM/DD/YY", "YYYY.MM.DD", "DD MM YYYY"} {
		f, ok := parseDateFormat(s)
		if !ok || f.String() != s {
			t.Errorf("parseDateFormat(%q).String() = %q, %v", s, f.String(), ok)
		}
	}
}

func TestGuessDateFormat(t *testing.T) {
	tests := []struct {
		name      string
		cells     []string
		dayFirst  bool
		want      string
		ambiguous bool
		ok        bool
	}{
		{"iso", []string{"2024-01-02", "2024-01-03"}, false, "YYYY-MM-DD", false, true},
		{"compact", []string{"20240102", "20241231"}, false, "YYYYMMDD", false, true},
		{"day above 12", []string{"01/02/2024", "13/02/2024"}, false, "DD/MM/YYYY", false, true},
		{"month first", []string{"01/02/2024", "02/13/2024"}, false, "MM/DD/YYYY", false, true},
		{"ambiguous", []string{"01/02/2024", "02/03/2024"}, false, "DD/MM/YYYY", true, true},
		{"ambiguous, day-first header", []string{"01/02/2024", "02/03/2024"}, true, "DD/MM/YYYY", false, true},
		{"dots are day first", []string{"01.02.2024", "02.03.2024"}, false, "DD.MM.YYYY", false, true},
		{"dashes ambiguous", []string{"01-02-2024"}, false, "DD-MM-YYYY", true, true},
		{"two-digit years", []string{"01.02.24", "31.12.24"}, false, "DD.MM.YY", false, true},
		{"one bad date among good", []string{"2023-02-27", "2023-02-30"}, false, "YYYY-MM-DD", false, true},
		{"nothing", []string{"yesterday", "today"}, false, "", false, false},
	}
	for _, tt := range tests {
		g := guessDateFormat(tt.cells, tt.dayFirst)
		got := ""
		if g.ok {
			got = g.format.String()
		}
		if g.ok != tt.ok || got != tt.want || g.ambiguous != tt.ambiguous {
			t.Errorf("%s: got %q ok=%v ambiguous=%v; want %q ok=%v ambiguous=%v", tt.name, got, g.ok, g.ambiguous, tt.want, tt.ok, tt.ambiguous)
		}
	}
}

func TestReadCSV(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		delim byte
		quote byte
		q     csvQuoting
		want  []csvRecord
	}{
		{
			name: "quotes and doubled quotes", in: "a,\"b,c\",\"d\"\"e\"\n", delim: ',', quote: '"',
			want: []csvRecord{{fields: []string{"a", "b,c", "d\"e"}, line: 1}},
		},
		{
			name: "quote inside a field is literal", in: "a\"b,\"c\"d\",e\n", delim: ',', quote: '"',
			want: []csvRecord{{fields: []string{"a\"b", "c\"d", "e"}, line: 1}},
		},
		{
			name: "spaces around quotes", in: "a; \"b;c\" ;d\n", delim: ';', quote: '"',
			want: []csvRecord{{fields: []string{"a", "b;c", "d"}, line: 1}},
		},
		{
			name: "multi-line field keeps line numbers", in: "\"a\nb\",c\r\nd,e", delim: ',', quote: '"',
			want: []csvRecord{{fields: []string{"a\nb", "c"}, line: 1}, {fields: []string{"d", "e"}, line: 3}},
		},
		{
			name: "blank lines are records", in: "a\n\nb\n", delim: ',', quote: '"',
			want: []csvRecord{{fields: []string{"a"}, line: 1}, {fields: []string{""}, line: 2}, {fields: []string{"b"}, line: 3}},
		},
		{
			name: "apostrophe quotes from a column on", in: "'t Hoekje,x,'a, b',c\n", delim: ',', quote: '\'',
			q:    csvQuoting{from: 2, singleLine: true},
			want: []csvRecord{{fields: []string{"'t Hoekje", "x", "a, b", "c"}, line: 1}},
		},
		{
			name: "apostrophe left open is literal on one line", in: "a,'b\nc,d\n", delim: ',', quote: '\'',
			q:    csvQuoting{singleLine: true},
			want: []csvRecord{{fields: []string{"a", "'b"}, line: 1}, {fields: []string{"c", "d"}, line: 2}},
		},
	}
	for _, tt := range tests {
		got, err := readCSVWith([]byte(tt.in), tt.delim, tt.quote, 0, tt.q)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
	if _, err := readCSV([]byte("a,\"b\nc\n"), ',', '"', 0); err == nil {
		t.Error("an unclosed quote read without error")
	} else if e, ok := err.(*Error); !ok || e.Line != 1 {
		t.Errorf("unclosed quote: %v, want an *Error on line 1", err)
	}
}

func TestSniffDelimiter(t *testing.T) {
	tests := []struct {
		name string
		file string
		want byte
	}{
		{"ING comma", "ing_comma.csv", ','},
		{"ING semicolon", "ing_semicolon.csv", ';'},
		{"Knab with preamble", "knab.csv", ';'},
		{"ABN AMRO tab", "abnamro.tab", '\t'},
		{"ASN", "asn.csv", ','},
		{"pipe", "generic_nl_pipe.csv", '|'},
		{"German with preamble", "generic_de.csv", ';'},
		{"unquoted semicolons with decimal commas", "generic_de_sign_behind.csv", ';'},
	}
	for _, tt := range tests {
		got, _, _ := sniffDelimiter(readTestdata(t, tt.file))
		if got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestStatementBalances(t *testing.T) {
	lines := func(dates ...string) []Line {
		var out []Line
		for _, d := range dates {
			out = append(out, Line{Date: d})
		}
		return out
	}
	withAmounts := func(ls []Line, amounts ...int64) []Line {
		for i := range ls {
			ls[i].Amount = amounts[i]
		}
		return ls
	}
	tests := []struct {
		name          string
		lines         []Line
		bal           []lineBalance
		open, closing *Balance
	}{
		{
			name:  "after, oldest first",
			lines: withAmounts(lines("2024-01-01", "2024-01-02"), -100, 50),
			bal:   []lineBalance{{after: 900, hasAfter: true}, {after: 950, hasAfter: true}},
			open:  bal("2024-01-01", 1000), closing: bal("2024-01-02", 950),
		},
		{
			name:  "after, newest first",
			lines: withAmounts(lines("2024-01-02", "2024-01-01"), 50, -100),
			bal:   []lineBalance{{after: 950, hasAfter: true}, {after: 900, hasAfter: true}},
			open:  bal("2024-01-01", 1000), closing: bal("2024-01-02", 950),
		},
		{
			name:  "before, newest first",
			lines: withAmounts(lines("2024-01-02", "2024-01-01"), 50, -100),
			bal:   []lineBalance{{before: 900, hasBefore: true}, {before: 1000, hasBefore: true}},
			open:  bal("2024-01-01", 1000), closing: bal("2024-01-02", 950),
		},
		{
			name:  "one day, newest first told by the chain",
			lines: withAmounts(lines("2024-01-01", "2024-01-01"), 50, -100),
			bal:   []lineBalance{{after: 950, hasAfter: true}, {after: 900, hasAfter: true}},
			open:  bal("2024-01-01", 1000), closing: bal("2024-01-01", 950),
		},
		{
			name:  "unknown meaning told by the chain",
			lines: withAmounts(lines("2024-01-01", "2024-01-02"), -100, 50),
			bal:   []lineBalance{{either: 1000, hasEither: true}, {either: 900, hasEither: true}},
			open:  bal("2024-01-01", 1000), closing: bal("2024-01-02", 950),
		},
		{
			name:  "unknown meaning of a single line: none",
			lines: withAmounts(lines("2024-01-01"), -100),
			bal:   []lineBalance{{either: 1000, hasEither: true}},
		},
		{
			name:  "known meaning and order: stated even if it does not chain",
			lines: withAmounts(lines("2024-01-01", "2024-01-02"), -100, 50),
			bal:   []lineBalance{{after: 900, hasAfter: true}, {after: 5, hasAfter: true}},
			open:  bal("2024-01-01", 1000), closing: bal("2024-01-02", 5),
		},
		{
			name:  "mixed dates and no chain: none",
			lines: withAmounts(lines("2024-01-02", "2024-01-01", "2024-01-03"), -100, 50, 1),
			bal:   []lineBalance{{after: 900, hasAfter: true}, {after: 5, hasAfter: true}, {after: 7, hasAfter: true}},
		},
		{
			name:  "a line without its balance: none",
			lines: withAmounts(lines("2024-01-01", "2024-01-02"), -100, 50),
			bal:   []lineBalance{{after: 900, hasAfter: true}, {}},
		},
	}
	for _, tt := range tests {
		o, c := statementBalances(tt.lines, tt.bal)
		if !reflect.DeepEqual(o, tt.open) || !reflect.DeepEqual(c, tt.closing) {
			t.Errorf("%s: got %v, %v; want %v, %v", tt.name, o, c, tt.open, tt.closing)
		}
	}
}

func TestNormHeader(t *testing.T) {
	tests := []struct{ in, name, currency string }{
		{"Bedrag (EUR)", "bedrag", "EUR"},
		{"  Naam / Omschrijving ", "naam/omschrijving", ""},
		{"Date d’opération", "date d'operation", ""},
		{"Débit euros", "debit", "EUR"},
		{"Empfänger", "empfanger", ""},
		{"Betrag in EUR", "betrag", "EUR"},
		{"Withdrawals (GBP)", "withdrawals", "GBP"},
	}
	for _, tt := range tests {
		n, c := normHeader(tt.in)
		if n != tt.name || c != tt.currency {
			t.Errorf("normHeader(%q) = %q, %q; want %q, %q", tt.in, n, c, tt.name, tt.currency)
		}
	}
}

func TestRefineABNAMRO(t *testing.T) {
	tests := []struct {
		desc                        string
		payee, counterparty, remark string
	}{
		// tools.md's own example of an ABN AMRO card payment.
		{"BEA, Betaalpas ALBERT HEIJN 1234,PAS123 AMSTERDAM", "ALBERT HEIJN 1234", "", "BEA, Betaalpas ALBERT HEIJN 1234,PAS123 AMSTERDAM"},
		{"BEA NR:AB12CD 02.05.24/09:15 Fictieve Winkel BV ,PAS123", "Fictieve Winkel BV", "", "BEA NR:AB12CD 02.05.24/09:15 Fictieve Winkel BV ,PAS123"},
		{"/TRTP/iDEAL/IBAN/NL00TEST1111111111/BIC/TESTNL2A/NAME/Fictieve Webwinkel/REMI/Order 2024/05/17/EREF/17-05-2024 12:00", "Fictieve Webwinkel", "NL00TEST1111111111", "Order 2024/05/17"},
		{"/TRTP/SEPA OVERBOEKING/NAME//REMI/Zonder naam", "", "", "Zonder naam"},
		{"/TRTP/SEPA Incasso algemeen doorlopend/CSID/NL00ZZZ000000000000/NAME/Fictieve Energie", "Fictieve Energie", "", "SEPA Incasso algemeen doorlopend"},
		{"SEPA Overboeking IBAN: NL00TEST2222222222 BIC: TESTNL2A Naam: J. Test Omschrijving: Etentje", "J. Test", "NL00TEST2222222222", "Etentje"},
		{"ABN AMRO Bank N.V. Basic Package 2,95", "", "", "ABN AMRO Bank N.V. Basic Package 2,95"},
	}
	for _, tt := range tests {
		l := Line{Description: tt.desc}
		refineABNAMRO(&l)
		if l.Payee != tt.payee || l.Counterparty != tt.counterparty || l.Description != tt.remark {
			t.Errorf("%q: got payee %q, counterparty %q, description %q; want %q, %q, %q", tt.desc, l.Payee, l.Counterparty, l.Description, tt.payee, tt.counterparty, tt.remark)
		}
	}
}

func TestRefineING(t *testing.T) {
	tests := []struct {
		payee, desc     string
		valueDate, want string
	}{
		{"Kwijtschelding", "Valutadatum: 13-02-2020", "2020-02-13", ""},
		{"X", "Naam: X Omschrijving: Huur IBAN: NL00TEST1111111111 Valutadatum: 01-03-2024", "2024-03-01", "Huur"},
		{"X", "Naam: X IBAN: NL00TEST1111111111 Kenmerk: 7", "", "IBAN: NL00TEST1111111111 Kenmerk: 7"},
		{"X", "Valutadatum: 31-02-2024 rest", "", "Valutadatum: 31-02-2024 rest"}, // no such day: left as written
	}
	for _, tt := range tests {
		l := Line{Payee: tt.payee, Description: tt.desc}
		refineING(&l)
		if l.ValueDate != tt.valueDate || l.Description != tt.want {
			t.Errorf("%q: got %q, %q; want %q, %q", tt.desc, l.ValueDate, l.Description, tt.valueDate, tt.want)
		}
	}
}
