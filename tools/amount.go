package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/avenir-mcp/avenir/tools/internal/clientjson"
	"github.com/avenir-mcp/avenir/ynab"
)

// Amount is an amount argument as the agent sent it: a JSON number (150, 150.5, -12.34) or a
// JSON string ("150.50", "-12.34"). Its exact decimal text is kept; it is never a float64,
// because a float cannot hold most decimal fractions and converting through one can move a
// cent. Only [Amount.Milliunits], which knows the plan's decimal digits, turns it into a
// number.
//
// JSON null and an absent field give no value, so optional amounts are told apart with
// [Amount.IsZero].
type Amount struct {
	text  string // as sent, trimmed
	given bool   // a value was sent (null and an absent field send none)
}

// UnmarshalJSON accepts a JSON number literal or a string and keeps its text. Whether the text
// is a decimal is checked by [Amount.Milliunits], whose caller names the argument in the error:
// "amount: "12,50" is not an amount…" rather than a bare complaint about some value.
func (a *Amount) UnmarshalJSON(b []byte) error {
	text := strings.TrimSpace(string(b))
	switch {
	case text == "null":
		return nil
	case strings.HasPrefix(text, `"`):
		if err := json.Unmarshal(b, &text); err != nil {
			return fmt.Errorf("reading amount %s: %w", quoted(string(b)), err)
		}
	case text == "" || !strings.ContainsAny(text[:1], "-0123456789"):
		return amountSyntaxError(text)
	}
	a.text, a.given = strings.TrimSpace(text), true
	return nil
}

// MarshalJSON gives the exact text back as a JSON string, or null when no value was given,
// which [Amount.UnmarshalJSON] reads back as no value.
func (a Amount) MarshalJSON() ([]byte, error) {
	if a.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(a.text)
}

// String returns the decimal text as it was sent, without surrounding space.
func (a Amount) String() string { return a.text }

// IsZero reports whether no value was given. An explicit 0 is a value and is not zero here.
func (a Amount) IsZero() bool { return !a.given }

// Milliunits converts the amount exactly; see [ParseAmount].
func (a Amount) Milliunits(digits int) (int64, error) { return ParseAmount(a.text, digits) }

// MaxMilliunits is the largest amount avenir reads, writes or adds up, either way: 2^53-1
// milliunits (9007199254740.991 in a currency with three decimals). YNAB keeps milliunits in
// 64-bit integers, but its own apps and most MCP clients are JavaScript, whose numbers hold whole
// numbers exactly only up to 2^53-1: past it an amount comes back rounded, and a total can wrap.
const MaxMilliunits = 1<<53 - 1

// ParseAmount converts an exact decimal to milliunits for a currency with the given number
// of decimal digits (0 to 3). Surrounding space is ignored; a leading '+' or '-' is allowed,
// and so are a bare leading or trailing point (".5", "5."), whose meaning is unambiguous.
// Trailing zeros beyond the currency's digits are accepted ("12.340" is 12.34 in euros):
// only a decimal that changes the value is refused, since YNAB could not store it. An amount
// past ±[MaxMilliunits] is refused, naming the bound.
func ParseAmount(s string, digits int) (int64, error) {
	if digits < 0 || digits > 3 {
		return 0, fmt.Errorf("the plan's currency has %d decimal digits, but avenir handles only 0 to 3; check the plan's currency settings in YNAB", digits)
	}
	s = strings.TrimSpace(s)
	neg, whole, frac, err := splitDecimal(s)
	if err != nil {
		return 0, err
	}
	kept, dropped := frac, ""
	if len(frac) > digits {
		kept, dropped = frac[:digits], frac[digits:]
	}
	if strings.Trim(dropped, "0") != "" {
		return 0, tooPreciseError(s, neg, whole, kept, dropped, digits)
	}
	mag, ok := scaleDecimal(whole, kept, 3, MaxMilliunits)
	if !ok {
		return 0, fmt.Errorf("%s is too large for an amount: amounts must lie between -%s and %s", quoted(s), maxAmountText(digits), maxAmountText(digits))
	}
	if neg {
		return -int64(mag), nil
	}
	return int64(mag), nil
}

// maxAmountText writes the largest amount in a currency with the given digits.
func maxAmountText(digits int) string {
	digits = clampDigits(digits)
	unit := int64(pow10[3-digits])
	return FormatPlain(MaxMilliunits-MaxMilliunits%unit, digits)
}

