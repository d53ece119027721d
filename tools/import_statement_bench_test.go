package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/statement"
	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// benchStatementLines is the size of the statement the benchmark imports: a large year of a
// business account, ten times the busiest household's (as statement's own benchmarks).
const benchStatementLines = 10_000

// benchStatement is an OFX statement of n lines for the account acct of p, as of today: seven
// lines in ten are the account's own transactions, newest first, booked by the bank a day after
// YNAB dates them (they match); the others are new (amounts no transaction of the account has).
func benchStatement(p *ynab.Plan, acct, today string, n int) []byte {
	var txs []*ynab.TransactionSummary
	oldest := mustAddDays(today, -5*365+30)
	for _, t := range p.TransactionsByDate() { // newest first
		if t.AccountID == acct && !t.Deleted && t.Date < today && t.Date > oldest && t.Amount != 0 {
			txs = append(txs, t)
		}
	}
	var b strings.Builder
	b.WriteString("OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>EUR\n")
	b.WriteString("<BANKACCTFROM><ACCTID>" + sandbox.SampleIBAN + "</BANKACCTFROM><BANKTRANLIST>\n")
	k := 0
	for i := range n {
		var date string
		var amount int64
		if i%10 < 7 && k < len(txs) {
			date, amount = min(mustAddDays(txs[k].Date, 1), today), txs[k].Amount
			k++
		} else {
			date, amount = mustAddDays(today, -1-(i%1500)), -(9_000_000 + int64(i)*10) // 9,000.00 and up: nothing of the sample's
		}
		fmt.Fprintf(&b, "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>%s<TRNAMT>%s<FITID>B%d<NAME>Tegenpartij %d<MEMO>Betaling %d, kenmerk %08d</STMTTRN>\n",
			strings.ReplaceAll(date, "-", ""), FormatPlain(amount, 2), i, i%200, i, i)
	}
	b.WriteString("</BANKTRANLIST><LEDGERBAL><BALAMT>0.00<DTASOF>" + strings.ReplaceAll(today, "-", "") + "</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n")
	return []byte(b.String())
}

func mustAddDays(date string, n int) string {
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		panic(err)
	}
	return d.AddDate(0, 0, n).Format(time.DateOnly)
}

// BenchmarkImportStatementPlan: import_statement's plan (the preview) for a statement of
// 10,000 lines against the 50,000-transaction sample, without confirming. "plan" is the work in
// process — parse, match, payees, the preview and the card's lines — on the plan as read;
// "mcp" is the whole call through the MCP surface on a warm cache (at most the delta request a
// preview's freshness asks), reading the file, to its confirmation_required result. The result sizes are reported as metrics.
func BenchmarkImportStatementPlan(b *testing.B) {
	dir := b.TempDir()
	e := newEnv(b, envOptions{kind: noElicit, maxAge: ynab.MaxFreshness, sample: sandbox.LargeSample(50_000), statementDirs: []string{dir}})
	ctx := context.Background()
	p, err := e.client.Plan(ctx, sandbox.LargePlanID, ynab.Fresh)
	if err != nil {
		b.Fatal(err)
	}
	today := sandboxToday.Format(time.DateOnly)
	acct := ""
	for _, a := range p.Accounts {
		if a.Name == "Betaalrekening" {
			acct = a.ID
		}
	}
	data := benchStatement(p, acct, today, benchStatementLines)
	file := filepath.Join(dir, "statement.ofx")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		b.Fatal(err)
	}
	in := importStatementIn{Account: "Betaalrekening", File: file}
	h := &handlers{}
	build := func() (*statementPlan, *edit) {
		sts, err := statement.Parse(data, statement.FormatAuto, statement.CSVOptions{})
		if err != nil {
			b.Fatal(err)
		}
		sp, err := planStatement(p, joinStatements(sts), in, sandboxToday, nil)
		if err != nil {
			b.Fatal(err)
		}
		ed, err := h.statementWrite(p, sp)
		if err != nil {
			b.Fatal(err)
		}
		return sp, ed
	}
	sp, ed := build()
	n := sp.count()
	b.Logf("%d lines against %d transactions (%d on Betaalrekening): %d new, %d matched, %d already imported, %d ambiguous, %d left out; %d bytes of OFX",
		len(sp.lines), len(p.Transactions), countOn(p, acct), n[lineNew], n[lineMatched], n[lineImported], n[lineAmbiguous], n[lineLeftOut], len(data))
	card, err := json.Marshal(createdOut{writeOut: writeOut{Status: "confirmation_pending", Preview: ed.preview(), Title: ed.first,
		Changes: ed.cardLines(), Notes: ed.notes, PlanName: p.Name, Tool: ed.tool}})
	if err != nil {
		b.Fatal(err)
	}

	b.Run("plan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, ed := build()
			_ = ed.preview()
			_ = ed.cardLines()
		}
	})
	b.Run("mcp", func(b *testing.B) {
		e.t = b
		var size int
		args := map[string]any{"account": "Betaalrekening", "file": file}
		b.ReportAllocs()
		for b.Loop() {
			e.sb.ResetCounts()
			res := e.call("import_statement", args)
			var out createdOut
			decode(b, res, &out)
			if out.Status != "confirmation_required" || e.sb.Counts().Total > 1 {
				b.Fatalf("%s", text(res))
			}
			size = len(text(res))
		}
		b.ReportMetric(float64(size), "required-bytes")
		b.ReportMetric(float64(len(card)), "pending-bytes")
	})
}

