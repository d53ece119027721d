package bolt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/journal/storetest"
	"go.etcd.io/bbolt"
)

func TestOpenCreatesPrivateJournal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "avenir")
	path := filepath.Join(dir, "journal.db")
	j, err := Open(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, path: 0o600} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode() != want {
			t.Errorf("%s has mode %v, want %v", p, info.Mode(), want)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "journal.db" && e.Name() != "journal.db.locks" {
			t.Errorf("the directory holds %s, want only the journal and its locks", e.Name())
		}
	}
	op := mustPrepare(t, j, storetest.Draft("plan-1", "set_category_budget"))

	again, err := Open(path, testOptions())
	if err != nil {
		t.Fatalf("reopening: %v", err)
	}
	if _, err := again.Get(t.Context(), op.ID); err != nil {
		t.Errorf("the reopened journal lost %s: %v", op.ID, err)
	}
}

func TestOpenExistingNeverCreates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "avenir")
	path := filepath.Join(dir, "journal.db")
	_, err := OpenExisting(path, Options{})
	wantErr(t, err, ErrNoJournal)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenExisting created %s", dir)
	}
}

func TestOpenExistingIsReadOnly(t *testing.T) {
	w, path := openTest(t)
	op := mustPrepare(t, w, storetest.Draft("plan-1", "set_category_budget"))
	before := fileState(t, path)

	r, err := OpenExisting(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Prepare(t.Context(), storetest.Draft("plan-1", "set_category_budget")); err == nil {
		t.Error("a read-only journal accepted a new operation")
	}
	if _, err := r.Applied(t.Context(), op.ID, journal.Outcome{}); err == nil {
		t.Error("a read-only journal recorded an outcome")
	}
	if got, err := r.Get(t.Context(), op.ID); err != nil || got.ID != op.ID {
		t.Errorf("Get = %v, %v", got.ID, err)
	}
	if fileState(t, path) != before {
		t.Error("reading changed the file")
	}
}

// A file avenir cannot use is refused with a clear error and left exactly as it was, whether
// a server or the CLI opens it.
func TestRefusedFilesAreLeftUntouched(t *testing.T) {
	cases := []struct {
		name   string
		make   func(t *testing.T, path string)
		want   error
		reason string
	}{
		{"empty file", func(t *testing.T, path string) { write(t, path, nil) }, ErrNotJournal, "it is empty"},
		{"text file", func(t *testing.T, path string) {
			write(t, path, []byte(strings.Repeat("avenir is not this file\n", 1000)))
		}, ErrNotJournal, "invalid database"},
		{"another program's bbolt file", func(t *testing.T, path string) {
			db, err := bbolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = db.Update(func(tx *bbolt.Tx) error {
				b, err := tx.CreateBucket([]byte("settings"))
				if err != nil {
					return err
				}
				return b.Put([]byte("theme"), []byte("dark"))
			})
			if err := errors.Join(err, db.Close()); err != nil {
				t.Fatal(err)
			}
		}, ErrNotJournal, "no avenir meta data"},
		{"truncated journal", func(t *testing.T, path string) {
			j, err := Open(path, testOptions())
			if err != nil {
				t.Fatal(err)
			}
			for range 40 {
				mustPrepare(t, j, storetest.Draft("plan-1", "set_category_budget"))
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, info.Size()/2); err != nil {
				t.Fatal(err)
			}
		}, ErrNotJournal, "cut short"},
		{"newer schema", func(t *testing.T, path string) {
			if _, err := Open(path, testOptions()); err != nil {
				t.Fatal(err)
			}
			setMeta(t, path, keySchemaVersion, "2")
		}, journal.ErrNewerSchema, "schema 2; this avenir reads schema 1 at most"},
		{"invalid schema", func(t *testing.T, path string) {
			if _, err := Open(path, testOptions()); err != nil {
				t.Fatal(err)
			}
			setMeta(t, path, keySchemaVersion, "one")
		}, ErrNotJournal, `schema version "one"`},
		{"directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}, ErrNotJournal, "not a regular file"},
	}
	opens := map[string]func(string, Options) (*Journal, error){"Open": Open, "OpenExisting": OpenExisting}
	for _, c := range cases {
		for name, open := range opens {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "journal.db")
				c.make(t, path)
				var before string
				if c.name != "directory" {
					before = fileState(t, path)
				}
				_, err := open(path, Options{})
				wantErr(t, err, c.want)
				for _, part := range []string{path, c.reason, "left untouched"} {
					if !strings.Contains(err.Error(), part) {
						t.Errorf("error %q does not say %q", err, part)
					}
				}
				if c.name != "directory" && fileState(t, path) != before {
					t.Error("the refused file was changed")
				}
			})
		}
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func setMeta(t *testing.T, path string, key []byte, value string) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error { return tx.Bucket(bucketMeta).Put(key, []byte(value)) })
	if err := errors.Join(err, db.Close()); err != nil {
		t.Fatal(err)
	}
}

