// Package bolt is avenir's local journal (see package journal for what it records): one bbolt
// file on the person's machine, append-only, shared by the avenir processes that run there.
//
// # Sharing the file
//
// Servers and the CLI use one journal at once, but bbolt locks its file for as long as it is
// open. So a Journal opens the file for each transaction and closes it after, waiting at most
// Options.LockTimeout for another process (ErrBusy after that), and no longer than the
// call's context allows. Reads take a shared lock and writes an exclusive one, first on
// journal.lock in the folder beside the journal (<journal>.locks, which also holds the plans'
// write locks: LockPlan), where a waiting process is woken as soon as the lock is free, then
// bbolt's own; every commit is fsync'd. Before it is written to, a file is checked read-only:
// a foreign, damaged (cut short) or newer file is refused and never changed.
//
// A new journal is built under a temporary name in the same directory (0700) and linked into
// place (0600), so its path holds either nothing or a complete journal.
//
// # Bucket layout (schema version 1)
//
// Every id is a ULID; as a key it is its 16 bytes, most significant first, so byte order is
// time order. An operation's id is the id of its "prepared" event.
//
//	meta                     "format" → "avenir journal"; "schema_version" → "1" (decimal)
//	events                   event id → the Event as JSON (id, time, operation, type, data)
//	ops                      operation id → the ids of its events, in order, 16 bytes each
//	by_plan/<plan id>        operation id → empty
//	by_tool/<tool>           operation id → empty
//	by_status/<status>       operation id → empty
//	in_flight                operation id → {"pid", "session"} of the process writing it
//
// Only events are facts. The ops list, the three indexes (one sub-bucket per value) and
// in_flight are kept in the same transaction as the event that changes them, and all of them
// can be rebuilt by replaying the events in key order — except in_flight, which says who is
// writing a prepared operation right now and is dropped when the operation leaves prepared;
// without it, a prepared operation counts as abandoned. The ops bucket doubles as the time
// index: List walks one index back from its newest key and stops at its limit or at Since.
//
// Event ids follow the order of commits: an id drawn by one process that is not after the
// journal's last event (another process drew a larger one in the same millisecond, or the clock
// was set back) is replaced by the last id plus one. An event's Time is the clock's reading.
package bolt
