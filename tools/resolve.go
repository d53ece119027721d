package tools

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/avenir-mcp/avenir/ynab"
)

// uuidLike matches YNAB's ids (plans, accounts, categories, payees are UUIDs).
var uuidLike = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// plan returns the plan a call is about: plan_id if given, else AVENIR_MCP_PLAN, else YNAB's
// last-used plan. A plan may be named by id or by name.
func (h *handlers) plan(ctx context.Context, ref string, f ynab.Freshness) (*ynab.Plan, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		ref = h.DefaultPlan
	}
	if ref == "" {
		ref = "last-used"
	}
	id := ref
	if !uuidLike.MatchString(ref) && ref != "last-used" && ref != "default" {
		var err error
		if id, err = h.planByName(ctx, ref); err != nil {
			return nil, err
		}
	}
	p, err := h.YNAB.Plan(ctx, id, f)
	if ynab.IsStatus(err, 404) {
		return nil, fmt.Errorf("there is no plan %s in this YNAB account; list_plans shows the plans there are", quoted(ref))
	}
	return p, err
}

// planID resolves a plan reference (an id, a name, or empty for the default) to the plan's id,
// reading YNAB only when an alias such as "last-used" has not been resolved yet.
func (h *handlers) planID(ctx context.Context, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		ref = h.DefaultPlan
	}
	if ref == "" {
		ref = "last-used"
	}
	switch {
	case uuidLike.MatchString(ref):
		return ref, nil
	case ref != "last-used" && ref != "default":
		return h.planByName(ctx, ref)
	}
	if id, ok := h.YNAB.PlanIDOf(ref); ok {
		return id, nil
	}
	p, err := h.plan(ctx, ref, ynab.WithinPreviewAge)
	if err != nil {
		return "", err
	}
	return p.ID, nil
}

// planByName maps a plan name to its id (GET /plans once per process; again if the name is new).
func (h *handlers) planByName(ctx context.Context, name string) (string, error) {
	key := strings.ToLower(name)
	h.mu.Lock()
	id, ok := h.planNames[key]
	h.mu.Unlock()
	if ok {
		return id, nil
	}
	plans, err := h.YNAB.GetPlans(ctx, false)
	if err != nil {
		return "", err
	}
	names := map[string]string{}
	var all []string
	for _, p := range plans.Plans {
		names[strings.ToLower(p.Name)] = p.ID
		all = append(all, p.Name)
	}
	h.mu.Lock()
	h.planNames = names
	h.mu.Unlock()
	if id, ok := names[key]; ok {
		return id, nil
	}
	return "", fmt.Errorf("there is no plan named %s; the plans are: %s", quoted(name), strings.Join(closest(name, all), ", "))
}

// candidate is one thing a name may refer to.
type candidate struct {
	id    string
	name  string // what the person calls it
	group string // for categories: the group's name, so "Group: Name" can disambiguate
	label string // how to show it in a list of candidates
}

// resolve finds the one candidate that ref names: its id, its name (case-insensitive, surrounding
// space ignored) or, where groups exist, "Group: Name". No match or several is an error that
// lists the closest candidates — never a guess.
func resolve(kind, arg, ref string, cands []candidate) (candidate, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return candidate{}, fmt.Errorf("%s: give a %s (its name or id)", arg, kind)
	}
	for _, c := range cands {
		if c.id == ref {
			return c, nil
		}
	}
	var hits []candidate
	for _, c := range cands {
		if strings.EqualFold(c.name, ref) {
			hits = append(hits, c)
		}
	}
	if len(hits) == 0 {
		if g, n, ok := strings.Cut(ref, ":"); ok {
			for _, c := range cands {
				if c.group != "" && strings.EqualFold(c.group, strings.TrimSpace(g)) && strings.EqualFold(c.name, strings.TrimSpace(n)) {
					hits = append(hits, c)
				}
			}
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		near := closestCandidates(ref, cands)
		if len(near) == 0 {
			return candidate{}, fmt.Errorf("%s: there is no %s %s in this plan", arg, kind, quoted(ref))
		}
		return candidate{}, fmt.Errorf("%s: there is no %s %s in this plan; the closest are: %s", arg, kind, quoted(ref), strings.Join(near, "; "))
	default:
		labels := make([]string, 0, len(hits))
		for _, c := range hits {
			labels = append(labels, c.label)
		}
		hint := "use its id"
		if hits[0].group != "" {
			hint = `write it as "Group: Name", or use its id`
		}
		return candidate{}, fmt.Errorf("%s: %s is ambiguous: it names %d %s: %s; %s", arg, quoted(ref), len(hits), plural(kind), strings.Join(labels[:min(10, len(labels))], "; "), hint)
	}
}

