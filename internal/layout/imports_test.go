// Package layout holds the test that keeps the import directions of design.md: each package of
// avenir may import only the packages of avenir its line names. A package that reaches past its
// line (the transport into the tools, the journal into YNAB's client) fails here, not in review.
package layout

import (
	"bufio"
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/avenir-mcp/avenir"

// allowed maps a package (relative to the module) to the packages of avenir it may import.
// cmd/avenir wires everything and may import anything.
var allowed = map[string][]string{
	"ynab":                      {},
	"ynab/sandbox":              {"ynab"},
	"ynab/sandbox/fidelity":     {"ynab", "ynab/sandbox"},
	"ynab/sandbox/sandboxtest":  {"ynab/sandbox"},
	"journal":                   {},
	"journal/bolt":              {"journal"},
	"journal/storetest":         {"journal"},
	"confirm":                   {},
	"undo":                      {"journal"},
	"statement":                 {},
	"tools":                     {"confirm", "journal", "undo", "ynab", "statement", "tools/internal/clientjson", "tools/ui"},
	"tools/internal/clientjson": {},
	"tools/stdio":               {"tools/internal/clientjson"},
	"tools/ui":                  {},
	"tools/ui/uitest":           {},
	"auth":                      {"internal/pgmigrate"},
	"hosted":                    {"tools", "auth", "confirm", "confirm/pg", "journal", "journal/pg", "ynab"},
	"hosted/hostedtest":         {"hosted", "auth", "confirm", "internal/pgtest", "ynab/sandbox", "ynab/sandbox/sandboxtest"},
	"journal/pg":                {"journal", "internal/pgmigrate"},
	"confirm/pg":                {"confirm", "internal/pgmigrate"},
	"internal/pgmigrate":        {},
	"internal/pgtest":           {},
	"internal/layout":           {},
	"internal/golden":           {},
}

// testOnly are imports a package's tests may make beyond its line: the sandbox, the tools'
// server and the test helpers are how tests reach real surfaces.
var testOnly = []string{"statement", "internal/golden", "journal/storetest", "journal/bolt", "ynab/sandbox", "ynab/sandbox/sandboxtest", "tools", "tools/stdio", "internal/pgtest", "internal/pgmigrate", "confirm", "journal", "ynab", "tools/ui/uitest", "hosted/hostedtest"}

func TestImportDirections(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool on PATH: %v", err)
	}
	cmd := exec.Command(goTool, "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .TestImports \" \"}} {{join .XTestImports \" \"}}", module+"/...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		path, rest, _ := strings.Cut(sc.Text(), "|")
		imports, tests, _ := strings.Cut(rest, "|")
		rel := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
		if strings.HasPrefix(rel, "cmd/") {
			continue
		}
		seen++
		may, ok := allowed[rel]
		if !ok {
			t.Errorf("%s: a package design.md's import directions do not name; add its line here and there", rel)
			continue
		}
		check := func(list string, extra []string) {
			for _, imp := range strings.Fields(list) {
				dep, ours := strings.CutPrefix(imp, module+"/")
				if !ours || dep == rel {
					continue
				}
				if !slices.Contains(may, dep) && !slices.Contains(extra, dep) {
					t.Errorf("%s imports %s, which its line in design.md does not allow", rel, dep)
				}
			}
		}
		check(imports, nil)
		check(tests, testOnly)
	}
	if seen < 8 {
		t.Fatalf("go list named only %d packages: %s", seen, out)
	}
}

// TestBinaryLinksNoTesting keeps package testing (and with it its flags and helpers) out of the
// shipped binary: test helpers live in packages of their own (ynab/sandbox/sandboxtest,
// tools/ui/uitest, internal/pgtest), which only tests import.
func TestBinaryLinksNoTesting(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool on PATH: %v", err)
	}
	cmd := exec.Command(goTool, "list", "-deps", "./cmd/avenir")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/avenir: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, module+"/tools") {
		t.Fatalf("go list -deps ./cmd/avenir does not name the tools package; is this the module? %s", out)
	}
	for _, dep := range deps {
		if dep == "testing" || strings.HasPrefix(dep, "testing/") {
			t.Errorf("cmd/avenir links %s; move what needs it into a test helper package", dep)
		}
	}
}
