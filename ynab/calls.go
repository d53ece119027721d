package ynab

import (
	"context"
	"net/url"
	"strconv"
)

// The typed calls, one per endpoint avenir uses. Reads retry temporary failures; writes are
// sent once.

// GetUser is GET /user.
func (c *Client) GetUser(ctx context.Context) (User, error) {
	var d struct {
		User User `json:"user"`
	}
	err := c.get(ctx, "/user", nil, &d)
	return d.User, err
}

// Plans is the answer of GET /plans.
type Plans struct {
	Plans       []PlanSummary `json:"plans"`
	DefaultPlan *PlanSummary  `json:"default_plan"`
}

// GetPlans is GET /plans.
func (c *Client) GetPlans(ctx context.Context, includeAccounts bool) (Plans, error) {
	var q url.Values
	if includeAccounts {
		q = url.Values{"include_accounts": {"true"}}
	}
	var d Plans
	err := c.get(ctx, "/plans", q, &d)
	return d, err
}

// GetPlan is GET /plans/{plan_id}: the full export, or with knowledge > 0 what changed since.
func (c *Client) GetPlan(ctx context.Context, planID string, knowledge int64) (PlanDetail, int64, error) {
	var d struct {
		Plan            PlanDetail `json:"plan"`
		ServerKnowledge int64      `json:"server_knowledge"`
	}
	err := c.get(ctx, planPath(planID), knowledgeQuery(knowledge), &d)
	return d.Plan, d.ServerKnowledge, err
}

// GetPlanSettings is GET /plans/{plan_id}/settings.
func (c *Client) GetPlanSettings(ctx context.Context, planID string) (PlanSettings, error) {
	var d struct {
		Settings PlanSettings `json:"settings"`
	}
	err := c.get(ctx, planPath(planID, "settings"), nil, &d)
	return d.Settings, err
}

// GetAccounts is GET /plans/{plan_id}/accounts (delta with knowledge > 0).
func (c *Client) GetAccounts(ctx context.Context, planID string, knowledge int64) ([]Account, int64, error) {
	var d struct {
		Accounts        []Account `json:"accounts"`
		ServerKnowledge int64     `json:"server_knowledge"`
	}
	err := c.get(ctx, planPath(planID, "accounts"), knowledgeQuery(knowledge), &d)
	return d.Accounts, d.ServerKnowledge, err
}

// GetAccount is GET /plans/{plan_id}/accounts/{account_id}.
func (c *Client) GetAccount(ctx context.Context, planID, accountID string) (Account, error) {
	var d struct {
		Account Account `json:"account"`
	}
	err := c.get(ctx, planPath(planID, "accounts", accountID), nil, &d)
	return d.Account, err
}

// GetCategories is GET /plans/{plan_id}/categories: groups with their categories, amounts of
// the current month (delta with knowledge > 0).
func (c *Client) GetCategories(ctx context.Context, planID string, knowledge int64) ([]CategoryGroup, int64, error) {
	var d struct {
		Groups          []CategoryGroup `json:"category_groups"`
		ServerKnowledge int64           `json:"server_knowledge"`
	}
	err := c.get(ctx, planPath(planID, "categories"), knowledgeQuery(knowledge), &d)
	return d.Groups, d.ServerKnowledge, err
}

// GetCategory is GET /plans/{plan_id}/categories/{category_id}.
func (c *Client) GetCategory(ctx context.Context, planID, categoryID string) (Category, error) {
	var d struct {
		Category Category `json:"category"`
	}
	err := c.get(ctx, planPath(planID, "categories", categoryID), nil, &d)
	return d.Category, err
}

// GetMonthCategory is GET /plans/{plan_id}/months/{month}/categories/{category_id}.
func (c *Client) GetMonthCategory(ctx context.Context, planID, month, categoryID string) (Category, error) {
	var d struct {
		Category Category `json:"category"`
	}
	err := c.get(ctx, planPath(planID, "months", month, "categories", categoryID), nil, &d)
	return d.Category, err
}

