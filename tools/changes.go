package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

// applyChanges writes journaled changes (an undo's inverse) with as few requests as YNAB allows:
// the transaction edits in one PATCH, the transactions to enter again in one POST (without
// import ids, as a person enters them), then each assigned amount, category and deletion. Each
// change is marked applied as YNAB's answer shows it; at the first request that fails it stops
// and returns that error, and the write path settles the rest by reading YNAB.
func (h *handlers) applyChanges(ctx context.Context, p *ynab.Plan, changes []journal.Change) (journal.Outcome, error) {
	out := journal.Outcome{Changes: slices.Clone(changes)}
	var edits []ynab.SaveTransaction
	var editAt []int
	for i, ch := range changes {
		if ch.Kind != journal.KindTransaction {
			continue
		}
		tx, err := saveTransaction(ch.ID, ch.After)
		if err != nil {
			return out, err
		}
		edits = append(edits, tx)
		editAt = append(editAt, i)
	}
	if len(edits) > 0 {
		res, err := h.YNAB.UpdateTransactions(ctx, p.ID, edits)
		if err != nil {
			return out, err
		}
		for _, i := range editAt {
			out.Changes[i].Outcome = journal.OutcomeApplied
		}
		out.ServerKnowledge = res.ServerKnowledge
	}
	res, err := h.enter(ctx, p.ID, out.Changes)
	if err != nil {
		return out, err
	}
	out.ServerKnowledge = max(out.ServerKnowledge, res.ServerKnowledge)
	k, err := h.restoreOtherSides(ctx, p.ID, changes, out.Changes, res)
	if err != nil {
		return out, err
	}
	out.ServerKnowledge = max(out.ServerKnowledge, k)
	for i, ch := range changes {
		if err := h.applyOne(ctx, p, &out.Changes[i]); err != nil {
			return out, fmt.Errorf("%s: %w", ch.Label, err)
		}
	}
	return out, nil
}

// appliedAsJournaled makes ed apply its journaled changes as they are (applyChanges): the writes whose
// changes say all there is to send.
func (h *handlers) appliedAsJournaled(ed *edit) (*edit, error) {
	ed.apply = func(ctx context.Context) (journal.Outcome, error) { return h.applyChanges(ctx, ed.plan, ed.changes) }
	return ed, nil
}

// applyOne writes one change of a kind YNAB writes one at a time, and marks it applied (with
// the id YNAB gave a created thing). Transaction edits and creations are not its business.
func (h *handlers) applyOne(ctx context.Context, p *ynab.Plan, ch *journal.Change) error {
	if ch.EnteredBy != "" { // an earlier identical call created it: it is in YNAB already
		ch.Outcome = journal.OutcomeApplied
		return nil
	}
	var err error
	switch ch.Kind {
	case journal.KindMonthCategory:
		var f struct{ Budgeted int64 }
		if err = json.Unmarshal(ch.After, &f); err == nil {
			_, err = h.YNAB.UpdateMonthCategory(ctx, p.ID, ch.Month, ch.ID, f.Budgeted)
		}
	case journal.KindCategory:
		var cat ynab.SaveCategory
		if cat, err = saveCategory(ch.Before, ch.After); err == nil {
			_, err = h.YNAB.UpdateCategory(ctx, p.ID, ch.ID, cat)
		}
	case journal.KindDeletedTransaction:
		_, err = h.YNAB.DeleteTransaction(ctx, p.ID, ch.ID)
	case journal.KindCategoryGroup, journal.KindNewCategoryGroup:
		var f ynab.SaveCategoryGroup
		if err = json.Unmarshal(ch.After, &f); err != nil {
			break
		}
		var res ynab.SaveCategoryGroupResult
		if ch.Kind == journal.KindCategoryGroup {
			res, err = h.YNAB.UpdateCategoryGroup(ctx, p.ID, ch.ID, f)
		} else {
			res, err = h.YNAB.CreateCategoryGroup(ctx, p.ID, f)
			ch.ID = res.CategoryGroup.ID
		}
	case journal.KindPayee:
		var f ynab.SavePayee
		if err = json.Unmarshal(ch.After, &f); err == nil {
			_, err = h.YNAB.UpdatePayee(ctx, p.ID, ch.ID, f)
		}
	case journal.KindNewAccount:
		var f ynab.SaveAccount
		if err = json.Unmarshal(ch.After, &f); err == nil {
			var res ynab.SaveAccountResult
			res, err = h.YNAB.CreateAccount(ctx, p.ID, f)
			ch.ID = res.Account.ID
		}
	case journal.KindScheduled, journal.KindNewScheduled:
		var st ynab.SaveScheduledTransaction
		if st, err = saveScheduled(p, ch); err != nil {
			break
		}
		var res ynab.ScheduledTransaction
		if ch.Kind == journal.KindScheduled {
			_, err = h.YNAB.UpdateScheduledTransaction(ctx, p.ID, ch.ID, st)
		} else if res, err = h.YNAB.CreateScheduledTransaction(ctx, p.ID, st); err == nil {
			ch.ID = res.ID
		}
	case journal.KindDeletedScheduled:
		_, err = h.YNAB.DeleteScheduledTransaction(ctx, p.ID, ch.ID)
	default:
		return nil
	}
	if err != nil {
		return err
	}
	ch.Outcome = journal.OutcomeApplied
	return nil
}

