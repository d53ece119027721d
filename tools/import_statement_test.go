package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// sampleStatement is the sandbox's sample statement for Betaalrekening in format f.
func sampleStatement(t *testing.T, f string) string {
	t.Helper()
	for _, s := range sandbox.SampleStatements(sandboxToday) {
		if s.Format == f {
			return string(s.Data)
		}
	}
	t.Fatalf("no sample statement in %s", f)
	return ""
}

// betaalStates is the cleared state of every live transaction on Betaalrekening, by id.
func betaalStates(e *testEnv) map[string]string {
	e.t.Helper()
	acct := createsID(e, "Betaalrekening")
	out := map[string]string{}
	for _, t := range createsExport(e).Transactions {
		if t.AccountID == acct && !t.Deleted {
			out[t.ID] = t.Cleared
		}
	}
	return out
}

// A fresh import of the sample's statement: the preview names each line, the new lines are
// entered with YNAB's file-import ids, unapproved and cleared, the plan's payee and category
// found for the bank's wording; the matched uncleared ones are marked cleared; it costs the
// fresh read, one POST and one PATCH. Importing it again enters nothing; undo takes it back and
// redo brings it again.
func TestImportStatementFreshReimportUndoRedo(t *testing.T) {
	for _, format := range []string{"csv", "ofx", "camt053", "mt940"} {
		t.Run(format, func(t *testing.T) {
			e := newEnv(t, envOptions{kind: noElicit})
			before := betaalStates(e)
			args := map[string]any{"account": "Betaalrekening", "content": sampleStatement(t, format), "format": format}
			preview, out := createsApply(e, "import_statement", args)
			first, _, _ := strings.Cut(preview, "\n")
			if first != "Import 28 statement line(s) into Betaalrekening: 4 new, 24 matched, 0 already imported?" {
				t.Fatalf("first line %q; preview:\n%s", first, preview)
			}
			for _, want := range []string{
				"new: 2026-11-29 Albert Heijn 12.35, Boodschappen, cleared, unapproved (bank: ALBERT HEIJN 1234)",
				"new: 2026-11-27 Bakkerij De Vries (new payee) 27.50, Uncategorized, cleared, unapproved",
				"ambiguous, left alone: 2026-11-30 34.99",
				"… and 10 more",
				"2 ambiguous line(s) are left alone",
				"Uncleared in YNAB from 2026-11-20 to 2026-12-02 and on no line of the statement: 2026-12-02 Albert Heijn 23.15.",
				"account number NL91ABNA0417164300, which is not in Betaalrekening's name or note",
			} {
				if !strings.Contains(preview, want) {
					t.Errorf("the preview lacks %q:\n%s", want, preview)
				}
			}
			c := e.sb.Counts()
			if out.Status != "applied" || c.Writes != 2 || c.ByRoute["POST /plans/{plan_id}/transactions"] != 1 || c.ByRoute["PATCH /plans/{plan_id}/transactions"] != 1 ||
				out.YNABRequests != c.Total || c.Total != 3 {
				t.Fatalf("out %+v, counts %+v: want applied with the fresh read, one POST and one PATCH", out, c)
			}
			made := createsMade(e)
			if len(made) != 4 || len(out.TransactionIDs) != 4 {
				t.Fatalf("%d entered (%v), want the 4 new lines", len(made), out.TransactionIDs)
			}
			ah := createsID(e, "Albert Heijn")
			for _, m := range made {
				if m.ImportID == nil || !strings.HasPrefix(*m.ImportID, "YNAB:") || *m.ImportID != importID(m.Amount, m.Date, 1) || m.Approved || m.Cleared != ynab.Cleared {
					t.Errorf("entered %+v: want YNAB's import id, unapproved, cleared", m)
				}
				if m.Amount == -12350 && (str(m.PayeeID) != ah || str(m.CategoryID) != createsID(e, "Boodschappen")) {
					t.Errorf("the Albert Heijn line was entered as %+v: want the plan's payee and its only category", m)
				}
			}
			after := betaalStates(e)
			cleared := 0
			for id, s := range before {
				if s != after[id] {
					if s != ynab.Uncleared || after[id] != ynab.Cleared {
						t.Errorf("%s went from %s to %s", id, s, after[id])
					}
					cleared++
				}
			}
			if cleared == 0 {
				t.Error("no matched transaction was marked cleared")
			}

			// Again: every new line is imported already, the matched ones cleared.
			e.sb.ResetCounts()
			msg := e.fails("import_statement", args, "nothing to import")
			if !strings.Contains(msg, "4 are imported already") || e.writes() != 0 {
				t.Fatalf("re-import: %s, %d writes", msg, e.writes())
			}

			// Undo deletes what it entered and puts the cleared states back.
			_, u := e.apply("undo_operation", map[string]any{"operation_id": out.OperationID})
			if len(createsMade(e)) != 0 {
				t.Fatalf("after undo %d entered transactions remain", len(createsMade(e)))
			}
			for id, s := range betaalStates(e) {
				if before[id] != s {
					t.Errorf("after undo %s is %s, was %s", id, s, before[id])
				}
			}
			// Redo enters them again (as a person would: YNAB keeps a deleted line's import id
			// taken) and clears the matched ones again.
			e.apply("undo_operation", map[string]any{"operation_id": u.OperationID})
			if n := len(createsMade(e)); n != 4 {
				t.Fatalf("after redo %d entered, want 4", n)
			}
			redone := betaalStates(e)
			for id, s := range after {
				if _, ok := before[id]; ok && redone[id] != s {
					t.Errorf("after redo %s is %s, want %s", id, redone[id], s)
				}
			}
		})
	}
}