// sumMilliunits adds amounts, reporting false when an amount or a running total lies past
// ±[MaxMilliunits]. With every term and total within the bound, no step can overflow an int64.
func sumMilliunits(terms ...int64) (int64, bool) {
	var sum int64
	for _, t := range terms {
		if t > MaxMilliunits || t < -MaxMilliunits {
			return 0, false
		}
		if sum += t; sum > MaxMilliunits || sum < -MaxMilliunits {
			return 0, false
		}
	}
	return sum, true
}

// addMilliunits adds two amounts, reporting false where the sum would lie past
// ±[MaxMilliunits].
func addMilliunits(a, b int64) (int64, bool) { return sumMilliunits(a, b) }

// totalError refuses a write that would take a total past the bound; arg names the argument
// that would do it.
func totalError(arg, total string, digits int) error {
	return fmt.Errorf("%s: this would take %s past %s either way, the most that YNAB's apps and avenir hold exactly; nothing was written",
		arg, total, maxAmountText(digits))
}

// checkAssignment refuses to change a category's assigned amount for month from before to
// after where that would take the category's available balance, the month's assigned total or
// Ready to Assign past ±[MaxMilliunits]. Where the plan as read does not hold the month, the
// assigned amounts themselves are still bounded.
func checkAssignment(p *ynab.Plan, arg, month, categoryID string, before, after int64) error {
	digits := Digits(currency(p))
	delta, ok := sumMilliunits(after, -before)
	if !ok {
		return totalError(arg, "the change of the assigned amount", digits)
	}
	if c, ok := p.MonthCategory(month, categoryID); ok {
		if _, ok := sumMilliunits(c.Balance, delta); !ok {
			return totalError(arg, "the available amount of "+c.Name, digits)
		}
	}
	if m, ok := p.Month(month); ok {
		if _, ok := sumMilliunits(m.Budgeted, delta); !ok {
			return totalError(arg, "the month's assigned total", digits)
		}
		if _, ok := sumMilliunits(m.ToBeBudgeted, -delta); !ok {
			return totalError(arg, "Ready to Assign", digits)
		}
	}
	return nil
}

// checkNewBalance refuses new transactions whose amounts would take the account's balance past
// ±[MaxMilliunits].
func checkNewBalance(p *ynab.Plan, acct *ynab.Account, planned []plannedTx) error {
	terms := []int64{acct.Balance}
	for _, t := range planned {
		terms = append(terms, t.subject.Amount)
	}
	if _, ok := sumMilliunits(terms...); !ok {
		return totalError("transactions", "the balance of "+acct.Name, Digits(currency(p)))
	}
	return nil
}

// splitDecimal checks that s is a plain decimal — an optional sign, digits, an optional
// point and more digits, at least one digit in all — and splits it into its parts.
func splitDecimal(s string) (neg bool, whole, frac string, err error) {
	rest := s
	if rest != "" && (rest[0] == '+' || rest[0] == '-') {
		neg, rest = rest[0] == '-', rest[1:]
	}
	whole, frac, _ = strings.Cut(rest, ".")
	if whole+frac == "" || !isDigits(whole) || !isDigits(frac) {
		return false, "", "", amountSyntaxError(s)
	}
	return neg, whole, frac, nil
}

// amountSyntaxError explains why s is not a plain decimal, naming the likely slip.
func amountSyntaxError(s string) error {
	const how = "write a plain decimal such as 150, 150.5 or -12.34"
	switch {
	case s == "":
		return errors.New("no amount was given: " + how)
	case strings.ContainsAny(s, "eE") && strings.Trim(s, "0123456789.+-eE") == "":
		return fmt.Errorf("%s is not an amount: %s, without an exponent", quoted(s), how)
	case strings.Contains(s, ","):
		return fmt.Errorf("%s is not an amount: %s, with '.' as the decimal point and no thousands separators", quoted(s), how)
	default:
		return fmt.Errorf("%s is not an amount: %s", quoted(s), how)
	}
}

// tooPreciseError refuses a decimal finer than the currency and suggests it rounded half
// away from zero, so the person sees a value they can send instead.
func tooPreciseError(s string, neg bool, whole, kept, dropped string, digits int) error {
	var suggestion string
	// The limit leaves room for rounding up by one unit.
	if units, ok := scaleDecimal(whole, kept, digits, MaxMilliunits/pow10[3-digits]-1); ok {
		if dropped[0] >= '5' {
			units++
		}
		suggestion = formatUnits(units, digits, ".", "")
		if neg {
			suggestion = "-" + suggestion
		}
		suggestion = ", for example " + suggestion
	}
	if digits == 0 {
		return fmt.Errorf("%s has decimals, but the plan's currency has none: send a whole amount%s", quoted(s), suggestion)
	}
	return fmt.Errorf("%s has more decimals than the plan's currency allows (%d): send it rounded%s", quoted(s), digits, suggestion)
}

