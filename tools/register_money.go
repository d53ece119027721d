package tools

import "github.com/modelcontextprotocol/go-sdk/mcp"

// addCategoryWrites registers the writes of money and categories.
func (h *handlers) addCategoryWrites(srv *mcp.Server) {
	addTool(srv, h, setCategoryBudgetTool, h.setCategoryBudget)
}
