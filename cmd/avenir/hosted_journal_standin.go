package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/avenir-mcp/avenir/journal"
)

// STAND-IN until journal/pg's PostgreSQL journal (pg.OpenJournal) is merged: the same shape —
// one journal per person, For(person) — kept as one bbolt file per person in a folder of this
// machine's temporary directory named after the database, so that instances on one machine
// and one database share it (bbolt's file lock and the journal's plan lock work across
// processes), but instances on several machines do not. Delete this file when pg.OpenJournal
// arrives and call it from openHostedJournals.

// standinJournals is one bbolt journal per person under dir.
type standinJournals struct {
	dir string
	mu  sync.Mutex
	by  map[int64]*journal.Journal
}

// openHostedJournals opens the hosted journal on pool.
func openHostedJournals(_ context.Context, pool *pgxpool.Pool) (hostedJournals, error) {
	c := pool.Config().ConnConfig
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%s", c.Host, c.Port, c.Database))
	dir := filepath.Join(os.TempDir(), "avenir-hosted-journal-"+hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("making the journal folder: %w", err)
	}
	return &standinJournals{dir: dir, by: map[int64]*journal.Journal{}}, nil
}

// For returns a person's journal, opening it at first use. A journal that cannot be opened
// yields a store whose every call fails with that error.
func (s *standinJournals) For(person int64) journal.Store {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j, ok := s.by[person]; ok {
		return j
	}
	j, err := journal.Open(filepath.Join(s.dir, fmt.Sprintf("person-%d.db", person)), journal.Options{})
	if err != nil {
		return failedStore{err}
	}
	s.by[person] = j
	return j
}

// failedStore is a journal that could not be opened: every call fails with why.
type failedStore struct{ err error }

func (f failedStore) Prepare(journal.Draft) (journal.Operation, error) {
	return journal.Operation{}, f.err
}
func (f failedStore) Applied(string, journal.Outcome) (journal.Operation, error) {
	return journal.Operation{}, f.err
}
func (f failedStore) Failed(string, string, int) (journal.Operation, error) {
	return journal.Operation{}, f.err
}
func (f failedStore) Resolve(string, []journal.Change) (journal.Operation, error) {
	return journal.Operation{}, f.err
}
func (f failedStore) ResolveByHand(string, bool, string) (journal.Operation, error) {
	return journal.Operation{}, f.err
}
func (f failedStore) Answered(string) error                            { return f.err }
func (f failedStore) Get(string) (journal.Operation, error)            { return journal.Operation{}, f.err }
func (f failedStore) List(journal.Filter) ([]journal.Operation, error) { return nil, f.err }
func (f failedStore) Pending() ([]journal.Operation, error)            { return nil, f.err }
func (f failedStore) Recover(context.Context, journal.Checker) ([]journal.Operation, error) {
	return nil, f.err
}
func (f failedStore) LockPlan(context.Context, string, time.Duration) (func(), error) {
	return nil, f.err
}
