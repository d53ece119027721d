package tools

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var setCategoryBudgetTool = mcp.Tool{
	Name:        "set_category_budget",
	Title:       "Assign money to a category",
	Description: "Set a category's assigned amount for a month: the new total. Undoable." + confirmDescription,
	Meta:        cardMeta,
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type setCategoryBudgetIn struct {
	planArg
	Category string `json:"category"`
	Month    string `json:"month,omitempty" jsonschema:"YYYY-MM"`
	Amount   Amount `json:"amount" jsonschema:"the new total"`
	confirmArg
}

type budgetSubject struct {
	CategoryID string `json:"category_id"`
	Month      string `json:"month"`
	Amount     int64  `json:"amount"`
}

func (h *handlers) setCategoryBudget(ctx context.Context, req *mcp.CallToolRequest, in setCategoryBudgetIn) (*mcp.CallToolResult, writeOut, error) {
	month, err := h.parseMonth("month", in.Month)
	if err != nil {
		return nil, writeOut{}, err
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		cat, err := spendableCategory(p, "category", in.Category)
		if err != nil {
			return nil, err
		}
		amount, err := in.Amount.Milliunits(Digits(currency(p)))
		if err != nil {
			return nil, fmt.Errorf("amount: %w", err)
		}
		before, err := h.assigned(ctx, p, month, cat.ID)
		if err != nil {
			return nil, err
		}
		if err := checkAssignment(p, "amount", month, cat.ID, before, amount); err != nil {
			return nil, err
		}
		if before == amount && !confirming(ctx, req, in.Confirmation) {
			return nil, fmt.Errorf("%s already has %s assigned for %s: nothing to change", cat.Name, FormatPlain(amount, Digits(currency(p))), month)
		}
		digits := Digits(currency(p))
		ed := &edit{
			plan:    p,
			tool:    setCategoryBudgetTool.Name,
			subject: budgetSubject{CategoryID: cat.ID, Month: month, Amount: amount},
			first:   fmt.Sprintf("Budget %s for %s: %s → %s?", cat.Name, month, FormatPlain(before, digits), FormatPlain(amount, digits)),
			changes: []journal.Change{assignedChange(p, cat, month, before, amount)},
			apply: func(ctx context.Context) (journal.Outcome, error) {
				res, err := h.YNAB.UpdateMonthCategory(ctx, p.ID, month, cat.ID, amount)
				return journal.Outcome{ServerKnowledge: res.ServerKnowledge}, err
			},
		}
		return ed, nil
	}
	args, code := splitCode(in)
	return h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
}

// assigned is what a category has assigned for a month: from the snapshot, or for a month
// beyond the export's range, one GET of that month's category.
func (h *handlers) assigned(ctx context.Context, p *ynab.Plan, month, categoryID string) (int64, error) {
	if c, ok := p.MonthCategory(month, categoryID); ok {
		return c.Budgeted, nil
	}
	c, err := h.YNAB.GetMonthCategory(ctx, p.ID, month, categoryID)
	if ynab.IsStatus(err, 404) {
		return 0, fmt.Errorf("month %s is outside this plan, which runs from %s to %s", month[:7], p.FirstMonth, p.LastMonth)
	}
	return c.Budgeted, err
}

// assignedChange is the journal's record of a category's assigned amount changing in a month.
func assignedChange(p *ynab.Plan, cat *ynab.Category, month string, before, after int64) journal.Change {
	return journal.Change{
		Kind: "month_category", ID: cat.ID, Month: month,
		Label:  fmt.Sprintf("%s %s", categoryLabel(p, cat.ID), month[:7]),
		Before: fieldsJSON(map[string]any{"budgeted": before}),
		After:  fieldsJSON(map[string]any{"budgeted": after}),
	}
}

// spendableCategory resolves a category that money can be assigned to or spent from: not
// deleted, not hidden, not one of YNAB's internal categories.
func spendableCategory(p *ynab.Plan, arg, ref string) (*ynab.Category, error) {
	c, err := resolve("category", arg, ref, categoryCandidates(p))
	if err != nil {
		return nil, err
	}
	cat, _ := p.Category(c.id)
	g, _ := p.Group(cat.CategoryGroupID)
	switch {
	case cat.Internal || (g != nil && g.Internal):
		return nil, fmt.Errorf("%s: %s is one of YNAB's internal categories; choose a category of your own", arg, c.label)
	case cat.Hidden || (g != nil && g.Hidden):
		return nil, fmt.Errorf("%s: %s is hidden; unhide it in YNAB first, or choose another category", arg, c.label)
	}
	return cat, nil
}
