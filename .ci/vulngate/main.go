// Command vulngate decides whether CI passes on govulncheck's findings. It reads the JSON stream
// of `govulncheck -format json` (which exits 0 whatever it finds) on stdin, lists every
// vulnerability whose code avenir calls, and fails when one of them is in a required module:
// that one is fixed by `go get MODULE@FIXED`. One in the standard library is listed and passes:
// its fix is a newer Go, which comes with the machine (or GOTOOLCHAIN), not from go.mod, so it is
// the project's toolchain decision and not any one change's. Vulnerabilities in code avenir
// imports but never calls pass silently, as they do in govulncheck's own exit code.
//
// The stream's format is golang.org/x/vuln's internal/govulncheck package (protocol v1.0.0):
// one object per message, each with exactly one of config, progress, SBOM, osv or finding.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
)

func main() {
	failed, err := gate(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vulngate:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// message is one object of the stream; only the fields vulngate reads.
type message struct {
	Config  *config  `json:"config"`
	OSV     *entry   `json:"osv"`
	Finding *finding `json:"finding"`
}

type config struct {
	ScanLevel string `json:"scan_level"`
	GoVersion string `json:"go_version"`
}

type entry struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
}

// finding is one sighting of a vulnerability. Trace[0] is the vulnerable symbol and the last
// frame the entry point in the scanned code; a finding at module or package level (required or
// imported, not called) has a single frame without a function.
type finding struct {
	OSV          string   `json:"osv"`
	FixedVersion string   `json:"fixed_version"`
	Trace        []*frame `json:"trace"`
}

type frame struct {
	Module   string    `json:"module"`
	Version  string    `json:"version"`
	Package  string    `json:"package"`
	Function string    `json:"function"`
	Receiver string    `json:"receiver"`
	Position *position `json:"position"`
}

type position struct {
	Filename string `json:"filename"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
}

// stdlib is the module govulncheck names for the standard library.
const stdlib = "stdlib"

// gate reads the stream from r, writes what it found to w, and reports whether CI must fail.
// An error means the stream was not a whole symbol-level scan, so nothing can be concluded.
func gate(r io.Reader, w io.Writer) (failed bool, err error) {
	var cfg *config
	summaries := map[string]string{}
	called := map[string]*finding{} // by OSV ID: its symbol-level finding with the shortest trace
	dec := json.NewDecoder(r)
	for {
		var m message
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return false, fmt.Errorf("reading govulncheck's JSON output: %w", err)
		}
		switch {
		case m.Config != nil:
			cfg = m.Config
		case m.OSV != nil:
			summaries[m.OSV.ID] = m.OSV.Summary
		case m.Finding != nil:
			f := m.Finding
			if len(f.Trace) > 0 && f.Trace[0].Function != "" && shorter(f, called[f.OSV]) {
				called[f.OSV] = f
			}
		}
	}
	if cfg == nil {
		return false, errors.New("govulncheck's output has no config message: it did not run to the end")
	}
	if cfg.ScanLevel != "symbol" {
		return false, fmt.Errorf("govulncheck scanned at %q level; the gate needs -scan symbol (the default), which tells called code from imported", cfg.ScanLevel)
	}

	ids := make([]string, 0, len(called))
	for id := range called {
		ids = append(ids, id)
	}
	// Modules first, then the standard library; by ID within each.
	slices.SortFunc(ids, func(a, b string) int {
		sa, sb := called[a].Trace[0].Module == stdlib, called[b].Trace[0].Module == stdlib
		if sa != sb {
			if sa {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	var inModules, inStdlib int
	for _, id := range ids {
		f := called[id]
		vuln := f.Trace[0]
		fixed := "no fixed version yet"
		if f.FixedVersion != "" {
			fixed = "fixed in " + version(vuln.Module, f.FixedVersion)
		}
		where := vuln.Module + "@" + vuln.Version
		if vuln.Module == stdlib {
			inStdlib++
			where = vuln.Package + " in the standard library of " + version(stdlib, vuln.Version)
		} else {
			inModules++
		}
		fmt.Fprintf(w, "%s: %s (%s, %s)\n", id, summaries[id], where, fixed)
		if site := callSite(f.Trace); site != "" {
			fmt.Fprintf(w, "    for example %s\n", site)
		}
	}
	if inStdlib > 0 {
		fmt.Fprintf(w, "govulncheck: %d vulnerabilities of the standard library of %s are called; "+
			"they are fixed by moving to a Go with the fixed versions above, not in go.mod\n", inStdlib, cfg.GoVersion)
	}
	if inModules > 0 {
		fmt.Fprintf(w, "govulncheck: %d vulnerabilities in required modules are called: go get each module at its "+
			"fixed version (then go mod tidy); `govulncheck -db ... ./...` without -format json shows every trace\n", inModules)
		return true, nil
	}
	fmt.Fprintln(w, "govulncheck: no called vulnerability in a required module")
	return false, nil
}

// shorter reports whether f's trace is a better example than old's: shorter, or as long and
// first by call site. govulncheck emits findings in no set order, and this keeps the report
// the same from run to run.
func shorter(f, old *finding) bool {
	if old == nil {
		return true
	}
	if len(f.Trace) != len(old.Trace) {
		return len(f.Trace) < len(old.Trace)
	}
	return callSite(f.Trace) < callSite(old.Trace)
}

// version spells a module's version as people write it: go1.26.9 for the standard library,
// whose versions the stream gives as semver (v1.26.9).
func version(module, v string) string {
	if module == stdlib && strings.HasPrefix(v, "v") {
		return "go" + v[1:]
	}
	return v
}

// callSite tells where the scanned code reaches the vulnerable symbol: the frame of the entry
// point's module nearest to the symbol, which calls it directly or through other code.
func callSite(trace []*frame) string {
	if len(trace) < 2 {
		return ""
	}
	root := trace[len(trace)-1].Module
	for i := 1; i < len(trace); i++ {
		fr := trace[i]
		if fr.Module != root || fr.Position == nil {
			continue
		}
		verb := "calls"
		if i > 1 {
			verb = "eventually calls"
		}
		return fmt.Sprintf("%s:%d:%d: %s %s %s", fr.Position.Filename, fr.Position.Line, fr.Position.Column,
			symbol(fr), verb, symbol(trace[0]))
	}
	return ""
}

// symbol names a frame's function as govulncheck's text output does: http.Client.Do.
func symbol(fr *frame) string {
	name := fr.Function
	if fr.Receiver != "" {
		name = strings.TrimPrefix(fr.Receiver, "*") + "." + name
	}
	return path.Base(fr.Package) + "." + name
}
