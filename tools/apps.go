package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/tools/ui"
)

// The MCP Apps views (tools/ui) as resources: the card every confirmed tool names, and the
// pictures of spending_report and list_operations. A host that renders MCP Apps reads the one a
// tool names and draws it beside the conversation; the others never see them (listedToApps).

// viewMeta is a view resource's _meta: a Content-Security-Policy that allows no origin (the
// views are self-contained), and a border, as a card should have.
var viewMeta = mcp.Meta{"ui": map[string]any{"csp": map[string]any{}, "prefersBorder": true}}

// pictureMeta names the view a read tool's result is drawn with.
func pictureMeta(uri string) mcp.Meta { return mcp.Meta{"ui": map[string]any{"resourceUri": uri}} }

func addViews(srv *mcp.Server) {
	for _, v := range ui.Views() {
		srv.AddResource(&mcp.Resource{URI: v.URI, Name: v.Name, Description: v.Description, MIMEType: ui.MIMEType, Meta: viewMeta},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
					{URI: v.URI, MIMEType: ui.MIMEType, Text: string(v.HTML), Meta: viewMeta},
				}}, nil
			})
	}
}

// isView reports whether a resource is one of the MCP Apps views.
func isView(uri string) bool {
	_, ok := ui.Lookup(uri)
	return ok
}