// GetMonths is GET /plans/{plan_id}/months (delta with knowledge > 0).
func (c *Client) GetMonths(ctx context.Context, planID string, knowledge int64) ([]Month, int64, error) {
	var d struct {
		Months          []Month `json:"months"`
		ServerKnowledge int64   `json:"server_knowledge"`
	}
	err := c.get(ctx, planPath(planID, "months"), knowledgeQuery(knowledge), &d)
	return d.Months, d.ServerKnowledge, err
}

// GetMonth is GET /plans/{plan_id}/months/{month}: the month with its categories.
func (c *Client) GetMonth(ctx context.Context, planID, month string) (Month, error) {
	var d struct {
		Month Month `json:"month"`
	}
	err := c.get(ctx, planPath(planID, "months", month), nil, &d)
	return d.Month, err
}

// TransactionQuery filters the transaction lists. Since YNAB's spec 1.85 an empty SinceDate
// means one year ago on YNAB's side.
type TransactionQuery struct {
	SinceDate string // YYYY-MM-DD
	UntilDate string // YYYY-MM-DD
	Type      string // "", "uncategorized" or "unapproved"
	Knowledge int64  // > 0: only what changed since
}

func (q TransactionQuery) values() url.Values {
	v := knowledgeQuery(q.Knowledge)
	if v == nil {
		v = url.Values{}
	}
	if q.SinceDate != "" {
		v.Set("since_date", q.SinceDate)
	}
	if q.UntilDate != "" {
		v.Set("until_date", q.UntilDate)
	}
	if q.Type != "" {
		v.Set("type", q.Type)
	}
	return v
}

type transactionsData struct {
	Transactions    []Transaction `json:"transactions"`
	ServerKnowledge int64         `json:"server_knowledge"`
}

type hybridData struct {
	Transactions    []HybridTransaction `json:"transactions"`
	ServerKnowledge int64               `json:"server_knowledge"`
}

// GetTransactions is GET /plans/{plan_id}/transactions.
func (c *Client) GetTransactions(ctx context.Context, planID string, q TransactionQuery) ([]Transaction, int64, error) {
	var d transactionsData
	err := c.get(ctx, planPath(planID, "transactions"), q.values(), &d)
	return d.Transactions, d.ServerKnowledge, err
}

// GetAccountTransactions is GET /plans/{plan_id}/accounts/{account_id}/transactions.
func (c *Client) GetAccountTransactions(ctx context.Context, planID, accountID string, q TransactionQuery) ([]Transaction, int64, error) {
	var d transactionsData
	err := c.get(ctx, planPath(planID, "accounts", accountID, "transactions"), q.values(), &d)
	return d.Transactions, d.ServerKnowledge, err
}

// GetMonthTransactions is GET /plans/{plan_id}/months/{month}/transactions.
func (c *Client) GetMonthTransactions(ctx context.Context, planID, month string, q TransactionQuery) ([]Transaction, int64, error) {
	var d transactionsData
	err := c.get(ctx, planPath(planID, "months", month, "transactions"), q.values(), &d)
	return d.Transactions, d.ServerKnowledge, err
}

// GetCategoryTransactions is GET /plans/{plan_id}/categories/{category_id}/transactions; split
// lines come as rows of their own.
func (c *Client) GetCategoryTransactions(ctx context.Context, planID, categoryID string, q TransactionQuery) ([]HybridTransaction, int64, error) {
	var d hybridData
	err := c.get(ctx, planPath(planID, "categories", categoryID, "transactions"), q.values(), &d)
	return d.Transactions, d.ServerKnowledge, err
}

// GetPayeeTransactions is GET /plans/{plan_id}/payees/{payee_id}/transactions.
func (c *Client) GetPayeeTransactions(ctx context.Context, planID, payeeID string, q TransactionQuery) ([]HybridTransaction, int64, error) {
	var d hybridData
	err := c.get(ctx, planPath(planID, "payees", payeeID, "transactions"), q.values(), &d)
	return d.Transactions, d.ServerKnowledge, err
}

