package tools

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var updateCategoryGroupTool = mcp.Tool{
	Name:        "update_category_group",
	Title:       "Rename a category group",
	Description: "Rename a category group. Undoable." + confirmDescription,
	Meta:        cardMeta,
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type updateCategoryGroupIn struct {
	planArg
	Group string `json:"group"`
	Name  string `json:"name"`
	confirmArg
}

type renameGroupSubject struct {
	CategoryGroupID string `json:"category_group_id"`
	Name            string `json:"name"`
}

func (h *handlers) updateCategoryGroup(ctx context.Context, req *mcp.CallToolRequest, in updateCategoryGroupIn) (*mcp.CallToolResult, writeOut, error) {
	name, err := groupNameArg("name", in.Name)
	if err != nil {
		return nil, writeOut{}, err
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		c, err := resolve("category group", "group", in.Group, groupCandidates(p))
		if err != nil {
			return nil, err
		}
		g, _ := p.Group(c.id)
		switch {
		case g.Internal:
			return nil, fmt.Errorf("group: %s is YNAB's internal group, which cannot be renamed", g.Name)
		case g.Name == name && !confirming(ctx, req, in.Confirmation):
			return nil, fmt.Errorf("group: %s is already called ‘%s’: nothing to change", g.Name, name)
		}
		if err := freeGroupName(p, "name", name, g.ID); err != nil {
			return nil, err
		}
		ed := &edit{
			plan:    p,
			tool:    updateCategoryGroupTool.Name,
			subject: renameGroupSubject{CategoryGroupID: g.ID, Name: name},
			first:   fmt.Sprintf("Rename category group ‘%s’ to ‘%s’?", g.Name, name),
			changes: []journal.Change{{Kind: journal.KindCategoryGroup, ID: g.ID, Label: "category group " + g.Name,
				Before: fieldsJSON(map[string]any{"name": g.Name}), After: fieldsJSON(map[string]any{"name": name})}},
		}
		return h.appliedAsJournaled(ed)
	}
	args, code := splitCode(in)
	return h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
}
