package tools

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var createCategoryGroupTool = mcp.Tool{
	Name:        "create_category_group",
	Title:       "Create a category group",
	Description: "Create a category group. Cannot be undone: YNAB's API deletes no group." + confirmDescription,
	Meta:        cardMeta,
	// Idempotent: a group of that name is refused, so a repeated call adds nothing.
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type createCategoryGroupIn struct {
	planArg
	Name string `json:"name"`
	confirmArg
}

type createGroupSubject struct {
	Name string `json:"name"`
}

// maxGroupName is the longest category group name YNAB takes.
const maxGroupName = 50

func (h *handlers) createCategoryGroup(ctx context.Context, req *mcp.CallToolRequest, in createCategoryGroupIn) (*mcp.CallToolResult, writeOut, error) {
	name, err := groupNameArg("name", in.Name)
	if err != nil {
		return nil, writeOut{}, err
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		if err := freeGroupName(p, "name", name, ""); err != nil {
			return nil, err
		}
		ed := &edit{
			plan:    p,
			tool:    createCategoryGroupTool.Name,
			subject: createGroupSubject{Name: name},
			first:   fmt.Sprintf("Create category group ‘%s’?", name),
			notes:   []string{"This cannot be undone through avenir: YNAB's API cannot delete or hide a category group. To remove it later, delete it in YNAB."},
			changes: []journal.Change{{Kind: journal.KindNewCategoryGroup, Label: "category group " + name, Before: fieldsJSON(nil),
				After: fieldsJSON(map[string]any{"name": name})}},
		}
		return h.appliedAsJournaled(ed)
	}
	args, code := splitCode(in)
	res, out, err := h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
	if id := createdIDOf(out); id != "" {
		out.Message = fmt.Sprintf("Category group ‘%s’ is created (id %s); create_category puts categories in it.", name, id)
	}
	return res, out, err
}

// createdIDOf is the id YNAB gave the thing an applied create made, as the journal recorded it.
func createdIDOf(out writeOut) string {
	op, ok := out.applied()
	if !ok || len(op.Changes) == 0 {
		return ""
	}
	return op.Changes[0].ID
}

// groupNameArg checks a category group name a person gave.
func groupNameArg(arg, name string) (string, error) {
	return nameArg(arg, "category group", name, maxGroupName)
}

// nameArg checks the name a person gives a thing: not empty (surrounding space aside), and at
// most max characters.
func nameArg(arg, thing, name string, max int) (string, error) {
	name = strings.TrimSpace(name)
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		return "", fmt.Errorf("%s: give the %s a name; it cannot be empty", arg, thing)
	case n > max:
		return "", fmt.Errorf("%s: the name is %d characters long; a %s name can have at most %d", arg, n, thing, max)
	}
	return name, nil
}

// freeGroupName refuses a name another category group already has (case aside): two would make
// the name ambiguous wherever a group is named. except is the group being renamed.
func freeGroupName(p *ynab.Plan, arg, name, except string) error {
	for _, g := range p.CategoryGroups {
		if !g.Deleted && g.ID != except && strings.EqualFold(g.Name, name) {
			return fmt.Errorf("%s: there is already a category group ‘%s’; choose another name", arg, g.Name)
		}
	}
	return nil
}
