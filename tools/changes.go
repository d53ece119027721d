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
		if ch.Kind != kindTransaction {
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
	k, err := h.enterTransactions(ctx, p.ID, out.Changes)
	if err != nil {
		return out, err
	}
	out.ServerKnowledge = max(out.ServerKnowledge, k)
	for i, ch := range changes {
		var err error
		switch ch.Kind {
		case kindMonthCategory:
			var f struct{ Budgeted int64 }
			if err = json.Unmarshal(ch.After, &f); err == nil {
				_, err = h.YNAB.UpdateMonthCategory(ctx, p.ID, ch.Month, ch.ID, f.Budgeted)
			}
		case kindCategory:
			var cat ynab.SaveCategory
			if cat, err = saveCategory(ch.Before, ch.After); err == nil {
				_, err = h.YNAB.UpdateCategory(ctx, p.ID, ch.ID, cat)
			}
		case kindDeletedTx:
			_, err = h.YNAB.DeleteTransaction(ctx, p.ID, ch.ID)
		default:
			continue
		}
		if err != nil {
			return out, fmt.Errorf("%s: %w", ch.Label, err)
		}
		out.Changes[i].Outcome = journal.OutcomeApplied
	}
	return out, nil
}

// saveTransaction turns a change's fields into a transaction write.
func saveTransaction(id string, fields json.RawMessage) (ynab.SaveTransaction, error) {
	var f struct {
		AccountID  string           `json:"account_id"`
		Date       string           `json:"date"`
		Amount     ynab.Opt[int64]  `json:"amount"`
		PayeeID    ynab.Opt[string] `json:"payee_id"`
		PayeeName  ynab.Opt[string] `json:"payee_name"`
		CategoryID ynab.Opt[string] `json:"category_id"`
		Memo       ynab.Opt[string] `json:"memo"`
		Cleared    string           `json:"cleared"`
		Approved   ynab.Opt[bool]   `json:"approved"`
		FlagColor  ynab.Opt[string] `json:"flag_color"`
	}
	if err := json.Unmarshal(fields, &f); err != nil {
		return ynab.SaveTransaction{}, fmt.Errorf("a journaled transaction change is not readable: %w", err)
	}
	if f.FlagColor.Set && f.FlagColor.Value == nil {
		f.FlagColor = ynab.Some("") // YNAB clears a flag with ""
	}
	return ynab.SaveTransaction{ID: id, AccountID: f.AccountID, Date: f.Date, Amount: f.Amount, PayeeID: f.PayeeID,
		PayeeName: f.PayeeName, CategoryID: f.CategoryID, Memo: f.Memo, Cleared: f.Cleared, Approved: f.Approved,
		FlagColor: f.FlagColor}, nil
}

// saveCategory turns a category change into a PATCH: name and group as recorded; a target as
// far as YNAB's API can write it (goal_target, goal_target_date, goal_needs_whole_amount, and
// goal_frequency for a repeating need; no goal_type means no target).
func saveCategory(before, after json.RawMessage) (ynab.SaveCategory, error) {
	var f struct {
		Name                 ynab.Opt[string] `json:"name"`
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
	cat := ynab.SaveCategory{Name: f.Name, CategoryGroupID: f.CategoryGroupID}
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
