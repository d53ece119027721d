package ynab

import (
	"bytes"
	"encoding/json"
)

// The wire types of YNAB's API v1 (spec 1.86): what the client decodes and what the sandbox
// serves. Amounts are int64 milliunits. Every `*_formatted` and `*_currency` sibling is for
// display only and is absent from the plan export (the `*Base` models), hence omitempty.
// Nullable fields are pointers; ids are opaque strings.

// User is GET /user.
type User struct {
	ID string `json:"id"`
}

// DateFormat is a plan's date format setting.
type DateFormat struct {
	Format string `json:"format"`
}

// CurrencyFormat is a plan's currency format setting.
type CurrencyFormat struct {
	ISOCode          string `json:"iso_code"`
	ExampleFormat    string `json:"example_format"`
	DecimalDigits    int    `json:"decimal_digits"`
	DecimalSeparator string `json:"decimal_separator"`
	SymbolFirst      bool   `json:"symbol_first"`
	GroupSeparator   string `json:"group_separator"`
	CurrencySymbol   string `json:"currency_symbol"`
	DisplaySymbol    bool   `json:"display_symbol"`
}

// PlanSummary is one entry of GET /plans.
type PlanSummary struct {
	ID             string          `json:"id"`
	Name           string          `json:"name"`
	LastModifiedOn string          `json:"last_modified_on,omitempty"`
	FirstMonth     string          `json:"first_month,omitempty"`
	LastMonth      string          `json:"last_month,omitempty"`
	DateFormat     *DateFormat     `json:"date_format"`
	CurrencyFormat *CurrencyFormat `json:"currency_format"`
	Accounts       []Account       `json:"accounts,omitempty"`
}

// PlanSettings is GET /plans/{plan_id}/settings.
type PlanSettings struct {
	DateFormat     *DateFormat     `json:"date_format"`
	CurrencyFormat *CurrencyFormat `json:"currency_format"`
}

// PlanDetail is the full export of a plan (GET /plans/{plan_id}); with
// last_knowledge_of_server it holds only what changed, deleted entities included.
type PlanDetail struct {
	ID                       string                    `json:"id"`
	Name                     string                    `json:"name"`
	LastModifiedOn           string                    `json:"last_modified_on,omitempty"`
	FirstMonth               string                    `json:"first_month,omitempty"`
	LastMonth                string                    `json:"last_month,omitempty"`
	DateFormat               *DateFormat               `json:"date_format"`
	CurrencyFormat           *CurrencyFormat           `json:"currency_format"`
	Accounts                 []Account                 `json:"accounts"`
	Payees                   []Payee                   `json:"payees"`
	PayeeLocations           []PayeeLocation           `json:"payee_locations"`
	CategoryGroups           []CategoryGroup           `json:"category_groups"`
	Categories               []Category                `json:"categories"`
	Months                   []Month                   `json:"months"`
	Transactions             []TransactionSummary      `json:"transactions"`
	Subtransactions          []SubTransaction          `json:"subtransactions"`
	ScheduledTransactions    []ScheduledTransaction    `json:"scheduled_transactions"`
	ScheduledSubtransactions []ScheduledSubTransaction `json:"scheduled_subtransactions"`
}

// Summary returns the plan's summary fields.
func (p *PlanDetail) Summary() PlanSummary {
	return PlanSummary{ID: p.ID, Name: p.Name, LastModifiedOn: p.LastModifiedOn, FirstMonth: p.FirstMonth,
		LastMonth: p.LastMonth, DateFormat: p.DateFormat, CurrencyFormat: p.CurrencyFormat}
}

// Account types, as YNAB names them.
const (
	AccountChecking       = "checking"
	AccountSavings        = "savings"
	AccountCash           = "cash"
	AccountCreditCard     = "creditCard"
	AccountLineOfCredit   = "lineOfCredit"
	AccountOtherAsset     = "otherAsset"
	AccountOtherLiability = "otherLiability"
	AccountMortgage       = "mortgage"
	AccountAutoLoan       = "autoLoan"
	AccountStudentLoan    = "studentLoan"
	AccountPersonalLoan   = "personalLoan"
	AccountMedicalDebt    = "medicalDebt"
	AccountOtherDebt      = "otherDebt"
)