// restoreOtherSides gives the other side of each transfer entered again (an undo of a delete)
// what it had of its own — cleared, approved, flag, memo, category — with one PATCH: YNAB
// enters that side itself, with its own defaults. The changes record what was written.
func (h *handlers) restoreOtherSides(ctx context.Context, planID string, planned, cs []journal.Change, res ynab.SaveTransactionsResult) (int64, error) {
	var save []ynab.SaveTransaction
	var at []int
	var sides []json.RawMessage
	for i, ch := range planned {
		var f struct {
			Transfer json.RawMessage `json:"transfer"`
		}
		if ch.Kind != journal.KindNewTransaction || cs[i].Outcome != journal.OutcomeApplied || json.Unmarshal(ch.After, &f) != nil || len(f.Transfer) == 0 || string(f.Transfer) == "null" {
			continue
		}
		for _, t := range res.Transactions {
			if t.ID == cs[i].ID && t.TransferTransactionID != nil {
				side, err := saveTransaction(*t.TransferTransactionID, f.Transfer)
				if err != nil {
					return 0, err
				}
				save, at, sides = append(save, side), append(at, i), append(sides, f.Transfer)
			}
		}
	}
	if len(save) == 0 {
		return 0, nil
	}
	r, err := h.YNAB.UpdateTransactions(ctx, planID, save)
	if err != nil {
		return 0, fmt.Errorf("the transfer(s) were entered again, but giving their other side back its own fields failed: %w", err)
	}
	for k, i := range at {
		cs[i].After = withField(cs[i].After, "transfer", sides[k])
	}
	return r.ServerKnowledge, nil
}

// saveTransaction turns a change's fields into a transaction write.
func saveTransaction(id string, fields json.RawMessage) (ynab.SaveTransaction, error) {
	var f struct {
		AccountID       string                    `json:"account_id"`
		Date            string                    `json:"date"`
		Amount          ynab.Opt[int64]           `json:"amount"`
		PayeeID         ynab.Opt[string]          `json:"payee_id"`
		PayeeName       ynab.Opt[string]          `json:"payee_name"`
		CategoryID      ynab.Opt[string]          `json:"category_id"`
		Memo            ynab.Opt[string]          `json:"memo"`
		Cleared         string                    `json:"cleared"`
		Approved        ynab.Opt[bool]            `json:"approved"`
		FlagColor       ynab.Opt[string]          `json:"flag_color"`
		Subtransactions []ynab.SaveSubTransaction `json:"subtransactions"`
	}
	if err := json.Unmarshal(fields, &f); err != nil {
		return ynab.SaveTransaction{}, fmt.Errorf("a journaled transaction change is not readable: %w", err)
	}
	if f.FlagColor.Set && f.FlagColor.Value == nil {
		f.FlagColor = ynab.Some("") // YNAB clears a flag with ""
	}
	if f.PayeeID.Value != nil {
		f.PayeeName = ynab.Opt[string]{} // the id wins; a name recorded beside it is for reading back only
	}
	return ynab.SaveTransaction{ID: id, AccountID: f.AccountID, Date: f.Date, Amount: f.Amount, PayeeID: f.PayeeID,
		PayeeName: f.PayeeName, CategoryID: f.CategoryID, Memo: f.Memo, Cleared: f.Cleared, Approved: f.Approved,
		FlagColor: f.FlagColor, Subtransactions: f.Subtransactions}, nil
}

// saveScheduled is the write of a scheduled transaction change: every field it has, those of
// the change over those YNAB holds now (so the PUT does not depend on whether YNAB keeps a field
// left out).
func saveScheduled(p *ynab.Plan, ch *journal.Change) (ynab.SaveScheduledTransaction, error) {
	fields := ch.After
	if s := scheduledByID(p, ch.ID); s != nil && ch.Kind == journal.KindScheduled {
		base, _ := json.Marshal(scheduledFields(p, s))
		var over map[string]json.RawMessage
		if err := json.Unmarshal(ch.After, &over); err != nil {
			return ynab.SaveScheduledTransaction{}, fmt.Errorf("a journaled scheduled transaction change is not readable: %w", err)
		}
		if _, ok := over["payee_name"]; ok {
			base = withField(base, "payee_id", nil) // a payee named anew replaces the one it has
		}
		if _, ok := over["payee_id"]; ok {
			base = withField(base, "payee_name", nil)
		}
		for k, v := range over {
			base = withField(base, k, v)
		}
		fields = base
	}
	var f struct {
		AccountID  string           `json:"account_id"`
		Date       string           `json:"date"`
		Frequency  string           `json:"frequency"`
		Amount     ynab.Opt[int64]  `json:"amount"`
		PayeeID    ynab.Opt[string] `json:"payee_id"`
		PayeeName  ynab.Opt[string] `json:"payee_name"`
		CategoryID ynab.Opt[string] `json:"category_id"`
		Memo       ynab.Opt[string] `json:"memo"`
		FlagColor  ynab.Opt[string] `json:"flag_color"`
	}
	if err := json.Unmarshal(fields, &f); err != nil {
		return ynab.SaveScheduledTransaction{}, fmt.Errorf("a journaled scheduled transaction change is not readable: %w", err)
	}
	if f.PayeeID.Value != nil || f.PayeeName.Value == nil {
		f.PayeeName = ynab.Opt[string]{}
	} else {
		f.PayeeID = ynab.Opt[string]{}
	}
	return ynab.SaveScheduledTransaction{AccountID: f.AccountID, Date: f.Date, Frequency: f.Frequency, Amount: f.Amount,
		PayeeID: f.PayeeID, PayeeName: f.PayeeName, CategoryID: f.CategoryID, Memo: f.Memo, FlagColor: f.FlagColor}, nil
}

