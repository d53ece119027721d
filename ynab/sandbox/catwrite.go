package sandbox

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/avenir-mcp/avenir/ynab"
)

// Writes to categories, category groups and assigned amounts. Every handler may change the
// plan before it finds a problem: a refused write is rolled back whole (see Sandbox.route).

func patchMonthCategory(c *call) (int, any, error) {
	var body struct {
		Category *struct {
			Budgeted *int64 `json:"budgeted"`
		} `json:"category"`
	}
	if err := c.decode(&body); err != nil {
		return 0, nil, err
	}
	if body.Category == nil || body.Category.Budgeted == nil {
		return 0, nil, badRequest(`budgeted is required: send {"category":{"budgeted":<milliunits>}}.`)
	}
	month, err := c.month()
	if err != nil {
		return 0, nil, err
	}
	id := c.params["category_id"]
	cat := c.p.category(id)
	if cat == nil {
		return 0, nil, notFound("category", id)
	}
	if cat.Internal {
		return 0, nil, badRequest("%s is YNAB's own category: money cannot be assigned to it.", cat.Name)
	}
	c.p.recordMove(c.w.UserID, month, id, *body.Category.Budgeted-c.p.assigned(month, id), c.s.opts.Now())
	c.p.setAssigned(month, id, *body.Category.Budgeted)
	k, err := c.commit()
	if err != nil {
		return 0, nil, err
	}
	served, err := c.liveCategory(c.v, month)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"category": c.f.category(served), "server_knowledge": k}, nil
}

func patchCategory(c *call) (int, any, error) {
	var body struct {
		Category *ynab.SaveCategory `json:"category"`
	}
	if err := c.decode(&body); err != nil {
		return 0, nil, err
	}
	if body.Category == nil {
		return 0, nil, badRequest(`The body needs a category object: {"category":{…}}.`)
	}
	id := c.params["category_id"]
	cat := c.p.category(id)
	if cat == nil {
		return 0, nil, notFound("category", id)
	}
	if cat.Internal {
		return 0, nil, badRequest("%s is YNAB's own category and cannot be changed.", cat.Name)
	}
	in := body.Category
	if in.Name.Set {
		if in.Name.Value == nil {
			return 0, nil, badRequest("name cannot be null: leave it out to keep the name.")
		}
		if err := validName("name", *in.Name.Value, 0); err != nil {
			return 0, nil, err
		}
		cat.Name = strings.TrimSpace(*in.Name.Value)
	}
	if in.Note.Set {
		cat.Note = in.Note.Value
	}
	if in.CategoryGroupID != "" {
		if err := c.moveCategory(cat, in.CategoryGroupID); err != nil {
			return 0, nil, err
		}
	}
	if err := c.applyGoal(cat, in); err != nil {
		return 0, nil, err
	}
	return c.savedCategory(http.StatusOK, cat)
}

func postCategory(c *call) (int, any, error) {
	var body struct {
		Category *ynab.SaveCategory `json:"category"`
	}
	if err := c.decode(&body); err != nil {
		return 0, nil, err
	}
	in := body.Category
	switch {
	case in == nil:
		return 0, nil, badRequest(`The body needs a category object: {"category":{"name":…,"category_group_id":…}}.`)
	case !in.Name.Set || in.Name.Value == nil:
		return 0, nil, badRequest("name is required.")
	case in.CategoryGroupID == "":
		return 0, nil, badRequest("category_group_id is required.")
	}
	if err := validName("name", *in.Name.Value, 0); err != nil {
		return 0, nil, err
	}
	cat := &category{ID: c.p.newID("category"), Name: strings.TrimSpace(*in.Name.Value)}
	if in.Note.Set {
		cat.Note = in.Note.Value
	}
	if err := c.moveCategory(cat, in.CategoryGroupID); err != nil {
		return 0, nil, err
	}
	c.p.Categories = append(c.p.Categories, cat)
	if err := c.applyGoal(cat, in); err != nil {
		return 0, nil, err
	}
	return c.savedCategory(http.StatusCreated, cat)
}

// savedCategory commits a category write and answers with the category as it now is.
func (c *call) savedCategory(status int, cat *category) (int, any, error) {
	k, err := c.commit()
	if err != nil {
		return 0, nil, err
	}
	served := c.v.categories[c.v.catIndex[cat.ID]]
	return status, map[string]any{"category": c.f.category(served), "server_knowledge": k}, nil
}

