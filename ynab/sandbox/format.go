package sandbox

import (
	"strconv"
	"strings"

	"github.com/avenir-mcp/avenir/ynab"
)

// The non-export endpoints carry every amount a second and third time, as YNAB does since spec
// 1.82: `*_formatted` in the plan's currency format and `*_currency` as a decimal number. Both are
// for display; the sandbox computes them from the milliunits and never reads them back.

// formatter renders amounts in one plan's currency format.
type formatter struct{ cf ynab.CurrencyFormat }

// rounded returns milliunits rounded (half away from zero) to the currency's decimal digits,
// as a count of the smallest unit.
func (f formatter) rounded(milliunits int64) int64 {
	digits := min(max(f.cf.DecimalDigits, 0), 3)
	div := int64(1)
	for range 3 - digits {
		div *= 10
	}
	q, r := milliunits/div, milliunits%div
	if 2*abs(r) >= div {
		if milliunits < 0 {
			q--
		} else {
			q++
		}
	}
	return q
}

// text formats an amount like "€1.234,56" or "-€12,30".
func (f formatter) text(milliunits int64) string {
	units := f.rounded(milliunits)
	digits := strconv.FormatInt(abs(units), 10)
	dd := min(max(f.cf.DecimalDigits, 0), 3)
	for len(digits) <= dd {
		digits = "0" + digits
	}
	whole, frac := digits[:len(digits)-dd], digits[len(digits)-dd:]
	var b strings.Builder
	if units < 0 {
		b.WriteByte('-')
	}
	symbol := ""
	if f.cf.DisplaySymbol {
		symbol = f.cf.CurrencySymbol
	}
	if f.cf.SymbolFirst {
		b.WriteString(symbol)
	}
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteString(f.cf.GroupSeparator)
		}
		b.WriteRune(c)
	}
	if dd > 0 {
		b.WriteString(f.cf.DecimalSeparator)
		b.WriteString(frac)
	}
	if !f.cf.SymbolFirst {
		b.WriteString(symbol)
	}
	return b.String()
}

// currency returns an amount as a decimal number of currency units, for display only.
func (f formatter) currency(milliunits int64) *float64 {
	v := float64(milliunits) / 1000
	return &v
}

func (f formatter) optText(milliunits *int64) *string {
	if milliunits == nil {
		return nil
	}
	s := f.text(*milliunits)
	return &s
}

func (f formatter) optCurrency(milliunits *int64) *float64 {
	if milliunits == nil {
		return nil
	}
	return f.currency(*milliunits)
}

func (f formatter) account(a ynab.Account) ynab.Account {
	a.BalanceFormatted, a.BalanceCurrency = f.text(a.Balance), f.currency(a.Balance)
	a.ClearedBalanceFormatted, a.ClearedBalanceCurrency = f.text(a.ClearedBalance), f.currency(a.ClearedBalance)
	a.UnclearedBalanceFormatted, a.UnclearedBalanceCurrency = f.text(a.UnclearedBalance), f.currency(a.UnclearedBalance)
	return a
}

func (f formatter) category(c ynab.Category) ynab.Category {
	c.BudgetedFormatted, c.BudgetedCurrency = f.text(c.Budgeted), f.currency(c.Budgeted)
	c.ActivityFormatted, c.ActivityCurrency = f.text(c.Activity), f.currency(c.Activity)
	c.BalanceFormatted, c.BalanceCurrency = f.text(c.Balance), f.currency(c.Balance)
	c.GoalTargetFormatted, c.GoalTargetCurrency = f.optText(c.GoalTarget), f.optCurrency(c.GoalTarget)
	c.GoalUnderFundedFormatted, c.GoalUnderFundedCurrency = f.optText(c.GoalUnderFunded), f.optCurrency(c.GoalUnderFunded)
	c.GoalOverallFundedFormatted, c.GoalOverallFundedCurrency = f.optText(c.GoalOverallFunded), f.optCurrency(c.GoalOverallFunded)
	c.GoalOverallLeftFormatted, c.GoalOverallLeftCurrency = f.optText(c.GoalOverallLeft), f.optCurrency(c.GoalOverallLeft)
	return c
}

func (f formatter) categories(cs []ynab.Category) []ynab.Category {
	out := make([]ynab.Category, len(cs))
	for i, c := range cs {
		out[i] = f.category(c)
	}
	return out
}

func (f formatter) month(m ynab.Month) ynab.Month {
	m.IncomeFormatted, m.IncomeCurrency = f.text(m.Income), f.currency(m.Income)
	m.BudgetedFormatted, m.BudgetedCurrency = f.text(m.Budgeted), f.currency(m.Budgeted)
	m.ActivityFormatted, m.ActivityCurrency = f.text(m.Activity), f.currency(m.Activity)
	m.ToBeBudgetedFormatted, m.ToBeBudgetedCurrency = f.text(m.ToBeBudgeted), f.currency(m.ToBeBudgeted)
	m.Categories = f.categories(m.Categories)
	return m
}

func (f formatter) transaction(t ynab.Transaction) ynab.Transaction {
	t.AmountFormatted, t.AmountCurrency = f.text(t.Amount), f.currency(t.Amount)
	subs := make([]ynab.SubTransaction, len(t.Subtransactions))
	for i, s := range t.Subtransactions {
		s.AmountFormatted, s.AmountCurrency = f.text(s.Amount), f.currency(s.Amount)
		subs[i] = s
	}
	t.Subtransactions = subs
	return t
}

func (f formatter) hybrid(h ynab.HybridTransaction) ynab.HybridTransaction {
	h.AmountFormatted, h.AmountCurrency = f.text(h.Amount), f.currency(h.Amount)
	return h
}

// scheduledDetail is a ScheduledTransactionDetail as YNAB serves it: account_name and
// subtransactions always present (the spec requires them, even empty), payee_name and
// category_name null when there is none. Its fields shadow the embedded ones of the same name.
type scheduledDetail struct {
	ynab.ScheduledTransaction
	AccountName     string                         `json:"account_name"`
	PayeeName       *string                        `json:"payee_name"`
	CategoryName    *string                        `json:"category_name"`
	Subtransactions []ynab.ScheduledSubTransaction `json:"subtransactions"`
}

func (f formatter) scheduled(st ynab.ScheduledTransaction) scheduledDetail {
	st.AmountFormatted, st.AmountCurrency = f.text(st.Amount), f.currency(st.Amount)
	subs := make([]ynab.ScheduledSubTransaction, len(st.Subtransactions))
	for i, s := range st.Subtransactions {
		s.AmountFormatted, s.AmountCurrency = f.text(s.Amount), f.currency(s.Amount)
		subs[i] = s
	}
	return scheduledDetail{ScheduledTransaction: st, AccountName: st.AccountName, PayeeName: st.PayeeName,
		CategoryName: st.CategoryName, Subtransactions: subs}
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
