package tools

import (
	"strings"
	"testing"
	"time"
)

// mid-September 2026, late in the evening UTC.
var testNow = time.Date(2026, time.September, 14, 22, 30, 0, 0, time.UTC)

func TestParseMonth(t *testing.T) {
	newYearsEve := time.Date(2026, time.December, 31, 23, 59, 0, 0, time.UTC)
	newYearsDay := time.Date(2027, time.January, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		now  time.Time
		want string
	}{
		{"2026-09", testNow, "2026-09-01"},
		{"2026-09-30", testNow, "2026-09-01"},
		{"2026-09-01", testNow, "2026-09-01"},
		{"1999-12", testNow, "1999-12-01"},
		{"2024-02-29", testNow, "2024-02-01"},
		{" 2026-10 ", testNow, "2026-10-01"},
		{"current", testNow, "2026-09-01"},
		{" CURRENT ", testNow, "2026-09-01"},
		{"", testNow, "2026-09-01"},
		{"Next", testNow, "2026-10-01"},
		{"previous", testNow, "2026-08-01"},
		{"next", newYearsEve, "2027-01-01"},
		{"previous", newYearsEve, "2026-11-01"},
		{"previous", newYearsDay, "2026-12-01"},
		{"current", newYearsDay, "2027-01-01"},
	}
	for _, tt := range tests {
		got, err := ParseMonth(tt.in, tt.now)
		if err != nil || got != tt.want {
			t.Errorf("ParseMonth(%q, %s) = %q, %v; want %q", tt.in, tt.now.Format(time.DateOnly), got, err, tt.want)
		}
	}
}

func TestParseMonthRefuses(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"2026-13", []string{`"2026-13"`, "no month 13", "01 to 12"}},
		{"2026-00", []string{"no month 00"}},
		{"2026-13-01", []string{"no month 13"}},
		{"2026-02-30", []string{`"2026-02-30"`, "February 2026 has 28 days"}},
		{"2025-02-29", []string{"February 2025 has 28 days"}},
		{"2026-04-31", []string{"April 2026 has 30 days"}},
		{"2026-09-00", []string{"September 2026 has 30 days"}},
		{"2026-9", []string{`"2026-9"`, "YYYY-MM", "current", "next", "previous"}},
		{"26-09", []string{"YYYY-MM"}},
		{"2026/09", []string{"YYYY-MM"}},
		{"2026-09-1", []string{"YYYY-MM"}},
		{"+2026-09", []string{"YYYY-MM"}},
		{"2026-09-01T00:00:00Z", []string{"YYYY-MM"}},
		{"2026-09-14-01", []string{"YYYY-MM"}},
		{"september", []string{`"september"`}},
		{"last", []string{`"last"`}},
		{"２０２６-09", []string{"YYYY-MM"}},
	}
	for _, tt := range tests {
		got, err := ParseMonth(tt.in, testNow)
		if err == nil {
			t.Errorf("ParseMonth(%q) = %q, want an error", tt.in, got)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("ParseMonth(%q) error %q does not mention %q", tt.in, err, w)
			}
		}
	}
}

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		now  time.Time
		want string
	}{
		{"2026-09-14", testNow, "2026-09-14"},
		{"2024-02-29", testNow, "2024-02-29"},
		{"2000-02-29", testNow, "2000-02-29"},
		{" 2026-12-31 ", testNow, "2026-12-31"},
		{"today", testNow, "2026-09-14"},
		{"TODAY", testNow, "2026-09-14"},
		{"Yesterday", testNow, "2026-09-13"},
		{"yesterday", time.Date(2027, time.January, 1, 0, 5, 0, 0, time.UTC), "2026-12-31"},
		{"yesterday", time.Date(2024, time.March, 1, 12, 0, 0, 0, time.UTC), "2024-02-29"},
		{"yesterday", time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC), "2026-02-28"},
	}
	for _, tt := range tests {
		got, err := ParseDate(tt.in, tt.now)
		if err != nil || got != tt.want {
			t.Errorf("ParseDate(%q, %s) = %q, %v; want %q", tt.in, tt.now.Format(time.DateOnly), got, err, tt.want)
		}
	}
}

func TestParseDateFollowsNowsCalendar(t *testing.T) {
	// 22:30 UTC on the 14th is already the 15th in Amsterdam (UTC+2 in September).
	amsterdam := testNow.In(time.FixedZone("CEST", 2*60*60))
	if got, err := ParseDate("today", amsterdam); err != nil || got != "2026-09-15" {
		t.Errorf("ParseDate(today) at %s = %q, %v; want 2026-09-15", amsterdam, got, err)
	}
}

func TestParseDateRefuses(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"2025-02-29", []string{`"2025-02-29"`, "February 2025 has 28 days"}},
		{"1900-02-29", []string{"February 1900 has 28 days"}},
		{"2026-02-30", []string{"February 2026 has 28 days"}},
		{"2026-04-31", []string{"April 2026 has 30 days"}},
		{"2026-13-01", []string{"no month 13"}},
		{"2026-09", []string{`"2026-09"`, "YYYY-MM-DD", "today", "yesterday"}},
		{"", []string{`""`, "YYYY-MM-DD"}},
		{"tomorrow", []string{`"tomorrow"`}},
		{"current", []string{`"current"`}},
		{"14-09-2026", []string{"YYYY-MM-DD"}},
		{"2026-09-14T10:00", []string{"YYYY-MM-DD"}},
		{"2026-9-14", []string{"YYYY-MM-DD"}},
	}
	for _, tt := range tests {
		got, err := ParseDate(tt.in, testNow)
		if err == nil {
			t.Errorf("ParseDate(%q) = %q, want an error", tt.in, got)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("ParseDate(%q) error %q does not mention %q", tt.in, err, w)
			}
		}
	}
}

var relativeWords = []string{"", "current", "next", "previous", "today", "yesterday", "Next ", "2026-09",
	"2026-09-14", "2024-02-29", "2025-02-29", "2026-13", "2026-02-30", "9999-12-31", "0000-01"}

func FuzzParseMonth(f *testing.F) {
	for _, s := range relativeWords {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseMonth(s, testNow)
		if err != nil {
			return
		}
		if len(got) != len("2006-01-02") || !strings.HasSuffix(got, "-01") {
			t.Fatalf("ParseMonth(%q) = %q, want YYYY-MM-01", s, got)
		}
		if again, err := ParseMonth(got, testNow); err != nil || again != got {
			t.Fatalf("ParseMonth(ParseMonth(%q) = %q) = %q, %v", s, got, again, err)
		}
	})
}

func FuzzParseDate(f *testing.F) {
	for _, s := range relativeWords {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseDate(s, testNow)
		if err != nil {
			return
		}
		if again, err := ParseDate(got, testNow); err != nil || again != got {
			t.Fatalf("ParseDate(ParseDate(%q) = %q) = %q, %v", s, got, again, err)
		}
		if month, err := ParseMonth(got, testNow); err != nil || month != got[:len("2006-01-")]+"01" {
			t.Fatalf("ParseMonth(%q) = %q, %v; want the date's month", got, month, err)
		}
	})
}