// moveCategory puts a category in a group, refusing the groups YNAB keeps to itself.
func (c *call) moveCategory(cat *category, groupID string) error {
	g := c.p.group(groupID)
	switch {
	case g == nil:
		return badRequest("category_group_id %q is not a category group of this plan.", groupID)
	case g.Internal:
		return badRequest("%s is YNAB's internal group: categories cannot be put in it.", g.Name)
	case cat.CardAccountID != "" && g.ID != cat.GroupID:
		return badRequest("%s is a credit card payment category and stays in its group.", cat.Name)
	case cat.CardAccountID == "" && c.p.holdsCardPayments(g.ID):
		return badRequest("%s holds the credit card payment categories: other categories cannot be put in it.", g.Name)
	}
	cat.GroupID = g.ID
	return nil
}

func (p *plan) holdsCardPayments(groupID string) bool {
	for _, c := range p.Categories {
		if c.GroupID == groupID && c.CardAccountID != "" && !c.Deleted {
			return true
		}
	}
	return false
}

// validName checks a name a person gave; limit 0 means YNAB documents none.
func validName(field, name string, limit int) error {
	if strings.TrimSpace(name) == "" {
		return badRequest("%s cannot be empty.", field)
	}
	if limit > 0 && utf8.RuneCountInString(name) > limit {
		return badRequest("%s is %d characters long; YNAB allows at most %d.", field, utf8.RuneCountInString(name), limit)
	}
	return nil
}

// goalFrequencies maps goal_frequency to YNAB's cadence.
var goalFrequencies = map[string]int{"monthly": cadenceMonthly, "weekly": cadenceWeekly, "yearly": cadenceYearly}

// applyGoal writes the target fields of a category save, with the rules of YNAB's API (spec
// 1.86): goal_target on a category without a target creates a monthly one (NEED, or MF for a
// credit card payment category); goal_target null removes the target; goal_frequency replaces
// the target with a recurring NEED; goal_needs_whole_amount applies to NEED targets only. A date
// turns a target balance (TB) into one by a date (TBD) or a monthly NEED into a NEED by a date,
// and a null date turns them back.
func (c *call) applyGoal(cat *category, in *ynab.SaveCategory) error {
	card := cat.CardAccountID != ""
	removing := in.GoalTarget.Set && in.GoalTarget.Value == nil
	if in.GoalFrequency != "" {
		cadence, ok := goalFrequencies[in.GoalFrequency]
		switch {
		case !ok:
			return badRequest("goal_frequency must be monthly, weekly or yearly, not %q.", in.GoalFrequency)
		case card:
			return badRequest("goal_frequency is not supported for credit card payment categories.")
		case !in.GoalTarget.Set || removing:
			return badRequest("goal_frequency requires goal_target.")
		case in.GoalTargetDate.Value != nil:
			return badRequest("goal_frequency cannot be combined with goal_target_date.")
		}
		cat.Goal = c.recurringNeed(cat.Goal, cadence)
	}
	if removing {
		if in.GoalTargetDate.Value != nil || in.GoalNeedsWholeAmount.Value != nil {
			return badRequest("goal_target null removes the target: leave out goal_target_date and goal_needs_whole_amount.")
		}
		cat.Goal = nil
		return nil
	}
	if in.GoalTarget.Set {
		if *in.GoalTarget.Value < 0 {
			return badRequest("goal_target cannot be negative.")
		}
		if cat.Goal == nil {
			cat.Goal = c.monthlyTarget(card)
		}
		cat.Goal.Target = *in.GoalTarget.Value
	}
	if cat.Goal == nil {
		if in.GoalTargetDate.Set || in.GoalNeedsWholeAmount.Set {
			return badRequest("%s has no target: send goal_target to create one.", cat.Name)
		}
		return nil
	}
	if in.GoalTargetDate.Set {
		if err := c.setGoalDate(cat.Goal, in.GoalTargetDate.Value); err != nil {
			return err
		}
	}
	if in.GoalNeedsWholeAmount.Set && in.GoalNeedsWholeAmount.Value != nil {
		if cat.Goal.Type != ynab.GoalNeed {
			return badRequest("goal_needs_whole_amount applies only to NEED targets; the target of %s is %s.", cat.Name, cat.Goal.Type)
		}
		cat.Goal.NeedsWholeAmount = in.GoalNeedsWholeAmount.Value
	}
	return nil
}

