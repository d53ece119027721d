package tools

import "github.com/modelcontextprotocol/go-sdk/mcp"

// addWrites registers the writes of whatever else YNAB's API can change: transactions edited
// and deleted, scheduled transactions, payees, accounts and category groups.
func (h *handlers) addWrites(srv *mcp.Server) {
	addTool(srv, h, updateTransactionsTool, h.updateTransactions)
	addTool(srv, h, deleteTransactionsTool, h.deleteTransactions)
	addTool(srv, h, createScheduledTransactionTool, h.createScheduledTransaction)
	addTool(srv, h, updateScheduledTransactionTool, h.updateScheduledTransaction)
	addTool(srv, h, deleteScheduledTransactionTool, h.deleteScheduledTransaction)
	addTool(srv, h, renamePayeeTool, h.renamePayee)
	addTool(srv, h, mergePayeesTool, h.mergePayees)
	addTool(srv, h, createAccountTool, h.createAccount)
	addTool(srv, h, createCategoryGroupTool, h.createCategoryGroup)
	addTool(srv, h, updateCategoryGroupTool, h.updateCategoryGroup)
}
