package sandbox

import (
	"crypto/sha1"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/avenir-mcp/avenir/ynab"
)

// world is everything the sandbox keeps, and exactly what it saves to its state file. Derived
// figures (balances, activity, goal progress, Ready to Assign) are not in it: they are
// recomputed from these facts (see derive.go).
type world struct {
	UserID   string  `json:"user_id"`
	LastUsed string  `json:"last_used_plan_id"`
	Plans    []*plan `json:"plans"`
	Sample   string  `json:"sample,omitempty"` // what Reset restores: "" standard, "large:N"
}

// plan is one plan's facts, its server knowledge and the bookkeeping that makes delta
// requests exact.
type plan struct {
	ID             string              `json:"id"`
	Name           string              `json:"name"`
	LastModifiedOn string              `json:"last_modified_on"`
	FirstMonth     string              `json:"first_month"`
	LastMonth      string              `json:"last_month"`
	DateFormat     ynab.DateFormat     `json:"date_format"`
	CurrencyFormat ynab.CurrencyFormat `json:"currency_format"`

	Accounts []*account    `json:"accounts"`
	Payees   []*ynab.Payee `json:"payees"`
	// PayeeLocations are where YNAB's mobile app saw a payee; the API only reads them.
	PayeeLocations []*ynab.PayeeLocation        `json:"payee_locations"`
	Groups         []*ynab.CategoryGroup        `json:"category_groups"`
	Categories     []*category                  `json:"categories"`
	Assigned       map[string]map[string]int64  `json:"assigned"` // month → category id → milliunits
	Transactions   []*txn                       `json:"transactions"`
	Scheduled      []*ynab.ScheduledTransaction `json:"scheduled_transactions"`
	// BankFeed is what the bank holds for the linked accounts and the next import brings in.
	BankFeed []bankItem `json:"bank_feed"`
	// Movements and MovementGroups record the changes of assigned amounts (see movements.go).
	Movements      []*ynab.MoneyMovement      `json:"money_movements"`
	MovementGroups []*ynab.MoneyMovementGroup `json:"money_movement_groups"`
	LastMove       *lastMove                  `json:"last_move,omitempty"`

	Knowledge int64 `json:"server_knowledge"`
	// Seq numbers the entities created through the API, so their ids are deterministic.
	Seq int64 `json:"seq"`
	// Marks records, per served entity, a hash of its served form and the knowledge at
	// which that form last changed: a delta request returns the entities marked after it.
	Marks map[string]mark `json:"marks"`
}

// mark is the change record of one served entity (see plan.Marks).
type mark struct {
	Hash      uint64 `json:"h"`
	Knowledge int64  `json:"k"`
}

// account holds an account's facts; its balances are derived from its transactions.
type account struct {
	ID                 string  `json:"id"`
	Name               string  `json:"name"`
	Type               string  `json:"type"`
	OnBudget           bool    `json:"on_budget"`
	Closed             bool    `json:"closed"`
	Note               *string `json:"note"`
	TransferPayeeID    string  `json:"transfer_payee_id"`
	DirectImportLinked bool    `json:"direct_import_linked"`
	LastReconciledAt   *string `json:"last_reconciled_at"`
	Deleted            bool    `json:"deleted"`
}

// category holds a category's facts; its monthly amounts and goal progress are derived.
type category struct {
	ID       string  `json:"id"`
	GroupID  string  `json:"category_group_id"`
	Name     string  `json:"name"`
	Hidden   bool    `json:"hidden"`
	Internal bool    `json:"internal"`
	Note     *string `json:"note"`
	// CardAccountID is set on a credit card payment category: the card it pays.
	CardAccountID string `json:"card_account_id,omitempty"`
	Goal          *goal  `json:"goal,omitempty"`
	Deleted       bool   `json:"deleted"`
}

// goal is a category's target as YNAB describes it.
type goal struct {
	Type             string  `json:"type"`
	Target           int64   `json:"target"`
	TargetDate       *string `json:"target_date"`
	NeedsWholeAmount *bool   `json:"needs_whole_amount"`
	Day              *int    `json:"day"`
	Cadence          *int    `json:"cadence"`
	CadenceFrequency *int    `json:"cadence_frequency"`
	CreationMonth    string  `json:"creation_month"`
}

// txn is a transaction as stored: YNAB's summary fields (without the formatted ones) and its
// split lines (whose payee and category names are filled in when served).
type txn struct {
	ynab.TransactionSummary
	Subs []ynab.SubTransaction `json:"subs"`
}

// bankItem is a transaction waiting at the bank for the next import.
type bankItem struct {
	AccountID string `json:"account_id"`
	DaysAgo   int    `json:"days_ago"`
	Amount    int64  `json:"amount"`
	PayeeName string `json:"payee_name"`
	Statement string `json:"statement"`
}

