package tools

// Dates as avenir reads and writes them: the arguments people give (ParseMonth, ParseDate), and
// the YYYY-MM-DD strings YNAB and avenir exchange, counted in days and months.

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseMonth reads a month argument and returns it as YNAB names months: "YYYY-MM-01".
// It accepts "YYYY-MM", "YYYY-MM-DD" (any real date means its month), and "current",
// "next" and "previous" (case-insensitive, surrounding space ignored); "" means current,
// because every tool that takes a month defaults to it. The relative forms are counted
// from now's calendar in now's location: pass UTC for YNAB's "current".
func ParseMonth(s string, now time.Time) (string, error) {
	word := strings.ToLower(strings.TrimSpace(s))
	year, month, _ := now.Date()
	switch word {
	case "", "current":
		return firstOfMonth(year, month), nil
	case "next":
		return firstOfMonth(year, month+1), nil
	case "previous":
		return firstOfMonth(year, month-1), nil
	}
	parts, ok := splitISO(word)
	if !ok {
		return "", fmt.Errorf(`%s is not a month: use YYYY-MM (like 2026-09), YYYY-MM-DD, "current", "next" or "previous"`, quoted(s))
	}
	if err := checkCalendar(s, parts); err != nil {
		return "", err
	}
	return firstOfMonth(parts[0], time.Month(parts[1])), nil
}

// ParseDate reads a date argument: "YYYY-MM-DD" (a real calendar date), "today" or
// "yesterday" (case-insensitive, surrounding space ignored), counted from now's calendar
// in now's location. It returns "YYYY-MM-DD".
func ParseDate(s string, now time.Time) (string, error) {
	word := strings.ToLower(strings.TrimSpace(s))
	year, month, day := now.Date()
	switch word {
	case "today":
		return formatDate(year, month, day), nil
	case "yesterday":
		return formatDate(year, month, day-1), nil
	}
	parts, ok := splitISO(word)
	if !ok || len(parts) != 3 {
		return "", fmt.Errorf(`%s is not a date: use YYYY-MM-DD (like 2026-09-14), "today" or "yesterday"`, quoted(s))
	}
	if err := checkCalendar(s, parts); err != nil {
		return "", err
	}
	return formatDate(parts[0], time.Month(parts[1]), parts[2]), nil
}

// splitISO splits "YYYY-MM" or "YYYY-MM-DD" into its numbers, checking only the shape:
// four, two and two ASCII digits joined by '-'.
func splitISO(s string) ([]int, bool) {
	fields := strings.Split(s, "-")
	if len(fields) != 2 && len(fields) != 3 {
		return nil, false
	}
	parts := make([]int, len(fields))
	for i, f := range fields {
		want := 2
		if i == 0 {
			want = 4
		}
		if len(f) != want || !isDigits(f) {
			return nil, false
		}
		parts[i], _ = strconv.Atoi(f) // cannot fail: at most four ASCII digits
	}
	return parts, true
}

// checkCalendar refuses a month or day that does not exist, saying which part is wrong,
// since "2026-02-30" looks right at a glance.
func checkCalendar(s string, parts []int) error {
	year, month := parts[0], time.Month(parts[1])
	if month < time.January || month > time.December {
		return fmt.Errorf("%s has no month %02d: months run from 01 to 12", quoted(s), parts[1])
	}
	if len(parts) < 3 {
		return nil
	}
	days := time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
	if day := parts[2]; day < 1 || day > days {
		return fmt.Errorf("%s is not a calendar date: %s %04d has %d days", quoted(s), month, year, days)
	}
	return nil
}

// firstOfMonth normalises month overflow (month 13 is January of the next year) and
// returns YNAB's name for the month.
func firstOfMonth(year int, month time.Month) string { return formatDate(year, month, 1) }

// formatDate normalises day and month overflow and writes YYYY-MM-DD.
func formatDate(year int, month time.Month, day int) string {
	return time.Date(year, month, day, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
}

// isoDay parses a YYYY-MM-DD that avenir itself produced or YNAB sent.
func isoDay(s string) time.Time {
	t, _ := time.Parse(time.DateOnly, s)
	return t
}

// lastDayOf is the last day of the month a date is in.
func lastDayOf(date string) string {
	t := isoDay(date)
	return time.Date(t.Year(), t.Month()+1, 0, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
}

// daysApart is b − a in days.
func daysApart(a, b string) int { return int(isoDay(b).Sub(isoDay(a)).Hours() / 24) }

// dayGap is how many days apart two dates (YYYY-MM-DD) are; a large number for one unreadable.
func dayGap(a, b string) int {
	x, err1 := time.Parse(time.DateOnly, a)
	y, err2 := time.Parse(time.DateOnly, b)
	if err1 != nil || err2 != nil {
		return 1 << 20
	}
	d := int(x.Sub(y).Hours() / 24)
	if d < 0 {
		d = -d
	}
	return d
}

// addMonthsTo is the first of the month n months after month (before, for n < 0).
func addMonthsTo(month string, n int) string {
	t := isoDay(month)
	return time.Date(t.Year(), t.Month()+time.Month(n), 1, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
}
