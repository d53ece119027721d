package tools

import "github.com/modelcontextprotocol/go-sdk/mcp"

// addCreates registers the writes that create transactions or mark them reconciled.
func (h *handlers) addCreates(srv *mcp.Server) {
	addTool(srv, h, createTransactionsTool, h.createTransactions)
	addTool(srv, h, reconcileAccountTool, h.reconcileAccount)
	addTool(srv, h, importTransactionsTool, h.importTransactions)
}
