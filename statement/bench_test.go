package statement

import (
	"fmt"
	"strings"
	"testing"
)

// benchLines is the size of the statement each benchmark parses: 10,000 transactions, a large
// year of a business account, ten times the busiest household's.
const benchLines = 10000

func benchMT940(n int) []byte {
	var b strings.Builder
	b.WriteString("{1:F01TESTNL2AXXXX0000000000}{2:I940TESTNL2AXXXXN}{4:\n:20:BENCH\n:25:NL00TEST0123456789EUR\n:28C:1\n:60F:C230101EUR0,00\n")
	var sum int64
	for i := range n {
		amt := int64(1000 + i%9000)
		mark := "C"
		if i%3 != 0 {
			mark, amt = "D", -amt
		}
		sum += amt
		day := 1 + i%28
		fmt.Fprintf(&b, ":61:2301%02d01%02d%s%d,%02dNTRFEREF//%014d\n/TRCD/01028/\n", day, day, mark, absInt64(amt)/100, absInt64(amt)%100, i)
		fmt.Fprintf(&b, ":86:/EREF/BENCH-%d//CNTP/NL00TEST%010d/TESTNL2A/Fictieve Tegenpartij %d///REMI/USTD//Betaling num\nmer %d voor de benchmark/\n", i, i, i%50, i)
	}
	mark := "C"
	if sum < 0 {
		mark = "D"
	}
	fmt.Fprintf(&b, ":62F:%s230131EUR%d,%02d\n-}\n", mark, absInt64(sum)/100, absInt64(sum)%100)
	return []byte(b.String())
}

func benchCAMT(n int) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><Stmt>
<Acct><Id><IBAN>NL00TEST0123456789</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2023-01-01</Dt></Dt></Bal>
`)
	for i := range n {
		ind := "DBIT"
		if i%3 == 0 {
			ind = "CRDT"
		}
		fmt.Fprintf(&b, `<Ntry><Amt Ccy="EUR">%d.%02d</Amt><CdtDbtInd>%s</CdtDbtInd><Sts>BOOK</Sts>
<BookgDt><Dt>2023-01-%02d</Dt></BookgDt><ValDt><Dt>2023-01-%02d</Dt></ValDt><AcctSvcrRef>REF%d</AcctSvcrRef>
<NtryDtls><TxDtls><RltdPties><Cdtr><Nm>Fictieve Tegenpartij %d</Nm></Cdtr><CdtrAcct><Id><IBAN>NL00TEST%010d</IBAN></Id></CdtrAcct></RltdPties>
<RmtInf><Ustrd>Betaling nummer %d voor de benchmark</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>
`, 10+i%90, i%100, ind, 1+i%28, 1+i%28, i, i%50, i, i)
	}
	b.WriteString("</Stmt></BkToCstmrStmt></Document>\n")
	return []byte(b.String())
}

func benchOFX(n int, sgml bool) []byte {
	var b strings.Builder
	if sgml {
		b.WriteString("OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n")
	} else {
		b.WriteString("<?xml version=\"1.0\"?>\n<?OFX OFXHEADER=\"200\" VERSION=\"220\"?>\n")
	}
	b.WriteString("<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>EUR</CURDEF>\n<BANKACCTFROM><ACCTID>NL00TEST0123456789</ACCTID></BANKACCTFROM>\n<BANKTRANLIST>\n")
	leaf := func(name, value string) {
		if sgml {
			fmt.Fprintf(&b, "<%s>%s\n", name, value)
		} else {
			fmt.Fprintf(&b, "<%s>%s</%s>\n", name, value, name)
		}
	}
	for i := range n {
		b.WriteString("<STMTTRN>\n")
		leaf("TRNTYPE", "DEBIT")
		leaf("DTPOSTED", fmt.Sprintf("202301%02d120000.000[+1:CET]", 1+i%28))
		leaf("TRNAMT", fmt.Sprintf("-%d.%02d", 10+i%90, i%100))
		leaf("FITID", fmt.Sprintf("FIT%d", i))
		leaf("NAME", fmt.Sprintf("Fictieve Tegenpartij %d", i%50))
		leaf("MEMO", fmt.Sprintf("Betaling nummer %d voor de benchmark", i))
		b.WriteString("</STMTTRN>\n")
	}
	b.WriteString("</BANKTRANLIST>\n<LEDGERBAL><BALAMT>0.00</BALAMT><DTASOF>20230131</DTASOF></LEDGERBAL>\n</STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n")
	return []byte(b.String())
}

func absInt64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func BenchmarkParse(b *testing.B) {
	for _, bc := range []struct {
		name string
		data []byte
	}{
		{"MT940", benchMT940(benchLines)},
		{"CAMT053", benchCAMT(benchLines)},
		{"OFX-SGML", benchOFX(benchLines, true)},
		{"OFX-XML", benchOFX(benchLines, false)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			sts, err := Parse(bc.data, FormatAuto, CSVOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if n := len(sts[0].Lines); n != benchLines {
				b.Fatalf("%d lines, want %d", n, benchLines)
			}
			b.SetBytes(int64(len(bc.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(bc.data, FormatAuto, CSVOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBenchFiles keeps the benchmarks' generated files honest, at a size that keeps the test
// quick: each parses to its lines, and the MT940 one adds up to its closing balance.
func TestBenchFiles(t *testing.T) {
	const n = 300
	for name, data := range map[string][]byte{"mt940": benchMT940(n), "camt": benchCAMT(n), "ofx-sgml": benchOFX(n, true), "ofx-xml": benchOFX(n, false)} {
		sts, err := Parse(data, FormatAuto, CSVOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(sts) != 1 || len(sts[0].Lines) != n {
			t.Fatalf("%s: %d statements", name, len(sts))
		}
		l := sts[0].Lines[7]
		if l.Payee != "Fictieve Tegenpartij 7" || l.Description != "Betaling nummer 7 voor de benchmark" {
			t.Errorf("%s: line %+v", name, l)
		}
		if name == "mt940" {
			var sum int64
			for _, l := range sts[0].Lines {
				sum += l.Amount
			}
			if sts[0].Opening.Amount+sum != sts[0].Closing.Amount {
				t.Errorf("%s: the lines do not add up to the closing balance", name)
			}
		}
	}
}
