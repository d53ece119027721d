package sandbox

import (
	"net/http"
	"slices"
	"time"

	"github.com/avenir-mcp/avenir/ynab"
)

// Money movements are read-only in YNAB's API (spec 1.78+), and YNAB does not document which
// changes of assigned amounts create one. The sandbox's reading:
//
//   - Every change of a category's assigned amount in a month (PATCH
//     /months/{month}/categories/{id}) records one movement in a group of its own: an increase
//     moves money from Ready to Assign (from_category_id null) to the category, a decrease from
//     the category back to Ready to Assign (to_category_id null). The amount is positive.
//   - A move between two categories done as two PATCHes, the way an API client must, reads as
//     YNAB's "move money": when a PATCH is the very next write on the plan after one that took
//     the same amount out of another category in the same month, within a minute, the two
//     become one movement from that category to this one, in the first one's group.
//   - The sample has the history of its assignments: per month, one group on its first day
//     with a movement from Ready to Assign to each category assigned in it.
//
// Movements are not part of the plan export and have no delta requests (the spec defines no
// last_knowledge_of_server for them); their answers carry the plan's server_knowledge.

// lastMove remembers the movement the last write of a plan recorded, so that the next write
// can join it (see above).
type lastMove struct {
	MovementID string `json:"movement_id"`
	CategoryID string `json:"category_id"`
	Month      string `json:"month"`
	Delta      int64  `json:"delta"`
	Knowledge  int64  `json:"knowledge"` // the plan's knowledge right after that write
	At         string `json:"at"`
}

// moveWindow is how soon the second half of a two-PATCH move must follow the first.
const moveWindow = time.Minute

// recordMove records the change of a category's assigned amount in a month by delta
// milliunits, made now. It runs before the write commits: knowledge is the plan's knowledge
// before this write.
func (p *plan) recordMove(userID, month, categoryID string, delta int64, now time.Time) {
	if delta == 0 {
		return
	}
	at := timestamp(now)
	if lm := p.LastMove; lm != nil && lm.Knowledge == p.Knowledge && lm.Month == month &&
		lm.Delta == -delta && lm.CategoryID != categoryID {
		if t, err := time.Parse(time.RFC3339, lm.At); err == nil && now.Sub(t) <= moveWindow {
			for _, m := range p.Movements {
				if m.ID != lm.MovementID {
					continue
				}
				if delta > 0 {
					m.ToCategoryID = ptr(categoryID)
				} else {
					m.FromCategoryID = ptr(categoryID)
				}
				p.LastMove = nil
				return
			}
		}
	}
	group := &ynab.MoneyMovementGroup{ID: p.newID("money_movement_group"), GroupCreatedAt: at, Month: month,
		PerformedByUserID: ptr(userID)}
	m := &ynab.MoneyMovement{ID: p.newID("money_movement"), Month: ptr(month), MovedAt: ptr(at),
		MoneyMovementGroupID: ptr(group.ID), PerformedByUserID: ptr(userID), Amount: abs(delta)}
	if delta > 0 {
		m.ToCategoryID = ptr(categoryID)
	} else {
		m.FromCategoryID = ptr(categoryID)
	}
	p.MovementGroups = append(p.MovementGroups, group)
	p.Movements = append(p.Movements, m)
	p.LastMove = &lastMove{MovementID: m.ID, CategoryID: categoryID, Month: month, Delta: delta,
		Knowledge: p.Knowledge + 1, At: at}
}

func getMoneyMovements(c *call) (int, any, error) {
	return c.moneyMovements("")
}

func getMonthMoneyMovements(c *call) (int, any, error) {
	month, err := c.month()
	if err != nil {
		return 0, nil, err
	}
	return c.moneyMovements(month)
}

// moneyMovements answers the movements of one month, or of all months ("").
func (c *call) moneyMovements(month string) (int, any, error) {
	list := []ynab.MoneyMovement{}
	for _, m := range c.p.Movements {
		if month == "" || (m.Month != nil && *m.Month == month) {
			mm := *m
			mm.AmountFormatted, mm.AmountCurrency = c.f.text(m.Amount), c.f.currency(m.Amount)
			list = append(list, mm)
		}
	}
	return http.StatusOK, map[string]any{"money_movements": list, "server_knowledge": c.p.Knowledge}, nil
}

func getMoneyMovementGroups(c *call) (int, any, error) {
	return c.moneyMovementGroups("")
}

func getMonthMoneyMovementGroups(c *call) (int, any, error) {
	month, err := c.month()
	if err != nil {
		return 0, nil, err
	}
	return c.moneyMovementGroups(month)
}

func (c *call) moneyMovementGroups(month string) (int, any, error) {
	list := []ynab.MoneyMovementGroup{}
	for _, g := range c.p.MovementGroups {
		if month == "" || g.Month == month {
			list = append(list, *g)
		}
	}
	return http.StatusOK, map[string]any{"money_movement_groups": list, "server_knowledge": c.p.Knowledge}, nil
}

// sampleMovements records the sample's assignments as YNAB would have them: per month, one
// group on its first day moving money from Ready to Assign to each category, in plan order.
func (b *builder) sampleMovements() {
	userID := sampleUserID
	months := make([]string, 0, len(b.p.Assigned))
	for m := range b.p.Assigned {
		months = append(months, m)
	}
	slices.Sort(months)
	for _, month := range months {
		at := month + "T08:00:00.000Z"
		g := &ynab.MoneyMovementGroup{ID: b.id("money_movement_group", month), GroupCreatedAt: at, Month: month,
			PerformedByUserID: ptr(userID)}
		b.p.MovementGroups = append(b.p.MovementGroups, g)
		for _, c := range b.p.Categories {
			amount := b.p.assigned(month, c.ID)
			if amount == 0 {
				continue
			}
			m := &ynab.MoneyMovement{ID: b.id("money_movement", month+"/"+c.ID), Month: ptr(month), MovedAt: ptr(at),
				MoneyMovementGroupID: ptr(g.ID), PerformedByUserID: ptr(userID), ToCategoryID: ptr(c.ID), Amount: abs(amount)}
			if amount < 0 {
				m.ToCategoryID, m.FromCategoryID = nil, ptr(c.ID)
			}
			b.p.Movements = append(b.p.Movements, m)
		}
	}
}
