package tools

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var listPayeesTool = mcp.Tool{
	Name:        "list_payees",
	Title:       "List payees",
	Description: "Payees, or those whose name contains query (no transfer payees). Paged by next_cursor.",
	Annotations: readOnly,
}

type listPayeesIn struct {
	readArg
	Query  string `json:"query,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

type payeeView struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type listPayeesOut struct {
	readResult
	Payees     []payeeView `json:"payees"`
	NextCursor string      `json:"next_cursor,omitempty" jsonschema:"pass as cursor for the next page; absent on the last"`
}

func (h *handlers) listPayees(ctx context.Context, _ *mcp.CallToolRequest, in listPayeesIn) (*mcp.CallToolResult, listPayeesOut, error) {
	offset, err := decodeOffset(in.Cursor, "payees", in.Query)
	if err != nil {
		return nil, listPayeesOut{}, err
	}
	p, err := h.plan(ctx, in.PlanID, in.listed())
	if err != nil {
		return nil, listPayeesOut{}, err
	}
	q := strings.ToLower(strings.TrimSpace(in.Query))
	out := listPayeesOut{readResult: readOf(p), Payees: []payeeView{}}
	var all []payeeView
	for _, y := range p.Payees {
		if y.Deleted || y.TransferAccountID != nil || (q != "" && !strings.Contains(strings.ToLower(y.Name), q)) {
			continue
		}
		all = append(all, payeeView{ID: y.ID, Name: y.Name})
	}
	rest := all[min(offset, len(all)):]
	out.Payees = append(out.Payees, rest[:fit(len(rest), func(i int) any { return rest[i] })]...)
	if end := offset + len(out.Payees); end < len(all) {
		out.NextCursor = encodeOffset(end, "payees", in.Query)
	}
	return nil, out, nil
}
