package tools

import (
	"context"
	"fmt"

	"github.com/avenir-mcp/avenir/ynab"
)

// month parses a month argument (empty means current) in the plan's time: UTC, like YNAB's own
// "current".
func (h *handlers) parseMonth(arg, s string) (string, error) {
	m, err := ParseMonth(s, h.Now().UTC())
	if err != nil {
		return "", fmt.Errorf("%s: %w", arg, err)
	}
	return m, nil
}

// monthData returns the plan's month with its categories: from the snapshot when the export
// holds it, else one GET of that month (a month beyond the export's range).
func (h *handlers) monthData(ctx context.Context, p *ynab.Plan, month string) (*ynab.Month, error) {
	if m, ok := p.Month(month); ok {
		return m, nil
	}
	m, err := h.YNAB.GetMonth(ctx, p.ID, month)
	if ynab.IsStatus(err, 404) {
		return nil, fmt.Errorf("month %s is outside this plan, which runs from %s to %s", month[:7], p.FirstMonth, p.LastMonth)
	}
	if err != nil {
		return nil, err
	}
	return &m, nil
}
