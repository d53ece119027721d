package tools

import "github.com/modelcontextprotocol/go-sdk/mcp"

// addTransactionEdits registers the writes that edit existing transactions.
func (h *handlers) addTransactionEdits(srv *mcp.Server) {
	addTool(srv, h, applyCategoriesTool, h.applyCategories)
	addTool(srv, h, flagTransactionsTool, h.flagTransactions)
	addTool(srv, h, approveTransactionsTool, h.approveTransactions)
	addTool(srv, h, splitTransactionTool, h.splitTransaction)
}