// Account is an account (AccountBase in the export, Account elsewhere).
type Account struct {
	ID                        string           `json:"id"`
	Name                      string           `json:"name"`
	Type                      string           `json:"type"`
	OnBudget                  bool             `json:"on_budget"`
	Closed                    bool             `json:"closed"`
	Note                      *string          `json:"note"`
	Balance                   int64            `json:"balance"`
	ClearedBalance            int64            `json:"cleared_balance"`
	UnclearedBalance          int64            `json:"uncleared_balance"`
	TransferPayeeID           *string          `json:"transfer_payee_id"`
	DirectImportLinked        bool             `json:"direct_import_linked"`
	DirectImportInError       bool             `json:"direct_import_in_error"`
	LastReconciledAt          *string          `json:"last_reconciled_at"`
	DebtOriginalBalance       *int64           `json:"debt_original_balance"`
	DebtInterestRates         map[string]int64 `json:"debt_interest_rates,omitempty"`
	DebtMinimumPayments       map[string]int64 `json:"debt_minimum_payments,omitempty"`
	DebtEscrowAmounts         map[string]int64 `json:"debt_escrow_amounts,omitempty"`
	Deleted                   bool             `json:"deleted"`
	BalanceFormatted          string           `json:"balance_formatted,omitempty"`
	BalanceCurrency           *float64         `json:"balance_currency,omitempty"`
	ClearedBalanceFormatted   string           `json:"cleared_balance_formatted,omitempty"`
	ClearedBalanceCurrency    *float64         `json:"cleared_balance_currency,omitempty"`
	UnclearedBalanceFormatted string           `json:"uncleared_balance_formatted,omitempty"`
	UnclearedBalanceCurrency  *float64         `json:"uncleared_balance_currency,omitempty"`
}

// CategoryGroup is a category group; in GET /categories it carries its categories.
type CategoryGroup struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Hidden     bool       `json:"hidden"`
	Internal   bool       `json:"internal"`
	Deleted    bool       `json:"deleted"`
	Categories []Category `json:"categories,omitempty"`
}

// Target (goal) types.
const (
	GoalTargetBalance       = "TB"
	GoalTargetBalanceByDate = "TBD"
	GoalMonthlyFunding      = "MF"
	GoalNeed                = "NEED"
	GoalDebt                = "DEBT"
)

