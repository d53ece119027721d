package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A path outside the statement folders is refused before the disk is asked about it: the
// answer is the same whether such a file exists or not, so a model cannot probe the disk.
func TestStatementFileOutsideTellsNothing(t *testing.T) {
	allowed, outside := t.TempDir(), t.TempDir()
	there := filepath.Join(outside, "exists.csv")
	if err := os.WriteFile(there, []byte("Datum;Bedrag\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errThere := readStatementFile(there, []string{allowed})
	_, errNot := readStatementFile(filepath.Join(outside, "missing.csv"), []string{allowed})
	if errThere == nil || errNot == nil {
		t.Fatalf("files outside the folders were read: %v, %v", errThere, errNot)
	}
	strip := func(err error, name string) string { return strings.ReplaceAll(err.Error(), name, "NAME") }
	if a, b := strip(errThere, "exists.csv"), strip(errNot, "missing.csv"); a != b || !strings.Contains(a, "is not inside the folders") {
		t.Fatalf("the answers differ, or do not say why:\n%s\n%s", a, b)
	}
	// Through a symlink to the allowed folder, a file in it is read.
	link := filepath.Join(t.TempDir(), "dl")
	if err := os.Symlink(allowed, link); err != nil {
		t.Skip("no symlinks here")
	}
	in := filepath.Join(allowed, "in.csv")
	if err := os.WriteFile(in, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readStatementFile(in, []string{link}); err != nil {
		t.Fatalf("a file in a folder named by a symlink: %v", err)
	}
}
