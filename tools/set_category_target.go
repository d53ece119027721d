package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var setCategoryTargetTool = mcp.Tool{
	Name:        "set_category_target",
	Title:       "Set or remove a category's target",
	Description: "Set or remove a category's target (an amount by a date, or a frequency). Undoable unless the preview warns." + confirmDescription,
	Meta:        cardMeta,
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type setCategoryTargetIn struct {
	planArg
	Category         string `json:"category"`
	Amount           Amount `json:"amount,omitzero" jsonschema:"more than zero"`
	Date             string `json:"date,omitempty" jsonschema:"needed by"`
	Frequency        string `json:"frequency,omitempty" jsonschema:"monthly, weekly or yearly"`
	NeedsWholeAmount *bool  `json:"needs_whole_amount,omitempty" jsonschema:"with frequency: set the whole amount aside"`
	Remove           bool   `json:"remove,omitempty"`
	confirmArg
}

// targetSubject is what the person confirms: the category and exactly the fields sent to YNAB.
type targetSubject struct {
	CategoryID           string `json:"category_id"`
	GoalTarget           *int64 `json:"goal_target"` // null removes the target
	GoalTargetDate       string `json:"goal_target_date,omitempty"`
	GoalFrequency        string `json:"goal_frequency,omitempty"`
	GoalNeedsWholeAmount *bool  `json:"goal_needs_whole_amount,omitempty"`
}

// save is the PATCH body for the subject.
func (s targetSubject) save() ynab.SaveCategory {
	cat := ynab.SaveCategory{GoalTarget: ynab.Null[int64](), GoalFrequency: s.GoalFrequency}
	if s.GoalTarget != nil {
		cat.GoalTarget = ynab.Some(*s.GoalTarget)
	}
	if s.GoalTargetDate != "" {
		cat.GoalTargetDate = ynab.Some(s.GoalTargetDate)
	}
	if s.GoalNeedsWholeAmount != nil {
		cat.GoalNeedsWholeAmount = ynab.Some(*s.GoalNeedsWholeAmount)
	}
	return cat
}

// YNAB's goal_cadence values for the periods goal_frequency names (see the API's Category).
const (
	cadenceMonthly = 1
	cadenceWeekly  = 2
	cadenceYearly  = 13
)

// frequencyCadence maps goal_frequency to the goal_cadence YNAB reports for it.
var frequencyCadence = map[string]int{"monthly": cadenceMonthly, "weekly": cadenceWeekly, "yearly": cadenceYearly}

func (h *handlers) setCategoryTarget(ctx context.Context, req *mcp.CallToolRequest, in setCategoryTargetIn) (*mcp.CallToolResult, writeOut, error) {
	if err := checkTargetArgs(&in); err != nil {
		return nil, writeOut{}, err
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		cat, err := spendableCategory(p, "category", in.Category)
		if err != nil {
			return nil, err
		}
		s, err := h.targetSubjectOf(p, cat, in)
		if err != nil {
			return nil, err
		}
		digits := Digits(currency(p))
		before := targetOf(cat)
		after := before.after(s)
		if bytes.Equal(before.fields(), after.fields()) && !confirming(ctx, req, in.Confirmation) {
			return nil, fmt.Errorf("%s already has that target (%s): nothing to change", cat.Name, before.words(digits))
		}
		ed := &edit{
			plan:    p,
			tool:    setCategoryTargetTool.Name,
			subject: s,
			first:   fmt.Sprintf("Set the target of %s: %s → %s?", cat.Name, before.words(digits), after.words(digits)),
			changes: []journal.Change{{
				Kind: journal.KindCategory, ID: cat.ID, Label: categoryLabel(p, cat.ID),
				Before: before.fields(), After: sentFields(s),
			}},
		}
		if !before.restorable() && !before.keepsKind(s) {
			ed.notes = append(ed.notes, fmt.Sprintf("Warning: undo could not restore the current target of %s (%s) exactly: YNAB's API cannot create a target of that kind.",
				cat.Name, before.words(digits)))
		}
		ed.apply = func(ctx context.Context) (journal.Outcome, error) {
			res, err := h.YNAB.UpdateCategory(ctx, p.ID, cat.ID, s.save())
			ch := ed.changes[0]
			ch.After = targetOf(&res.Category).fields()
			return journal.Outcome{Changes: []journal.Change{ch}, ServerKnowledge: res.ServerKnowledge}, err
		}
		return ed, nil
	}
	args, code := splitCode(in)
	return h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
}

// checkTargetArgs refuses the combinations of arguments that describe no target YNAB's API can
// set, before anything is read.
func checkTargetArgs(in *setCategoryTargetIn) error {
	in.Frequency = strings.ToLower(strings.TrimSpace(in.Frequency))
	in.Date = strings.TrimSpace(in.Date)
	switch {
	case in.Remove && (!in.Amount.IsZero() || in.Date != "" || in.Frequency != "" || in.NeedsWholeAmount != nil):
		return errors.New("remove: removing the target takes no amount, date, frequency or needs_whole_amount; give remove: true alone, or leave remove out to set a target")
	case in.Remove:
		return nil
	case in.Amount.IsZero():
		return errors.New("amount: give the target amount (or remove: true to remove the target)")
	case in.Date != "" && in.Frequency != "":
		return errors.New("date: a target is either needed by a date or every period: give date or frequency, not both")
	case in.NeedsWholeAmount != nil && in.Frequency == "":
		return errors.New("needs_whole_amount: it applies to a target needed every period; give it with frequency (monthly, weekly or yearly)")
	}
	if _, ok := frequencyCadence[in.Frequency]; in.Frequency != "" && !ok {
		return fmt.Errorf("frequency: %s is not a frequency YNAB's API can set; use monthly, weekly or yearly", quoted(in.Frequency))
	}
	return nil
}

// targetSubjectOf converts the checked arguments to the fields that will be sent.
func (h *handlers) targetSubjectOf(p *ynab.Plan, cat *ynab.Category, in setCategoryTargetIn) (targetSubject, error) {
	s := targetSubject{CategoryID: cat.ID, GoalFrequency: in.Frequency, GoalNeedsWholeAmount: in.NeedsWholeAmount}
	if in.Remove {
		if targetOf(cat).Type == nil {
			return s, fmt.Errorf("remove: %s has no target, so there is none to remove", cat.Name)
		}
		return s, nil
	}
	amount, err := in.Amount.Milliunits(Digits(currency(p)))
	if err != nil {
		return s, fmt.Errorf("amount: %w", err)
	}
	if amount <= 0 {
		return s, fmt.Errorf("amount: a target must be more than zero, not %s; to remove the target, give remove: true", FormatPlain(amount, Digits(currency(p))))
	}
	s.GoalTarget = &amount
	if in.Date != "" {
		today := h.Now().UTC()
		if s.GoalTargetDate, err = ParseDate(in.Date, today); err != nil {
			return s, fmt.Errorf("date: %w", err)
		}
		if s.GoalTargetDate < today.Format(time.DateOnly) {
			return s, fmt.Errorf("date: %s has passed; a target needs a date from today on", s.GoalTargetDate)
		}
	}
	return s, nil
}

// target is a category's target as YNAB reports it: the fields the journal records and undo
// writes back.
type target struct {
	Type             *string
	Amount           *int64
	Date             *string
	NeedsWholeAmount *bool
	Cadence          *int
	CadenceFrequency *int
}

func targetOf(c *ynab.Category) target {
	if c.GoalType == nil || *c.GoalType == "" {
		return target{}
	}
	return target{Type: c.GoalType, Amount: c.GoalTarget, Date: c.GoalTargetDate, NeedsWholeAmount: c.GoalNeedsWholeAmount,
		Cadence: c.GoalCadence, CadenceFrequency: c.GoalCadenceFrequency}
}

// fields are the target as the journal records it, named as YNAB names them.
func (t target) fields() json.RawMessage {
	return fieldsJSON(map[string]any{
		"goal_type": t.Type, "goal_target": t.Amount, "goal_target_date": t.Date,
		"goal_needs_whole_amount": t.NeedsWholeAmount, "goal_cadence": t.Cadence, "goal_cadence_frequency": t.CadenceFrequency,
	})
}

// sentFields are the fields of a target write as the journal records them before YNAB has
// answered (then the fields YNAB reports replace them): the ones a category reports, so that a
// write interrupted by a crash can be recognised in YNAB.
func sentFields(s targetSubject) json.RawMessage {
	f := map[string]any{"goal_target": s.GoalTarget}
	if s.GoalTargetDate != "" {
		f["goal_target_date"] = s.GoalTargetDate
	}
	if s.GoalNeedsWholeAmount != nil {
		f["goal_needs_whole_amount"] = *s.GoalNeedsWholeAmount
	}
	if s.GoalFrequency != "" {
		f["goal_cadence"] = frequencyCadence[s.GoalFrequency]
	}
	return fieldsJSON(f)
}

// after is the target YNAB gives the category when s is sent, by the rules of its API (spec
// 1.86): a null goal_target removes the target; goal_frequency replaces it with one needed every
// period; goal_target on a category without a target creates one needed every month, and on one
// with a target changes only its amount; a date makes a target balance one by that date, and a
// need that repeats (other than yearly) one needed by that date.
func (t target) after(s targetSubject) target {
	switch {
	case s.GoalTarget == nil:
		return target{}
	case s.GoalFrequency != "":
		return target{Type: ptr(ynab.GoalNeed), Amount: s.GoalTarget, NeedsWholeAmount: s.GoalNeedsWholeAmount,
			Cadence: ptr(frequencyCadence[s.GoalFrequency]), CadenceFrequency: ptr(1)}
	}
	if t.Type == nil {
		t = target{Type: ptr(ynab.GoalNeed), Cadence: ptr(cadenceMonthly), CadenceFrequency: ptr(1)}
	}
	t.Amount = s.GoalTarget
	if s.GoalTargetDate == "" {
		return t
	}
	t.Date = &s.GoalTargetDate
	switch {
	case *t.Type == ynab.GoalTargetBalance:
		t.Type = ptr(ynab.GoalTargetBalanceByDate)
	case *t.Type == ynab.GoalNeed && orZero(t.Cadence) != cadenceYearly:
		t.Cadence, t.CadenceFrequency = ptr(0), nil
	}
	return t
}

// restorable reports whether YNAB's API could set this target again exactly, which an undo
// would have to do: no target (undo removes the new one), a need by a date, or a need every
// month, week or year.
func (t target) restorable() bool {
	switch {
	case t.Type == nil:
		return true
	case *t.Type != ynab.GoalNeed:
		return false
	case orZero(t.Cadence) == 0:
		return t.Date != nil
	default:
		return frequencyOf(t.Cadence, t.CadenceFrequency) != ""
	}
}

// keepsKind reports whether the target stays of its kind through s, so that undo needs only to
// send its old amount and date back: a new amount, or a new date for a target that has one.
func (t target) keepsKind(s targetSubject) bool {
	switch {
	case s.GoalTarget == nil || s.GoalFrequency != "":
		return false
	case s.GoalTargetDate == "":
		return true
	default:
		return t.Date != nil
	}
}

// words describes the target in a few words for a preview: "no target", "1200.00 by
// 2027-06-01", "refill up to 100.00 a month", "a balance of 15000.00".
func (t target) words(digits int) string {
	if t.Type == nil {
		return "no target"
	}
	amount := FormatPlain(orZero(t.Amount), digits)
	switch *t.Type {
	case ynab.GoalTargetBalance:
		return "a balance of " + amount
	case ynab.GoalTargetBalanceByDate:
		return "a balance of " + amount + " by " + orZero(t.Date)
	case ynab.GoalMonthlyFunding:
		return amount + " a month (monthly funding)"
	case ynab.GoalDebt:
		return amount + " a month towards a debt"
	case ynab.GoalNeed:
		return t.needWords(amount)
	}
	return *t.Type + " " + amount
}

func (t target) needWords(amount string) string {
	cadence := orZero(t.Cadence)
	if cadence == 0 {
		if t.Date == nil {
			return amount
		}
		return amount + " by " + *t.Date
	}
	w := amount + " " + cadenceWords(cadence, max(orZero(t.CadenceFrequency), 1))
	if t.Date != nil {
		w += ", next by " + *t.Date
	}
	switch {
	case t.NeedsWholeAmount == nil:
		return w
	case *t.NeedsWholeAmount:
		return "set aside " + w
	default:
		return "refill up to " + w
	}
}

// cadenceWords names how often a need repeats, from YNAB's goal_cadence and
// goal_cadence_frequency (see the API's Category schema).
func cadenceWords(cadence, every int) string {
	unit := map[int]string{cadenceMonthly: "month", cadenceWeekly: "week", cadenceYearly: "year"}[cadence]
	switch {
	case unit != "" && every == 1:
		return "a " + unit
	case unit != "":
		return fmt.Sprintf("every %d %ss", every, unit)
	case cadence >= 3 && cadence <= 12:
		return fmt.Sprintf("every %d months", cadence-1)
	case cadence == 14:
		return "every 2 years"
	}
	return fmt.Sprintf("(cadence %d)", cadence)
}

func orZero[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