// Category is a category with its amounts for one month (the current month, UTC, unless it
// came from a month endpoint or a month of the export).
type Category struct {
	ID                      string  `json:"id"`
	CategoryGroupID         string  `json:"category_group_id"`
	CategoryGroupName       string  `json:"category_group_name,omitempty"`
	Name                    string  `json:"name"`
	Hidden                  bool    `json:"hidden"`
	Internal                bool    `json:"internal"`
	OriginalCategoryGroupID *string `json:"original_category_group_id"`
	Note                    *string `json:"note"`
	Budgeted                int64   `json:"budgeted"`
	Activity                int64   `json:"activity"`
	Balance                 int64   `json:"balance"`
	GoalType                *string `json:"goal_type"`
	GoalNeedsWholeAmount    *bool   `json:"goal_needs_whole_amount"`
	GoalDay                 *int    `json:"goal_day"`
	GoalCadence             *int    `json:"goal_cadence"`
	GoalCadenceFrequency    *int    `json:"goal_cadence_frequency"`
	GoalCreationMonth       *string `json:"goal_creation_month"`
	GoalTarget              *int64  `json:"goal_target"`
	GoalTargetMonth         *string `json:"goal_target_month"`
	GoalTargetDate          *string `json:"goal_target_date"`
	GoalPercentageComplete  *int    `json:"goal_percentage_complete"`
	GoalMonthsToBudget      *int    `json:"goal_months_to_budget"`
	GoalUnderFunded         *int64  `json:"goal_under_funded"`
	GoalOverallFunded       *int64  `json:"goal_overall_funded"`
	GoalOverallLeft         *int64  `json:"goal_overall_left"`
	GoalSnoozedAt           *string `json:"goal_snoozed_at"`
	Deleted                 bool    `json:"deleted"`

	BalanceFormatted           string   `json:"balance_formatted,omitempty"`
	BalanceCurrency            *float64 `json:"balance_currency,omitempty"`
	ActivityFormatted          string   `json:"activity_formatted,omitempty"`
	ActivityCurrency           *float64 `json:"activity_currency,omitempty"`
	BudgetedFormatted          string   `json:"budgeted_formatted,omitempty"`
	BudgetedCurrency           *float64 `json:"budgeted_currency,omitempty"`
	GoalTargetFormatted        *string  `json:"goal_target_formatted,omitempty"`
	GoalTargetCurrency         *float64 `json:"goal_target_currency,omitempty"`
	GoalUnderFundedFormatted   *string  `json:"goal_under_funded_formatted,omitempty"`
	GoalUnderFundedCurrency    *float64 `json:"goal_under_funded_currency,omitempty"`
	GoalOverallFundedFormatted *string  `json:"goal_overall_funded_formatted,omitempty"`
	GoalOverallFundedCurrency  *float64 `json:"goal_overall_funded_currency,omitempty"`
	GoalOverallLeftFormatted   *string  `json:"goal_overall_left_formatted,omitempty"`
	GoalOverallLeftCurrency    *float64 `json:"goal_overall_left_currency,omitempty"`
}

// Payee is a payee. A transfer payee has TransferAccountID set.
type Payee struct {
	ID                string  `json:"id"`
	Name              string  `json:"name"`
	TransferAccountID *string `json:"transfer_account_id"`
	Deleted           bool    `json:"deleted"`
}

// PayeeLocation is a payee's location (read-only in YNAB).
type PayeeLocation struct {
	ID        string `json:"id"`
	PayeeID   string `json:"payee_id"`
	Latitude  string `json:"latitude"`
	Longitude string `json:"longitude"`
	Deleted   bool   `json:"deleted"`
}

// Month is a plan month (MonthSummary, or MonthDetail with Categories).
type Month struct {
	Month        string     `json:"month"`
	Note         *string    `json:"note"`
	Income       int64      `json:"income"`
	Budgeted     int64      `json:"budgeted"`
	Activity     int64      `json:"activity"`
	ToBeBudgeted int64      `json:"to_be_budgeted"`
	AgeOfMoney   *int       `json:"age_of_money"`
	Deleted      bool       `json:"deleted"`
	Categories   []Category `json:"categories,omitempty"`

	IncomeFormatted       string   `json:"income_formatted,omitempty"`
	IncomeCurrency        *float64 `json:"income_currency,omitempty"`
	BudgetedFormatted     string   `json:"budgeted_formatted,omitempty"`
	BudgetedCurrency      *float64 `json:"budgeted_currency,omitempty"`
	ActivityFormatted     string   `json:"activity_formatted,omitempty"`
	ActivityCurrency      *float64 `json:"activity_currency,omitempty"`
	ToBeBudgetedFormatted string   `json:"to_be_budgeted_formatted,omitempty"`
	ToBeBudgetedCurrency  *float64 `json:"to_be_budgeted_currency,omitempty"`
}

// Cleared states of a transaction.
const (
	Cleared    = "cleared"
	Uncleared  = "uncleared"
	Reconciled = "reconciled"
)

// Flag colours. An empty string (or null) means no flag.
var FlagColors = []string{"red", "orange", "yellow", "green", "blue", "purple"}

