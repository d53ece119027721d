package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/ynab"
)

var listMoneyMovementsTool = mcp.Tool{
	Name:        "list_money_movements",
	Title:       "List money movements",
	Description: "Money moved between categories in a month, as YNAB records it. One YNAB request, plus the plan's usual delta read.",
	Annotations: readOnly,
}

const movementsBudget = 40000 // bytes of rows in one result

type listMoneyMovementsIn struct {
	readArg
	Month string `json:"month,omitempty" jsonschema:"YYYY-MM"`
}

type moneyMovementView struct {
	ID                string `json:"id"`
	MovedAt           string `json:"moved_at,omitempty" jsonschema:"when YNAB recorded the move (RFC 3339)"`
	AmountMilliunits  int64  `json:"amount_milliunits"`
	Amount            string `json:"amount"`
	From              string `json:"from" jsonschema:"the category as 'Group: Name', or Ready to Assign"`
	FromCategoryID    string `json:"from_category_id,omitempty"`
	To                string `json:"to" jsonschema:"the category as 'Group: Name', or Ready to Assign"`
	ToCategoryID      string `json:"to_category_id,omitempty"`
	Note              string `json:"note,omitempty"`
	GroupID           string `json:"group_id,omitempty" jsonschema:"movements made in one action share it"`
	PerformedByUserID string `json:"performed_by_user_id,omitempty" jsonschema:"the id of the YNAB user who moved it"`
}

type listMoneyMovementsOut struct {
	readResult
	Month     string              `json:"month"`
	Movements []moneyMovementView `json:"movements"`
	More      int                 `json:"more,omitempty" jsonschema:"how many older movements were left out to keep the result small"`
}

func (h *handlers) listMoneyMovements(ctx context.Context, _ *mcp.CallToolRequest, in listMoneyMovementsIn) (*mcp.CallToolResult, listMoneyMovementsOut, error) {
	month, err := h.parseMonth("month", in.Month)
	if err != nil {
		return nil, listMoneyMovementsOut{}, err
	}
	// The plan (usually from the cache) names the categories; the movements are always asked for.
	p, res, err := h.analysisPlan(ctx, in.readArg)
	if err != nil {
		return nil, listMoneyMovementsOut{}, err
	}
	moves, _, err := h.YNAB.GetMonthMoneyMovements(ctx, p.ID, month)
	if ynab.IsStatus(err, 404) {
		return nil, listMoneyMovementsOut{}, fmt.Errorf("month: YNAB has no money movements for %s in this plan, which runs from %s to %s", month[:7], p.FirstMonth, p.LastMonth)
	}
	if err != nil {
		return nil, listMoneyMovementsOut{}, err
	}
	res.AsOf = h.Now().UTC().Format(time.RFC3339)
	slices.SortStableFunc(moves, func(a, b ynab.MoneyMovement) int {
		return cmp.Or(cmp.Compare(str(b.MovedAt), str(a.MovedAt)), cmp.Compare(a.ID, b.ID))
	})
	cf := currency(p)
	out := listMoneyMovementsOut{readResult: res, Month: month, Movements: []moneyMovementView{}}
	size := 0
	for _, m := range moves {
		v := moneyMovementView{ID: m.ID, MovedAt: str(m.MovedAt), AmountMilliunits: m.Amount, Amount: FormatCurrency(m.Amount, cf),
			From: movementSide(p, m.FromCategoryID), FromCategoryID: str(m.FromCategoryID),
			To: movementSide(p, m.ToCategoryID), ToCategoryID: str(m.ToCategoryID),
			Note: str(m.Note), GroupID: str(m.MoneyMovementGroupID), PerformedByUserID: str(m.PerformedByUserID)}
		b, _ := json.Marshal(v)
		if size += len(b); size > movementsBudget {
			out.More++
			continue
		}
		out.Movements = append(out.Movements, v)
	}
	return nil, out, nil
}

// movementSide names one end of a movement: no category means Ready to Assign.
func movementSide(p *ynab.Plan, id *string) string {
	if id == nil || isReadyToAssign(p, *id) {
		return "Ready to Assign"
	}
	if l := categoryLabel(p, *id); l != "" {
		return l
	}
	return "a category no longer in the plan"
}