// Lines the person entered by hand before the statement came are matched, not entered twice:
// the transaction is marked cleared and nothing else of it changes.
func TestImportStatementMatchesHandEntered(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	createsApply(e, "create_transactions", map[string]any{"account": "Betaalrekening", "approved": true, "transactions": []any{
		map[string]any{"date": "2026-11-28", "amount": "-27.50", "payee": "Bakkerij De Vries", "memo": "taart"},
	}})
	hand := createsMade(e)
	if len(hand) != 1 || hand[0].Cleared != ynab.Uncleared {
		t.Fatalf("entered by hand: %+v", hand)
	}
	_, out := createsApply(e, "import_statement", map[string]any{"account": "Betaalrekening", "content": sampleStatement(t, "mt940")})
	if out.Status != "applied" {
		t.Fatalf("import: %+v", out)
	}
	made := createsMade(e)
	if len(made) != 4 { // the hand-entered one and 3 new lines
		t.Fatalf("%d transactions beyond the sample, want 4: %+v", len(made), made)
	}
	for _, m := range made {
		if m.ID == hand[0].ID && (m.Cleared != ynab.Cleared || m.ImportID != nil || str(m.Memo) != "taart" || !m.Approved || m.Date != "2026-11-28") {
			t.Fatalf("the hand-entered one became %+v: want it cleared and otherwise as it was", m)
		}
		if m.ID != hand[0].ID && m.Amount == -27500 {
			t.Fatalf("the line was entered twice: %+v", m)
		}
	}
}

// A second statement overlapping the first: its lines already in YNAB by their import id are
// recognised, and only the others entered.
func TestImportStatementOverlap(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	content := sampleStatement(t, "ofx")
	createsApply(e, "import_statement", map[string]any{"account": "Betaalrekening", "content": content, "until": "2026-11-29"})
	if n := len(createsMade(e)); n != 2 {
		t.Fatalf("the first part entered %d, want 2", n)
	}
	preview, out := createsApply(e, "import_statement", map[string]any{"account": "Betaalrekening", "content": content})
	if out.Status != "applied" || !strings.HasPrefix(preview, "Import 28 statement line(s) into Betaalrekening: 2 new, 24 matched, 2 already imported?") ||
		!strings.Contains(preview, "already imported: 2026-11-29 12.35") {
		t.Fatalf("second part %+v:\n%s", out, preview)
	}
	if n := len(createsMade(e)); n != 4 {
		t.Fatalf("after both %d entered, want 4", n)
	}
}

// Each bad input is refused naming its argument, with nothing written and nothing of the file
// shown.
func TestImportStatementBadInput(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	secret := "SECRET-CONTENT-" + strings.Repeat("x", 10)
	write := func(d, name, s string) string {
		p := filepath.Join(d, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ofx := sampleStatement(t, "ofx")
	good := write(dir, "ok.ofx", ofx)
	out := write(outside, "out.ofx", ofx)
	link := filepath.Join(dir, "link.ofx")
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	notStatement := write(dir, "notes.txt", secret+"\n"+secret+"\n")
	big := filepath.Join(dir, "big.ofx")
	if err := os.WriteFile(big, make([]byte, maxStatementFile+1), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{kind: noElicit, statementDirs: []string{dir}})
	acct := "Betaalrekening"
	for _, c := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"unknown format", map[string]any{"account": acct, "file": good, "format": "qif"}, "format: "},
		{"outside the folders", map[string]any{"account": acct, "file": out}, "is not inside the folders"},
		{"symlink out", map[string]any{"account": acct, "file": link}, "is not inside the folders"},
		{"relative path", map[string]any{"account": acct, "file": "ok.ofx"}, "file: give an absolute path"},
		{"a directory", map[string]any{"account": acct, "file": dir}, "is a folder"},
		{"over the limit", map[string]any{"account": acct, "file": big}, "at most 10 MB"},
		{"content over the limit", map[string]any{"account": acct, "content": strings.Repeat("a", maxStatementContent+1)}, "content: it is"},
		{"not a statement", map[string]any{"account": acct, "file": notStatement}, "file: the statement cannot be read"},
		{"another currency", map[string]any{"account": acct, "content": strings.ReplaceAll(ofx, "<CURDEF>EUR", "<CURDEF>USD")}, "content: the statement is in USD, and the plan in EUR"},
		{"too many decimals", map[string]any{"account": acct, "content": strings.Replace(ofx, "<TRNAMT>-54.00", "<TRNAMT>-54.001", 1)}, "decimals"},
		{"an empty statement", map[string]any{"account": acct, "content": "   \n"}, "content: the statement cannot be read"},
		{"both file and content", map[string]any{"account": acct, "file": good, "content": ofx}, "file, content: give one of them"},
		{"neither", map[string]any{"account": acct}, "file: give the statement's file"},
		{"unknown account", map[string]any{"account": "Nergens", "content": ofx}, "account: "},
		{"bad since", map[string]any{"account": acct, "content": ofx, "since": "gisteren"}, "since: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.sb.ResetCounts()
			msg := e.fails("import_statement", c.args, c.want)
			if strings.Contains(msg, "SECRET") || strings.Contains(msg, "ALBERT") || e.writes() != 0 {
				t.Fatalf("%s: %q, %d writes: want nothing of the file shown and nothing written", c.name, msg, e.writes())
			}
		})
	}
	// The same file inside the folder is read.
	var res createdOut
	e.ok("import_statement", map[string]any{"account": acct, "file": good}, &res)
	if res.Status != "confirmation_required" || e.writes() != 0 {
		t.Fatalf("the good file: %+v", res)
	}
}

