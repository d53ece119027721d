package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

// The card's lines: every change of a write, as label, before and after, for hosts that draw
// avenir's confirmation card (MCP Apps, confirmation.md §2.4).

// cardLine is one change as the card shows it.
type cardLine struct {
	Label   string `json:"label"`
	Before  string `json:"before,omitempty"`
	After   string `json:"after,omitempty"`
	Outcome string `json:"outcome,omitempty" jsonschema:"after a card's answer: applied or not_applied"`
}

// cardLines are a preview's change lines, every one, split where a line says "label: before →
// after" (a line without an arrow is all label). The card shows what the preview says, in
// columns: one wording of a change, not two.
func cardLines(lines []string) []cardLine {
	if lines == nil {
		return nil
	}
	out := make([]cardLine, 0, min(len(lines), 500))
	size := 0
	for i, l := range lines {
		c := cardLineOf(l)
		if size += cardLineSize(c); size > maxCardBytes {
			return append(out, moreCardLines(len(lines)-i))
		}
		out = append(out, c)
	}
	return out
}

// maxCardBytes bounds the card's lines in a result, which the model reads too: with the
// preview and the warnings beside them, the result stays inside the result budget of
// spec/tools.md (~60 KB) however many lines a write has (an import_statement of 10,000 lines;
// the other writes take at most 100 changes, far below it).
const maxCardBytes = 36 << 10

// cardLineSize is the JSON size of a card line, as the result carries it.
func cardLineSize(c cardLine) int {
	b, err := json.Marshal(c)
	if err != nil {
		return len(c.Label) + len(c.Before) + len(c.After) + len(c.Outcome) + 60
	}
	return len(b) + 1
}

// moreCardLines is the last line of a card cut at maxCardBytes: the rest, counted. The preview's
// first line gives the whole write's totals.
func moreCardLines(n int) cardLine {
	return cardLine{Label: fmt.Sprintf("… and %d more", n)}
}

func cardLineOf(l string) cardLine {
	head, after, ok := cutLast(l, " → ")
	if !ok {
		return cardLine{Label: l}
	}
	label, before, ok := cutLast(head, ": ")
	if !ok {
		return cardLine{Label: head, After: after}
	}
	return cardLine{Label: label, Before: before, After: after}
}

func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// cardPreview is the change of ed as open_confirmation gives it to the card: every line (cut at
// maxCardBytes as the pending result's are), and the warnings.
func (ed *edit) cardPreview() confirm.CardPreview {
	lines := ed.cardLines()
	out := confirm.CardPreview{FirstLine: ed.first, Lines: make([]confirm.CardLine, len(lines)), Warnings: slices.Clone(ed.notes)}
	for i, l := range lines {
		out.Lines[i] = confirm.CardLine{Label: l.Label, Before: l.Before, After: l.After}
	}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	return out
}

// cardLines are the card's lines of ed: its preview's change lines, or, for a write whose first
// line says the whole change (set_category_budget), each change as the journal records it.
func (ed *edit) cardLines() []cardLine {
	if len(ed.lines) > 0 {
		return cardLines(ed.lines)
	}
	return outcomeLines(ed.plan, ed.changes)
}

// outcomeLines are an applied operation's changes with each one's outcome, for the card that
// confirmed it.
func outcomeLines(p *ynab.Plan, changes []journal.Change) []cardLine {
	out := make([]cardLine, 0, min(len(changes), 500))
	size := 0
	for i, c := range changes {
		l := cardLineOf(describeChange(p, c))
		l.Outcome = c.Outcome
		if size += cardLineSize(l); size > maxCardBytes {
			return append(out, moreCardLines(len(changes)-i))
		}
		out = append(out, l)
	}
	return out
}