// TransactionSummary is a transaction without its nested lines (the export's
// TransactionSummaryBase, and the common part of TransactionDetail).
type TransactionSummary struct {
	ID                      string   `json:"id"`
	Date                    string   `json:"date"`
	Amount                  int64    `json:"amount"`
	Memo                    *string  `json:"memo"`
	Cleared                 string   `json:"cleared"`
	Approved                bool     `json:"approved"`
	FlagColor               *string  `json:"flag_color"`
	FlagName                *string  `json:"flag_name"`
	AccountID               string   `json:"account_id"`
	PayeeID                 *string  `json:"payee_id"`
	CategoryID              *string  `json:"category_id"`
	TransferAccountID       *string  `json:"transfer_account_id"`
	TransferTransactionID   *string  `json:"transfer_transaction_id"`
	MatchedTransactionID    *string  `json:"matched_transaction_id"`
	ImportID                *string  `json:"import_id"`
	ImportPayeeName         *string  `json:"import_payee_name"`
	ImportPayeeNameOriginal *string  `json:"import_payee_name_original"`
	DebtTransactionType     *string  `json:"debt_transaction_type"`
	Deleted                 bool     `json:"deleted"`
	AmountFormatted         string   `json:"amount_formatted,omitempty"`
	AmountCurrency          *float64 `json:"amount_currency,omitempty"`
}

// Transaction is a TransactionDetail: a transaction with names and its split lines.
type Transaction struct {
	TransactionSummary
	AccountName     string           `json:"account_name"`
	PayeeName       *string          `json:"payee_name"`
	CategoryName    *string          `json:"category_name"`
	Subtransactions []SubTransaction `json:"subtransactions"`
}

// HybridTransaction is a row of the category- and payee-scoped lists, where the lines of a
// split come as rows of their own (Type "subtransaction").
type HybridTransaction struct {
	TransactionSummary
	Type                string  `json:"type"`
	ParentTransactionID *string `json:"parent_transaction_id"`
	AccountName         string  `json:"account_name"`
	PayeeName           *string `json:"payee_name"`
	CategoryName        *string `json:"category_name"`
}

// SubTransaction is one line of a split.
type SubTransaction struct {
	ID                    string   `json:"id"`
	TransactionID         string   `json:"transaction_id"`
	Amount                int64    `json:"amount"`
	Memo                  *string  `json:"memo"`
	PayeeID               *string  `json:"payee_id"`
	PayeeName             *string  `json:"payee_name"`
	CategoryID            *string  `json:"category_id"`
	CategoryName          *string  `json:"category_name"`
	TransferAccountID     *string  `json:"transfer_account_id"`
	TransferTransactionID *string  `json:"transfer_transaction_id"`
	Deleted               bool     `json:"deleted"`
	AmountFormatted       string   `json:"amount_formatted,omitempty"`
	AmountCurrency        *float64 `json:"amount_currency,omitempty"`
}

// ScheduledTransaction is a scheduled transaction (Summary in the export, Detail elsewhere).
type ScheduledTransaction struct {
	ID                string   `json:"id"`
	DateFirst         string   `json:"date_first"`
	DateNext          string   `json:"date_next"`
	Frequency         string   `json:"frequency"`
	Amount            int64    `json:"amount"`
	Memo              *string  `json:"memo"`
	FlagColor         *string  `json:"flag_color"`
	FlagName          *string  `json:"flag_name"`
	AccountID         string   `json:"account_id"`
	PayeeID           *string  `json:"payee_id"`
	CategoryID        *string  `json:"category_id"`
	TransferAccountID *string  `json:"transfer_account_id"`
	Deleted           bool     `json:"deleted"`
	AmountFormatted   string   `json:"amount_formatted,omitempty"`
	AmountCurrency    *float64 `json:"amount_currency,omitempty"`

	// Detail only.
	AccountName     string                    `json:"account_name,omitempty"`
	PayeeName       *string                   `json:"payee_name,omitempty"`
	CategoryName    *string                   `json:"category_name,omitempty"`
	Subtransactions []ScheduledSubTransaction `json:"subtransactions,omitempty"`
}

