package tools

import "github.com/modelcontextprotocol/go-sdk/mcp"

// addCategoryWrites registers the writes of money and categories.
func (h *handlers) addCategoryWrites(srv *mcp.Server) {
	addTool(srv, h, setCategoryBudgetTool, h.setCategoryBudget)
	addTool(srv, h, moveMoneyTool, h.moveMoney)
	addTool(srv, h, setCategoryTargetTool, h.setCategoryTarget)
	addTool(srv, h, updateCategoryTool, h.updateCategory)
	addTool(srv, h, createCategoryTool, h.createCategory)
}
