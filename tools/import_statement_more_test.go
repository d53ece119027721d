package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// stmtJournalAgrees checks that the journal's record of operation id is what YNAB holds, change
// by change: an applied line entered is a live transaction with its import id, an applied mark
// is the cleared state YNAB has, a line or mark not applied is not there.
func stmtJournalAgrees(e *testEnv, id string) journal.Operation {
	e.t.Helper()
	op := e.operation(id)
	p := createsExport(e)
	byID := map[string]ynab.TransactionSummary{}
	byImport := map[string][]ynab.TransactionSummary{}
	for _, t := range p.Transactions {
		byID[t.ID] = t
		if t.ImportID != nil && !t.Deleted {
			byImport[*t.ImportID] = append(byImport[*t.ImportID], t)
		}
	}
	for i, ch := range op.Changes {
		switch ch.Kind {
		case journal.KindNewTransaction:
			var after struct {
				ImportID string `json:"import_id"`
			}
			if err := json.Unmarshal(ch.After, &after); err != nil || after.ImportID == "" {
				e.t.Fatalf("%s change %d (%s) records no import id: %s", id, i+1, ch.Label, ch.After)
			}
			live := byImport[after.ImportID]
			switch ch.Outcome {
			case journal.OutcomeApplied:
				if len(live) != 1 || live[0].ID != ch.ID {
					e.t.Errorf("%s change %d (%s) is applied as %s, but YNAB holds %d transaction(s) with %s: %+v", id, i+1, ch.Label, ch.ID, len(live), after.ImportID, live)
				}
			case journal.OutcomeNotApplied:
				if len(live) != 0 {
					e.t.Errorf("%s change %d (%s) is not applied, but YNAB holds %+v", id, i+1, ch.Label, live)
				}
			default:
				e.t.Errorf("%s change %d (%s) is %q: want applied or not_applied", id, i+1, ch.Label, ch.Outcome)
			}
		case journal.KindTransaction:
			var before, after struct{ Cleared string }
			_ = json.Unmarshal(ch.Before, &before)
			_ = json.Unmarshal(ch.After, &after)
			now := byID[ch.ID].Cleared
			switch ch.Outcome {
			case journal.OutcomeApplied:
				if now != after.Cleared {
					e.t.Errorf("%s change %d (%s) is applied (%s), but YNAB holds %s", id, i+1, ch.Label, after.Cleared, now)
				}
			case journal.OutcomeNotApplied:
				if now != before.Cleared {
					e.t.Errorf("%s change %d (%s) is not applied (%s), but YNAB holds %s", id, i+1, ch.Label, before.Cleared, now)
				}
			default:
				e.t.Errorf("%s change %d (%s) is %q: want applied or not_applied", id, i+1, ch.Label, ch.Outcome)
			}
		default:
			e.t.Fatalf("%s change %d has the kind %q, which import_statement does not make", id, i+1, ch.Kind)
		}
	}
	return op
}

// stmtImportIDs counts the live transactions on Betaalrekening by import id.
func stmtImportIDs(e *testEnv) map[string]int {
	e.t.Helper()
	acct := createsID(e, "Betaalrekening")
	n := map[string]int{}
	for _, t := range createsExport(e).Transactions {
		if t.AccountID == acct && !t.Deleted && t.ImportID != nil {
			n[*t.ImportID]++
		}
	}
	return n
}

