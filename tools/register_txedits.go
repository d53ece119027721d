package tools

import "github.com/modelcontextprotocol/go-sdk/mcp"

// addTransactionEdits registers the writes that edit existing transactions.
func (h *handlers) addTransactionEdits(srv *mcp.Server) {
}