// scaleDecimal returns whole.frac multiplied by 10^scale as a magnitude no greater than
// limit; frac must have at most scale digits. ok is false when the value exceeds limit.
func scaleDecimal(whole, frac string, scale int, limit uint64) (mag uint64, ok bool) {
	padded := whole + frac + strings.Repeat("0", scale-len(frac))
	for i := 0; i < len(padded); i++ {
		d := uint64(padded[i] - '0')
		if mag > (limit-d)/10 {
			return 0, false
		}
		mag = mag*10 + d
	}
	return mag, true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// maxQuoted, quoted and bound are clientjson's, under the names the tools' messages use: a
// client's value in a message is quoted and cut the same way by every tool and by the framing.
const maxQuoted = clientjson.MaxQuoted

func quoted(s string) string { return clientjson.Quoted(s) }

func bound(s string, n int) string { return clientjson.Bound(s, n) }

// FormatPlain writes an amount the way confirmation questions show it: the plan's digits,
// '.' as the decimal point, no symbol and no grouping ("1200.00", "-12.34", "0.00"; "12"
// for 0 digits). Milliunits beyond the digits are rounded half away from zero, and a value
// that rounds to zero carries no sign. Digits outside 0..3 are clamped.
func FormatPlain(milli int64, digits int) string {
	digits = clampDigits(digits)
	neg, units := roundToUnits(milli, digits)
	s := formatUnits(units, digits, ".", "")
	if neg && units != 0 {
		return "-" + s
	}
	return s
}

// FormatFlow writes a transaction amount the way YNAB's outflow and inflow columns read:
// an outflow as its size ("86.40"), an inflow with a plus ("+2500.00"), zero as "0.00".
func FormatFlow(milli int64, digits int) string {
	digits = clampDigits(digits)
	neg, units := roundToUnits(milli, digits)
	s := formatUnits(units, digits, ".", "")
	if neg || units == 0 {
		return s
	}
	return "+" + s
}

// FormatCurrency writes an amount in the plan's own currency format, for the *_formatted
// result fields: EUR with the symbol first, '.' grouping and ',' decimals gives "€1.234,56"
// and "-€12,34". The minus sign always leads; a symbol placed last follows the number
// directly ("1.234,56€"). A nil format falls back to [FormatPlain] with 2 digits.
func FormatCurrency(milli int64, cf *ynab.CurrencyFormat) string {
	if cf == nil {
		return FormatPlain(milli, 2)
	}
	digits := clampDigits(cf.DecimalDigits)
	decimal := cf.DecimalSeparator
	if decimal == "" {
		decimal = "." // digits must stay apart from the whole part even in a broken format
	}
	neg, units := roundToUnits(milli, digits)
	s := formatUnits(units, digits, decimal, cf.GroupSeparator)
	if cf.DisplaySymbol {
		if cf.SymbolFirst {
			s = cf.CurrencySymbol + s
		} else {
			s += cf.CurrencySymbol
		}
	}
	if neg && units != 0 {
		return "-" + s
	}
	return s
}

// Digits is the plan's currency decimal digits, or 2 when the plan has no currency format.
func Digits(cf *ynab.CurrencyFormat) int {
	if cf == nil {
		return 2
	}
	return cf.DecimalDigits
}

// pow10 holds the powers of ten a milliunit amount needs (10^0 … 10^3).
var pow10 = [...]uint64{1, 10, 100, 1000}

func clampDigits(digits int) int { return min(max(digits, 0), 3) }

// roundToUnits splits milli into a sign and a count of the currency's smallest unit at the
// given digits, rounding half away from zero. It works on the magnitude as a uint64 so
// math.MinInt64 needs no special case.
func roundToUnits(milli int64, digits int) (neg bool, units uint64) {
	neg = milli < 0
	mag := uint64(milli)
	if neg {
		mag = -mag
	}
	unit := pow10[3-digits]
	units = mag / unit
	if 2*(mag%unit) >= unit {
		units++
	}
	return neg, units
}

// formatUnits writes a count of the smallest currency unit with the given digits, decimal
// point and thousands separator ("" for none).
func formatUnits(units uint64, digits int, decimal, group string) string {
	whole := strconv.FormatUint(units/pow10[digits], 10)
	if group != "" {
		whole = groupThousands(whole, group)
	}
	if digits == 0 {
		return whole
	}
	return fmt.Sprintf("%s%s%0*d", whole, decimal, digits, units%pow10[digits])
}

// groupThousands inserts sep between every three digits from the right.
func groupThousands(digits, sep string) string {
	var b strings.Builder
	for i := 0; i < len(digits); i++ {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteByte(digits[i])
	}
	return b.String()
}
