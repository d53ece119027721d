package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/ynab"
)

var listCategoriesTool = mcp.Tool{
	Name:        "list_categories",
	Title:       "List categories",
	Description: "Category groups and categories for a month: assigned, activity, available, target.",
	Annotations: readOnly,
}

type listCategoriesIn struct {
	readArg
	Month         string `json:"month,omitempty" jsonschema:"YYYY-MM"`
	IncludeHidden bool   `json:"include_hidden,omitempty"`
}

type targetView struct {
	Type                  string `json:"type" jsonschema:"YNAB's goal type: TB, TBD, MF, NEED or DEBT"`
	Description           string `json:"description"`
	AmountMilliunits      *int64 `json:"amount_milliunits,omitempty"`
	Amount                string `json:"amount,omitempty"`
	Date                  string `json:"date,omitempty"`
	UnderFundedMilliunits *int64 `json:"under_funded_milliunits,omitempty" jsonschema:"still to assign this month to stay on track"`
	UnderFunded           string `json:"under_funded,omitempty"`
	PercentComplete       *int   `json:"percent_complete,omitempty"`
}

type categoryView struct {
	ID                  string      `json:"id"`
	Name                string      `json:"name"`
	Hidden              bool        `json:"hidden,omitempty"`
	AssignedMilliunits  int64       `json:"assigned_milliunits"`
	Assigned            string      `json:"assigned"`
	ActivityMilliunits  int64       `json:"activity_milliunits"`
	Activity            string      `json:"activity"`
	AvailableMilliunits int64       `json:"available_milliunits"`
	Available           string      `json:"available"`
	Target              *targetView `json:"target,omitempty"`
	Note                string      `json:"note,omitempty"`
}

type groupView struct {
	ID         string         `json:"id"`
	Name       string         `json:"name"`
	Hidden     bool           `json:"hidden,omitempty"`
	Categories []categoryView `json:"categories"`
}

type listCategoriesOut struct {
	readResult
	Month  string      `json:"month"`
	Groups []groupView `json:"groups"`
}

func (h *handlers) listCategories(ctx context.Context, _ *mcp.CallToolRequest, in listCategoriesIn) (*mcp.CallToolResult, listCategoriesOut, error) {
	month, err := h.parseMonth("month", in.Month)
	if err != nil {
		return nil, listCategoriesOut{}, err
	}
	p, err := h.plan(ctx, in.PlanID, in.freshness())
	if err != nil {
		return nil, listCategoriesOut{}, err
	}
	m, err := h.monthData(ctx, p, month)
	if err != nil {
		return nil, listCategoriesOut{}, err
	}
	figures := make(map[string]*ynab.Category, len(m.Categories))
	for i := range m.Categories {
		figures[m.Categories[i].ID] = &m.Categories[i]
	}
	cf := currency(p)
	out := listCategoriesOut{readResult: readOf(p), Month: month, Groups: []groupView{}}
	for _, g := range p.CategoryGroups {
		if g.Deleted || g.Internal || (g.Hidden && !in.IncludeHidden) {
			continue
		}
		gv := groupView{ID: g.ID, Name: g.Name, Hidden: g.Hidden, Categories: []categoryView{}}
		for i := range p.Categories {
			c := &p.Categories[i]
			if c.CategoryGroupID != g.ID || c.Deleted || (c.Hidden && !in.IncludeHidden) {
				continue
			}
			f := figures[c.ID]
			if f == nil {
				f = c // the month does not list it: no figures of its own
			}
			gv.Categories = append(gv.Categories, categoryView{
				ID: c.ID, Name: c.Name, Hidden: c.Hidden, Note: str(c.Note),
				AssignedMilliunits: f.Budgeted, Assigned: FormatCurrency(f.Budgeted, cf),
				ActivityMilliunits: f.Activity, Activity: FormatCurrency(f.Activity, cf),
				AvailableMilliunits: f.Balance, Available: FormatCurrency(f.Balance, cf),
				Target: viewTarget(p, f),
			})
		}
		out.Groups = append(out.Groups, gv)
	}
	return nil, out, nil
}

// viewTarget describes a category's target in a month as YNAB's app names it.
func viewTarget(p *ynab.Plan, g *ynab.Category) *targetView {
	if g.GoalType == nil || *g.GoalType == "" {
		return nil
	}
	t := &targetView{Type: *g.GoalType, Description: targetDescription(g), AmountMilliunits: g.GoalTarget,
		Date: str(g.GoalTargetDate), PercentComplete: g.GoalPercentageComplete, UnderFundedMilliunits: g.GoalUnderFunded}
	if g.GoalTarget != nil {
		t.Amount = FormatCurrency(*g.GoalTarget, currency(p))
	}
	if g.GoalUnderFunded != nil {
		t.UnderFunded = FormatCurrency(*g.GoalUnderFunded, currency(p))
	}
	return t
}

func targetDescription(c *ynab.Category) string {
	switch str(c.GoalType) {
	case ynab.GoalTargetBalance:
		return "save up to a balance"
	case ynab.GoalTargetBalanceByDate:
		return "save up to a balance by a date"
	case ynab.GoalMonthlyFunding:
		return "assign an amount every month"
	case ynab.GoalDebt:
		return "pay off a debt"
	case ynab.GoalNeed:
		d := "needed for spending"
		switch {
		case c.GoalTargetDate != nil:
			d += " by a date"
		case c.GoalCadence != nil && *c.GoalCadence == 2:
			d += " every week"
		case c.GoalCadence != nil && *c.GoalCadence == 13:
			d += " every year"
		case c.GoalCadence != nil && *c.GoalCadence == 1:
			d += " every month"
		}
		if c.GoalNeedsWholeAmount != nil && *c.GoalNeedsWholeAmount {
			d += " (set aside the whole amount)"
		} else {
			d += " (refill up to the amount)"
		}
		return d
	}
	return "target"
}
