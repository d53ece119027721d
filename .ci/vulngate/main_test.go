package main

import (
	"strings"
	"testing"
)

// Messages as govulncheck v1.9.0 writes them (trimmed to the fields vulngate reads, and to one
// line each; the real stream is indented, which the decoder takes the same way).
const (
	configSymbol = `{"config":{"protocol_version":"v1.0.0","scanner_name":"govulncheck","go_version":"go1.26.8","scan_level":"symbol","scan_mode":"source"}}`
	configModule = `{"config":{"protocol_version":"v1.0.0","go_version":"go1.26.8","scan_level":"module"}}`
	progress     = `{"progress":{"message":"Scanning your code and 120 packages across 12 dependent modules for known vulnerabilities..."}}`

	osvHTTP  = `{"osv":{"id":"GO-2026-6603","summary":"HTTP/2 server memory exhaustion due to Trailer headers in net/http"}}`
	osvBbolt = `{"osv":{"id":"GO-2026-9001","summary":"Out-of-range read in go.etcd.io/bbolt"}}`

	// The standard library's net/http: required, imported, then called through ynab.Client.do.
	httpModule  = `{"finding":{"osv":"GO-2026-6603","fixed_version":"v1.26.9","trace":[{"module":"stdlib","version":"v1.26.8"}]}}`
	httpPackage = `{"finding":{"osv":"GO-2026-6603","fixed_version":"v1.26.9","trace":[{"module":"stdlib","version":"v1.26.8","package":"net/http"}]}}`
	httpCalled  = `{"finding":{"osv":"GO-2026-6603","fixed_version":"v1.26.9","trace":[` +
		`{"module":"stdlib","version":"v1.26.8","package":"net/http","function":"Do","receiver":"*Client","position":{"filename":"src/net/http/client.go","line":591,"column":18}},` +
		`{"module":"github.com/avenir-mcp/avenir","package":"github.com/avenir-mcp/avenir/ynab","function":"do","receiver":"*Client","position":{"filename":"ynab/client.go","line":161,"column":24}},` +
		`{"module":"github.com/avenir-mcp/avenir","package":"github.com/avenir-mcp/avenir/ynab","function":"Plan","receiver":"*Client","position":{"filename":"ynab/cache.go","line":127,"column":22}}]}}`

	// The same one reached another way, through two of the standard library's functions.
	httpCalledLonger = `{"finding":{"osv":"GO-2026-6603","fixed_version":"v1.26.9","trace":[` +
		`{"module":"stdlib","version":"v1.26.8","package":"net/http","function":"Write","receiver":"*chunkWriter","position":{"filename":"src/net/http/server.go","line":376,"column":24}},` +
		`{"module":"stdlib","version":"v1.26.8","package":"bufio","function":"Write","receiver":"*Writer","position":{"filename":"src/bufio/bufio.go","line":682,"column":25}},` +
		`{"module":"stdlib","version":"v1.26.8","package":"fmt","function":"Fprintf","position":{"filename":"src/fmt/print.go","line":225,"column":18}},` +
		`{"module":"github.com/avenir-mcp/avenir","package":"github.com/avenir-mcp/avenir/cmd/avenir","function":"exitCode","position":{"filename":"cmd/avenir/main.go","line":68,"column":14}}]}}`

	// A required module's vulnerability, imported but not called.
	bboltImported = `{"finding":{"osv":"GO-2026-9001","fixed_version":"v1.5.1","trace":[{"module":"go.etcd.io/bbolt","version":"v1.5.0","package":"go.etcd.io/bbolt"}]}}`
	// The same one called, through the standard library's fmt in between.
	bboltCalled = `{"finding":{"osv":"GO-2026-9001","fixed_version":"v1.5.1","trace":[` +
		`{"module":"go.etcd.io/bbolt","version":"v1.5.0","package":"go.etcd.io/bbolt","function":"Get","receiver":"*Bucket","position":{"filename":"bucket.go","line":10,"column":2}},` +
		`{"module":"stdlib","version":"v1.26.8","package":"fmt","function":"Sprint","position":{"filename":"src/fmt/print.go","line":5,"column":1}},` +
		`{"module":"github.com/avenir-mcp/avenir","package":"github.com/avenir-mcp/avenir/journal","function":"Get","receiver":"*Journal","position":{"filename":"journal/journal.go","line":42,"column":7}}]}}`
	// A called vulnerability that no version fixes yet.
	bboltUnfixed = `{"finding":{"osv":"GO-2026-9001","trace":[` +
		`{"module":"go.etcd.io/bbolt","version":"v1.5.0","package":"go.etcd.io/bbolt","function":"Open","position":{"filename":"db.go","line":3,"column":1}},` +
		`{"module":"github.com/avenir-mcp/avenir","package":"github.com/avenir-mcp/avenir/journal","function":"Open","position":{"filename":"journal/journal.go","line":20,"column":9}}]}}`
)

