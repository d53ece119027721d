package statement

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestLargeMalformed feeds each parser a few hundred kilobytes shaped to be costly — endless
// nesting, thousands of details in one entry, a :86: of slashes and codes — and checks what it
// makes of each. The elapsed time is logged (-v) to show the cost stays linear in the size: the
// nesting bound of ofxTree and the set in distinct are there for the first and third.
func TestLargeMalformed(t *testing.T) {
	var camt strings.Builder
	camt.WriteString(`<Document><BkToCstmrStmt><Stmt><Acct><Ccy>EUR</Ccy></Acct>` + "\n" +
		`<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2023-01-01</Dt></BookgDt><NtryDtls>`)
	const details = 5000
	for i := range details {
		fmt.Fprintf(&camt, "<TxDtls><RltdPties><Cdtr><Nm>N%d</Nm></Cdtr></RltdPties><RmtInf><Ustrd>U</Ustrd></RmtInf></TxDtls>", i)
	}
	camt.WriteString("</NtryDtls></Ntry></Stmt></BkToCstmrStmt></Document>")

	mt940 := ":20:X\n:60F:C230101EUR1,00\n:61:230101D1,00NTRFX\n:86:" +
		strings.Repeat("/NAME//REMI/", 5000) + strings.Repeat("/", 100000) + "\n" +
		strings.Repeat("x", 65) + "\n" + ":62F:C230101EUR0,00\n"

	tests := []struct {
		name   string
		data   string
		format Format
		check  func(t *testing.T, sts []Statement, err error)
	}{
		{"OFX nested endlessly", strings.Repeat("<A>\n", 30000) + "</A>", FormatOFX, func(t *testing.T, _ []Statement, err error) {
			wantError(t, err, 65, "nests elements far deeper than OFX does")
		}},
		{"OFX of stray end tags", "<OFX>" + strings.Repeat("<STMTRS>", 60) + strings.Repeat("</X>", 50000), FormatOFX, func(t *testing.T, _ []Statement, err error) {
			wantError(t, err, 1, "it is truncated")
		}},
		{"CAMT batch of 5,000 details", camt.String(), FormatCAMT, func(t *testing.T, sts []Statement, err error) {
			if err != nil {
				t.Fatal(err)
			}
			l := sts[0].Lines[0]
			if l.Amount != -1000 || l.Payee != "" || strings.Count(l.Description, "; ") != details-1 {
				t.Errorf("line of %d parts, payee %q", strings.Count(l.Description, "; ")+1, l.Payee)
			}
		}},
		{"MT940 :86: of codes and slashes", mt940, FormatMT940, func(t *testing.T, sts []Statement, err error) {
			if err != nil {
				t.Fatal(err)
			}
			if l := sts[0].Lines[0]; l.Payee != "" || l.Amount != -1000 {
				t.Errorf("line %+v", l)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			sts, err := Parse([]byte(tt.data), tt.format, CSVOptions{})
			t.Logf("%d bytes in %v", len(tt.data), time.Since(start))
			tt.check(t, sts, err)
		})
	}
}
