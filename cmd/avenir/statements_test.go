package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/statement"
)

// `avenir sandbox statements DIR` writes the sample's statements, each a statement its parser
// reads; without a folder it is a usage error.
func TestSandboxStatements(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"sandbox", "statements", dir}, env{stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}); err != nil {
		t.Fatalf("sandbox statements: %v (%s)", err, errOut.String())
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 4 || strings.Count(out.String(), dir) != 4 {
		t.Fatalf("wrote %d files, said %q", len(files), out.String())
	}
	for _, name := range []string{"betaalrekening.ofx", "betaalrekening-camt053.xml", "betaalrekening.sta"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if sts, err := statement.Parse(data, statement.FormatAuto, statement.CSVOptions{}); err != nil || len(sts) != 1 || len(sts[0].Lines) == 0 {
			t.Errorf("%s: %d statements, %v", name, len(sts), err)
		}
	}
	err := run(context.Background(), []string{"sandbox", "statements"}, env{stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "give the folder") {
		t.Fatalf("without a folder: %v", err)
	}
}

// AVENIR_MCP_STATEMENT_DIRS is a path list; without it, the Downloads folder.
func TestStatementDirs(t *testing.T) {
	env := map[string]string{"HOME": "/home/x"}
	get := func(k string) string { return env[k] }
	if got := statementDirs(get); len(got) != 1 || got[0] != "/home/x/Downloads" {
		t.Fatalf("default %v", got)
	}
	env["AVENIR_MCP_STATEMENT_DIRS"] = "/a" + string(filepath.ListSeparator) + " /b " + string(filepath.ListSeparator)
	if got := statementDirs(get); len(got) != 2 || got[0] != "/a" || got[1] != "/b" {
		t.Fatalf("from the list %v", got)
	}
}