// The answer to a request of the import is lost (YNAB applied it): avenir settles the outcome
// by reading YNAB, and the journal records exactly what YNAB holds. Lost after the POST, the
// lines entered are recorded applied and the marks (never sent) not applied; an identical retry
// finds the lines by their import ids, enters nothing twice, and sends only the PATCH. Lost
// after the PATCH, all of it is applied, and the retry has nothing left to do.
func TestImportStatementLostAnswer(t *testing.T) {
	for _, method := range []string{"POST", "PATCH"} {
		t.Run(method, func(t *testing.T) {
			e := newEnv(t, envOptions{kind: noElicit})
			before := betaalStates(e)
			args := map[string]any{"account": "Betaalrekening", "content": sampleStatement(t, "mt940")}
			var first createdOut
			e.ok("import_statement", args, &first)
			if first.Status != "confirmation_required" {
				t.Fatalf("first call %+v", first)
			}
			e.sb.ResetCounts()
			e.sb.InjectFault(sandbox.Fault{Method: method, PathContains: "/transactions", DropAfter: true})
			res := e.call("import_statement", withArg(args, "confirmation", first.Confirmation))
			op := stmtJournalAgrees(e, e.onlyOperation().ID)
			news, marks := 0, 0
			for _, ch := range op.Changes {
				switch {
				case ch.Kind == journal.KindNewTransaction && ch.Outcome == journal.OutcomeApplied:
					news++
				case ch.Kind == journal.KindTransaction && ch.Outcome == journal.OutcomeApplied:
					marks++
				}
			}
			switch method {
			case "POST":
				if !res.IsError || !strings.Contains(text(res), "Only part of the change is in YNAB") || op.Status != journal.StatusPartial || news != 4 || marks != 0 {
					t.Fatalf("lost POST answer: %s; journal %s, %d entered, %d marked: want partial, the 4 lines entered and nothing marked", text(res), op.Status, news, marks)
				}
			case "PATCH":
				var out createdOut
				decode(t, res, &out)
				if res.IsError || out.Status != "applied" || op.Status != journal.StatusApplied || news != 4 || marks != 3 || len(out.TransactionIDs) != 4 {
					t.Fatalf("lost PATCH answer: %s; journal %s, %d entered, %d marked: want applied, all of it", text(res), op.Status, news, marks)
				}
			}
			if n := len(createsMade(e)); n != 4 {
				t.Fatalf("%d entered after the lost answer, want the 4 new lines", n)
			}

			// The identical call again: nothing entered twice.
			switch method {
			case "POST":
				preview, again := createsApply(e, "import_statement", args)
				c := e.sb.Counts()
				if !strings.HasPrefix(preview, "Import 28 statement line(s) into Betaalrekening: 0 new, 24 matched, 4 already imported?") ||
					again.Status != "applied" || c.Writes != 1 || c.ByRoute["PATCH /plans/{plan_id}/transactions"] != 1 || c.Total != 2 || again.YNABRequests != 2 {
					t.Fatalf("retry %+v, counts %+v:\n%s\nwant the marks alone, in one PATCH after the fresh read", again, c, preview)
				}
				retry := stmtJournalAgrees(e, again.OperationID)
				if retry.Status != journal.StatusApplied || len(retry.Changes) != 3 {
					t.Fatalf("retry journaled %s with %d changes, want applied, the 3 marks", retry.Status, len(retry.Changes))
				}
			case "PATCH":
				e.sb.ResetCounts()
				msg := e.fails("import_statement", args, "nothing to import")
				if !strings.Contains(msg, "4 are imported already") || e.writes() != 0 {
					t.Fatalf("retry: %s, %d writes", msg, e.writes())
				}
			}
			if n := len(createsMade(e)); n != 4 {
				t.Fatalf("after the retry %d entered, want still 4", n)
			}
			for id, n := range stmtImportIDs(e) {
				if n != 1 {
					t.Errorf("after the retry YNAB holds %d transactions with %s", n, id)
				}
			}
			after, marked := betaalStates(e), 0
			for id, s := range before {
				if s != after[id] {
					marked++
				}
			}
			if marked != 3 {
				t.Errorf("%d of the sample's transactions changed their cleared state, want the 3 matched uncleared ones", marked)
			}
		})
	}
}

// A truncated or malformed statement, or one with a date that does not exist, in each format: a
// clear error naming the argument and at most a line number (a column for a CSV), nothing of
// the file's content, nothing written.
func TestImportStatementBrokenFiles(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	// Words of the sample's lines: none may show in an error.
	secrets := []string{"LOETJE", "ALBERT", "BEA", "Betaalpas", "SEPA", "NL91ABNA", "54,00", "54.00", "2026-11-20", "20261120", "261120"}
	for _, c := range []struct {
		format, name string
		broken       func(s string) string
		want         string // what the error must say after "content: the statement cannot be read: "
	}{
		{"csv", "truncated", func(s string) string { return s[:strings.Index(s, "Tikkie ID")+3] }, "line 21: a quoted field is never closed (is the file cut short?)"},
		{"csv", "malformed amount", func(s string) string { return strings.Replace(s, `"54,00"`, `"54,0O"`, 1) }, "line 31, column Bedrag (EUR): is not an amount"},
		{"csv", "a date that does not exist", func(s string) string { return strings.Replace(s, `"20261120"`, `"20261131"`, 1) }, "line 31, column Datum: is not a date (expected YYYYMMDD)"},
		{"ofx", "truncated", func(s string) string { return s[:len(s)/2] }, "line 11: the file ends before the <OFX> element that starts here is closed: it is truncated"},
		{"ofx", "malformed amount", func(s string) string { return strings.Replace(s, "<TRNAMT>-54.00", "<TRNAMT>-54.0O", 1) }, "line 15: the transaction's TRNAMT is not an amount"},
		{"ofx", "a date that does not exist", func(s string) string { return strings.Replace(s, "<DTPOSTED>20261120", "<DTPOSTED>20261131", 1) }, "line 15: the transaction's DTPOSTED is not a date (YYYYMMDD)"},
		{"camt053", "truncated", func(s string) string { return s[:len(s)/2] }, "line 21: the file ends inside an element: it is truncated"},
		{"camt053", "malformed amount", func(s string) string {
			return strings.Replace(s, `<Amt Ccy="EUR">54.00</Amt>`, `<Amt Ccy="EUR">54.0O</Amt>`, 1)
		}, "line 7: the Ntry's Amt is not an amount"},
		{"camt053", "a date that does not exist", func(s string) string {
			return strings.Replace(s, "<BookgDt><Dt>2026-11-20", "<BookgDt><Dt>2026-11-31", 1)
		}, "line 7: the Ntry's BookgDt is not a date (YYYY-MM-DD)"},
		{"mt940", "truncated", func(s string) string { return s[:len(s)/2] }, "line 1: the statement that starts here has no closing balance (:62F:): the file may be truncated"},
		{"mt940", "malformed amount", func(s string) string { return strings.Replace(s, "D54,00NTRF", "D54,0ONTRF", 1) }, "line 5: the :61: transaction has no transaction type"},
		{"mt940", "a date that does not exist", func(s string) string { return strings.Replace(s, ":61:2611201120", ":61:2611311131", 1) }, "line 5: the :61: transaction has a value date that is not a date (YYMMDD)"},
	} {
		t.Run(c.format+" "+c.name, func(t *testing.T) {
			sample := sampleStatement(t, c.format)
			broken := c.broken(sample)
			if broken == sample {
				t.Fatal("the test's edit changed nothing of the sample")
			}
			e.sb.ResetCounts()
			msg := e.fails("import_statement", map[string]any{"account": "Betaalrekening", "content": broken}, "content: the statement cannot be read")
			if !strings.Contains(msg, "content: the statement cannot be read: "+c.want) {
				t.Errorf("%q: want it to say %q", msg, c.want)
			}
			for _, s := range secrets {
				if strings.Contains(msg, s) {
					t.Errorf("%q shows %q of the file", msg, s)
				}
			}
			if e.writes() != 0 || len(createsMade(e)) != 0 {
				t.Fatalf("%d writes", e.writes())
			}
		})
	}
}

