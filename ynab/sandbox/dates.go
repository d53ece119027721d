package sandbox

import "time"

// Dates travel as YNAB writes them, "YYYY-MM-DD" in UTC, and months as their first day: as
// strings they sort and compare in calendar order.

const dateLayout = "2006-01-02"

func parseDate(s string) (time.Time, bool) {
	t, err := time.Parse(dateLayout, s)
	return t, err == nil && t.Format(dateLayout) == s
}

func dateOf(t time.Time) string { return t.UTC().Format(dateLayout) }

// monthOf returns the first day of a date's month.
func monthOf(date string) string { return date[:8] + "01" }

func addDays(date string, n int) string {
	t, _ := time.Parse(dateLayout, date)
	return dateOf(t.AddDate(0, 0, n))
}

func addMonths(month string, n int) string {
	t, _ := time.Parse(dateLayout, month)
	return dateOf(t.AddDate(0, n, 0))
}

// monthEnd returns the last day of a month.
func monthEnd(month string) string { return addDays(addMonths(month, 1), -1) }

// monthsBetween counts the months from a to b (0 when they are the same month).
func monthsBetween(a, b string) int {
	ta, _ := time.Parse(dateLayout, a)
	tb, _ := time.Parse(dateLayout, b)
	return (tb.Year()-ta.Year())*12 + int(tb.Month()) - int(ta.Month())
}

// daysBetween counts the days from a to b.
func daysBetween(a, b string) int {
	ta, _ := time.Parse(dateLayout, a)
	tb, _ := time.Parse(dateLayout, b)
	return int(tb.Sub(ta).Hours() / 24)
}

// weekdaysIn counts the days of a month that fall on the given weekday (0 = Sunday).
func weekdaysIn(month string, weekday int) int {
	n := 0
	for d := month; d <= monthEnd(month); d = addDays(d, 1) {
		t, _ := time.Parse(dateLayout, d)
		if int(t.Weekday()) == weekday {
			n++
		}
	}
	return n
}