// ScheduledSubTransaction is one line of a split scheduled transaction.
type ScheduledSubTransaction struct {
	ID                     string   `json:"id"`
	ScheduledTransactionID string   `json:"scheduled_transaction_id"`
	Amount                 int64    `json:"amount"`
	Memo                   *string  `json:"memo"`
	PayeeID                *string  `json:"payee_id"`
	PayeeName              *string  `json:"payee_name"`
	CategoryID             *string  `json:"category_id"`
	CategoryName           *string  `json:"category_name"`
	TransferAccountID      *string  `json:"transfer_account_id"`
	Deleted                bool     `json:"deleted"`
	AmountFormatted        string   `json:"amount_formatted,omitempty"`
	AmountCurrency         *float64 `json:"amount_currency,omitempty"`
}

// Opt is a field of a write body that may be left out, sent as null, or sent with a value:
// YNAB's PATCH endpoints tell the three apart (a null category_id uncategorises, a null
// goal_target removes a target, an absent one changes nothing). The zero Opt is left out.
type Opt[T any] struct {
	Set   bool // the field is sent
	Value *T   // nil sends null
}

// Some returns an Opt that sends v.
func Some[T any](v T) Opt[T] { return Opt[T]{Set: true, Value: &v} }

// Null returns an Opt that sends null.
func Null[T any]() Opt[T] { return Opt[T]{Set: true} }

// IsZero reports whether the field is left out (for the omitzero tag).
func (o Opt[T]) IsZero() bool { return !o.Set }

// MarshalJSON writes the value, or null.
func (o Opt[T]) MarshalJSON() ([]byte, error) {
	if o.Value == nil {
		return []byte("null"), nil
	}
	return json.Marshal(*o.Value)
}

// UnmarshalJSON records that the field was present, and its value or null.
func (o *Opt[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		o.Value = nil
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	o.Value = &v
	return nil
}

// SaveTransaction is one transaction of a write: POST /transactions (new, with ImportID),
// PATCH /transactions (existing, by ID), PUT /transactions/{id}. Only the fields set are sent.
type SaveTransaction struct {
	ID              string               `json:"id,omitempty"`
	ImportID        Opt[string]          `json:"import_id,omitzero"`
	AccountID       string               `json:"account_id,omitempty"`
	Date            string               `json:"date,omitempty"`
	Amount          Opt[int64]           `json:"amount,omitzero"`
	PayeeID         Opt[string]          `json:"payee_id,omitzero"`
	PayeeName       Opt[string]          `json:"payee_name,omitzero"`
	CategoryID      Opt[string]          `json:"category_id,omitzero"`
	Memo            Opt[string]          `json:"memo,omitzero"`
	Cleared         string               `json:"cleared,omitempty"`
	Approved        Opt[bool]            `json:"approved,omitzero"`
	FlagColor       Opt[string]          `json:"flag_color,omitzero"`
	Subtransactions []SaveSubTransaction `json:"subtransactions,omitempty"`
}

// SaveSubTransaction is one line of a split being created.
type SaveSubTransaction struct {
	Amount     int64   `json:"amount"`
	PayeeID    *string `json:"payee_id,omitempty"`
	PayeeName  *string `json:"payee_name,omitempty"`
	CategoryID *string `json:"category_id,omitempty"`
	Memo       *string `json:"memo,omitempty"`
}

// SaveTransactionsResult is the answer to POST and PATCH /transactions.
type SaveTransactionsResult struct {
	TransactionIDs     []string      `json:"transaction_ids"`
	Transaction        *Transaction  `json:"transaction,omitempty"`
	Transactions       []Transaction `json:"transactions,omitempty"`
	DuplicateImportIDs []string      `json:"duplicate_import_ids,omitempty"`
	ServerKnowledge    int64         `json:"server_knowledge"`
}

// SaveCategory is the body of POST /categories (NewCategory: Name and CategoryGroupID
// required) and PATCH /categories/{id} (ExistingCategory). Only the fields set are sent.
type SaveCategory struct {
	Name                 Opt[string] `json:"name,omitzero"`
	Note                 Opt[string] `json:"note,omitzero"`
	CategoryGroupID      string      `json:"category_group_id,omitempty"`
	GoalTarget           Opt[int64]  `json:"goal_target,omitzero"`
	GoalTargetDate       Opt[string] `json:"goal_target_date,omitzero"`
	GoalNeedsWholeAmount Opt[bool]   `json:"goal_needs_whole_amount,omitzero"`
	GoalFrequency        string      `json:"goal_frequency,omitempty"` // monthly, weekly or yearly
}

// SaveMonthCategory is the body of PATCH /months/{month}/categories/{id}.
type SaveMonthCategory struct {
	Budgeted int64 `json:"budgeted"`
}

// SaveCategoryResult is the answer to a category write.
type SaveCategoryResult struct {
	Category        Category `json:"category"`
	ServerKnowledge int64    `json:"server_knowledge"`
}

// ImportResult is the answer to POST /transactions/import.
type ImportResult struct {
	TransactionIDs []string `json:"transaction_ids"`
}

// ErrorBody is YNAB's error wrapper: {"error": {...}}.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the inside of YNAB's error body.
type ErrorDetail struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Detail string `json:"detail"`
}

