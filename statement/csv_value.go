package statement

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxIntDigits bounds an amount's integer digits so that milliunits, and a balance plus or
// minus an amount, stay far inside int64 (10^15 units is 10^18 milliunits).
const maxIntDigits = 15

// amountText is an amount cell taken apart: its sign and the digits and separators between.
type amountText struct {
	body string // digits and separators, no sign, no currency, no spaces at the ends
	neg  bool
}

// splitAmount strips what banks write around an amount's digits: spaces, a sign in front or
// behind ("-12,50", "+12,50", "12,50-"), parentheses for a negative ("(12.50)"), a currency
// symbol or ISO code on either side ("€ 12,50", "12.50 EUR"). It reports ok=false when what is
// left is not digits and separators, or when the amount has two signs.
func splitAmount(s string) (amountText, bool) {
	s = strings.TrimSpace(s)
	var a amountText
	signs := 0
	if len(s) >= 2 && s[0] == '(' && s[len(s)-1] == ')' {
		a.neg = true
		signs++
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	// Signs and currencies may come in either order on either side ("-€12", "€-12", "12 EUR-").
	for range 4 {
		before := s
		s = trimCurrency(s)
		switch {
		case strings.HasPrefix(s, "-"), strings.HasPrefix(s, "+"):
			a.neg = a.neg || s[0] == '-'
			signs++
			s = strings.TrimSpace(s[1:])
		case strings.HasPrefix(s, "\u2212"): // the minus sign
			a.neg = true
			signs++
			s = strings.TrimSpace(s[len("\u2212"):])
		}
		switch {
		case strings.HasSuffix(s, "-"), strings.HasSuffix(s, "+"):
			a.neg = a.neg || s[len(s)-1] == '-'
			signs++
			s = strings.TrimSpace(s[:len(s)-1])
		case strings.HasSuffix(s, "\u2212"):
			a.neg = true
			signs++
			s = strings.TrimSpace(s[:len(s)-len("\u2212")])
		}
		if s == before {
			break
		}
	}
	if signs > 1 || s == "" {
		return a, false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9') && !isGroupSep(r) && r != '.' && r != ',' {
			return a, false
		}
	}
	a.body = s
	return a, true
}

// trimCurrency removes one currency symbol or three-letter code from either end of s.
func trimCurrency(s string) string {
	for _, sym := range []string{"€", "$", "£", "¥"} {
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(s, sym), sym))
	}
	if len(s) > 3 && isUpper3(s[:3]) {
		s = strings.TrimSpace(s[3:])
	}
	if len(s) > 3 && isUpper3(s[len(s)-3:]) {
		s = strings.TrimSpace(s[:len(s)-3])
	}
	return s
}

func isUpper3(s string) bool {
	return len(s) == 3 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z' && s[2] >= 'A' && s[2] <= 'Z'
}

// isGroupSep says r may group thousands: a space (also the no-break and narrow no-break
// spaces French exports use) or an apostrophe (Swiss). '.' and ',' group thousands too,
// whichever is not the decimal mark.
func isGroupSep(r rune) bool {
	return r == ' ' || r == '\'' || r == '\u00a0' || r == '\u202f' || r == '’'
}

// parseAmount reads an amount exactly into milliunits, never through a float: dec is the
// decimal mark ('.' or ','); the other of the two, a space or an apostrophe may group
// thousands, in groups of three. It returns the digits written after the decimal mark as
// decimals ("9," has 0, "12,5" has 1). The message it returns on failure is for a person and
// says nothing of the cell.
func parseAmount(s string, dec byte) (milli int64, decimals int, msg string) {
	if strings.TrimSpace(s) == "" {
		return 0, 0, "is empty (expected an amount)"
	}
	a, ok := splitAmount(s)
	if !ok {
		return 0, 0, "is not an amount"
	}
	intPart, frac := a.body, ""
	if k := strings.LastIndexByte(a.body, dec); k >= 0 {
		intPart, frac = a.body[:k], a.body[k+1:]
	}
	for i := 0; i < len(frac); i++ {
		if frac[i] < '0' || frac[i] > '9' {
			return 0, 0, "is not an amount"
		}
	}
	if len(frac) > 3 {
		return 0, 0, "has more than 3 decimals"
	}
	digits, ok := ungroup(intPart, dec)
	if !ok {
		return 0, 0, "is not an amount"
	}
	if digits == "" && frac == "" {
		return 0, 0, "is not an amount"
	}
	digits = strings.TrimLeft(digits, "0")
	if len(digits) > maxIntDigits {
		return 0, 0, "is too large for an amount"
	}
	var units int64
	if digits != "" {
		units, _ = strconv.ParseInt(digits, 10, 64) // at most 15 digits: cannot fail
	}
	var f int64
	for i := range 3 {
		f *= 10
		if i < len(frac) {
			f += int64(frac[i] - '0')
		}
	}
	milli = units*1000 + f
	if a.neg {
		milli = -milli
	}
	return milli, len(frac), ""
}

