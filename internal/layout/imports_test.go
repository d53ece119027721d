// Package layout holds the tests that keep design.md's Layout and import directions: every
// package of avenir lies on one of its lines, and may import only the packages of avenir its
// direction names. A package that reaches past its line (the transport into the tools, the
// journal into YNAB's client, hosted mode into cmd) fails here, not in review.
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

// lines are design.md's Layout, line for line: every package of the module is one of them or
// lies in one's folder (a helper beside what it helps, such as hosted/hostedtest).
var lines = []string{
	"cmd/avenir",
	"tools", "tools/stdio", "tools/ui",
	"confirm", "confirm/pg",
	"journal", "journal/bolt", "journal/pg", "journal/storetest",
	"undo",
	"ynab", "ynab/sandbox",
	"statement",
	"auth",
	"hosted",
	"internal",
}

// directions are design.md's import directions, line for line: the packages of avenir each
// package may import. cmd/avenir wires everything and may import anything.
var directions = map[string][]string{
	"ynab":              {},
	"ynab/sandbox":      {"ynab"},
	"statement":         {},
	"journal":           {},
	"journal/bolt":      {"journal"},
	"journal/pg":        {"journal", "internal/pgmigrate"},
	"journal/storetest": {"journal"},
	"confirm":           {},
	"confirm/pg":        {"confirm", "internal/pgmigrate"},
	"undo":              {"journal"},
	// and the internal package tools shares with tools/stdio (strict JSON, messages)
	"tools":       {"confirm", "journal", "undo", "ynab", "statement", "tools/ui", "tools/internal/clientjson"},
	"tools/stdio": {"tools/internal/clientjson"},
	"tools/ui":    {}, // design.md gives it no direction: it imports nothing of ours
	"auth":        {"internal/pgmigrate"},
	"hosted":      {"tools", "auth", "confirm", "confirm/pg", "journal", "journal/pg", "ynab"},
}

// helpers are the packages inside a line's folder without a direction of their own in
// design.md, and what each may import: the internal package of tools and tools/stdio, the
// test helpers (which only tests import: see TestHelpersOnlyInTests), internal's.
var helpers = map[string][]string{
	"tools/internal/clientjson": {},
	"tools/ui/uitest":           {},
	"ynab/sandbox/sandboxtest":  {"ynab/sandbox"},
	"ynab/sandbox/fidelity":     {}, // tests only: the sandbox against YNAB's JavaScript SDK
	"hosted/hostedtest":         {"hosted", "auth", "confirm", "internal/pgtest", "ynab/sandbox", "ynab/sandbox/sandboxtest"},
	"internal/pgmigrate":        {},
	"internal/pgtest":           {},
	"internal/golden":           {},
	"internal/layout":           {},
}

// testHelpers are the packages only tests import; the shipped binary links none of them.
var testHelpers = []string{"tools/ui/uitest", "ynab/sandbox/sandboxtest", "hosted/hostedtest", "internal/pgtest", "internal/golden", "journal/storetest"}

// testOnly are imports a package's tests may make beyond its direction: the sandbox, the
// tools' server, the stores and the test helpers are how tests reach real surfaces.
var testOnly = []string{"statement", "confirm", "journal", "journal/bolt", "ynab", "ynab/sandbox", "tools", "tools/stdio",
	"internal/pgmigrate", "internal/pgtest", "internal/golden", "journal/storetest", "ynab/sandbox/sandboxtest",
	"tools/ui/uitest", "hosted/hostedtest"}

// pkg is one package as go list sees it.
type pkg struct {
	rel            string // relative to the module
	imports, tests []string
}

// list returns the module's packages (their imports of avenir's own, relative to the module).
func list(t *testing.T) []pkg {
	t.Helper()
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
	ours := func(list string, self string) []string {
		var deps []string
		for _, imp := range strings.Fields(list) {
			if dep, ok := strings.CutPrefix(imp, module+"/"); ok && dep != self && !slices.Contains(deps, dep) {
				deps = append(deps, dep)
			}
		}
		return deps
	}
	var pkgs []pkg
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		path, rest, _ := strings.Cut(sc.Text(), "|")
		imports, tests, _ := strings.Cut(rest, "|")
		rel := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
		pkgs = append(pkgs, pkg{rel, ours(imports, rel), ours(tests, rel)})
	}
	if len(pkgs) < 8 {
		t.Fatalf("go list named only %d packages: %s", len(pkgs), out)
	}
	return pkgs
}

// TestLayout: every package lies on a line of design.md's Layout, and every line but
// internal's folder is a package.
func TestLayout(t *testing.T) {
	pkgs := list(t)
	for _, p := range pkgs {
		if !slices.ContainsFunc(lines, func(l string) bool { return p.rel == l || strings.HasPrefix(p.rel, l+"/") }) {
			t.Errorf("%s is on no line of design.md's Layout; add its line there and here", p.rel)
		}
	}
	for _, l := range lines {
		if l == "internal" {
			continue
		}
		if !slices.ContainsFunc(pkgs, func(p pkg) bool { return p.rel == l }) {
			t.Errorf("design.md's Layout names %s, which is no package of the module", l)
		}
		if _, ok := directions[l]; !ok && l != "cmd/avenir" {
			t.Errorf("design.md's Layout names %s, but its import directions do not", l)
		}
	}
}

// TestImportDirections: each package imports only what its direction in design.md names (its
// tests also the test helpers and the surfaces they drive).
func TestImportDirections(t *testing.T) {
	for _, p := range list(t) {
		if p.rel == "cmd/avenir" {
			continue
		}
		may, ok := directions[p.rel]
		if !ok {
			may, ok = helpers[p.rel]
		}
		if !ok {
			t.Errorf("%s: a package design.md's import directions do not name; add its direction there and here", p.rel)
			continue
		}
		for _, dep := range p.imports {
			if !slices.Contains(may, dep) {
				t.Errorf("%s imports %s, which its direction in design.md does not allow", p.rel, dep)
			}
		}
		for _, dep := range p.tests {
			if !slices.Contains(may, dep) && !slices.Contains(testOnly, dep) {
				t.Errorf("%s's tests import %s, which neither its direction in design.md nor the tests' allowance names", p.rel, dep)
			}
		}
	}
}

// TestHelpersOnlyInTests: no package's own code imports a test helper, save another helper.
func TestHelpersOnlyInTests(t *testing.T) {
	for _, p := range list(t) {
		if _, helper := helpers[p.rel]; helper && slices.Contains(testHelpers, p.rel) {
			continue
		}
		for _, dep := range p.imports {
			if slices.Contains(testHelpers, dep) {
				t.Errorf("%s imports the test helper %s outside its tests", p.rel, dep)
			}
		}
	}
}

// TestBinaryLinksNoTesting keeps package testing (and with it its flags and helpers) out of the
// shipped binary: test helpers live in packages of their own (testHelpers), which only tests
// import.
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
