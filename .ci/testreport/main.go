// Command testreport reads `go test -json` and says what ran: ./test.sh pipes the test run through
// it twice.
//
//	go test -json ./... | tee run.json | testreport -stream   # while it runs
//	testreport -parts parts.txt < run.json                      # at the end
//
// With -stream it prints what a person watching `go test` wants: each package's closing line
// ("ok", "FAIL", "?"), build errors, and the whole output of every failed test. It always exits
// 0; the run's verdict is the report's.
//
// Without -stream it prints the report: every skipped test, grouped by why it was skipped, and
// every part of the test command that did not run (from -parts: lines of "NAME<TAB>ran",
// "NAME<TAB>failed<TAB>WHY" or "NAME<TAB>skipped<TAB>WHY"), then the closing line
// "tests: N passed, N failed, N skipped". A skip is either by design (an opt-in measurement, a
// test that runs only as another's child: the table expected below, each with its reason) or a
// part that did not run because something it needs is missing here. It exits 1 when a test or
// a part failed, or when no test ran, and, with CI set in the environment (CI=true), when a test
// or part was skipped that is not by design: on CI everything is installed, so such a skip means
// a part of the suite silently stopped running.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// expected are the skips that are by design: a test matching test (package/TestName, anchored)
// and a reason matching reason is not missing anything, wherever it runs. Add a line here, with
// why, when a new test is meant to skip on a complete machine.
var expected = []struct {
	test, reason *regexp.Regexp
	because      string
}{
	{test: re(`.*`), reason: re(`^set AVENIR_HOSTED_BENCH=1\b`), because: "an opt-in measurement (BENCHMARKS.md)"},
	{test: re(`.*`), reason: re(`^set AVENIR_UI_SCREENSHOTS\b`), because: "writes screenshots only when asked for them"},
	{test: re(`.*`), reason: re(`^run by BenchmarkFirstSyncPeakRSS$`), because: "runs only as the benchmark's child process"},
	{test: re(`.*`), reason: re(`^the store serves one person$`), because: "a per-person check that does not apply to the local, one-person journal"},
	{test: re(`.*`), reason: re(`^a confirming call reads ynab\.WithinPreviewAge before the lock`), because: "pins a known limit: runs once the change it names lands"},
	{test: re(`.*`), reason: re(`^TestCardInABrowser (confirms|declines) through the SDK's bridge$`), because: "covered by TestCardInABrowser"},
	{test: re(`.*`), reason: re(`^the manifest sets no statement folder$`), because: "applies once the bundle's manifest has a statement folder setting"},
}

func re(s string) *regexp.Regexp { return regexp.MustCompile(`^(?:` + s + `)`) }

// event is one line of `go test -json` (cmd/test2json), with the build events of Go 1.24.
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string
}

type key struct{ pkg, test string }

// skip is one skipped test and the lines it logged before it skipped.
type skip struct {
	pkg, test, reason string
}

// run is what the whole stream held.
type run struct {
	passed, failed int
	skips          []skip
	failedPkgs     []string
	noEvents       bool
}

func main() {
	stream := flag.Bool("stream", false, "print the run as it goes (package lines, failures) instead of the report")
	parts := flag.String("parts", "", "a file of the test command's other parts: NAME<TAB>ran|failed|skipped[<TAB>WHY] per line")
	flag.Parse()
	if *stream {
		// Unbuffered: each line shows while the tests run (stdout is a pipe to the terminal or
		// CI's log, and a run takes many minutes).
		read(os.Stdin, os.Stdout)
		return
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	r := read(os.Stdin, nil)
	var ps []part
	if *parts != "" {
		var err error
		if ps, err = readParts(*parts); err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			os.Exit(2)
		}
	}
	ok := report(out, r, ps, os.Getenv("CI") != "" && os.Getenv("CI") != "false")
	out.Flush()
	if !ok {
		os.Exit(1)
	}
}

// read takes the whole stream; with live set it prints as it goes.
func read(in io.Reader, live io.Writer) run {
	var r run
	r.noEvents = true
	logs := map[key][]string{} // each running test's output, until it ends
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// Not an event: go's own error output, printed as it is.
			if live != nil {
				fmt.Fprintf(live, "%s\n", line)
			}
			continue
		}
		r.noEvents = false
		k := key{e.Package, e.Test}
		switch {
		case e.Action == "build-output":
			if live != nil {
				io.WriteString(live, e.Output)
			}
		case e.Test == "":
			// The package's own lines: "ok  \tpkg\t1.2s", "FAIL\tpkg", "? \tpkg\t[no test files]";
			// PASS and FAIL alone are the test binary's and say nothing more.
			if e.Action == "output" && live != nil && e.Output != "PASS\n" && e.Output != "FAIL\n" {
				io.WriteString(live, e.Output)
			}
			if e.Action == "fail" {
				r.failedPkgs = append(r.failedPkgs, e.Package)
				// A test binary that panicked or timed out leaves its running tests without an
				// end: show what they logged.
				for lk, l := range logs {
					if lk.pkg == e.Package && live != nil {
						io.WriteString(live, strings.Join(l, ""))
					}
					if lk.pkg == e.Package {
						delete(logs, lk)
					}
				}
			}
		case e.Action == "output":
			logs[k] = append(logs[k], e.Output)
		case e.Action == "pass":
			r.passed++
			delete(logs, k)
		case e.Action == "fail":
			r.failed++
			if live != nil {
				io.WriteString(live, strings.Join(logs[k], ""))
			}
			delete(logs, k)
		case e.Action == "skip":
			r.skips = append(r.skips, skip{e.Package, e.Test, skipReason(logs[k])})
			delete(logs, k)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "testreport: reading the test run:", err)
	}
	return r
}

