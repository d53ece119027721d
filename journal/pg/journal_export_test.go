package pg

import "time"

// SetJournalClock makes js read the clock now, for tests that check times and ids. Call it
// before js is used.
func SetJournalClock(js *Journals, now func() time.Time) { js.now = now }
