package tools

import (
	"context"
	_ "embed"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// GuideURI is the resource an assistant reads before its first write.
const GuideURI = "avenir-mcp://guide"

//go:embed guide.md
var guide string

func addGuide(srv *mcp.Server) {
	srv.AddResource(&mcp.Resource{
		URI: GuideURI, Name: "guide", Title: "How to use avenir",
		Description: "What avenir does, how confirmation works (and when a code may be passed back), amounts and months, the journal and undo, and YNAB's limits.",
		MIMEType:    "text/markdown",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: GuideURI, MIMEType: "text/markdown", Text: guide}}}, nil
	})
}