// skipReason is what a skipped test said: its log lines without the "=== RUN" and "--- SKIP"
// frames, each without its "file_test.go:12: " prefix.
var logPrefix = regexp.MustCompile(`^\s*[\w.-]+\.go:\d+: `)

func skipReason(lines []string) string {
	var said []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		said = append(said, strings.TrimSpace(logPrefix.ReplaceAllString(l, "")))
	}
	if len(said) == 0 {
		return "(it gave no reason)"
	}
	// The reason is the last thing said: t.Skip ends the test.
	return said[len(said)-1]
}

type part struct{ name, status, why string }

func readParts(path string) ([]part, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("the parts file: %w", err)
	}
	var ps []part
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l == "" {
			continue
		}
		f := strings.SplitN(l, "\t", 3)
		p := part{name: f[0]}
		if len(f) > 1 {
			p.status = f[1]
		}
		if len(f) > 2 {
			p.why = f[2]
		}
		switch p.status {
		case "ran", "failed", "skipped":
		default:
			return nil, fmt.Errorf("the parts file: %q: want NAME<TAB>ran|failed|skipped[<TAB>WHY]", l)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// byDesign says why a skip is by design, or "" when it is a part that could not run here.
func byDesign(s skip) string {
	name := s.pkg + "/" + s.test
	for _, x := range expected {
		if x.test.MatchString(name) && x.reason.MatchString(s.reason) {
			return x.because
		}
	}
	return ""
}

// report prints the skips and parts and the closing line, and says whether the run passed.
func report(w io.Writer, r run, parts []part, ci bool) bool {
	ok := r.failed == 0 && len(r.failedPkgs) == 0
	passed, failed, skipped := r.passed, r.failed, len(r.skips)

	// Group the skips by reason: many tests skip for one missing thing.
	type group struct {
		reason, because string
		tests           []string
	}
	groups := map[string]*group{}
	var order []string
	for _, s := range r.skips {
		g := groups[s.reason]
		if g == nil {
			g = &group{reason: s.reason, because: byDesign(s)}
			groups[s.reason] = g
			order = append(order, s.reason)
		}
		g.tests = append(g.tests, shortPkg(s.pkg)+"."+s.test)
	}
	sort.SliceStable(order, func(i, j int) bool {
		return (groups[order[i]].because == "") && (groups[order[j]].because != "")
	})
	missing := 0
	for _, p := range parts {
		switch p.status {
		case "ran":
			passed++
		case "failed":
			failed++
			ok = false
		case "skipped":
			skipped++
			missing++
		}
	}
	for _, reason := range order {
		if groups[reason].because == "" {
			missing += len(groups[reason].tests)
		}
	}

	if len(order) > 0 || missing > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Skipped:")
	}
	for _, p := range parts {
		if p.status == "skipped" {
			fmt.Fprintf(w, "- %s did not run: %s\n", p.name, p.why)
		}
	}
	for _, reason := range order {
		g := groups[reason]
		sort.Strings(g.tests)
		if g.because == "" {
			fmt.Fprintf(w, "- not run here: %q\n", g.reason)
		} else {
			fmt.Fprintf(w, "- by design, %s: %q\n", g.because, g.reason)
		}
		fmt.Fprintf(w, "  %s\n", wrap(g.tests, 96))
	}
	for _, p := range parts {
		if p.status == "failed" {
			fmt.Fprintf(w, "FAIL %s: %s\n", p.name, p.why)
		}
	}
	for _, pkg := range r.failedPkgs {
		fmt.Fprintf(w, "FAIL %s\n", pkg)
	}
	switch {
	case r.noEvents:
		fmt.Fprintln(w, "testreport: the test run printed no test events")
		ok = false
	case r.passed == 0:
		fmt.Fprintln(w, "testreport: no test passed")
		ok = false
	}
	if ci && missing > 0 {
		fmt.Fprintf(w, "CI: %d tests or parts did not run that should (above, \"not run here\"/\"did not run\"): install what they need in .ci/run or test.sh, or, if a skip is meant, add it to .ci/testreport's expected skips\n", missing)
		ok = false
	}
	fmt.Fprintf(w, "tests: %d passed, %d failed, %d skipped\n", passed, failed, skipped)
	return ok
}

// shortPkg drops the module's path: cmd/avenir, not github.com/avenir-mcp/avenir/cmd/avenir.
func shortPkg(pkg string) string {
	const module = "github.com/avenir-mcp/avenir"
	if pkg == module {
		return "."
	}
	return strings.TrimPrefix(pkg, module+"/")
}

// wrap joins names with ", ", breaking lines near width.
func wrap(names []string, width int) string {
	var b strings.Builder
	n := 0
	for i, s := range names {
		if i > 0 {
			if n+len(s)+2 > width {
				b.WriteString(",\n  ")
				n = 0
			} else {
				b.WriteString(", ")
				n += 2
			}
		}
		b.WriteString(s)
		n += len(s)
	}
	return b.String()
}