// ungroup removes thousands separators from an amount's integer part, checking they group
// by three (the first group one to three digits), and that only one kind is used.
func ungroup(s string, dec byte) (string, bool) {
	var sep rune
	var b strings.Builder
	group := -1 // digits in the current group after a separator; -1 before the first one
	first := 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
			if group >= 0 {
				group++
				if group > 3 {
					return "", false
				}
			} else {
				first++
			}
		case r == rune(dec):
			return "", false
		case r == '.' || r == ',' || isGroupSep(r):
			if sep != 0 && r != sep {
				return "", false
			}
			if (group >= 0 && group != 3) || (group < 0 && (first == 0 || first > 3)) {
				return "", false
			}
			sep = r
			group = 0
		default:
			return "", false
		}
	}
	if group >= 0 && group != 3 {
		return "", false
	}
	return b.String(), true
}

// decimalVote is what one amount cell says of the decimal mark.
type decimalVote int

const (
	voteNone decimalVote = iota // no separator: it does not matter
	voteComma
	votePoint
	voteEither // "1,234" or "1.234": a decimal with three digits, or a thousands separator
)

// voteDecimal looks at one amount cell for its decimal mark: where both '.' and ',' appear the
// later one is the mark; one mark twice is a thousands separator, so the other is the mark;
// one mark once is the mark unless exactly three digits follow it, which could be either.
func voteDecimal(s string) decimalVote {
	a, ok := splitAmount(s)
	if !ok {
		return voteNone
	}
	dot, comma := strings.LastIndexByte(a.body, '.'), strings.LastIndexByte(a.body, ',')
	switch {
	case dot >= 0 && comma >= 0:
		if dot > comma {
			return votePoint
		}
		return voteComma
	case comma >= 0:
		if strings.Count(a.body, ",") > 1 {
			return votePoint
		}
		if len(a.body)-comma-1 == 3 {
			return voteEither
		}
		return voteComma
	case dot >= 0:
		if strings.Count(a.body, ".") > 1 {
			return voteComma
		}
		if len(a.body)-dot-1 == 3 {
			return voteEither
		}
		return votePoint
	}
	return voteNone
}

// dateFormat is a civil date's written form: the order of year, month and day, the separator
// between them (0 for none, as YYYYMMDD) and the year's digits (4, or 2 for years 2000-2099).
type dateFormat struct {
	order     [3]byte // of 'Y', 'M', 'D'
	sep       byte
	yearWidth int
}

// String gives the format as csv.date_format takes it: "DD-MM-YYYY".
func (f dateFormat) String() string {
	var b strings.Builder
	for i, p := range f.order {
		if i > 0 && f.sep != 0 {
			b.WriteByte(f.sep)
		}
		switch p {
		case 'Y':
			b.WriteString(strings.Repeat("Y", f.yearWidth))
		case 'M':
			b.WriteString("MM")
		case 'D':
			b.WriteString("DD")
		}
	}
	return b.String()
}

// parseDateFormat reads csv.date_format: YYYY (or YY), MM and DD once each, in any order,
// with one separator of - . / or space between them or none at all; case does not matter and
// strftime's %Y %y %m %d are read too.
func parseDateFormat(s string) (dateFormat, bool) {
	s = strings.ToUpper(strftimeNames.Replace(strings.TrimSpace(s)))
	var f dateFormat
	var gaps [2]byte // the separator after the first and the second part, 0 for none
	n, i := 0, 0
	for n < 3 {
		switch {
		case strings.HasPrefix(s[i:], "YYYY"):
			f.order[n], f.yearWidth = 'Y', 4
			i += 4
		case strings.HasPrefix(s[i:], "YY"):
			f.order[n], f.yearWidth = 'Y', 2
			i += 2
		case strings.HasPrefix(s[i:], "MM"):
			f.order[n] = 'M'
			i += 2
		case strings.HasPrefix(s[i:], "DD"):
			f.order[n] = 'D'
			i += 2
		default:
			return f, false
		}
		if n < 2 && i < len(s) {
			if c := s[i]; c == '-' || c == '.' || c == '/' || c == ' ' {
				gaps[n] = c
				i++
			}
		}
		n++
	}
	if i != len(s) || gaps[0] != gaps[1] {
		return f, false
	}
	f.sep = gaps[0]
	seen := map[byte]bool{}
	for _, p := range f.order {
		seen[p] = true
	}
	return f, len(seen) == 3
}

var strftimeNames = strings.NewReplacer("%Y", "YYYY", "%y", "YY", "%m", "MM", "%d", "DD")

