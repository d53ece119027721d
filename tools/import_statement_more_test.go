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
				preview, again := createsApply(e, noElicit, "import_statement", args)
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
