// Package pg keeps the journal of avenir hosted in one PostgreSQL database (through pgx) that
// every instance shares: Journals, a journal.Store per person. It lives in a schema of its own
// (avenir_journal) with its own schema_migrations table, beside the other parts' (auth's, the
// confirmation store's in confirm/pg); OpenJournal migrates it at start, under an advisory lock
// so that instances starting together migrate once, and refuses a schema a newer avenir
// migrated.
//
// # The journal
//
// The same events and projections as the bbolt journal (package journal's doc says what each
// event means): an Operation is journal.Project of its events, and each event is made and
// checked by the journal package's Entry functions, so that both journals record the same
// facts in the same words. The events table holds each journal.Event as the JSON the bbolt
// journal stores, keyed by (person, ULID); rows are appended, never updated or deleted.
// operations (one row per "prepared" event: plan, tool, time, undo target) and outcomes (one
// row per operation whose outcome is known, and its status) are indexes of the events, written
// in the same transaction, so List filters and orders in the database.
//
// Every row names its person, and every query selects by it: a person's journal (For) never
// reads, lists or changes another's operations; another person's operation id is
// journal.ErrNotFound.
//
// A person's writes are serialised by a transaction advisory lock on the person, on every
// instance: event ids then follow the order of commits (an id not after the person's newest is
// replaced by it plus one, as in the bbolt journal), and each event is checked against the
// operation as the commits before left it. Prepare returns once "prepared" is committed. Event
// times are kept to the microsecond, as timestamptz keeps them.
//
// # Plans' locks and recovery
//
// LockPlan is a session advisory lock keyed by the person and the plan, held on a connection
// of its own until unlock, and waited for in PostgreSQL under a lock_timeout of the wait; a
// session that ends, with its process or its connection, releases it. A Prepare while this
// instance holds the plan's lock runs on that lock's connection, so that a lock lost with its
// connection fails the write before YNAB is called. (A lock lost later, while YNAB is called,
// is not noticed until unlock: another instance may then write to the plan at the same time.)
// Each lock held keeps one of the pool's connections; the pool must be larger than the writes
// an instance runs at once. Connections must be sessions of their own: behind a pooler such as
// PgBouncer, session pooling, never transaction pooling, under which session locks mean
// nothing.
//
// A write (Prepare, Applied, Answered…) is two round trips to the database: the transaction's
// start with its reads, then its rows with the commit.
//
// An operation left prepared is settled (Recover, ResolveByHand) only under its plan's lock
// and when this instance is not writing it itself: writers prepare under the lock and keep it
// until the outcome is recorded, so an operation of a plan nobody else holds has no writer
// left. (The bbolt journal asks whether the writer's process is alive instead, which instances
// on other machines cannot.) Journals.Unsettled names the people with operations left
// prepared, for an instance to recover at start.
package pg
