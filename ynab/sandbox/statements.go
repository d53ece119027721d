package sandbox

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The sample's bank statements: what the sample household's bank would give for its
// Betaalrekening over the last two weeks, in each format import_statement reads, so that
// importing a statement can be tried without a bank. They are made from the sample plan as of
// now, like the sample itself, so their lines fit it whatever the day:
//
//   - every transaction of the last two weeks on Betaalrekening, booked by the bank a day later
//     than YNAB dates it, with the bank's own wording: they match;
//   - three lines YNAB does not have: a purchase at Albert Heijn in the bank's words (the plan's
//     payee, and its only category, are found for it), one at a new payee, and a Tikkie
//     refund: they are new;
//   - yesterday's Coolblue purchase, which the sample's linked bank also has: once YNAB's own
//     import brought it in (import_transactions), it is already imported;
//   - two lines of the same amount, a day either side of the Bol.com purchase: either could be
//     it, so both are ambiguous.

// SampleIBAN is the account number of the sample's Betaalrekening in its statements.
const SampleIBAN = "NL91ABNA0417164300"

// SampleStatement is one statement file of the sample.
type SampleStatement struct {
	Name   string // a file name, e.g. "betaalrekening.ofx"
	Format string // the import_statement format: csv, ofx, camt053, mt940
	Data   []byte
}

// sampleLine is one line of the sample's statements.
type sampleLine struct {
	date   string
	amount int64 // milliunits
	payee  string
	memo   string
	ref    string // the bank's id of the line
}

// SampleStatements returns the sample's statements for Betaalrekening as of now, in each format.
func SampleStatements(now time.Time) []SampleStatement {
	lines, opening, closing := sampleStatementLines(now)
	return []SampleStatement{
		{Name: "betaalrekening-ing.csv", Format: "csv", Data: ingCSV(lines, opening)},
		{Name: "betaalrekening.ofx", Format: "ofx", Data: sampleOFX(lines, closing, dateOf(now))},
		{Name: "betaalrekening-camt053.xml", Format: "camt053", Data: sampleCAMT(lines, opening, closing, dateOf(now))},
		{Name: "betaalrekening.sta", Format: "mt940", Data: sampleMT940(lines, opening, closing)},
	}
}

// sampleStatementLines makes the lines (oldest first) and the opening and closing balances.
func sampleStatementLines(now time.Time) (lines []sampleLine, opening, closing int64) {
	p := huishouden(now)
	today := dateOf(now)
	from := addDays(today, -14)
	acct := uuidFor(p.ID, "account", "Betaalrekening")
	payee := func(id *string) string {
		if id == nil {
			return ""
		}
		if y := p.payee(*id); y != nil {
			return y.Name
		}
		return ""
	}
	var txs []*txn
	var balance int64
	for _, t := range p.Transactions {
		if t.AccountID != acct || t.Deleted {
			continue
		}
		balance += t.Amount
		if t.Date >= from && t.Date < today {
			txs = append(txs, t)
		}
	}
	slices.SortStableFunc(txs, func(a, b *txn) int { return strings.Compare(a.Date, b.Date) })
	n := 0
	ref := func() string { n++; return fmt.Sprintf("%s%04d", strings.ReplaceAll(today, "-", ""), n) }
	var bol *txn
	for _, t := range txs {
		name := payee(t.PayeeID)
		if name == "Bol.com" && bol == nil {
			bol = t
			continue
		}
		if t.TransferAccountID != nil {
			name = "Spaarrekening " + SampleIBAN[:8] + "0999888777"
		}
		lines = append(lines, sampleLine{date: min(addDays(t.Date, 1), today), amount: t.Amount,
			payee: strings.ToUpper(name), memo: bankWording(name, t), ref: ref()})
	}
	lines = append(lines,
		sampleLine{date: addDays(today, -3), amount: -12350, payee: "ALBERT HEIJN 1234", memo: "BEA, Betaalpas ALBERT HEIJN 1234,PAS123 AMSTERDAM", ref: ref()},
		sampleLine{date: addDays(today, -5), amount: -27500, payee: "Bakkerij De Vries", memo: "BEA, Betaalpas Bakkerij De Vries,PAS123 UTRECHT", ref: ref()},
		sampleLine{date: addDays(today, -2), amount: 4500, payee: "Tikkie", memo: "Tikkie ID 000123456789, Pizza vrijdag, Via Tikkie", ref: ref()},
		sampleLine{date: addDays(today, -1), amount: -19990, payee: "COOLBLUE B.V.", memo: "COOLBLUE B.V. ROTTERDAM NLD", ref: ref()},
	)
	if bol != nil {
		for _, d := range []int{-1, 1} {
			lines = append(lines, sampleLine{date: min(addDays(bol.Date, d), today), amount: bol.Amount, payee: "BOL.COM B.V.",
				memo: "iDEAL bol.com bestelling", ref: ref()})
		}
	}
	slices.SortStableFunc(lines, func(a, b sampleLine) int { return strings.Compare(a.date, b.date) })
	// The bank's balance is what every transaction YNAB has makes, and what YNAB lacks: the new
	// lines, the Coolblue purchase, and the second Bol.com line.
	closing = balance - 12350 - 27500 + 4500 - 19990
	if bol != nil {
		closing += bol.Amount
	}
	var sum int64
	for _, l := range lines {
		sum += l.amount
	}
	return lines, closing - sum, closing
}