// namespace seeds the sandbox's name-based UUIDs.
var namespace = [16]byte{0x8f, 0x4e, 0x2b, 0x61, 0x3c, 0x7a, 0x4d, 0x10, 0x9e, 0x55, 0x21, 0xa4, 0x6b, 0x0d, 0xc3, 0x97}

// uuidFor returns the name-based (version 5) UUID of the joined parts: the same parts give the
// same id in every run, which is what makes the sample's ids fixed.
func uuidFor(parts ...string) string {
	h := sha1.New()
	h.Write(namespace[:])
	h.Write([]byte(strings.Join(parts, "\x00")))
	b := h.Sum(nil)
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// newID returns a fresh deterministic id for an entity of the given kind created through the API.
func (p *plan) newID(kind string) string {
	p.Seq++
	return uuidFor(p.ID, kind, "created", strconv.FormatInt(p.Seq, 10))
}

func (p *plan) account(id string) *account {
	for _, a := range p.Accounts {
		if a.ID == id && !a.Deleted {
			return a
		}
	}
	return nil
}

func (p *plan) payee(id string) *ynab.Payee {
	for _, py := range p.Payees {
		if py.ID == id && !py.Deleted {
			return py
		}
	}
	return nil
}

// payeeNamed finds a payee by its exact name, as YNAB does for payee_name.
func (p *plan) payeeNamed(name string) *ynab.Payee {
	for _, py := range p.Payees {
		if py.Name == name && !py.Deleted {
			return py
		}
	}
	return nil
}

func (p *plan) group(id string) *ynab.CategoryGroup {
	for _, g := range p.Groups {
		if g.ID == id && !g.Deleted {
			return g
		}
	}
	return nil
}

func (p *plan) category(id string) *category {
	for _, c := range p.Categories {
		if c.ID == id && !c.Deleted {
			return c
		}
	}
	return nil
}

// txn finds a live transaction by id (not a split line).
func (p *plan) txn(id string) *txn {
	for _, t := range p.Transactions {
		if t.ID == id && !t.Deleted {
			return t
		}
	}
	return nil
}

// accountOfTransferPayee returns the account a transfer payee moves money to, or nil.
func (p *plan) accountOfTransferPayee(payeeID string) *account {
	py := p.payee(payeeID)
	if py == nil || py.TransferAccountID == nil {
		return nil
	}
	return p.account(*py.TransferAccountID)
}

// readyToAssign returns the plan's "Inflow: Ready to Assign" category.
func (p *plan) readyToAssign() *category {
	for _, c := range p.Categories {
		if c.Internal && !c.Deleted {
			return c
		}
	}
	return nil
}

func (p *plan) assigned(month, categoryID string) int64 {
	return p.Assigned[month][categoryID]
}

func (p *plan) setAssigned(month, categoryID string, milliunits int64) {
	if p.Assigned == nil {
		p.Assigned = map[string]map[string]int64{}
	}
	if p.Assigned[month] == nil {
		p.Assigned[month] = map[string]int64{}
	}
	if milliunits == 0 {
		delete(p.Assigned[month], categoryID)
		if len(p.Assigned[month]) == 0 {
			delete(p.Assigned, month)
		}
		return
	}
	p.Assigned[month][categoryID] = milliunits
}

// succeed makes a fresh sample plan take the place of the plan old, as Reset does, so that a
// client's delta requests follow: the knowledge goes on counting, every entity counts as changed,
// and what old had beyond the sample (created through the API) stays, deleted. The months old
// served stay served, and ids of new entities go on from old's.
func (p *plan) succeed(old *plan) *plan {
	p.Knowledge = max(p.Knowledge, old.Knowledge) + 1
	p.Seq = old.Seq
	p.FirstMonth, p.LastMonth = min(p.FirstMonth, old.FirstMonth), max(p.LastMonth, old.LastMonth)
	for _, t := range old.Transactions {
		if !slices.ContainsFunc(p.Transactions, func(n *txn) bool { return n.ID == t.ID }) {
			t.remove()
			p.Transactions = append(p.Transactions, t)
		}
	}
	for _, py := range old.Payees {
		if !slices.ContainsFunc(p.Payees, func(n *ynab.Payee) bool { return n.ID == py.ID }) {
			py.Deleted = true
			p.Payees = append(p.Payees, py)
		}
	}
	for _, g := range old.Groups {
		if !slices.ContainsFunc(p.Groups, func(n *ynab.CategoryGroup) bool { return n.ID == g.ID }) {
			g.Deleted = true
			p.Groups = append(p.Groups, g)
		}
	}
	for _, c := range old.Categories {
		if !slices.ContainsFunc(p.Categories, func(n *category) bool { return n.ID == c.ID }) {
			c.Deleted = true
			p.Categories = append(p.Categories, c)
		}
	}
	return p
}
