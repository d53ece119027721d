package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var createCategoryTool = mcp.Tool{
	Name:        "create_category",
	Title:       "Create a category",
	Description: "Create a category in a group. Cannot be undone: YNAB's API deletes no category." + confirmDescription,
	Meta:        cardMeta,
	// Idempotent: a category with that name in that group is refused, so a repeated call adds nothing.
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type createCategoryIn struct {
	planArg
	Group string `json:"group"`
	Name  string `json:"name"`
	confirmArg
}

type createCategorySubject struct {
	CategoryGroupID string `json:"category_group_id"`
	Name            string `json:"name"`
}

// maxCategoryName is the longest category name avenir sends. YNAB documents no limit for a
// category's name; 50 characters is the limit it documents for a category group's.
const maxCategoryName = 50

func (h *handlers) createCategory(ctx context.Context, req *mcp.CallToolRequest, in createCategoryIn) (*mcp.CallToolResult, writeOut, error) {
	name, err := categoryName("name", in.Name)
	if err != nil {
		return nil, writeOut{}, err
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		g, err := ownGroup(p, "group", in.Group)
		if err != nil {
			return nil, err
		}
		if err := freeName(p, "name", name, g, ""); err != nil {
			return nil, err
		}
		s := createCategorySubject{CategoryGroupID: g.ID, Name: name}
		ed := &edit{
			plan:    p,
			tool:    createCategoryTool.Name,
			subject: s,
			first:   fmt.Sprintf("Create category ‘%s’ in %s?", name, g.Name),
			notes:   []string{"This cannot be undone through avenir: YNAB's API cannot delete or hide a category. To remove it later, hide or delete it in YNAB."},
			changes: []journal.Change{{
				Kind: journal.KindNewCategory, Label: g.Name + ": " + name, Before: fieldsJSON(nil),
				After: fieldsJSON(map[string]any{"name": name, "category_group_id": g.ID}),
			}},
		}
		ed.apply = func(ctx context.Context) (journal.Outcome, error) {
			res, err := h.YNAB.CreateCategory(ctx, p.ID, ynab.SaveCategory{Name: ynab.Some(name), CategoryGroupID: g.ID})
			id := res.Category.ID
			var lost *ynab.NetError
			if errors.As(err, &lost) {
				if found, ok := h.landedCategory(ctx, p.ID, ed.changes[0]); ok {
					id, err = found, nil
				}
			}
			if err != nil {
				return journal.Outcome{}, err
			}
			ch := ed.changes[0]
			ch.ID = id
			return journal.Outcome{Changes: []journal.Change{ch}, CreatedIDs: []string{id}, ServerKnowledge: res.ServerKnowledge}, nil
		}
		return ed, nil
	}
	args, code := splitCode(in)
	return h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
}

// landedCategory looks for the category a create made when the connection broke before YNAB
// answered: whether it landed decides between "applied" and "failed" in the journal.
func (h *handlers) landedCategory(ctx context.Context, planID string, ch journal.Change) (string, bool) {
	p, err := h.YNAB.Plan(ctx, planID, ynab.Fresh)
	if err != nil {
		return "", false
	}
	if c := findCategory(p, ch); c != nil {
		return c.ID, true
	}
	return "", false
}

// categoryName checks a category name a person gave: not empty, not longer than YNAB takes.
func categoryName(arg, name string) (string, error) {
	name = strings.TrimSpace(name)
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		return "", fmt.Errorf("%s: give the category a name; it cannot be empty", arg)
	case n > maxCategoryName:
		return "", fmt.Errorf("%s: the name is %d characters long; a category name can have at most %d", arg, n, maxCategoryName)
	}
	return name, nil
}

// ownGroup resolves a category group a person may put categories in: not one YNAB keeps to
// itself, and not a hidden one, where a new category would be out of sight.
func ownGroup(p *ynab.Plan, arg, ref string) (*ynab.CategoryGroup, error) {
	c, err := resolve("category group", arg, ref, groupCandidates(p))
	if err != nil {
		return nil, err
	}
	g, _ := p.Group(c.id)
	switch {
	case g.Internal:
		return nil, fmt.Errorf("%s: %s is YNAB's internal group; choose a group of your own", arg, g.Name)
	case g.Hidden:
		return nil, fmt.Errorf("%s: %s is hidden; unhide it in YNAB first, or choose another group", arg, g.Name)
	}
	return g, nil
}

// freeName refuses a name that another category of group g already has (case aside): two
// would make the name ambiguous everywhere a category is named. except is the category being
// renamed, which may keep its own name.
func freeName(p *ynab.Plan, arg, name string, g *ynab.CategoryGroup, except string) error {
	for _, c := range p.Categories {
		if !c.Deleted && c.CategoryGroupID == g.ID && c.ID != except && strings.EqualFold(c.Name, name) {
			return fmt.Errorf("%s: %s already has a category ‘%s’; choose another name", arg, g.Name, c.Name)
		}
	}
	return nil
}