// smallOFX is an OFX statement for Betaalrekening with the given lines (date, amount as OFX
// writes it, name) and closing balance.
func smallOFX(closing string, lines ...[3]string) string {
	var b strings.Builder
	b.WriteString("OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>EUR<BANKACCTFROM><ACCTID>" + sandbox.SampleIBAN + "</BANKACCTFROM><BANKTRANLIST>\n")
	for i, l := range lines {
		b.WriteString("<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>" + strings.ReplaceAll(l[0], "-", "") + "<TRNAMT>" + l[1] + "<FITID>F" + string(rune('A'+i)) + "<NAME>" + l[2] + "</STMTTRN>\n")
	}
	b.WriteString("</BANKTRANLIST><LEDGERBAL><BALAMT>" + closing + "<DTASOF>20261201</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n")
	return b.String()
}

// reconcile: true reconciles when every line is settled and the closing balance is the cleared
// balance after the import (the new line too, in the same PATCH), and says why not otherwise;
// undo puts the cleared states back.
func TestImportStatementReconciles(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	before := betaalStates(e)
	var cleared int64
	for _, a := range createsExport(e).Accounts {
		if a.Name == "Betaalrekening" {
			cleared = a.ClearedBalance
		}
	}
	line := [3]string{"2026-11-30", "-7.77", "Kiosk Centraal"}
	wrong := smallOFX(FormatPlain(cleared, 2), line)
	var out createdOut
	e.ok("import_statement", map[string]any{"account": "Betaalrekening", "content": wrong, "reconcile": true}, &out)
	if !strings.Contains(out.Preview, "Not reconciled: the statement's closing balance is "+FormatPlain(cleared, 2)) {
		t.Fatalf("preview:\n%s", out.Preview)
	}
	right := smallOFX(FormatPlain(cleared-7770, 2), line)
	preview, done := createsApply(e, "import_statement", map[string]any{"account": "Betaalrekening", "content": right, "reconcile": true})
	c := e.sb.Counts()
	if done.Status != "applied" || !strings.Contains(preview, "Then Betaalrekening is reconciled") || c.Writes != 2 {
		t.Fatalf("%+v, %+v:\n%s", done, c, preview)
	}
	made := createsMade(e)
	if len(made) != 1 || made[0].Cleared != ynab.Reconciled || str(made[0].ImportID) != "YNAB:-7770:2026-11-30:1" {
		t.Fatalf("entered %+v: want the line, reconciled", made)
	}
	for id, s := range betaalStates(e) {
		if was, ok := before[id]; ok && was == ynab.Cleared && s != ynab.Reconciled {
			t.Errorf("%s stayed %s", id, s)
		}
	}
	e.apply("undo_operation", map[string]any{"operation_id": done.OperationID})
	for id, s := range betaalStates(e) {
		if before[id] != s {
			t.Errorf("after undo %s is %s, was %s", id, s, before[id])
		}
	}
}

// Two lines of the same amount on the same day are two transactions, numbered as YNAB's file
// import numbers them: occurrence 1 and 2.
func TestImportStatementOccurrences(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	content := smallOFX("0", [3]string{"2026-11-30", "-2.50", "Koffie"}, [3]string{"2026-11-30", "-2.50", "Koffie"})
	createsApply(e, "import_statement", map[string]any{"account": "Betaalrekening", "content": content})
	ids := map[string]bool{}
	for _, m := range createsMade(e) {
		ids[str(m.ImportID)] = true
	}
	if len(ids) != 2 || !ids["YNAB:-2500:2026-11-30:1"] || !ids["YNAB:-2500:2026-11-30:2"] {
		t.Fatalf("import ids %v", ids)
	}
}