// The statement's account number against the account's: where the account's name (or note)
// gives another number, the preview warns that it may be another account's statement; where it
// gives the statement's own (spaced as people write an IBAN), it says nothing of it; where it
// gives none, it asks to check.
func TestImportStatementAccountNumber(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	for _, name := range []string{"ING NL02 INGB 0001 2345 67", "Betaal NL91 ABNA 0417 1643 00"} {
		e.apply("create_account", map[string]any{"name": name, "type": "checking", "balance": "0"})
	}
	ofx := sampleStatement(t, "ofx")
	for _, c := range []struct {
		account, want, not string
	}{
		{"ING NL02 INGB 0001 2345 67", "The statement is for account number NL91ABNA0417164300, and ING NL02 INGB 0001 2345 67's name or note in YNAB says NL02INGB0001234567: it may be another account's statement; check before you confirm.", ""},
		{"Betaal NL91 ABNA 0417 1643 00", "", "account number"},
		{"Betaalrekening", "The statement is for account number NL91ABNA0417164300, which is not in Betaalrekening's name or note in YNAB: check that it is the right account.", ""},
	} {
		e.sb.ResetCounts()
		var out createdOut
		e.ok("import_statement", map[string]any{"account": c.account, "content": ofx}, &out)
		if out.Status != "confirmation_required" || e.writes() != 0 {
			t.Fatalf("%s: %+v", c.account, out)
		}
		if c.want != "" && !strings.Contains(out.Preview, c.want) {
			t.Errorf("%s: the preview lacks %q:\n%s", c.account, c.want, out.Preview)
		}
		if c.not != "" && strings.Contains(out.Preview, c.not) {
			t.Errorf("%s: the preview says %q:\n%s", c.account, c.not, out.Preview)
		}
	}
}

// Lines YNAB would not take — more than five years old, dated after today — are named in the
// preview and left out; the rest is entered, and the first line counts only those. With nothing
// to mark cleared, it costs the fresh read and one POST.
func TestImportStatementLinesLeftOut(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	content := smallOFX("0",
		[3]string{"2021-11-30", "-3.10", "Oude Winkel"},    // more than five years before 2026-12-02
		[3]string{"2026-11-30", "-7.77", "Kiosk Centraal"}, // taken
		[3]string{"2026-12-03", "-5.55", "Morgen BV"},      // after today
		[3]string{"2027-01-15", "-6.66", "Later BV"},       // far after today
	)
	preview, out := createsApply(e, "import_statement", map[string]any{"account": "Betaalrekening", "content": content})
	for _, want := range []string{
		"Import 1 statement line(s) into Betaalrekening: 1 new, 0 matched, 0 already imported?",
		"left out: 2021-11-30 3.10 (bank: Oude Winkel): more than 5 years ago; YNAB takes none before 2021-12-02",
		"left out: 2026-12-03 5.55 (bank: Morgen BV): dated after today (2026-12-02); YNAB takes no future transaction",
		"left out: 2027-01-15 6.66 (bank: Later BV): dated after today (2026-12-02); YNAB takes no future transaction",
		"3 line(s) YNAB would not take are left out: see their lines.",
	} {
		if !strings.Contains(preview, want) {
			t.Errorf("the preview lacks %q:\n%s", want, preview)
		}
	}
	made := createsMade(e)
	if c := e.sb.Counts(); out.Status != "applied" || len(made) != 1 || made[0].Amount != -7770 || c.ByRoute["POST /plans/{plan_id}/transactions"] != 1 ||
		c.Writes != 1 || c.Total != 2 || out.YNABRequests != 2 {
		t.Fatalf("%+v, entered %+v, counts %+v: want the one line YNAB takes, in one POST after the fresh read (nothing to mark: no PATCH)", out, made, c)
	}
}
