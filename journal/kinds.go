package journal

// The kinds of Change: what a change is about, and so what its ID, Month, Before and After hold.
// Field names are YNAB's. A kind is stored in every journal written with it, so a kind is never
// renamed or given another meaning; a new sort of change gets a new kind.
const (
	// KindTransaction is an edit of an existing transaction: ID is the transaction's, Before and
	// After the fields changed (category_id, flag_color, approved, cleared, memo, …; a split sets
	// category_id to null and subtransactions to its lines).
	KindTransaction = "transaction"
	// KindMonthCategory is a category's assigned amount in one month: ID is the category's,
	// Month the month (2026-11-01), Before and After {"budgeted": milliunits}.
	KindMonthCategory = "month_category"
	// KindCategory is an edit of a category's own fields: ID is the category's, Before and After
	// the fields changed (name, note, category_group_id, the target's goal_* fields).
	KindCategory = "category"
	// KindCategoryGroup is a category group's name: ID is the group's, Before and After
	// {"name": …}.
	KindCategoryGroup = "category_group"
	// KindPayee is a payee's name: ID is the payee's, Before and After {"name": …}.
	KindPayee = "payee"
	// KindScheduled is an edit of an existing scheduled transaction: ID is its id, Before and
	// After the fields changed (date, frequency, amount, payee_id, category_id, memo, …).
	KindScheduled = "scheduled_transaction"

	// KindNewTransaction is a transaction entered: Before is null and After the fields sent, as
	// YNAB holds them (an import's as YNAB reports them, with YNAB's import_id); ID is the id
	// YNAB gave it, empty until YNAB answered or a read found it.
	KindNewTransaction = "new_transaction"
	// KindDeletedTransaction is a transaction deleted: ID is its id, Before the fields it had,
	// After null.
	KindDeletedTransaction = "deleted_transaction"
	// KindNewScheduled is a scheduled transaction created: Before null, After the fields sent;
	// ID as for KindNewTransaction.
	KindNewScheduled = "new_scheduled_transaction"
	// KindDeletedScheduled is a scheduled transaction deleted: ID is its id, Before the fields it
	// had (frequency and subtransactions included), After null.
	KindDeletedScheduled = "deleted_scheduled_transaction"

	// KindNewCategory is a category created: Before null, After its name and group. YNAB's API
	// cannot delete or hide a category.
	KindNewCategory = "new_category"
	// KindNewCategoryGroup is a category group created: Before null, After its name. YNAB's API
	// cannot delete or hide a group.
	KindNewCategoryGroup = "new_category_group"
	// KindNewAccount is an account created: Before null, After its name, type and balance.
	// YNAB's API cannot delete or close an account.
	KindNewAccount = "new_account"
)
