package tools

import (
	"context"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var listPlansTool = mcp.Tool{
	Name:        "list_plans",
	Title:       "List plans",
	Description: "The YNAB plans (budgets), and which one tools use without plan_id.",
	Annotations: readOnly,
}

type listPlansIn struct{}

type planView struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	LastModifiedOn string `json:"last_modified_on,omitempty"`
	FirstMonth     string `json:"first_month,omitempty"`
	LastMonth      string `json:"last_month,omitempty"`
	Currency       string `json:"currency,omitempty" jsonschema:"ISO code, e.g. EUR"`
	Default        bool   `json:"default" jsonschema:"the plan avenir uses when a tool is given no plan_id"`
}

type listPlansOut struct {
	readResult
	Plans         []planView `json:"plans"`
	DefaultPlanID string     `json:"default_plan_id,omitempty" jsonschema:"empty when the default is YNAB's last-used plan and YNAB did not say which that is"`
}

func (h *handlers) listPlans(ctx context.Context, _ *mcp.CallToolRequest, _ listPlansIn) (*mcp.CallToolResult, listPlansOut, error) {
	plans, err := h.YNAB.GetPlans(ctx, false)
	if err != nil {
		return nil, listPlansOut{}, err
	}
	out := listPlansOut{readResult: readResult{AsOf: h.Now().UTC().Format(time.RFC3339)}}
	if plans.DefaultPlan != nil {
		out.DefaultPlanID = plans.DefaultPlan.ID
	}
	if ref := strings.TrimSpace(h.DefaultPlan); ref != "" {
		out.DefaultPlanID = ""
		for _, p := range plans.Plans {
			if p.ID == ref || strings.EqualFold(p.Name, ref) {
				out.DefaultPlanID = p.ID
			}
		}
	}
	for _, p := range plans.Plans {
		v := planView{ID: p.ID, Name: p.Name, LastModifiedOn: p.LastModifiedOn, FirstMonth: p.FirstMonth,
			LastMonth: p.LastMonth, Default: p.ID == out.DefaultPlanID}
		if p.CurrencyFormat != nil {
			v.Currency = p.CurrencyFormat.ISOCode
		}
		out.Plans = append(out.Plans, v)
	}
	if out.Plans == nil {
		out.Plans = []planView{}
	}
	return nil, out, nil
}
