// Package journal is avenir's memory of everything it wrote to YNAB: what was asked, how the
// person confirmed it, the state before and after, and what YNAB answered. It is what makes
// undo possible and lets a person see what an assistant did, so it never loses, rewrites or
// invents an entry.
//
// # Events and operations
//
// The truth is an append-only sequence of events, keyed by ULID. An Operation is the
// projection of its events, replayed each time it is read:
//
//	prepared   the Draft, durable before YNAB is called (write-ahead)
//	applied    YNAB's answer (Outcome): status applied, or partial
//	failed     why YNAB did not apply it: status failed
//	recovered  what YNAB showed at the next start, for an operation whose writer stopped
//	           before it recorded the outcome: status applied, or failed ("not applied: …")
//	resolved   the outcome a person decided after looking in YNAB, for a prepared operation
//	           recovery cannot settle (ResolveByHand): status applied, or failed
//	undone     the operation that undid this one (at most one)
//
// A write is Prepare, then Applied or Failed. An operation whose writer was killed stays
// prepared until Recover, at the next start, asks YNAB through a Checker; one that recorded no
// change before YNAB was called (an import: what comes in is YNAB's to choose) gives a Checker
// nothing to look for, and stays prepared until a person resolves it.
//
// # Stores
//
// This package is the domain: operations, changes, their events and the projection, the kinds
// of change, and the Store interface with the checks every store makes before it appends an
// event (the Entry functions, CheckUndo, RefuseByHand), so that stores record the same facts in
// the same words. It knows no storage: journal/bolt is the local bbolt file, journal/pg the
// PostgreSQL journal of hosted mode, and journal/storetest the one suite both pass.
package journal
