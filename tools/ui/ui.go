// Package ui holds avenir's MCP Apps views: the card on which a person confirms a write, and
// the pictures of spending_report and list_operations. Each is one self-contained HTML file
// (the MCP Apps view SDK, @modelcontextprotocol/ext-apps, bundled in; no request to any
// origin, and a Content-Security-Policy that allows none), built by build.sh from src/ into
// dist/ and embedded here, so that `go build` and `go install` need no Node.
//
// The server offers them as resources of MIME type MIMEType, named by the tools'
// _meta.ui.resourceUri (MCP Apps, extension io.modelcontextprotocol/ui, specification
// 2026-01-26: github.com/modelcontextprotocol/ext-apps, specification/2026-01-26/apps.mdx).
// What each view expects of the results it is handed is in test/README.md.
package ui

import (
	"embed"
	"fmt"
)

// MIMEType is the MIME type of an MCP Apps HTML resource.
const MIMEType = "text/html;profile=mcp-app"

// The views' URIs, as the tools name them in _meta.ui.resourceUri.
const (
	ConfirmURI  = "ui://avenir/confirm.html"
	SpendingURI = "ui://avenir/spending.html"
	JournalURI  = "ui://avenir/journal.html"
)

//go:embed dist/*.html
var dist embed.FS

// View is one view: its resource's URI, name and description, and its HTML.
type View struct {
	URI         string
	Name        string
	Description string
	HTML        []byte
}

// views are the views and the files they are built to.
var views = []struct {
	uri, name, description, file string
}{
	{ConfirmURI, "confirm", "The card on which the person confirms or declines one of avenir's writes, and sees its outcome.", "dist/confirm.html"},
	{SpendingURI, "spending", "spending_report as a chart: by month, and by category, group, payee or account, with the totals.", "dist/spending.html"},
	{JournalURI, "journal", "list_operations as a timeline of what avenir wrote, with an Undo button for what can be undone.", "dist/journal.html"},
}

// Views returns the three views, each with its own copy of the HTML.
func Views() []View {
	out := make([]View, 0, len(views))
	for _, v := range views {
		b, err := dist.ReadFile(v.file)
		if err != nil {
			// The files are embedded at build time: a missing one is a broken build.
			panic(fmt.Sprintf("ui: %s is not embedded: %v", v.file, err))
		}
		out = append(out, View{URI: v.uri, Name: v.name, Description: v.description, HTML: b})
	}
	return out
}

// Lookup returns the view of a URI, and whether there is one.
func Lookup(uri string) (View, bool) {
	for _, v := range Views() {
		if v.URI == uri {
			return v, true
		}
	}
	return View{}, false
}