// monthlyTarget is the target YNAB creates when goal_target is set on a category without one.
func (c *call) monthlyTarget(card bool) *goal {
	if card {
		return &goal{Type: ynab.GoalMonthlyFunding, CreationMonth: c.v.current}
	}
	return &goal{Type: ynab.GoalNeed, NeedsWholeAmount: ptr(true), Cadence: ptr(cadenceMonthly),
		CadenceFrequency: ptr(1), CreationMonth: c.v.current}
}

// recurringNeed is the NEED target goal_frequency configures; it keeps a NEED's rollover choice.
func (c *call) recurringNeed(old *goal, cadence int) *goal {
	g := &goal{Type: ynab.GoalNeed, NeedsWholeAmount: ptr(true), Cadence: ptr(cadence), CadenceFrequency: ptr(1),
		CreationMonth: c.v.current}
	if old != nil && old.Type == ynab.GoalNeed && old.NeedsWholeAmount != nil {
		g.NeedsWholeAmount = ptr(*old.NeedsWholeAmount)
	}
	today := dayTime(c.v.today)
	switch cadence {
	case cadenceWeekly:
		g.Day = ptr(int(today.Weekday()))
	case cadenceYearly:
		g.TargetDate = ptr(dateOf(today.AddDate(1, 0, 0)))
	}
	return g
}

func (c *call) setGoalDate(g *goal, date *string) error {
	if date == nil {
		switch {
		case g.Type == ynab.GoalTargetBalanceByDate:
			g.Type = ynab.GoalTargetBalance
		case g.Type == ynab.GoalNeed && g.Cadence != nil && *g.Cadence == cadenceYearly:
			return badRequest("A yearly target repeats on its date: the date cannot be removed.")
		case g.Type == ynab.GoalNeed:
			g.Cadence, g.CadenceFrequency = ptr(cadenceMonthly), ptr(1)
		}
		g.TargetDate = nil
		return nil
	}
	if _, ok := parseDate(*date); !ok {
		return badRequest("goal_target_date must be a date like 2027-06-01, not %q.", *date)
	}
	switch {
	case g.Type == ynab.GoalMonthlyFunding:
		return badRequest("A monthly funding target (MF) has no date.")
	case g.Type == ynab.GoalTargetBalance:
		g.Type = ynab.GoalTargetBalanceByDate
	case g.Type == ynab.GoalNeed && (g.Cadence == nil || *g.Cadence != cadenceYearly):
		g.Cadence, g.CadenceFrequency, g.Day = ptr(cadenceNone), nil, nil
	}
	g.TargetDate = ptr(*date)
	return nil
}

func postCategoryGroup(c *call) (int, any, error) {
	name, err := c.groupName()
	if err != nil {
		return 0, nil, err
	}
	g := &ynab.CategoryGroup{ID: c.p.newID("group"), Name: name}
	c.p.Groups = append(c.p.Groups, g)
	return c.savedGroup(http.StatusCreated, g)
}

func patchCategoryGroup(c *call) (int, any, error) {
	id := c.params["category_group_id"]
	g := c.p.group(id)
	if g == nil {
		return 0, nil, notFound("category group", id)
	}
	if g.Internal {
		return 0, nil, badRequest("%s is YNAB's internal group and cannot be renamed.", g.Name)
	}
	name, err := c.groupName()
	if err != nil {
		return 0, nil, err
	}
	g.Name = name
	return c.savedGroup(http.StatusOK, g)
}

// groupName reads {"category_group":{"name":…}}: YNAB allows at most 50 characters.
func (c *call) groupName() (string, error) {
	var body struct {
		CategoryGroup *struct {
			Name *string `json:"name"`
		} `json:"category_group"`
	}
	if err := c.decode(&body); err != nil {
		return "", err
	}
	if body.CategoryGroup == nil || body.CategoryGroup.Name == nil {
		return "", badRequest(`name is required: send {"category_group":{"name":…}}.`)
	}
	name := strings.TrimSpace(*body.CategoryGroup.Name)
	return name, validName("name", name, 50)
}

func (c *call) savedGroup(status int, g *ynab.CategoryGroup) (int, any, error) {
	k, err := c.commit()
	if err != nil {
		return 0, nil, err
	}
	return status, map[string]any{"category_group": *g, "server_knowledge": k}, nil
}
