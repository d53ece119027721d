package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolEntry is one tool of the server: its definition, and how to register its handler. The
// server offers the entries of [allTools]; read-only mode offers those whose annotations say
// they only read, so a tool's annotations decide where it is offered and cannot drift from it.
type toolEntry struct {
	tool *mcp.Tool
	add  func(*mcp.Server, *handlers)
}

// entry pairs a tool with its handler, a method of handlers.
func entry[In, Out any](t *mcp.Tool, fn func(*handlers, context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, Out, error)) toolEntry {
	return toolEntry{tool: t, add: func(srv *mcp.Server, h *handlers) {
		addTool(srv, h, *t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
			return fn(h, ctx, req, in)
		})
	}}
}

// readsOnly reports whether a tool only reads: its annotations say so.
func (e toolEntry) readsOnly() bool {
	return e.tool.Annotations != nil && e.tool.Annotations.ReadOnlyHint
}

// allTools is every tool avenir offers, in the order of the guide: the reads, the analyses, then
// the writes.
var allTools = []toolEntry{
	entry(&listPlansTool, (*handlers).listPlans),
	entry(&planOverviewTool, (*handlers).planOverview),
	entry(&listAccountsTool, (*handlers).listAccounts),
	entry(&listCategoriesTool, (*handlers).listCategories),
	entry(&listTransactionsTool, (*handlers).listTransactions),
	entry(&listPayeesTool, (*handlers).listPayees),
	entry(&listScheduledTool, (*handlers).listScheduled),
	entry(&listOperationsTool, (*handlers).listOperations),
	entry(&getOperationTool, (*handlers).getOperation),

	// The analyses answer from the plan avenir already holds (analysis.go).
	entry(&spendingReportTool, (*handlers).spendingReport),
	entry(&suggestCategoriesTool, (*handlers).suggestCategories),
	entry(&findRecurringTool, (*handlers).findRecurring),
	entry(&listMoneyMovementsTool, (*handlers).listMoneyMovements),

	// Money and categories.
	entry(&setCategoryBudgetTool, (*handlers).setCategoryBudget),
	entry(&moveMoneyTool, (*handlers).moveMoney),
	entry(&setCategoryTargetTool, (*handlers).setCategoryTarget),
	entry(&updateCategoryTool, (*handlers).updateCategory),
	entry(&createCategoryTool, (*handlers).createCategory),

	// Existing transactions.
	entry(&applyCategoriesTool, (*handlers).applyCategories),
	entry(&flagTransactionsTool, (*handlers).flagTransactions),
	entry(&approveTransactionsTool, (*handlers).approveTransactions),
	entry(&splitTransactionTool, (*handlers).splitTransaction),
	entry(&updateTransactionsTool, (*handlers).updateTransactions),
	entry(&deleteTransactionsTool, (*handlers).deleteTransactions),

	// New transactions, reconciliation and imports.
	entry(&createTransactionsTool, (*handlers).createTransactions),
	entry(&reconcileAccountTool, (*handlers).reconcileAccount),
	entry(&importTransactionsTool, (*handlers).importTransactions),
	entry(&importStatementTool, (*handlers).importStatement),

	// Scheduled transactions, payees, accounts and groups.
	entry(&createScheduledTransactionTool, (*handlers).createScheduledTransaction),
	entry(&updateScheduledTransactionTool, (*handlers).updateScheduledTransaction),
	entry(&deleteScheduledTransactionTool, (*handlers).deleteScheduledTransaction),
	entry(&renamePayeeTool, (*handlers).renamePayee),
	entry(&mergePayeesTool, (*handlers).mergePayees),
	entry(&createAccountTool, (*handlers).createAccount),
	entry(&createCategoryGroupTool, (*handlers).createCategoryGroup),
	entry(&updateCategoryGroupTool, (*handlers).updateCategoryGroup),

	entry(&undoOperationTool, (*handlers).undoOperation),
}