// parse reads a date cell in this format and gives it as YYYY-MM-DD, or ok=false when it is
// not one or names a day that does not exist (2023-02-30). A time after the date ("2023-01-05
// 14:22", "2023-01-05T14:22:00") is ignored; with separators, a day or month may be written
// with one digit ("5.3.2023").
func (f dateFormat) parse(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if f.sep != ' ' {
		if k := strings.IndexByte(s, ' '); k >= 0 {
			s = s[:k]
		}
	}
	if k := strings.IndexByte(s, 'T'); k >= 0 {
		s = s[:k]
	}
	var parts [3]string
	if f.sep == 0 {
		w := [3]int{}
		total := 0
		for i, p := range f.order {
			w[i] = 2
			if p == 'Y' {
				w[i] = f.yearWidth
			}
			total += w[i]
		}
		if len(s) != total {
			return "", false
		}
		at := 0
		for i := range 3 {
			parts[i] = s[at : at+w[i]]
			at += w[i]
		}
	} else {
		a := strings.IndexByte(s, f.sep)
		if a < 0 {
			return "", false
		}
		b := strings.IndexByte(s[a+1:], f.sep)
		if b < 0 {
			return "", false
		}
		b += a + 1
		if strings.IndexByte(s[b+1:], f.sep) >= 0 {
			return "", false
		}
		parts = [3]string{s[:a], s[a+1 : b], s[b+1:]}
	}
	var y, m, d int
	for i, p := range f.order {
		v := parts[i]
		if v == "" || !allDigits(v) {
			return "", false
		}
		n, _ := strconv.Atoi(v)
		switch p {
		case 'Y':
			if len(v) != f.yearWidth {
				return "", false
			}
			if f.yearWidth == 2 {
				n += 2000
			}
			y = n
		case 'M':
			if len(v) > 2 {
				return "", false
			}
			m = n
		case 'D':
			if len(v) > 2 {
				return "", false
			}
			d = n
		}
	}
	if !validDate(y, m, d) {
		return "", false
	}
	return formatDate(y, m, d), true
}

// validDate says y-m-d is a day of the calendar, in the years a bank statement can name.
func validDate(y, m, d int) bool {
	if y < 1900 || y > 2199 || m < 1 || m > 12 || d < 1 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && (y%4 == 0 && (y%100 != 0 || y%400 == 0)) {
		days = 29
	}
	return d <= days
}

func formatDate(y, m, d int) string {
	var b [10]byte
	b[0], b[1], b[2], b[3] = byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10)
	b[4] = '-'
	b[5], b[6] = byte('0'+m/10), byte('0'+m%10)
	b[7] = '-'
	b[8], b[9] = byte('0'+d/10), byte('0'+d%10)
	return string(b[:])
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// dateCandidates are the formats date detection tries, in the order it prefers them when
// several read every cell. Day-first and month-first forms with the same separator are told
// apart by the data (a first number above 12 is a day); "." is only ever day-first.
var dateCandidates = func() []dateFormat {
	var out []dateFormat
	for _, s := range []string{
		"YYYYMMDD", "YYYY-MM-DD", "YYYY/MM/DD", "YYYY.MM.DD",
		"DD-MM-YYYY", "MM-DD-YYYY", "DD.MM.YYYY", "DD/MM/YYYY", "MM/DD/YYYY",
		"DD-MM-YY", "MM-DD-YY", "DD.MM.YY", "DD/MM/YY", "MM/DD/YY",
		"DDMMYYYY",
	} {
		f, _ := parseDateFormat(s)
		out = append(out, f)
	}
	return out
}()

// dateGuess is the outcome of date detection over a column's cells.
type dateGuess struct {
	format    dateFormat
	ok        bool
	ambiguous bool // day-first and month-first both read every cell, and nothing tells them apart
}

// guessDateFormat picks the format that reads the most cells of a date column. A tie between a
// day-first and a month-first form is settled by dayFirst (the column's header is Dutch,
// German or French, where dates are written day first) or else reported ambiguous, for the
// caller to ask for csv.date_format; no format reading any cell is ok=false.
func guessDateFormat(cells []string, dayFirst bool) dateGuess {
	best, bestN := -1, 0
	var tied []int
	for i, f := range dateCandidates {
		n := 0
		for _, c := range cells {
			if _, ok := f.parse(c); ok {
				n++
			}
		}
		switch {
		case n > bestN:
			best, bestN, tied = i, n, []int{i}
		case n == bestN && n > 0:
			tied = append(tied, i)
		}
	}
	if best < 0 {
		return dateGuess{}
	}
	g := dateGuess{format: dateCandidates[best], ok: true}
	for _, i := range tied[1:] {
		o := dateCandidates[i]
		if swapsDayMonth(g.format, o) {
			if dayFirst {
				if o.order[0] == 'D' {
					g.format = o
				}
			} else {
				g.ambiguous = true
			}
		}
	}
	return g
}

// swapsDayMonth says a and b differ only in the order of day and month.
func swapsDayMonth(a, b dateFormat) bool {
	return a.sep == b.sep && a.yearWidth == b.yearWidth && a.order[2] == b.order[2] &&
		a.order[0] == b.order[1] && a.order[1] == b.order[0]
}

// single spaces s: runs of white space become one space, the ends none.
func single(s string) string {
	if s == "" {
		return ""
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if isSingleSpaced(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// isSingleSpaced says s has no white space at its ends, none but single ASCII spaces inside,
// and nothing strings.Fields would split on beyond those: single's fast path.
func isSingleSpaced(s string) bool {
	prevSpace := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
			if prevSpace {
				return false
			}
			prevSpace = true
		case c < ' ' || c == 0x7f || c >= 0x80:
			return false // control characters, or non-ASCII that may be a Unicode space
		default:
			prevSpace = false
		}
	}
	return !prevSpace
}
