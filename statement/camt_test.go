package statement

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestCAMTTestdata(t *testing.T) {
	const acct = "NL00TEST0123456789"
	tests := []struct {
		file string
		want []Statement
	}{
		{
			// camt.053.001.02: two statements, PRCD as the opening balance, a debit closing
			// balance, two Ustrd lines, a structured reference, a booking date as DtTm, the
			// AcctSvcrRef on the entry and on its one TxDtls, PDNG and INFO entries left out.
			file: "two-statements-v02.xml",
			want: []Statement{
				{Format: FormatCAMT, Account: acct, Currency: "EUR", Opening: balAt("2023-08-31", 100000), Closing: balAt("2023-09-01", 57500), Lines: []Line{
					{Date: "2023-09-01", ValueDate: "2023-09-01", Amount: -42500, Decimals: 2, Payee: "Fictieve Energie B.V.", Description: "Termijnbedrag september Klantnummer 123", Counterparty: "NL77TEST0000000007", BankID: "REF-0001", Source: 20},
				}},
				{Format: FormatCAMT, Account: acct, Currency: "EUR", Opening: balAt("2023-09-01", 57500), Closing: balAt("2023-09-02", -12500), Lines: []Line{
					{Date: "2023-09-02", ValueDate: "2023-09-03", Amount: -70000, Decimals: 2, Payee: "Fictieve Webwinkel", Description: "RF18539007547034", BankID: "TX-0002", Source: 58},
				}},
			},
		},
		{
			// camt.053.001.08 with a namespace prefix and the Pty wrapper: a batch of three
			// details for two creditors, a batch for one, a reversal booked as a credit, a
			// credit with only AddtlTxInf, an entry with no details but AddtlNtryInf; CLAV is not
			// the closing balance.
			file: "batch-v08.xml",
			want: []Statement{
				{Format: FormatCAMT, Account: acct, Currency: "EUR", Opening: balAt("2023-10-01", 1000000), Closing: balAt("2023-10-02", 1149500), Lines: []Line{
					{Date: "2023-10-02", ValueDate: "2023-10-02", Amount: -150000, Decimals: 2, Description: "Fictieve Sportclub Contributie Q4 lid 1; Fictieve Sportclub Contributie Q4 lid 2; Fictieve Muziekschool Lesgeld oktober", BankID: "BATCH-01", Source: 26},
					{Date: "2023-10-02", Amount: -60000, Decimals: 2, Payee: "Fictieve Verzekeraar", Description: "Polis 1; Polis 2", Counterparty: "NL88TEST0000000008", BankID: "BATCH-02", Source: 52},
					{Date: "2023-10-02", Amount: 60000, Decimals: 2, Payee: "Fictieve Verzekeraar", Description: "Storno Polis 2", Counterparty: "NL88TEST0000000008", BankID: "REV-01", Reversal: true, Source: 71},
					{Date: "2023-10-02", Amount: 300000, Decimals: 2, Payee: "Fictieve Werkgever", Description: "Salaris", Counterparty: "NL99TEST0000000009", BankID: "SAL-01", Source: 86},
					{Date: "2023-10-02", Amount: -500, Decimals: 2, Description: "Kosten batchverwerking", Source: 101},
				}},
			},
		},
		{
			// camt.053.001.04 declared ISO-8859-1 and written in Windows-1252: an account with
			// no IBAN (Othr/Id) and no Ccy (the balances give it), and an empty statement.
			file: "latin1-v04.xml",
			want: []Statement{
				{Format: FormatCAMT, Account: "0000-TEST-01", Currency: "EUR", Opening: balAt("2023-10-31", 20000), Closing: balAt("2023-10-31", 8750), Lines: []Line{
					{Date: "2023-10-31", Amount: -11250, Decimals: 2, Payee: "Crème Fraîche & Zoon", Description: "Bestelling nr. 5 à 11,25 €", Source: 20},
				}},
				{Format: FormatCAMT, Account: "0000-TEST-01", Currency: "EUR", Opening: balAt("2023-11-01", 8750), Closing: balAt("2023-11-01", 8750)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := readFile(t, filepath.Join("testdata", "camt", tt.file))
			if f, err := Detect(data); err != nil || f != FormatCAMT {
				t.Errorf("Detect = %q, %v; want camt053", f, err)
			}
			got, err := Parse(data, FormatAuto, CSVOptions{})
			if err != nil {
				t.Fatal(err)
			}
			compareStatements(t, got, tt.want)
		})
	}
}

func TestCAMTMalformed(t *testing.T) {
	tests := []struct {
		file string
		line int
		msg  string
	}{
		{"bad-truncated.xml", 17, "the file ends inside an element: it is truncated"},
		{"bad-date.xml", 12, "the Ntry's BookgDt is not a date (YYYY-MM-DD)"},
		{"bad-decimals.xml", 12, "the Ntry's Amt has more than 3 decimals"},
		{"bad-amount.xml", 12, "the Ntry's Amt is not an amount"},
		{"bad-cdtdbtind.xml", 12, "the Ntry's CdtDbtInd must be CRDT or DBIT"},
		{"bad-entity.xml", 17, "is not well-formed XML"},
		{"camt052.xml", 0, "account report (camt.052), not a statement"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := Parse(readFile(t, filepath.Join("testdata", "camt", tt.file)), FormatAuto, CSVOptions{})
			wantError(t, err, tt.line, tt.msg)
		})
	}
}

