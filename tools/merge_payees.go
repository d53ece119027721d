package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var mergePayeesTool = mcp.Tool{
	Name:        "merge_payees",
	Title:       "Merge payees",
	Description: "Move every transaction and schedule of some payees to another; the merged ones stay. Undoable." + confirmDescription,
	Meta:        cardMeta,
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type mergePayeesIn struct {
	planArg
	Payees []string `json:"payees" jsonschema:"merged away"`
	Into   string   `json:"into" jsonschema:"the payee that stays"`
	confirmArg
}

// mergeSubject is merge_payees' subject: the payee kept, and those merged into it.
type mergeSubject struct {
	PayeeID string   `json:"payee_id"`
	Merged  []string `json:"merged_payee_ids"`
}

// maxMergedPayees bounds one call's list of payees.
const maxMergedPayees = 100

func (h *handlers) mergePayees(ctx context.Context, req *mcp.CallToolRequest, in mergePayeesIn) (*mcp.CallToolResult, writeOut, error) {
	switch n := len(in.Payees); {
	case n == 0:
		return nil, writeOut{}, errors.New("payees: the list is empty; name at least one payee to merge into the other")
	case n > maxMergedPayees:
		return nil, writeOut{}, fmt.Errorf("payees: %d payees is more than the %d one call may merge; send them in several calls", n, maxMergedPayees)
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		into, err := ownPayee(p, "into", in.Into)
		if err != nil {
			return nil, err
		}
		subject := mergeSubject{PayeeID: into.ID}
		var names []string
		seen := map[string]int{}
		for i, ref := range in.Payees {
			arg := fmt.Sprintf("payees[%d]", i)
			y, err := ownPayee(p, arg, ref)
			switch {
			case err != nil:
				return nil, err
			case y.ID == into.ID:
				return nil, fmt.Errorf("%s: %s is the payee they are merged into (into); leave it out of payees", arg, y.Name)
			}
			if j, dup := seen[y.ID]; dup {
				return nil, fmt.Errorf("%s: %s is already in payees[%d]; name each payee once", arg, y.Name, j)
			}
			seen[y.ID] = i
			subject.Merged = append(subject.Merged, y.ID)
			names = append(names, "‘"+y.Name+"’")
		}
		ed := &edit{plan: p, tool: mergePayeesTool.Name, subject: subject}
		var kept []string
		schedules := 0
		for _, id := range subject.Merged {
			txs, scheduled := payeeUse(p, id)
			for _, t := range txs {
				ch := editChange(t.ID, txLabel(p, t), "payee_id", t.PayeeID, into.ID)
				ed.changes = append(ed.changes, ch)
				ed.lines = append(ed.lines, describeChange(p, ch))
			}
			for _, s := range scheduled {
				label := scheduledLabel(p, s)
				if !slices.Contains(ynab.WritableFrequencies, s.Frequency) {
					kept = append(kept, fmt.Sprintf("%s (it repeats %s)", label, s.Frequency))
					continue
				}
				schedules++
				ch := journal.Change{Kind: journal.KindScheduled, ID: s.ID, Label: "scheduled " + label,
					Before: fieldsJSON(map[string]any{"payee_id": s.PayeeID}), After: fieldsJSON(map[string]any{"payee_id": into.ID})}
				ed.changes = append(ed.changes, ch)
				ed.lines = append(ed.lines, describeChange(p, ch))
			}
		}
		n := len(ed.changes) - schedules
		if len(ed.changes) == 0 {
			return nil, fmt.Errorf("payees: %s %s no transactions or scheduled transactions YNAB's API can move: nothing to merge", strings.Join(names, ", "), hasHave(len(names)))
		}
		ed.first = fmt.Sprintf("Merge %d payee(s) into ‘%s’ (%d transaction(s))?", len(subject.Merged), into.Name, n)
		if schedules > 0 {
			ed.notes = append(ed.notes, fmt.Sprintf("%d scheduled transaction(s) move too (one request each).", schedules))
		}
		if len(kept) > 0 {
			ed.notes = append(ed.notes, "Left as they are: YNAB's API cannot change a scheduled transaction that repeats so: "+strings.Join(kept, "; ")+". Change their payee in YNAB.")
		}
		if lines := linesOf(p, subject.Merged); lines > 0 {
			ed.notes = append(ed.notes, fmt.Sprintf("%d split line(s) keep their payee: YNAB's API cannot change a split's lines.", lines))
		}
		ed.notes = append(ed.notes, fmt.Sprintf("%s stay in YNAB, unused: its API cannot delete a payee (delete them in YNAB if you like; an undo does not need them gone).", strings.Join(names, ", ")))
		return h.appliedAsJournaled(ed)
	}
	args, code := splitCode(in)
	return h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
}

// linesOf counts the live split lines (of transactions and scheduled ones) whose payee is one of ids.
func linesOf(p *ynab.Plan, ids []string) int {
	n := 0
	for _, s := range p.Subtransactions {
		if !s.Deleted && slices.Contains(ids, str(s.PayeeID)) {
			n++
		}
	}
	for _, s := range p.ScheduledSubtransactions {
		if !s.Deleted && slices.Contains(ids, str(s.PayeeID)) {
			n++
		}
	}
	return n
}

func hasHave(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}