// SaveAccount is the body of POST /plans/{plan_id}/accounts: all three fields are required.
// Type is one of the SaveAccountType values (checking, savings, cash, creditCard, otherAsset,
// otherLiability); loans and lines of credit cannot be created through the API.
type SaveAccount struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Balance int64  `json:"balance"`
}

// SavePayee is the body of POST /payees (name required) and PATCH /payees/{payee_id}.
type SavePayee struct {
	Name string `json:"name"`
}

// SavePayeeResult is the answer to a payee write.
type SavePayeeResult struct {
	Payee           Payee `json:"payee"`
	ServerKnowledge int64 `json:"server_knowledge"`
}

// Scheduled frequencies the API writes; a schedule may carry others (every3Months, …) that
// only YNAB's apps set.
var WritableFrequencies = []string{"never", "daily", "weekly", "monthly", "yearly"}

// SaveScheduledTransaction is the body of POST /scheduled_transactions and PUT
// /scheduled_transactions/{id}. AccountID and Date are required; Date is the next occurrence,
// after today and at most 5 years ahead. Only the fields set are sent.
type SaveScheduledTransaction struct {
	AccountID  string      `json:"account_id"`
	Date       string      `json:"date"`
	Amount     Opt[int64]  `json:"amount,omitzero"`
	PayeeID    Opt[string] `json:"payee_id,omitzero"`
	PayeeName  Opt[string] `json:"payee_name,omitzero"`
	CategoryID Opt[string] `json:"category_id,omitzero"`
	Memo       Opt[string] `json:"memo,omitzero"`
	FlagColor  Opt[string] `json:"flag_color,omitzero"`
	Frequency  string      `json:"frequency,omitempty"`
}

// MoneyMovement is an amount moved between two categories, or between a category and Ready to
// Assign (a null FromCategoryID or ToCategoryID). Amount is positive, in milliunits.
type MoneyMovement struct {
	ID                   string   `json:"id"`
	Month                *string  `json:"month"`
	MovedAt              *string  `json:"moved_at"`
	Note                 *string  `json:"note"`
	MoneyMovementGroupID *string  `json:"money_movement_group_id"`
	PerformedByUserID    *string  `json:"performed_by_user_id"`
	FromCategoryID       *string  `json:"from_category_id"`
	ToCategoryID         *string  `json:"to_category_id"`
	Amount               int64    `json:"amount"`
	AmountFormatted      string   `json:"amount_formatted,omitempty"`
	AmountCurrency       *float64 `json:"amount_currency,omitempty"`
}

// MoneyMovementGroup is the movements made by one action.
type MoneyMovementGroup struct {
	ID                string  `json:"id"`
	GroupCreatedAt    string  `json:"group_created_at"`
	Month             string  `json:"month"`
	Note              *string `json:"note"`
	PerformedByUserID *string `json:"performed_by_user_id"`
}