// countOn is how many live transactions the account acct of p has.
func countOn(p *ynab.Plan, acct string) int {
	n := 0
	for i := range p.Transactions {
		if p.Transactions[i].AccountID == acct && !p.Transactions[i].Deleted {
			n++
		}
	}
	return n
}

// A statement of 10,000 lines keeps every result inside the result budget (~60 KB): the
// preview (20 lines, then "… and N more"), the card's pending result (its lines cut at a size,
// then counted), and the applied result (the first 100 ids, the count in the message) — and
// it is all entered, in one POST.
func TestImportStatementResultSizes(t *testing.T) {
	if testing.Short() {
		t.Skip("enters 10,000 transactions")
	}
	dir := t.TempDir()
	write := func(e *testEnv) string {
		p, err := e.client.Plan(context.Background(), sandbox.PlanID, ynab.Fresh)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "statement.ofx")
		acct := ""
		for _, a := range p.Accounts {
			if a.Name == "Betaalrekening" {
				acct = a.ID
			}
		}
		if err := os.WriteFile(file, benchStatement(p, acct, sandboxToday.Format(time.DateOnly), benchStatementLines), 0o600); err != nil {
			t.Fatal(err)
		}
		return file
	}
	// A result's size as the model reads it (size_test.go's measure): its text, which is the
	// structured content's JSON.
	sizeOf := func(res *mcp.CallToolResult) int { return len(text(res)) }

	apps := newEnv(t, envOptions{kind: modernApps, statementDirs: []string{dir}})
	args := map[string]any{"account": "Betaalrekening", "file": write(apps)}
	res := apps.call("import_statement", args)
	var pending writeOut
	decode(t, res, &pending)
	last := pending.Changes[len(pending.Changes)-1].Label
	if n := sizeOf(res); pending.Status != "confirmation_pending" || n > maxResultBytes || !strings.HasPrefix(last, "… and ") {
		t.Fatalf("pending: %s, %d bytes, %d card lines ending %q: want at most %d, the rest counted", pending.Status, n, len(pending.Changes), last, maxResultBytes)
	}
	t.Logf("pending: %d bytes, %d card lines, then %q", sizeOf(res), len(pending.Changes)-1, last)

	e := newEnv(t, envOptions{kind: noElicit, statementDirs: []string{dir}})
	var first createdOut
	res = e.call("import_statement", args)
	decode(t, res, &first)
	if n := sizeOf(res); first.Status != "confirmation_required" || n > maxResultBytes || !strings.Contains(first.Preview, "\n… and ") {
		t.Fatalf("preview: %s, %d bytes:\n%s", first.Status, n, first.Preview)
	}
	t.Logf("confirmation_required: %d bytes", sizeOf(res))
	e.sb.ResetCounts()
	res = e.call("import_statement", withArg(args, "confirmation", first.Confirmation))
	var done createdOut
	decode(t, res, &done)
	c := e.sb.Counts()
	if n := sizeOf(res); done.Status != "applied" || n > maxResultBytes || len(done.TransactionIDs) != maxCreates ||
		!strings.Contains(done.Message, "transaction_ids holds the first 100") || c.ByRoute["POST /plans/{plan_id}/transactions"] != 1 {
		t.Fatalf("applied: %d bytes, %+v, counts %+v", n, done, c)
	}
	t.Logf("applied: %d bytes; %s", sizeOf(res), done.Message)
}
