package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

// applyChanges writes journaled changes to YNAB, with as few requests as YNAB allows: one
// PATCH for every transaction edit, one POST for every transaction (re)created, one request
// per category or month figure and per deletion. It returns the changes as applied (ids of
// created transactions filled in). When a request fails after others succeeded, the outcome is
// partial and its note says exactly what was written and what was not.
func (h *handlers) applyChanges(ctx context.Context, p *ynab.Plan, changes []journal.Change, importPrefix string) (journal.Outcome, error) {
	out := journal.Outcome{Changes: append([]journal.Change(nil), changes...)}
	var done []string
	fail := func(what string, err error) (journal.Outcome, error) {
		if len(done) > 0 {
			out.Partial = true
			out.Note = fmt.Sprintf("written: %s; not written: %s (%v)", strings.Join(done, ", "), what, err)
		}
		return out, err
	}

	var edits []ynab.SaveTransaction
	var editLabels []string
	var creates []ynab.SaveTransaction
	var createAt []int
	for i, ch := range changes {
		switch ch.Kind {
		case kindTransaction:
			tx, err := saveTransaction(ch.ID, ch.After)
			if err != nil {
				return out, err
			}
			edits = append(edits, tx)
			editLabels = append(editLabels, ch.Label)
		case kindNewTx:
			tx, err := saveTransaction("", ch.After)
			if err != nil {
				return out, err
			}
			tx.ImportID = ynab.Some(fmt.Sprintf("%s:%d", importPrefix, i))
			creates = append(creates, tx)
			createAt = append(createAt, i)
		}
	}
	if len(edits) > 0 {
		if _, err := h.YNAB.UpdateTransactions(ctx, p.ID, edits); err != nil {
			return fail(strings.Join(editLabels, ", "), err)
		}
		done = append(done, editLabels...)
	}
	if len(creates) > 0 {
		res, err := h.YNAB.CreateTransactions(ctx, p.ID, creates)
		if err != nil {
			return fail(fmt.Sprintf("%d transaction(s) to create", len(creates)), err)
		}
		byImport := map[string]string{}
		for _, t := range res.Transactions {
			if t.ImportID != nil {
				byImport[*t.ImportID] = t.ID
			}
		}
		for k, i := range createAt {
			id := byImport[*creates[k].ImportID.Value]
			out.Changes[i].ID = id
			out.Changes[i].After = withField(out.Changes[i].After, "import_id", *creates[k].ImportID.Value)
			out.CreatedIDs = append(out.CreatedIDs, id)
			done = append(done, "created "+changes[i].Label)
		}
		out.ServerKnowledge = res.ServerKnowledge
	}
	for _, ch := range changes {
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
			return fail(ch.Label, err)
		}
		done = append(done, ch.Label)
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
