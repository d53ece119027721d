package bolt

import (
	"bytes"
	"testing"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/journal/storetest"
	"go.etcd.io/bbolt"
)

// The same operation cannot be linked as undone twice, even if two undos got past Prepare.
func TestSecondUndoneLinkIsRefused(t *testing.T) {
	j, _ := openTest(t)
	orig := mustPrepare(t, j, storetest.Draft("plan-1", "set_category_budget"))
	mustApplied(t, j, orig.ID, journal.Outcome{Requests: 1})
	var second journal.Operation
	for i := range 2 {
		undo := storetest.Draft("plan-1", "undo_operation")
		undo.UndoOf = orig.ID
		err := j.update(t.Context(), func(tx *bbolt.Tx) error { // past the checks of Prepare
			_, e, err := journal.PrepareEntry(undo)
			if err != nil {
				return err
			}
			op, err := j.prepare(tx, e)
			second = op
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			mustApplied(t, j, second.ID, journal.Outcome{Requests: 1})
		}
	}
	_, err := j.Applied(t.Context(), second.ID, journal.Outcome{Requests: 1})
	wantErr(t, err, journal.ErrAlreadyUndone)
	if got := mustGet(t, j, second.ID); got.Status != journal.StatusPrepared {
		t.Errorf("the refused undo is %s, want still prepared", got.Status)
	}
}

// Events are appended, never rewritten: every event stored stays byte for byte as it was.
func TestEventsAreNeverRewritten(t *testing.T) {
	j, path := openTest(t)
	a := mustPrepare(t, j, storetest.Draft("plan-1", "set_category_budget"))
	mustApplied(t, j, a.ID, journal.Outcome{Requests: 1})
	first := events(t, path)

	undo := storetest.Draft("plan-1", "undo_operation")
	undo.UndoOf = a.ID
	u := mustPrepare(t, j, undo)
	mustApplied(t, j, u.ID, journal.Outcome{Requests: 1})
	b := mustPrepare(t, j, storetest.Draft("plan-2", "flag_transactions"))
	if _, err := j.Failed(t.Context(), b.ID, "no", 0); err != nil {
		t.Fatal(err)
	}
	later := events(t, path)
	if len(later) != len(first)+5 {
		t.Fatalf("%d events, then %d: want 5 more", len(first), len(later))
	}
	for k, v := range first {
		if !bytes.Equal(later[k], v) {
			t.Errorf("event %s changed", idString([]byte(k)))
		}
	}
}

func events(t *testing.T, path string) map[string][]byte {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB(t, db)
	m := map[string][]byte{}
	err = db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketEvents).ForEach(func(k, v []byte) error {
			m[string(k)] = bytes.Clone(v)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
