package tools

import (
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/journal"
)

// A statement imported, undone, then imported again, by an avenir that knows nothing of the
// deleted lines but what its journal says (a new process: YNAB's export leaves deleted
// transactions out). YNAB keeps a deleted transaction's import id taken and skips a line that
// carries it, so the lines the undo deleted are entered as redo enters them, without an import
// id, and the preview says so: the import is applied whole, nothing partial.
func TestImportStatementAgainAfterUndo(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	args := map[string]any{"account": "Betaalrekening", "content": sampleStatement(t, "csv"), "format": "csv"}
	_, out := createsApply(e, "import_statement", args)
	if out.Status != "applied" || len(createsMade(e)) != 4 {
		t.Fatalf("import: %+v, %d entered", out, len(createsMade(e)))
	}
	e.apply("undo_operation", map[string]any{"operation_id": out.OperationID})
	if n := len(createsMade(e)); n != 0 {
		t.Fatalf("after undo %d entered remain", n)
	}

	e2 := e.restart(noElicit)
	preview, again := createsApply(e2, "import_statement", args)
	for _, want := range []string{
		"4 new",
		"entered again without their import ids",
	} {
		if !strings.Contains(preview, want) {
			t.Errorf("the preview lacks %q:\n%s", want, preview)
		}
	}
	if again.Status != "applied" || len(again.TransactionIDs) != 4 {
		t.Fatalf("import again: %+v; want applied with the 4 lines", again)
	}
	made := createsMade(e2)
	if len(made) != 4 {
		t.Fatalf("%d entered, want the 4 lines", len(made))
	}
	for _, m := range made {
		if m.ImportID != nil {
			t.Errorf("entered again with import id %s: YNAB would skip it", *m.ImportID)
		}
	}
	if op := e2.operation(again.OperationID); op.Status != journal.StatusApplied {
		t.Fatalf("journal: %s; want applied", op.Status)
	}

	// Undone and imported once more: the same, again.
	e2.apply("undo_operation", map[string]any{"operation_id": again.OperationID})
	e3 := e2.restart(noElicit)
	if _, third := createsApply(e3, "import_statement", args); third.Status != "applied" || len(createsMade(e3)) != 4 {
		t.Fatalf("third import: %+v, %d entered", third, len(createsMade(e3)))
	}
}

// A statement whose every line is older than YNAB's five years: nothing to import, and the
// answer says why its lines were left out, not only how many. With several reasons, each is
// named with its count.
func TestImportStatementNothingButLeftOut(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	old := smallOFX("0",
		[3]string{"2021-11-30", "-3.10", "Oude Winkel"},
		[3]string{"2020-06-01", "-4.20", "Oudere Winkel"},
		[3]string{"2019-01-15", "-5.30", "Oudste Winkel"},
	)
	msg := e.fails("import_statement", map[string]any{"account": "Betaalrekening", "content": old},
		"nothing to import: of the statement's 3 line(s), 0 are imported already, 0 match transactions that are cleared already, 0 are ambiguous and 3 left out (more than 5 years ago; YNAB takes none before 2021-12-02)")
	var out writeOut
	decode(t, e.call("import_statement", map[string]any{"account": "Betaalrekening", "content": old}), &out)
	if out.Reason != reasonInvalidArgument || e.writes() != 0 {
		t.Fatalf("%s: reason %q, %d writes; want invalid_argument and nothing written", msg, out.Reason, e.writes())
	}

	mixed := smallOFX("0",
		[3]string{"2021-11-30", "-3.10", "Oude Winkel"},
		[3]string{"2026-12-03", "-5.55", "Morgen BV"},
		[3]string{"2027-01-15", "-6.66", "Later BV"},
	)
	e.fails("import_statement", map[string]any{"account": "Betaalrekening", "content": mixed},
		"3 left out (1: more than 5 years ago; YNAB takes none before 2021-12-02 — 2: dated after today (2026-12-02); YNAB takes no future transaction)")
}
