package tools

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/tools/ui"
)

// The MCP Apps views (tools/ui) as resources: the card every confirmed tool names, and the
// pictures of spending_report and list_operations. A host that renders MCP Apps reads the one a
// tool names and draws it beside the conversation; a client that draws none is not listed them (listedToApps).

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

// listedToApps keeps the views out of what a client that did not declare the MCP Apps extension
// lists as resources: it draws none. Tools are another matter: the app-only ones are listed to
// every client whatever it declared, since claude.ai lists tools on a session with empty
// capabilities and its views may call only tools it was listed (modelcontextprotocol/ext-apps#671,
// anthropics/claude-ai-mcp#61, PrefectHQ/fastmcp#5041); hosts that draw the card keep them from
// the model by their visibility.
func listedToApps(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || method != "resources/list" {
			return res, err
		}
		if r, ok := req.(interface {
			ClientCapabilities() *mcp.ClientCapabilities
		}); ok && confirm.RendersApps(r.ClientCapabilities()) {
			return res, nil
		}
		if list, ok := res.(*mcp.ListResourcesResult); ok {
			list.Resources = slices.DeleteFunc(slices.Clone(list.Resources), func(r *mcp.Resource) bool { return isView(r.URI) })
		}
		return res, nil
	}
}

// isView reports whether a resource is one of the MCP Apps views.
func isView(uri string) bool {
	_, ok := ui.Lookup(uri)
	return ok
}