// bankWording is how the bank describes a transaction the person entered in YNAB.
func bankWording(name string, t *txn) string {
	switch {
	case t.TransferAccountID != nil:
		return "Sparen " + name
	case t.Amount > 0:
		return "Salaris " + strings.ToUpper(name)
	case t.Memo != nil && *t.Memo != "":
		return "SEPA Incasso " + strings.ToUpper(name) + " " + *t.Memo
	}
	return "BEA, Betaalpas " + strings.ToUpper(name) + ",PAS123 UTRECHT"
}

// decimal writes milliunits as the bank does, unsigned with two decimals and sep.
func decimal(m int64, sep string) string {
	if m < 0 {
		m = -m
	}
	return fmt.Sprintf("%d%s%02d", m/1000, sep, m%1000/10)
}

func signed(m int64) string {
	if m < 0 {
		return "-" + decimal(m, ".")
	}
	return decimal(m, ".")
}

func compact(date string) string { return strings.ReplaceAll(date, "-", "") }

// ingCSV is the statement as ING's "Af- en bijschrijvingen" download in its semicolon form
// (YYYYMMDD, decimal commas, the sign in Af Bij, the value date inside Mededelingen, the
// balance after each line in "Saldo na mutatie"), newest line first as ING lists them. ING's
// CSV has no id of its own for a line. The layout is the one statement/csv_bank.go reads.
func ingCSV(lines []sampleLine, opening int64) []byte {
	after := make([]int64, len(lines))
	balance := opening
	for i, l := range lines {
		balance += l.amount
		after[i] = balance
	}
	var b strings.Builder
	b.WriteString(`"Datum";"Naam / Omschrijving";"Rekening";"Tegenrekening";"Code";"Af Bij";"Bedrag (EUR)";"Mutatiesoort";"Mededelingen";"Saldo na mutatie";"Tag"` + "\r\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		dir, code, kind := "Af", "BA", "Betaalautomaat"
		if l.amount > 0 {
			dir, code, kind = "Bij", "OV", "Overschrijving"
		}
		memo := l.memo + " Valutadatum: " + dayMonthYear(l.date)
		fmt.Fprintf(&b, "%q;%q;%q;%q;%q;%q;%q;%q;%q;%q;%q\r\n", compact(l.date), l.payee, SampleIBAN, "", code, dir,
			decimal(l.amount, ","), kind, memo, signedComma(after[i]), "")
	}
	return []byte(b.String())
}

// dayMonthYear writes a YYYY-MM-DD date as DD-MM-YYYY.
func dayMonthYear(date string) string { return date[8:10] + "-" + date[5:7] + "-" + date[0:4] }

func signedComma(m int64) string {
	if m < 0 {
		return "-" + decimal(m, ",")
	}
	return decimal(m, ",")
}