// GetTransaction is GET /plans/{plan_id}/transactions/{transaction_id}.
func (c *Client) GetTransaction(ctx context.Context, planID, transactionID string) (Transaction, error) {
	var d struct {
		Transaction Transaction `json:"transaction"`
	}
	err := c.get(ctx, planPath(planID, "transactions", transactionID), nil, &d)
	return d.Transaction, err
}

// GetPayees is GET /plans/{plan_id}/payees (delta with knowledge > 0).
func (c *Client) GetPayees(ctx context.Context, planID string, knowledge int64) ([]Payee, int64, error) {
	var d struct {
		Payees          []Payee `json:"payees"`
		ServerKnowledge int64   `json:"server_knowledge"`
	}
	err := c.get(ctx, planPath(planID, "payees"), knowledgeQuery(knowledge), &d)
	return d.Payees, d.ServerKnowledge, err
}

// GetScheduledTransactions is GET /plans/{plan_id}/scheduled_transactions (delta with knowledge > 0).
func (c *Client) GetScheduledTransactions(ctx context.Context, planID string, knowledge int64) ([]ScheduledTransaction, int64, error) {
	var d struct {
		Scheduled       []ScheduledTransaction `json:"scheduled_transactions"`
		ServerKnowledge int64                  `json:"server_knowledge"`
	}
	err := c.get(ctx, planPath(planID, "scheduled_transactions"), knowledgeQuery(knowledge), &d)
	return d.Scheduled, d.ServerKnowledge, err
}

// CreateTransactions is POST /plans/{plan_id}/transactions with a list (bulk form). Give each
// an ImportID so that a retry after a lost answer cannot create it twice.
func (c *Client) CreateTransactions(ctx context.Context, planID string, txs []SaveTransaction) (SaveTransactionsResult, error) {
	var d SaveTransactionsResult
	err := c.send(ctx, "POST", planPath(planID, "transactions"), map[string]any{"transactions": txs}, &d)
	c.learnTransactions(planID, txs, d, err)
	return d, err
}

// UpdateTransactions is PATCH /plans/{plan_id}/transactions: many transactions, each by id,
// only the fields set.
func (c *Client) UpdateTransactions(ctx context.Context, planID string, txs []SaveTransaction) (SaveTransactionsResult, error) {
	var d SaveTransactionsResult
	err := c.send(ctx, "PATCH", planPath(planID, "transactions"), map[string]any{"transactions": txs}, &d)
	c.learnTransactions(planID, txs, d, err)
	return d, err
}

// UpdateTransaction is PUT /plans/{plan_id}/transactions/{transaction_id}.
func (c *Client) UpdateTransaction(ctx context.Context, planID, transactionID string, tx SaveTransaction) (Transaction, error) {
	tx.ID = ""
	var d struct {
		Transaction Transaction `json:"transaction"`
	}
	err := c.send(ctx, "PUT", planPath(planID, "transactions", transactionID), map[string]any{"transaction": tx}, &d)
	c.learnTransactions(planID, []SaveTransaction{tx}, SaveTransactionsResult{Transactions: []Transaction{d.Transaction}}, err)
	return d.Transaction, err
}

// DeleteTransaction is DELETE /plans/{plan_id}/transactions/{transaction_id}; it answers the
// deleted transaction.
func (c *Client) DeleteTransaction(ctx context.Context, planID, transactionID string) (Transaction, error) {
	var d struct {
		Transaction Transaction `json:"transaction"`
	}
	err := c.send(ctx, "DELETE", planPath(planID, "transactions", transactionID), nil, &d)
	switch {
	case err != nil || d.Transaction.ID != transactionID || d.Transaction.TransferTransactionID != nil:
		// A transfer's other side goes too, and the answer does not show it.
		c.Invalidate(planID)
	default:
		d.Transaction.Deleted = true
		c.absorbTransactions(planID, []Transaction{d.Transaction}, derives)
	}
	return d.Transaction, err
}

