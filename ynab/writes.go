package ynab

import "context"

// The writes of accounts, payees, scheduled transactions and category groups (spec 1.86). Like
// the other writes they are sent once, never retried, and each makes the plan's cached snapshot
// stale, so that the next read asks YNAB for the changes.

// SaveAccountResult is the answer to POST /accounts.
type SaveAccountResult struct {
	Account         Account `json:"account"`
	ServerKnowledge int64   `json:"server_knowledge"`
}

// CreateAccount is POST /plans/{plan_id}/accounts: an account with its starting balance. YNAB
// enters the balance as a "Starting Balance" transaction dated today.
func (c *Client) CreateAccount(ctx context.Context, planID string, a SaveAccount) (SaveAccountResult, error) {
	var d SaveAccountResult
	err := c.send(ctx, "POST", planPath(planID, "accounts"), map[string]any{"account": a}, &d)
	c.Invalidate(planID)
	return d, err
}

// UpdatePayee is PATCH /plans/{plan_id}/payees/{payee_id}: the payee's name. YNAB refuses the
// names it keeps for itself and the transfer payees of accounts.
func (c *Client) UpdatePayee(ctx context.Context, planID, payeeID string, py SavePayee) (SavePayeeResult, error) {
	var d SavePayeeResult
	err := c.send(ctx, "PATCH", planPath(planID, "payees", payeeID), map[string]any{"payee": py}, &d)
	c.Invalidate(planID)
	return d, err
}

// CreateScheduledTransaction is POST /plans/{plan_id}/scheduled_transactions. Its answer carries
// no server_knowledge.
func (c *Client) CreateScheduledTransaction(ctx context.Context, planID string, st SaveScheduledTransaction) (ScheduledTransaction, error) {
	return c.sendScheduled(ctx, "POST", planPath(planID, "scheduled_transactions"), planID, &st)
}

// UpdateScheduledTransaction is PUT /plans/{plan_id}/scheduled_transactions/{id}. avenir sends
// every field the scheduled transaction has, so whether YNAB keeps a field left out does not
// matter.
func (c *Client) UpdateScheduledTransaction(ctx context.Context, planID, id string, st SaveScheduledTransaction) (ScheduledTransaction, error) {
	return c.sendScheduled(ctx, "PUT", planPath(planID, "scheduled_transactions", id), planID, &st)
}

// DeleteScheduledTransaction is DELETE /plans/{plan_id}/scheduled_transactions/{id}; it answers
// the deleted scheduled transaction.
func (c *Client) DeleteScheduledTransaction(ctx context.Context, planID, id string) (ScheduledTransaction, error) {
	return c.sendScheduled(ctx, "DELETE", planPath(planID, "scheduled_transactions", id), planID, nil)
}

func (c *Client) sendScheduled(ctx context.Context, method, path, planID string, st *SaveScheduledTransaction) (ScheduledTransaction, error) {
	var d struct {
		Scheduled ScheduledTransaction `json:"scheduled_transaction"`
	}
	var body any
	if st != nil {
		body = map[string]any{"scheduled_transaction": st}
	}
	err := c.send(ctx, method, path, body, &d)
	c.Invalidate(planID)
	return d.Scheduled, err
}

// SaveCategoryGroup is the body of POST /category_groups and PATCH /category_groups/{id}: its
// name, at most 50 characters.
type SaveCategoryGroup struct {
	Name string `json:"name"`
}

// SaveCategoryGroupResult is the answer to a category group write.
type SaveCategoryGroupResult struct {
	CategoryGroup   CategoryGroup `json:"category_group"`
	ServerKnowledge int64         `json:"server_knowledge"`
}

// CreateCategoryGroup is POST /plans/{plan_id}/category_groups.
func (c *Client) CreateCategoryGroup(ctx context.Context, planID string, g SaveCategoryGroup) (SaveCategoryGroupResult, error) {
	var d SaveCategoryGroupResult
	err := c.send(ctx, "POST", planPath(planID, "category_groups"), map[string]any{"category_group": g}, &d)
	c.Invalidate(planID)
	return d, err
}

// UpdateCategoryGroup is PATCH /plans/{plan_id}/category_groups/{category_group_id}.
func (c *Client) UpdateCategoryGroup(ctx context.Context, planID, groupID string, g SaveCategoryGroup) (SaveCategoryGroupResult, error) {
	var d SaveCategoryGroupResult
	err := c.send(ctx, "PATCH", planPath(planID, "category_groups", groupID), map[string]any{"category_group": g}, &d)
	c.Invalidate(planID)
	return d, err
}
