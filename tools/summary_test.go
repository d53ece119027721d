package tools

import "testing"

func TestHappened(t *testing.T) {
	for _, c := range []struct{ first, want string }{
		{"Move 30.00 from Tennis to Restaurants for 2026-12-01?", "Moved 30.00 from Tennis to Restaurants for 2026-12-01"},
		{"Budget Restaurants for 2026-09-01: 120.00 → 150.00?", "Budgeted Restaurants for 2026-09-01: 120.00 → 150.00"},
		{"Recategorise 2 transaction(s)?", "Recategorised 2 transaction(s)"},
		{"Change the flag of 2 transaction(s)?", "Changed the flag of 2 transaction(s)"},
		{"Set the target of Vakantie: no target → 1200.00 by 2027-06-01?", "Set the target of Vakantie: no target → 1200.00 by 2027-06-01"},
		{"Create category ‘Huisdieren’ in Dagelijks?", "Created category ‘Huisdieren’ in Dagelijks"},
		{"Split 2026-09-12 Market 86.40 into 2 lines?", "Split 2026-09-12 Market 86.40 into 2 lines"},
		{"Reconcile Betaalrekening: mark 49 cleared transaction(s) reconciled?", "Reconciled Betaalrekening: mark 49 cleared transaction(s) reconciled"},
		{"Approve 3 transaction(s)?", "Approved 3 transaction(s)"},
		{"Import transactions from linked accounts?", "Imported transactions from linked accounts"},
		{"Schedule -45.00 to Tennisclub on Betaalrekening, monthly from 2027-01-05?", "Scheduled -45.00 to Tennisclub on Betaalrekening, monthly from 2027-01-05"},
		{"Rename payee ‘AH 1234 Amsterdam’ to ‘Albert Heijn’?", "Renamed payee ‘AH 1234 Amsterdam’ to ‘Albert Heijn’"},
		{"Merge 2 payee(s) into ‘Albert Heijn’ (14 transaction(s))?", "Merged 2 payee(s) into ‘Albert Heijn’ (14 transaction(s))"},
		{"Delete 2 transaction(s)?", "Deleted 2 transaction(s)"},
		{"Undo: recategorise 2 transaction(s)?", "Undone: recategorised 2 transaction(s)"},
		{"Redo: move 30.00 from Tennis to Restaurants for 2026-12-01?", "Redone: moved 30.00 from Tennis to Restaurants for 2026-12-01"},
		{"Import 12 statement line(s) into Betaalrekening: 7 new, 4 matched, 1 already imported?", "Imported 12 statement line(s) into Betaalrekening: 7 new, 4 matched, 1 already imported"},
		{"Frobnicate it?", "Frobnicate it"},
	} {
		if got := happened(c.first); got != c.want {
			t.Errorf("happened(%q) = %q, want %q", c.first, got, c.want)
		}
	}
}
