package tools

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/ynab"
)

var listPayeesTool = mcp.Tool{
	Name:        "list_payees",
	Title:       "List payees",
	Description: "List the plan's payees, optionally only those whose name contains query (case-insensitive). Transfer payees name the account they transfer to.",
	Annotations: readOnly,
}

type listPayeesIn struct {
	planArg
	Query string `json:"query,omitempty" jsonschema:"only payees whose name contains this text"`
}

type payeeView struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	TransferAccount string `json:"transfer_account,omitempty" jsonschema:"set for the payee that means a transfer to this account"`
}

type listPayeesOut struct {
	result
	Payees []payeeView `json:"payees"`
}

func (h *handlers) listPayees(ctx context.Context, _ *mcp.CallToolRequest, in listPayeesIn) (*mcp.CallToolResult, listPayeesOut, error) {
	p, err := h.plan(ctx, in.PlanID, ynab.Recent)
	if err != nil {
		return nil, listPayeesOut{}, err
	}
	q := strings.ToLower(strings.TrimSpace(in.Query))
	out := listPayeesOut{result: result{PlanID: p.ID}, Payees: []payeeView{}}
	for _, y := range p.Payees {
		if y.Deleted || (q != "" && !strings.Contains(strings.ToLower(y.Name), q)) {
			continue
		}
		v := payeeView{ID: y.ID, Name: y.Name}
		if y.TransferAccountID != nil {
			v.TransferAccount = accountName(p, *y.TransferAccountID)
		}
		out.Payees = append(out.Payees, v)
	}
	return nil, out, nil
}