// sampleOFX is the statement as OFX 1.02 (SGML), as Dutch banks' "Money" downloads give it.
func sampleOFX(lines []sampleLine, closing int64, today string) []byte {
	var b strings.Builder
	b.WriteString("OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nSECURITY:NONE\nENCODING:USASCII\nCHARSET:1252\nCOMPRESSION:NONE\nOLDFILEUID:NONE\nNEWFILEUID:NONE\n\n")
	b.WriteString("<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>" + compact(today) + "<LANGUAGE>DUT</SONRS></SIGNONMSGSRSV1>\n")
	b.WriteString("<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS><STMTRS><CURDEF>EUR\n")
	b.WriteString("<BANKACCTFROM><BANKID>ABNA<ACCTID>" + SampleIBAN + "<ACCTTYPE>CHECKING</BANKACCTFROM>\n")
	fmt.Fprintf(&b, "<BANKTRANLIST><DTSTART>%s<DTEND>%s\n", compact(lines[0].date), compact(lines[len(lines)-1].date))
	for _, l := range lines {
		typ := "DEBIT"
		if l.amount > 0 {
			typ = "CREDIT"
		}
		fmt.Fprintf(&b, "<STMTTRN><TRNTYPE>%s<DTPOSTED>%s<TRNAMT>%s<FITID>%s<NAME>%s<MEMO>%s</STMTTRN>\n", typ, compact(l.date), signed(l.amount), l.ref, sgml(l.payee), sgml(l.memo))
	}
	fmt.Fprintf(&b, "</BANKTRANLIST><LEDGERBAL><BALAMT>%s<DTASOF>%s</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n", signed(closing), compact(lines[len(lines)-1].date))
	return []byte(b.String())
}

func sgml(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// sampleCAMT is the statement as ISO 20022 camt.053.001.02.
func sampleCAMT(lines []sampleLine, opening, closing int64, today string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>` + "\n")
	fmt.Fprintf(&b, "<GrpHdr><MsgId>SAMPLE%s</MsgId><CreDtTm>%sT06:00:00</CreDtTm></GrpHdr>\n", compact(today), today)
	fmt.Fprintf(&b, "<Stmt><Id>SAMPLE%s</Id><CreDtTm>%sT06:00:00</CreDtTm><Acct><Id><IBAN>%s</IBAN></Id><Ccy>EUR</Ccy></Acct>\n", compact(today), today, SampleIBAN)
	bal := func(code string, m int64, date string) {
		ind := "CRDT"
		if m < 0 {
			ind = "DBIT"
		}
		fmt.Fprintf(&b, `<Bal><Tp><CdOrPrtry><Cd>%s</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">%s</Amt><CdtDbtInd>%s</CdtDbtInd><Dt><Dt>%s</Dt></Dt></Bal>`+"\n", code, decimal(m, "."), ind, date)
	}
	bal("OPBD", opening, addDays(lines[0].date, -1))
	bal("CLBD", closing, lines[len(lines)-1].date)
	for _, l := range lines {
		ind, party := "DBIT", "Cdtr"
		if l.amount > 0 {
			ind, party = "CRDT", "Dbtr"
		}
		fmt.Fprintf(&b, `<Ntry><Amt Ccy="EUR">%s</Amt><CdtDbtInd>%s</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>%s</Dt></BookgDt><ValDt><Dt>%s</Dt></ValDt><AcctSvcrRef>%s</AcctSvcrRef>`,
			decimal(l.amount, "."), ind, l.date, l.date, l.ref)
		fmt.Fprintf(&b, `<BkTxCd/><NtryDtls><TxDtls><RltdPties><%s><Nm>%s</Nm></%s></RltdPties><RmtInf><Ustrd>%s</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`+"\n",
			party, sgml(l.payee), party, sgml(l.memo))
	}
	b.WriteString("</Stmt></BkToCstmrStmt></Document>\n")
	return []byte(b.String())
}

// sampleMT940 is the statement as SWIFT MT940, with the structured :86: of Dutch banks.
func sampleMT940(lines []sampleLine, opening, closing int64) []byte {
	var b strings.Builder
	short := func(date string) string { return compact(date)[2:] }
	mark := func(m int64) string {
		if m < 0 {
			return "D"
		}
		return "C"
	}
	b.WriteString(":20:SAMPLE\r\n:25:" + SampleIBAN + "\r\n:28C:1/1\r\n")
	fmt.Fprintf(&b, ":60F:%s%sEUR%s\r\n", mark(opening), short(addDays(lines[0].date, -1)), decimal(opening, ","))
	for _, l := range lines {
		fmt.Fprintf(&b, ":61:%s%s%s%sNTRF%s//%s\r\n", short(l.date), short(l.date)[2:], mark(l.amount), decimal(l.amount, ","), "NONREF", l.ref)
		fmt.Fprintf(&b, ":86:/NAME/%s/REMI/%s/\r\n", mt940Text(l.payee), mt940Text(l.memo))
	}
	fmt.Fprintf(&b, ":62F:%s%sEUR%s\r\n", mark(closing), short(lines[len(lines)-1].date), decimal(closing, ","))
	return []byte(b.String())
}

// mt940Text keeps to what SWIFT's character set takes in :86:, without the field separator.
func mt940Text(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '/':
			return ' '
		case r > 127:
			return '?'
		}
		return r
	}, s)
}
