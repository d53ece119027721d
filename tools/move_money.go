package tools

import (
	"context"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var moveMoneyTool = mcp.Tool{
	Name:        "move_money",
	Title:       "Move money between categories",
	Description: "Move assigned money from one category to another in a month. Undoable." + confirmDescription,
	Meta:        cardMeta,
	// Not idempotent: each call moves the amount again.
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
}

type moveMoneyIn struct {
	planArg
	FromCategory string `json:"from_category"`
	ToCategory   string `json:"to_category"`
	Month        string `json:"month,omitempty" jsonschema:"YYYY-MM"`
	Amount       Amount `json:"amount" jsonschema:"more than zero"`
	confirmArg
}

// moveSubject is what the person confirms. The two categories have keys of their own: a
// subject's arrays are compared as sets, and a move's direction matters.
type moveSubject struct {
	FromCategoryID string `json:"from_category_id"`
	ToCategoryID   string `json:"to_category_id"`
	Month          string `json:"month"`
	Amount         int64  `json:"amount"`
}

// move is a planned move: both categories with what they have assigned when it is applied.
type move struct {
	planID               string
	month                string
	from, to             *ynab.Category
	fromBefore, toBefore int64
	amount               int64
	digits               int
}

func (m move) fromAfter() int64     { return m.fromBefore - m.amount }
func (m move) toAfter() int64       { return m.toBefore + m.amount }
func (m move) plain(n int64) string { return FormatPlain(n, m.digits) }

func (h *handlers) moveMoney(ctx context.Context, req *mcp.CallToolRequest, in moveMoneyIn) (*mcp.CallToolResult, writeOut, error) {
	month, err := h.parseMonth("month", in.Month)
	if err != nil {
		return nil, writeOut{}, err
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		m, err := h.resolveMove(ctx, p, month, in)
		if err != nil {
			return nil, err
		}
		ed := &edit{
			plan:    p,
			tool:    moveMoneyTool.Name,
			subject: moveSubject{FromCategoryID: m.from.ID, ToCategoryID: m.to.ID, Month: month, Amount: m.amount},
			first:   fmt.Sprintf("Move %s from %s to %s for %s?", m.plain(m.amount), m.from.Name, m.to.Name, month),
			lines: []string{
				fmt.Sprintf("%s: %s → %s", m.from.Name, m.plain(m.fromBefore), m.plain(m.fromAfter())),
				fmt.Sprintf("%s: %s → %s", m.to.Name, m.plain(m.toBefore), m.plain(m.toAfter())),
			},
			changes: []journal.Change{
				assignedChange(p, m.from, month, m.fromBefore, m.fromAfter()),
				assignedChange(p, m.to, month, m.toBefore, m.toAfter()),
			},
		}
		ed.apply = func(ctx context.Context) (journal.Outcome, error) { return h.applyMove(ctx, m, ed.changes) }
		return ed, nil
	}
	args, code := splitCode(in)
	return h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
}

// resolveMove resolves and checks a move's arguments and reads what both categories have
// assigned in the month.
func (h *handlers) resolveMove(ctx context.Context, p *ynab.Plan, month string, in moveMoneyIn) (move, error) {
	from, err := spendableCategory(p, "from_category", in.FromCategory)
	if err != nil {
		return move{}, err
	}
	to, err := spendableCategory(p, "to_category", in.ToCategory)
	if err != nil {
		return move{}, err
	}
	if from.ID == to.ID {
		return move{}, fmt.Errorf("to_category: %s is also from_category; name two different categories", categoryLabel(p, to.ID))
	}
	m := move{planID: p.ID, month: month, from: from, to: to, digits: Digits(currency(p))}
	if m.amount, err = in.Amount.Milliunits(m.digits); err != nil {
		return move{}, fmt.Errorf("amount: %w", err)
	}
	if m.amount <= 0 {
		return move{}, fmt.Errorf("amount: %s is not more than zero; give the amount to move as a positive number (to move money the other way, swap from_category and to_category)", m.plain(m.amount))
	}
	if m.fromBefore, err = h.assigned(ctx, p, month, from.ID); err != nil {
		return move{}, err
	}
	if m.toBefore, err = h.assigned(ctx, p, month, to.ID); err != nil {
		return move{}, err
	}
	fromAfter, fromOK := addMilliunits(m.fromBefore, -m.amount)
	toAfter, toOK := addMilliunits(m.toBefore, m.amount)
	if !fromOK || !toOK {
		return move{}, totalError("amount", "an assigned amount", m.digits)
	}
	if err := checkAssignment(p, "amount", month, from.ID, m.fromBefore, fromAfter); err != nil {
		return move{}, err
	}
	if err := checkAssignment(p, "amount", month, to.ID, m.toBefore, toAfter); err != nil {
		return move{}, err
	}
	return m, nil
}

// applyMove makes the move with two PATCHes, the from-category first: YNAB has no request that
// changes two categories at once. Each change is marked applied as YNAB's answer shows it. When
// a request fails, nothing is put back: the write path reads YNAB and records what each
// category holds, and the result says it, so that the person decides (undo_operation takes back
// what landed).
func (h *handlers) applyMove(ctx context.Context, m move, changes []journal.Change) (journal.Outcome, error) {
	out := journal.Outcome{Changes: slices.Clone(changes)}
	if _, err := h.YNAB.UpdateMonthCategory(ctx, m.planID, m.month, m.from.ID, m.fromAfter()); err != nil {
		return out, fmt.Errorf("taking %s out of %s: %w", m.plain(m.amount), m.from.Name, err)
	}
	out.Changes[0].Outcome = journal.OutcomeApplied
	res, err := h.YNAB.UpdateMonthCategory(ctx, m.planID, m.month, m.to.ID, m.toAfter())
	if err != nil {
		return out, fmt.Errorf("adding %s to %s: %w", m.plain(m.amount), m.to.Name, err)
	}
	out.Changes[1].Outcome = journal.OutcomeApplied
	out.ServerKnowledge = res.ServerKnowledge
	return out, nil
}
