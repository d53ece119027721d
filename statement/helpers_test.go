package statement

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// secret is written into every malformed testdata file near what is wrong with it; no error
// may show it.
const secret = "Vertrouwelijk-Kenmerk-9931"

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func balAt(date string, amount int64) *Balance { return &Balance{Date: date, Amount: amount} }

// compareStatements reports every difference between got and want, field by field, so a
// failure says which line of which statement went wrong.
func compareStatements(t *testing.T, got, want []Statement) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d statements, want %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		head := func(s Statement) string {
			return fmt.Sprintf("%s %q %q opening %s closing %s", s.Format, s.Account, s.Currency, balString(s.Opening), balString(s.Closing))
		}
		if head(g) != head(w) {
			t.Errorf("statement %d:\n got %s\nwant %s", i, head(g), head(w))
		}
		if len(g.Lines) != len(w.Lines) {
			t.Errorf("statement %d: got %d lines, want %d", i, len(g.Lines), len(w.Lines))
		}
		for j := range min(len(g.Lines), len(w.Lines)) {
			if g.Lines[j] != w.Lines[j] {
				t.Errorf("statement %d line %d:\n got %+v\nwant %+v", i, j, g.Lines[j], w.Lines[j])
			}
		}
	}
}

func balString(b *Balance) string {
	if b == nil {
		return "none"
	}
	return fmt.Sprintf("%s %d", b.Date, b.Amount)
}

// wantError checks that err is an *Error at line with a message containing msg, and that it
// quotes nothing of the file.
func wantError(t *testing.T, err error, line int, msg string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want an *Error", err, err)
	}
	if e.Line != line {
		t.Errorf("error %q at line %d, want line %d", e, e.Line, line)
	}
	if !strings.Contains(e.Msg, msg) {
		t.Errorf("error %q, want it to say %q", e, msg)
	}
	if strings.Contains(e.Error(), secret) || strings.Contains(e.Error(), secret[:12]) {
		t.Errorf("error %q quotes the file", e)
	}
}