func plural(kind string) string {
	if strings.HasSuffix(kind, "y") {
		return strings.TrimSuffix(kind, "y") + "ies"
	}
	return kind + "s"
}

// closest returns at most 10 of names, the most like ref first.
func closest(ref string, names []string) []string {
	cands := make([]candidate, len(names))
	for i, n := range names {
		cands[i] = candidate{name: n, label: n}
	}
	return closestCandidates(ref, cands)
}

// closestCandidates returns the labels of at most 10 candidates whose names are most like ref:
// those containing it (or contained in it) first, then by edit distance.
func closestCandidates(ref string, cands []candidate) []string {
	r := strings.ToLower(strings.TrimSpace(ref))
	type scored struct {
		label string
		score int
	}
	s := make([]scored, 0, len(cands))
	for _, c := range cands {
		l := strings.ToLower(c.name)
		d := editDistance(r, l)
		if strings.Contains(l, r) || strings.Contains(r, l) {
			d -= 100
		}
		s = append(s, scored{c.label, d})
	}
	slices.SortStableFunc(s, func(a, b scored) int { return cmp.Compare(a.score, b.score) })
	out := make([]string, 0, 10)
	for _, x := range s[:min(10, len(s))] {
		out = append(out, x.label)
	}
	return out
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// accountCandidates lists the plan's accounts (closed ones only when includeClosed).
func accountCandidates(p *ynab.Plan, includeClosed bool) []candidate {
	var out []candidate
	for _, a := range p.Accounts {
		if a.Deleted || (a.Closed && !includeClosed) {
			continue
		}
		out = append(out, candidate{id: a.ID, name: a.Name, label: a.Name})
	}
	return out
}

// categoryCandidates lists the plan's categories, hidden and internal ones included (a caller
// that needs a spendable one checks that itself, so the person hears why one was refused).
func categoryCandidates(p *ynab.Plan) []candidate {
	var out []candidate
	for _, c := range p.Categories {
		if c.Deleted {
			continue
		}
		g := groupName(p, c.CategoryGroupID)
		out = append(out, candidate{id: c.ID, name: c.Name, group: g, label: g + ": " + c.Name})
		if c.Internal && c.Name == readyToAssign {
			// YNAB's apps call it Ready to Assign, and so do results.
			out = append(out, candidate{id: c.ID, name: readyToAssignShort, label: readyToAssignShort})
		}
	}
	return out
}

func groupCandidates(p *ynab.Plan) []candidate {
	var out []candidate
	for _, g := range p.CategoryGroups {
		if !g.Deleted {
			out = append(out, candidate{id: g.ID, name: g.Name, label: g.Name})
		}
	}
	return out
}

func payeeCandidates(p *ynab.Plan) []candidate {
	var out []candidate
	for _, y := range p.Payees {
		if !y.Deleted {
			out = append(out, candidate{id: y.ID, name: y.Name, label: y.Name})
		}
	}
	return out
}

func groupName(p *ynab.Plan, id string) string {
	if g, ok := p.Group(id); ok {
		return g.Name
	}
	return ""
}

// readyToAssignShort is the name YNAB's apps and avenir's results give the internal category
// "Inflow: Ready to Assign".
const readyToAssignShort = "Ready to Assign"
