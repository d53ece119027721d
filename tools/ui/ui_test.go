package ui

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func TestViews(t *testing.T) {
	vs := Views()
	want := []string{ConfirmURI, SpendingURI, JournalURI}
	if len(vs) != len(want) {
		t.Fatalf("Views() has %d views, want %d", len(vs), len(want))
	}
	for i, v := range vs {
		if v.URI != want[i] {
			t.Errorf("view %d: URI %s, want %s", i, v.URI, want[i])
		}
		if v.Name == "" || v.Description == "" {
			t.Errorf("%s: no name or description", v.URI)
		}
		got, ok := Lookup(v.URI)
		if !ok || !bytes.Equal(got.HTML, v.HTML) {
			t.Errorf("Lookup(%s) does not return the view", v.URI)
		}
	}
	if _, ok := Lookup("ui://avenir/nothing.html"); ok {
		t.Error("Lookup of an unknown URI found a view")
	}
	// Each caller gets its own bytes: one that writes to them changes no other's view.
	a, b := Views()[0].HTML, Views()[0].HTML
	a[0] = 'X'
	if b[0] == 'X' {
		t.Error("Views() hands out shared HTML")
	}
}

var (
	cspMeta = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`)
	// A reference that would make the browser load something: an attribute naming a URL, a
	// CSS url() or @import. Inline scripts are left out; what they could load the CSP forbids.
	loads = regexp.MustCompile(`(?i)\b(src|href|action|srcset|poster|data)\s*=|url\(|@import`)
)

// TestViewsAreSelfContained checks what the MCP Apps host relies on: a whole HTML document, its
// script and style inline, a CSP that allows no origin at all, and nothing that loads from one.
func TestViewsAreSelfContained(t *testing.T) {
	for _, v := range Views() {
		t.Run(v.Name, func(t *testing.T) {
			html := string(v.HTML)
			if !strings.HasPrefix(html, "<!doctype html>\n") {
				t.Error("does not start with <!doctype html>")
			}
			m := cspMeta.FindStringSubmatch(html)
			if m == nil {
				t.Fatal("has no Content-Security-Policy meta")
			}
			csp := m[1]
			for _, want := range []string{"default-src 'none'", "connect-src 'none'", "frame-src 'none'", "base-uri 'none'", "form-action 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("CSP %q lacks %s", csp, want)
				}
			}
			for _, origin := range []string{"http:", "https:", "ws:", "wss:", "*", "'self'", "blob:"} {
				if strings.Contains(csp, origin) {
					t.Errorf("CSP %q allows %s", csp, origin)
				}
			}
			// Outside the one inline script and the closing licence comment, the markup.
			start := strings.Index(html, "<script>")
			end := strings.LastIndex(html, "</script>")
			if start < 0 || end < start || strings.Count(html, "<script") != 1 {
				t.Fatal("does not have exactly one inline <script>")
			}
			markup := html[:start] + html[end:]
			if i := strings.Index(markup, "<!--"); i >= 0 {
				markup = markup[:i]
			}
			if loc := loads.FindStringIndex(markup); loc != nil {
				t.Errorf("the markup loads something: %q", markup[max(0, loc[0]-40):min(len(markup), loc[1]+40)])
			}
			script := html[start:end]
			for _, want := range []string{"ui/initialize", "ui/notifications/tool-result"} {
				if !strings.Contains(script, want) {
					t.Errorf("the script lacks %q: the MCP Apps view SDK is not bundled in", want)
				}
			}
			if !strings.Contains(html, "under these licences") {
				t.Error("the licences of the bundled packages are missing")
			}
		})
	}
}