func stream(msgs ...string) string { return strings.Join(msgs, "\n") + "\n" }

func TestGate(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		failed bool
		want   []string // lines or parts of lines the report must hold
		absent []string // what it must not say
	}{
		{
			name:   "nothing found",
			in:     stream(configSymbol, progress),
			want:   []string{"govulncheck: no called vulnerability in a required module"},
			absent: []string{"GO-"},
		},
		{
			name: "the standard library's, called: listed, passes",
			in:   stream(configSymbol, progress, osvHTTP, httpModule, httpPackage, httpCalled, httpCalled),
			want: []string{
				"GO-2026-6603: HTTP/2 server memory exhaustion due to Trailer headers in net/http (net/http in the standard library of go1.26.8, fixed in go1.26.9)",
				"    for example ynab/client.go:161:24: ynab.Client.do calls http.Client.Do",
				"govulncheck: 1 vulnerabilities of the standard library of go1.26.8 are called",
				"govulncheck: no called vulnerability in a required module",
			},
		},
		{
			// govulncheck emits findings in no set order; the example is the shortest trace.
			name:   "the shortest trace is the example, whichever comes first",
			in:     stream(configSymbol, osvHTTP, httpCalledLonger, httpCalled),
			want:   []string{"    for example ynab/client.go:161:24: ynab.Client.do calls http.Client.Do\n"},
			absent: []string{"exitCode"},
		},
		{
			name: "a longer trace alone: the nearest frame of the scanned code",
			in:   stream(configSymbol, osvHTTP, httpCalledLonger),
			want: []string{"    for example cmd/avenir/main.go:68:14: avenir.exitCode eventually calls http.chunkWriter.Write\n"},
		},
		{
			name:   "a module's, imported and not called: passes unlisted",
			in:     stream(configSymbol, osvBbolt, bboltImported),
			want:   []string{"govulncheck: no called vulnerability in a required module"},
			absent: []string{"GO-2026-9001"},
		},
		{
			name:   "a module's, called: fails, modules listed before the standard library",
			in:     stream(configSymbol, osvHTTP, osvBbolt, httpCalled, bboltImported, bboltCalled),
			failed: true,
			want: []string{
				"GO-2026-9001: Out-of-range read in go.etcd.io/bbolt (go.etcd.io/bbolt@v1.5.0, fixed in v1.5.1)\n" +
					"    for example journal/journal.go:42:7: journal.Journal.Get eventually calls bbolt.Bucket.Get\n" +
					"GO-2026-6603:",
				"govulncheck: 1 vulnerabilities in required modules are called: go get each module at its fixed version",
			},
			absent: []string{"no called vulnerability"},
		},
		{
			name:   "a module's, called, with no fix yet: fails",
			in:     stream(configSymbol, bboltUnfixed),
			failed: true,
			want:   []string{"GO-2026-9001:  (go.etcd.io/bbolt@v1.5.0, no fixed version yet)", "journal.Open calls bbolt.Open"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			failed, err := gate(strings.NewReader(tt.in), &out)
			if err != nil {
				t.Fatalf("gate: %v", err)
			}
			if failed != tt.failed {
				t.Errorf("failed = %v, want %v; report:\n%s", failed, tt.failed, out.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, out.String())
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(out.String(), a) {
					t.Errorf("report has %q:\n%s", a, out.String())
				}
			}
		})
	}
}

func TestGateRefusesPartialStreams(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty: govulncheck stopped before its config", "", "no config message"},
		{"findings without config", stream(httpCalled), "no config message"},
		{"module-level scan", stream(configModule, httpModule), `scanned at "module" level`},
		{"not JSON", "govulncheck: loading packages: exit status 1\n", "reading govulncheck's JSON output"},
		{"cut off mid-object", stream(configSymbol) + `{"finding":{"osv":"GO-`, "reading govulncheck's JSON output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			failed, err := gate(strings.NewReader(tt.in), &out)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("gate = %v, %v; want an error containing %q", failed, err, tt.want)
			}
		})
	}
}
