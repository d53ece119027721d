// Package golden compares what a test produced with a file committed beside it, for the texts
// people and clients rely on word for word (tools/list, avenir config's entries, journal list
// and show). One flag rewrites them all: go test ./... -update-golden, then review the diff.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update-golden", false, "rewrite the golden files from what the tests produce")

// Check compares got with the file at path (relative to the test's package), or writes it
// there under -update-golden.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update-golden to write it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from what the test produced; if the change is meant, run with -update-golden and commit the diff\n--- got ---\n%s\n--- want ---\n%s",
			path, got, want)
	}
}