// Another process holding the file past the timeout makes every call fail with ErrBusy
// instead of waiting for ever; once it lets go, the journal works again.
func TestBusyJournalTimesOut(t *testing.T) {
	j, path := openTest(t)
	op := mustPrepare(t, j, storetest.Draft("plan-1", "set_category_budget"))
	holder, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	busy, err := Open(path, Options{LockTimeout: 50 * time.Millisecond})
	wantErr(t, err, ErrBusy)
	if busy != nil {
		t.Error("Open returned a journal with its error")
	}
	short := *j
	short.lockTimeout = 50 * time.Millisecond
	_, err = short.Applied(t.Context(), op.ID, journal.Outcome{Requests: 1})
	wantErr(t, err, ErrBusy)
	_, err = short.List(t.Context(), journal.Filter{})
	wantErr(t, err, ErrBusy)

	if err := holder.Close(); err != nil {
		t.Fatal(err)
	}
	if got := mustApplied(t, &short, op.ID, journal.Outcome{Requests: 1}); got.Status != journal.StatusApplied {
		t.Errorf("status = %s after the lock was released", got.Status)
	}
}

// A call waits for another process's lock no longer than its context allows: a caller that
// goes away, or whose deadline comes before the lock timeout, is not kept waiting.
func TestBusyJournalEndsWithTheContext(t *testing.T) {
	j, _ := openTest(t)
	op := mustPrepare(t, j, storetest.Draft("plan-1", "set_category_budget"))
	unlock, err := lockFile(t.Context(), filepath.Join(j.lockDir(), "journal.lock"), true, true)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()

	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err = j.Applied(ctx, op.ID, journal.Outcome{Requests: 1})
	wantErr(t, err, context.Canceled)
	ctx, cancel = context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err = j.List(ctx, journal.Filter{})
	wantErr(t, err, context.DeadlineExceeded)
	if waited := time.Since(start); waited > 2*time.Second {
		t.Errorf("the calls waited %s, past their contexts (the lock timeout is %s)", waited, j.lockTimeout)
	}
}

// Servers that start at once on a missing journal end up sharing one journal.
func TestConcurrentCreation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "avenir", "journal.db")
	const n = 8
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			j, err := Open(path, Options{})
			if err != nil {
				t.Error(err)
				return
			}
			op, err := j.Prepare(t.Context(), storetest.Draft("plan-1", "set_category_budget"))
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = op.ID
		})
	}
	wg.Wait()
	ops := replay(t, path)
	for _, id := range ids {
		if ops[id] == nil {
			t.Errorf("operation %s is missing", id)
		}
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "journal.db" && e.Name() != "journal.db.locks" {
			t.Errorf("the directory holds %s, want only the journal and its locks", e.Name())
		}
	}
}

// A journal removed while a server runs is not silently replaced by an empty one.
func TestVanishedJournalIsNotRecreated(t *testing.T) {
	j, path := openTest(t)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	_, err := j.Prepare(t.Context(), storetest.Draft("plan-1", "set_category_budget"))
	wantErr(t, err, ErrNoJournal)
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Error("a write recreated the journal")
	}
}
