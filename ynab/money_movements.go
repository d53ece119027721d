package ynab

import "context"

// Money movements (API 1.78+): the amounts moved between categories, or between a category and
// Ready to Assign, as YNAB records them (MoneyMovement in types.go). They are not part of the
// plan export, so reading them costs a request of its own; the spec defines no delta request
// for them.

type moneyMovementsData struct {
	MoneyMovements  []MoneyMovement `json:"money_movements"`
	ServerKnowledge int64           `json:"server_knowledge"`
}

// GetMoneyMovements is GET /plans/{plan_id}/money_movements: every movement of the plan.
func (c *Client) GetMoneyMovements(ctx context.Context, planID string) ([]MoneyMovement, int64, error) {
	var d moneyMovementsData
	err := c.get(ctx, planPath(planID, "money_movements"), nil, &d)
	return d.MoneyMovements, d.ServerKnowledge, err
}

// GetMonthMoneyMovements is GET /plans/{plan_id}/months/{month}/money_movements: the movements
// of one plan month (YYYY-MM-01, or "current").
func (c *Client) GetMonthMoneyMovements(ctx context.Context, planID, month string) ([]MoneyMovement, int64, error) {
	var d moneyMovementsData
	err := c.get(ctx, planPath(planID, "months", month, "money_movements"), nil, &d)
	return d.MoneyMovements, d.ServerKnowledge, err
}
