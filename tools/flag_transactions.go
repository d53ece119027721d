package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/ynab"
)

var flagTransactionsTool = mcp.Tool{
	Name:        "flag_transactions",
	Title:       "Flag transactions",
	Description: "Set or clear the flag of 1 to 1000 transactions in one write. Undoable." + confirmDescription,
	Meta:        cardMeta,
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type flagTransactionsIn struct {
	planArg
	Flags []flagChange `json:"flags"`
	confirmArg
}

type flagChange struct {
	TransactionID string `json:"transaction_id"`
	Color         string `json:"color" jsonschema:"red, orange, yellow, green, blue, purple or none"`
}

// noFlag is the colour argument that clears a flag, and how a preview names no flag.
const noFlag = "none"

// reflag is one element of flag_transactions' subject: a transaction and its colour after
// ("none" for no flag).
type reflag struct {
	TransactionID string `json:"transaction_id"`
	Color         string `json:"color"`
}

func (h *handlers) flagTransactions(ctx context.Context, req *mcp.CallToolRequest, in flagTransactionsIn) (*mcp.CallToolResult, writeOut, error) {
	if err := checkEditCount("flags", len(in.Flags)); err != nil {
		return nil, writeOut{}, err
	}
	colors := make([]string, len(in.Flags))
	ids := make([]string, len(in.Flags))
	for i, f := range in.Flags {
		c, err := flagColor(fmt.Sprintf("flags[%d].color", i), f.Color)
		if err != nil {
			return nil, writeOut{}, err
		}
		colors[i], ids[i] = c, f.TransactionID
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		txs, err := transactionsByID(p, "flags", ids)
		if err != nil {
			return nil, err
		}
		ed := &edit{plan: p, tool: flagTransactionsTool.Name}
		var subject []reflag
		var save []ynab.SaveTransaction
		for i, t := range txs {
			before, after := flagOf(t), colors[i]
			if before == after {
				continue
			}
			subject = append(subject, reflag{TransactionID: t.ID, Color: after})
			save = append(save, ynab.SaveTransaction{ID: t.ID, FlagColor: ynab.Some(flagWire(after))})
			label := txLabel(p, t)
			ed.lines = append(ed.lines, fmt.Sprintf("%s: %s → %s", label, before, after))
			ed.changes = append(ed.changes, editChange(t.ID, label, "flag_color", flagJournal(before), flagJournal(after)))
		}
		if len(subject) == 0 {
			return nil, errors.New("flags: every transaction named already has the flag given: nothing to change")
		}
		ed.subject = subject
		ed.first = fmt.Sprintf("Change the flag of %d transaction(s)?", len(subject))
		ed.apply = h.patchEdits(p.ID, save)
		return ed, nil
	}
	args, code := splitCode(in)
	return h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
}

// flagColor reads a colour argument: one of YNAB's flag colours or "none", in any case.
func flagColor(arg, s string) (string, error) {
	c := strings.ToLower(strings.TrimSpace(s))
	if c == noFlag || slices.Contains(ynab.FlagColors, c) {
		return c, nil
	}
	return "", fmt.Errorf("%s: %s is not a flag colour: use %s, or none to clear the flag", arg, quoted(s), strings.Join(ynab.FlagColors, ", "))
}

// flagOf is a transaction's flag as the preview names it: its colour, or "none".
func flagOf(t *ynab.TransactionSummary) string {
	if t.FlagColor == nil || *t.FlagColor == "" {
		return noFlag
	}
	return *t.FlagColor
}

// flagWire is a colour as YNAB takes it: "" clears the flag.
func flagWire(c string) string {
	if c == noFlag {
		return ""
	}
	return c
}

// flagJournal is a colour as the journal records it: null for no flag.
func flagJournal(c string) *string {
	if c == noFlag {
		return nil
	}
	return &c
}
