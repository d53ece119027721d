package bolt

import (
	"encoding/json"
	"errors"
	"github.com/avenir-mcp/avenir/journal"
	"testing"
)

const byHand = "by the person, with avenir journal resolve"

// An import a crash cut off is resolved by the person's decision, recorded as an event that
// says how it was decided: applied (with no change known), or not applied (failed).
func TestResolveByHand(t *testing.T) {
	for _, tt := range []struct {
		name    string
		applied bool
		status  journal.Status
	}{
		{"applied", true, journal.StatusApplied},
		{"not applied", false, journal.StatusFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			crashed, path := openTest(t)
			cut := mustPrepare(t, crashed, importDraft("plan-1"))
			cli, err := OpenExistingWritable(path, testOptions())
			if err != nil {
				t.Fatal(err)
			}
			op, err := cli.ResolveByHand(t.Context(), cut.ID, tt.applied, byHand)
			if err != nil {
				t.Fatal(err)
			}
			if op.Status != tt.status || op.ResolvedBy != byHand || op.ReadBack || len(op.Changes) != 0 {
				t.Fatalf("resolved as %s by %q (read back %v, %d changes); want %s by %q", op.Status, op.ResolvedBy, op.ReadBack, len(op.Changes), tt.status, byHand)
			}
			if tt.applied && op.Note != "applied, as decided "+byHand+"; what it changed in YNAB is not recorded" ||
				!tt.applied && op.Error != "not applied, as decided "+byHand {
				t.Errorf("note %q, error %q", op.Note, op.Error)
			}
			last := op.Events[len(op.Events)-1]
			var data struct{ Decision, By string }
			if err := json.Unmarshal(last.Data, &data); err != nil {
				t.Fatal(err)
			}
			want := journal.OutcomeNotApplied
			if tt.applied {
				want = journal.OutcomeApplied
			}
			if last.Type != "resolved" || data.Decision != want || data.By != byHand {
				t.Errorf("last event %s %s", last.Type, last.Data)
			}
			if got := mustGet(t, crashed, cut.ID); got.Status != tt.status || got.ResolvedBy != byHand {
				t.Errorf("read back as %s by %q", got.Status, got.ResolvedBy)
			}
			replay(t, path) // the indexes and in_flight follow the new event
			if pending, err := crashed.Pending(t.Context()); err != nil || len(pending) != 0 {
				t.Errorf("still pending: %v, %v", pending, err)
			}
			if _, err := cli.ResolveByHand(t.Context(), cut.ID, !tt.applied, byHand); !errors.Is(err, journal.ErrNotPrepared) {
				t.Errorf("a second decision: %v, want ErrNotPrepared", err)
			}
		})
	}
}

// Only what recovery cannot settle is resolved by hand; everything else is refused and
// nothing is recorded.
func TestResolveByHandRefusals(t *testing.T) {
	j, path := openTest(t)
	cli, err := OpenExistingWritable(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	done := mustPrepare(t, j, importDraft("plan-1"))
	mustApplied(t, j, done.ID, journal.Outcome{Requests: 2})
	// Prepared by j, these are j's writes in flight; to cli (another session of this process)
	// their writer is gone, as after a restart.
	checkable := mustPrepare(t, j, testDraft("plan-1", "set_category_budget"))
	ownWrite := mustPrepare(t, j, importDraft("plan-1"))

	for _, tt := range []struct {
		name string
		by   *Journal
		id   string
		want error
	}{
		{"an applied operation", cli, done.ID, journal.ErrNotPrepared},
		{"one whose changes a read of YNAB can check", cli, checkable.ID, journal.ErrSelfSettling},
		{"one this process is still writing", j, ownWrite.ID, journal.ErrWriting},
		{"an unknown operation", cli, "01JD3Q6V5G8Y2ZQ4M7N9P0R1ST", journal.ErrNotFound},
		{"not an id", cli, "import", journal.ErrNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := events(t, path)
			_, err := tt.by.ResolveByHand(t.Context(), tt.id, true, byHand)
			wantErr(t, err, tt.want)
			if after := events(t, path); len(after) != len(before) {
				t.Errorf("%d events recorded by a refusal", len(after)-len(before))
			}
		})
	}
	if _, err := cli.ResolveByHand(t.Context(), ownWrite.ID, true, ""); err == nil {
		t.Error("a decision that does not say how it was made was recorded")
	}
	if _, err := OpenExistingWritable(path+".missing", testOptions()); !errors.Is(err, ErrNoJournal) {
		t.Errorf("OpenExistingWritable on no file: %v, want ErrNoJournal", err)
	}
}

// An import another running avenir is still writing is left to it.
func TestResolveByHandLeavesLiveWritersAlone(t *testing.T) {
	j, path := openTest(t)
	c := startChild(t, "hold-import", path)
	line := c.line(1)
	if line == "" {
		lines, err := c.wait()
		t.Fatalf("the child stopped: %v %q\n%s", err, lines, c.stderr.String())
	}
	reported := newReport()
	reported.add(t, []string{line})
	var id string
	for _, op := range reported.events {
		id = op
	}
	_, err := j.ResolveByHand(t.Context(), id, true, byHand)
	wantErr(t, err, journal.ErrWriting)
	if err := c.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.wait(); err != nil {
		t.Fatalf("the child failed: %v\n%s", err, c.stderr.String())
	}
	op, err := j.ResolveByHand(t.Context(), id, false, byHand)
	if err != nil || op.Status != journal.StatusFailed {
		t.Fatalf("once the writer was gone: %v, %v", op.Status, err)
	}
}