func TestCAMTInline(t *testing.T) {
	doc := func(stmt string) string {
		return `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.06"><BkToCstmrStmt>` + stmt + `</BkToCstmrStmt></Document>`
	}
	entry := func(inner string) string {
		return doc("<Stmt><Acct><Id><IBAN>NL00TEST0123456789</IBAN></Id><Ccy>EUR</Ccy></Acct>\n<Ntry>" + inner + "</Ntry></Stmt>")
	}
	tests := []struct {
		name string
		text string
		line int
		msg  string
	}{
		{"no statement", doc(""), 0, "holds no statement (Stmt)"},
		{"no BkToCstmrStmt", `<Document><Other/></Document>`, 0, "holds no ISO 20022 statement"},
		{"text", "this is not XML", 0, "holds no ISO 20022 statement"},
		{"broken XML", "<Document><<Stmt>", 0, "is not an ISO 20022 XML statement"},
		{"a statement cut short", doc("<Stmt>\n<Acct>")[:80], 1, "truncated"},
		{"no booking date", entry(`<Amt Ccy="EUR">1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>`), 2, "has no booking date (BookgDt)"},
		{"a signed amount", entry(`<Amt Ccy="EUR">-1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2023-01-01</Dt></BookgDt>`), 2, "is signed"},
		{"another currency", entry(`<Amt Ccy="USD">1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2023-01-01</Dt></BookgDt>`), 2, "in another currency"},
		{"a bad value date", entry(`<Amt Ccy="EUR">1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2023-01-01</Dt></BookgDt><ValDt><Dt>2023-13-01</Dt></ValDt>`), 2, "ValDt is not a date"},
		{"a balance without a date", doc("<Stmt>\n<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt>1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal></Stmt>"), 2, "the Bal's Dt is not a date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.text), FormatCAMT, CSVOptions{})
			wantError(t, err, tt.line, tt.msg)
		})
	}
}

// TestCAMTEntryKinds checks the entry details the testdata files leave out: a status without
// a code, a booking date with a zone, a structured remittance with a document number.
func TestCAMTEntryKinds(t *testing.T) {
	text := `<?xml version="1.0"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.03"><BkToCstmrStmt><Stmt>
<Acct><Id><IBAN>NL00TEST0123456789</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Ntry><Amt Ccy="EUR">5</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2023-01-02+01:00</Dt></BookgDt>
<NtryDtls><TxDtls><RltdPties><Dbtr><Nm>Fictieve Klant</Nm></Dbtr></RltdPties>
<RmtInf><Strd><RfrdDocInf><Nb>INV-7</Nb></RfrdDocInf><AddtlRmtInf>Dank u</AddtlRmtInf></Strd></RmtInf></TxDtls></NtryDtls></Ntry>
</Stmt></BkToCstmrStmt></Document>`
	got, err := Parse([]byte(text), FormatAuto, CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	compareStatements(t, got, []Statement{{Format: FormatCAMT, Account: "NL00TEST0123456789", Currency: "EUR", Lines: []Line{
		{Date: "2023-01-02", Amount: 5000, Decimals: 0, Payee: "Fictieve Klant", Description: "INV-7 Dank u", Source: 4},
	}}})
	if strings.Contains(text, "Sts") {
		t.Fatal("the entry is meant to have no status")
	}
}

func TestDistinct(t *testing.T) {
	var d distinct
	var want []string
	for i := range 40 {
		s := string(rune('a' + i%20))
		if i < 20 {
			want = append(want, s)
		}
		d.add(s)
		d.add("")
		d.add(s)
	}
	if strings.Join(d.list, "") != strings.Join(want, "") {
		t.Errorf("got %q, want %q", d.list, want)
	}
}