// learnTransactions feeds the answer of a transaction write to the cache: the transactions it
// carries are merged, and reads ask YNAB for the figures derived from them unless the write
// changed only what nothing is derived from (flag, approval, memo). A failed write, an answer
// without every transaction sent, or one that changes more than a flag or an approval of a
// transfer (whose other side may change too, unseen) leaves the cache to ask YNAB at the next
// read of any kind.
func (c *Client) learnTransactions(planID string, sent []SaveTransaction, d SaveTransactionsResult, err error) {
	txs := d.Transactions
	if d.Transaction != nil {
		txs = append(txs, *d.Transaction)
	}
	if err != nil || len(txs) < len(sent) {
		c.Invalidate(planID)
		return
	}
	e, memo := carried, false
	for _, s := range sent {
		if !onlyUnderived(s) {
			e = derives
		}
		memo = memo || !s.Memo.IsZero()
	}
	for _, t := range txs {
		if (t.TransferAccountID != nil || t.TransferTransactionID != nil) && (e == derives || memo) {
			c.Invalidate(planID)
			return
		}
	}
	c.absorbTransactions(planID, txs, e)
}

// onlyUnderived reports whether a transaction write changes only fields that no figure of YNAB
// is derived from: its flag, its approval, its memo.
func onlyUnderived(s SaveTransaction) bool {
	return s.ID != "" && s.ImportID.IsZero() && s.AccountID == "" && s.Date == "" && s.Amount.IsZero() &&
		s.PayeeID.IsZero() && s.PayeeName.IsZero() && s.CategoryID.IsZero() && s.Cleared == "" &&
		len(s.Subtransactions) == 0
}

// ImportTransactions is POST /plans/{plan_id}/transactions/import: YNAB imports from the
// plan's linked bank accounts and answers the ids it brought in.
func (c *Client) ImportTransactions(ctx context.Context, planID string) (ImportResult, error) {
	var d ImportResult
	err := c.send(ctx, "POST", planPath(planID, "transactions", "import"), nil, &d)
	c.Invalidate(planID) // the answer names the new transactions, but does not hold them
	return d, err
}

// UpdateMonthCategory is PATCH /plans/{plan_id}/months/{month}/categories/{category_id}: the
// category's assigned (budgeted) amount for the month, absolute.
func (c *Client) UpdateMonthCategory(ctx context.Context, planID, month, categoryID string, budgeted int64) (SaveCategoryResult, error) {
	var d SaveCategoryResult
	body := map[string]any{"category": SaveMonthCategory{Budgeted: budgeted}}
	err := c.send(ctx, "PATCH", planPath(planID, "months", month, "categories", categoryID), body, &d)
	if err != nil || d.Category.ID != categoryID {
		c.Invalidate(planID)
	} else {
		// The month's figures (ready to assign) and later months' available move too.
		c.absorbMonthCategory(planID, month, d.Category)
	}
	return d, err
}

// CreateCategory is POST /plans/{plan_id}/categories.
func (c *Client) CreateCategory(ctx context.Context, planID string, cat SaveCategory) (SaveCategoryResult, error) {
	var d SaveCategoryResult
	err := c.send(ctx, "POST", planPath(planID, "categories"), map[string]any{"category": cat}, &d)
	c.Invalidate(planID) // the new category is in every month, which the answer does not show
	return d, err
}

// UpdateCategory is PATCH /plans/{plan_id}/categories/{category_id}.
func (c *Client) UpdateCategory(ctx context.Context, planID, categoryID string, cat SaveCategory) (SaveCategoryResult, error) {
	var d SaveCategoryResult
	err := c.send(ctx, "PATCH", planPath(planID, "categories", categoryID), map[string]any{"category": cat}, &d)
	if err != nil || d.Category.ID != categoryID {
		c.Invalidate(planID)
	} else {
		// Its name, group and note are in the answer; its target's progress in each month is
		// derived.
		c.absorbCategory(planID, d.Category)
	}
	return d, err
}

func knowledgeQuery(k int64) url.Values {
	if k <= 0 {
		return nil
	}
	return url.Values{"last_knowledge_of_server": {strconv.FormatInt(k, 10)}}
}
