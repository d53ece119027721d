package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var updateCategoryTool = mcp.Tool{
	Name:        "update_category",
	Title:       "Rename a category, move it or change its note",
	Description: "Rename a category, move it to another group, or change its note. Undoable." + confirmDescription,
	Meta:        cardMeta,
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type updateCategoryIn struct {
	planArg
	Category string  `json:"category"`
	Name     *string `json:"name,omitempty"`
	Group    string  `json:"group,omitempty"`
	Note     *string `json:"note,omitempty" jsonschema:"\"\" removes it"`
	confirmArg
}

// updateCategorySubject is what update_category confirms. Note is set only when the call
// changes it ("" removes it), so a rename's subject is what it always was.
type updateCategorySubject struct {
	CategoryID      string  `json:"category_id"`
	Name            string  `json:"name"`
	CategoryGroupID string  `json:"category_group_id"`
	Note            *string `json:"note,omitempty"`
}

func (h *handlers) updateCategory(ctx context.Context, req *mcp.CallToolRequest, in updateCategoryIn) (*mcp.CallToolResult, writeOut, error) {
	if in.Name == nil && in.Group == "" && in.Note == nil {
		return nil, writeOut{}, errors.New("name: give a new name, a group to move the category to (group), a note, or any of them")
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		cat, from, err := ownCategory(p, "category", in.Category)
		if err != nil {
			return nil, err
		}
		s, to, err := renamed(p, cat, from, in)
		if err != nil {
			return nil, err
		}
		sameNote := s.Note == nil || *s.Note == str(cat.Note)
		if s.Name == cat.Name && to.ID == from.ID && sameNote && !confirming(ctx, req, in.Confirmation) {
			what := fmt.Sprintf("is already called ‘%s’ and in %s", cat.Name, from.Name)
			if s.Note != nil {
				what += " with that note"
			}
			return nil, fmt.Errorf("%s %s: nothing to change", categoryLabel(p, cat.ID), what)
		}
		before := map[string]any{"name": cat.Name, "category_group_id": from.ID}
		after := map[string]any{"name": s.Name, "category_group_id": to.ID}
		save := ynab.SaveCategory{Name: ynab.Some(s.Name), CategoryGroupID: to.ID}
		ed := &edit{
			plan:    p,
			tool:    updateCategoryTool.Name,
			subject: s,
			first:   fmt.Sprintf("Change category ‘%s’ (%s) to ‘%s’ (%s)?", cat.Name, from.Name, s.Name, to.Name),
		}
		if s.Note != nil {
			before["note"], after["note"] = cat.Note, noteAfter(*s.Note)
			save.Note = ynab.Opt[string]{Set: true, Value: noteAfter(*s.Note)}
			ed.lines = append(ed.lines, fmt.Sprintf("Note: %s → %s", noteWords(cat.Note), noteWords(noteAfter(*s.Note))))
		}
		ed.changes = []journal.Change{{Kind: journal.KindCategory, ID: cat.ID, Label: categoryLabel(p, cat.ID),
			Before: fieldsJSON(before), After: fieldsJSON(after)}}
		ed.apply = func(ctx context.Context) (journal.Outcome, error) {
			res, err := h.YNAB.UpdateCategory(ctx, p.ID, cat.ID, save)
			return journal.Outcome{ServerKnowledge: res.ServerKnowledge}, err
		}
		return ed, nil
	}
	args, code := splitCode(in)
	return h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
}

// ownCategory resolves a category a person may rename or move, and its group: any but YNAB's
// internal ones.
func ownCategory(p *ynab.Plan, arg, ref string) (*ynab.Category, *ynab.CategoryGroup, error) {
	c, err := resolve("category", arg, ref, categoryCandidates(p))
	if err != nil {
		return nil, nil, err
	}
	cat, _ := p.Category(c.id)
	g, ok := p.Group(cat.CategoryGroupID)
	switch {
	case !ok:
		return nil, nil, fmt.Errorf("%s: the group of %s is not in this plan as avenir read it; try again in a moment", arg, c.label)
	case cat.Internal || g.Internal:
		return nil, nil, fmt.Errorf("%s: %s is one of YNAB's internal categories, which cannot be renamed or moved", arg, c.label)
	}
	return cat, g, nil
}

// renamed works out the category's name and group after the change, checking the new name and
// the group it goes to.
func renamed(p *ynab.Plan, cat *ynab.Category, from *ynab.CategoryGroup, in updateCategoryIn) (updateCategorySubject, *ynab.CategoryGroup, error) {
	s := updateCategorySubject{CategoryID: cat.ID, Name: cat.Name, CategoryGroupID: from.ID}
	to := from
	if in.Group != "" {
		g, err := resolve("category group", "group", in.Group, groupCandidates(p))
		if err != nil {
			return s, nil, err
		}
		// Staying in a hidden group is fine; only a group it moves to is checked.
		if g.id != from.ID {
			if to, err = ownGroup(p, "group", g.id); err != nil {
				return s, nil, err
			}
		}
	}
	if in.Name != nil {
		name, err := categoryName("name", *in.Name)
		if err != nil {
			return s, nil, err
		}
		s.Name = name
	}
	if in.Note != nil {
		note := strings.TrimSpace(*in.Note)
		s.Note = &note
	}
	arg := "name"
	if in.Name == nil {
		arg = "group"
	}
	if err := freeName(p, arg, s.Name, to, cat.ID); err != nil && (in.Name != nil || in.Group != "") {
		return s, nil, err
	}
	s.CategoryGroupID = to.ID
	return s, to, nil
}

// noteAfter is a note argument as YNAB takes it: an empty one removes the note (null).
func noteAfter(note string) *string {
	if note == "" {
		return nil
	}
	return &note
}

// noteWords shows a note in a preview: whole, quoted on one line, or "no note".
func noteWords(note *string) string {
	if note == nil || *note == "" {
		return "no note"
	}
	return strconv.Quote(*note)
}