// saveCategory turns a category change into a PATCH: name and group as recorded; a target as
// far as YNAB's API can write it (goal_target, goal_target_date, goal_needs_whole_amount, and
// goal_frequency for a repeating need; no goal_type means no target).
func saveCategory(before, after json.RawMessage) (ynab.SaveCategory, error) {
	var f struct {
		Name                 ynab.Opt[string] `json:"name"`
		Note                 ynab.Opt[string] `json:"note"`
		CategoryGroupID      string           `json:"category_group_id"`
		GoalType             ynab.Opt[string] `json:"goal_type"`
		GoalTarget           ynab.Opt[int64]  `json:"goal_target"`
		GoalTargetDate       ynab.Opt[string] `json:"goal_target_date"`
		GoalNeedsWholeAmount ynab.Opt[bool]   `json:"goal_needs_whole_amount"`
		GoalCadence          ynab.Opt[int]    `json:"goal_cadence"`
		GoalCadenceFrequency ynab.Opt[int]    `json:"goal_cadence_frequency"`
	}
	if err := json.Unmarshal(after, &f); err != nil {
		return ynab.SaveCategory{}, fmt.Errorf("a journaled category change is not readable: %w", err)
	}
	cat := ynab.SaveCategory{Name: f.Name, Note: f.Note, CategoryGroupID: f.CategoryGroupID}
	if !f.GoalType.Set {
		return cat, nil
	}
	if f.GoalType.Value == nil || f.GoalTarget.Value == nil {
		cat.GoalTarget = ynab.Null[int64]()
		return cat, nil
	}
	cat.GoalTarget = f.GoalTarget
	if f.GoalTargetDate.Value != nil {
		cat.GoalTargetDate = f.GoalTargetDate
	}
	if f.GoalNeedsWholeAmount.Value != nil && *f.GoalType.Value == ynab.GoalNeed {
		cat.GoalNeedsWholeAmount = f.GoalNeedsWholeAmount
	}
	if freq := frequencyOf(f.GoalCadence.Value, f.GoalCadenceFrequency.Value); freq != "" && f.GoalTargetDate.Value == nil {
		cat.GoalFrequency = freq
	}
	return cat, nil
}

// frequencyOf maps YNAB's goal cadence to the goal_frequency the API accepts, or "" when the
// cadence has no such name (every other month, every 2 years, …).
func frequencyOf(cadence, every *int) string {
	if cadence == nil || (every != nil && *every > 1) {
		return ""
	}
	switch *cadence {
	case 1:
		return "monthly"
	case 2:
		return "weekly"
	case 13:
		return "yearly"
	}
	return ""
}

// withField returns fields with one more field set.
func withField(fields json.RawMessage, name string, value any) json.RawMessage {
	m := map[string]any{}
	_ = json.Unmarshal(fields, &m)
	m[name] = value
	b, _ := json.Marshal(m)
	return b
}

// undoNotes are what an undo's preview says beyond its lines where its effect differs from
// putting fields back: what is entered again comes back under new ids.
func undoNotes(inverse []journal.Change) []string {
	var again int
	for _, ch := range inverse {
		if ch.Kind == journal.KindNewTransaction || ch.Kind == journal.KindNewScheduled {
			again++
		}
	}
	if again == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d deleted thing(s) are entered again, under new ids: YNAB keeps nothing deleted to restore.", again)}
}

// enteredAgain lists the ids YNAB gave what an applied undo entered again.
func enteredAgain(out writeOut) []string {
	op, ok := out.applied()
	if !ok {
		return nil
	}
	var ids []string
	for _, c := range op.Changes {
		if (c.Kind == journal.KindNewTransaction || c.Kind == journal.KindNewScheduled) && c.ID != "" && c.Outcome == journal.OutcomeApplied {
			ids = append(ids, c.ID)
		}
	}
	return ids
}
