package sandbox

import (
	"net/http"
	"slices"
	"strings"

	"github.com/avenir-mcp/avenir/ynab"
)

// Writes to payees and accounts.

// reservedPayees are the names of the payees YNAB keeps for itself; "Transfer : " starts the
// name of every account's transfer payee. No payee may be created or renamed to one of them,
// and YNAB's own payees cannot be renamed.
var reservedPayees = []string{"Starting Balance", "Manual Balance Adjustment", "Reconciliation Balance Adjustment"}

const transferPrefix = "Transfer : "

// reservedPayee reports whether a payee name is one YNAB reserves.
func reservedPayee(name string) bool {
	name = strings.TrimSpace(name)
	if strings.HasPrefix(strings.ToLower(name), strings.ToLower(strings.TrimSpace(transferPrefix))) {
		return true
	}
	return slices.ContainsFunc(reservedPayees, func(r string) bool { return strings.EqualFold(r, name) })
}

// payeeName reads {"payee":{"name":…}} and checks the name: YNAB allows at most 500 characters.
func (c *call) payeeName(except string) (string, error) {
	var body struct {
		Payee *struct {
			Name *string `json:"name"`
		} `json:"payee"`
	}
	if err := c.decode(&body); err != nil {
		return "", err
	}
	if body.Payee == nil || body.Payee.Name == nil {
		return "", badRequest(`name is required: send {"payee":{"name":…}}.`)
	}
	name := strings.TrimSpace(*body.Payee.Name)
	if err := validName("name", name, 500); err != nil {
		return "", err
	}
	if reservedPayee(name) {
		return "", badRequest("%q is a payee name YNAB reserves for itself: choose another name.", name)
	}
	if py := c.p.payeeNamed(name); py != nil && py.ID != except {
		return "", badRequest("A payee named %q already exists in this plan.", name)
	}
	return name, nil
}

func postPayee(c *call) (int, any, error) {
	name, err := c.payeeName("")
	if err != nil {
		return 0, nil, err
	}
	py := &ynab.Payee{ID: c.p.newID("payee"), Name: name}
	c.p.Payees = append(c.p.Payees, py)
	return c.savedPayee(http.StatusCreated, py)
}

func patchPayee(c *call) (int, any, error) {
	id := c.params["payee_id"]
	py := c.p.payee(id)
	if py == nil {
		return 0, nil, notFound("payee", id)
	}
	switch {
	case py.TransferAccountID != nil:
		return 0, nil, badRequest("%q is the transfer payee of an account: it takes the account's name and cannot be renamed.", py.Name)
	case reservedPayee(py.Name):
		return 0, nil, badRequest("%q is YNAB's own payee and cannot be renamed.", py.Name)
	}
	name, err := c.payeeName(py.ID)
	if err != nil {
		return 0, nil, err
	}
	py.Name = name
	return c.savedPayee(http.StatusOK, py)
}

func (c *call) savedPayee(status int, py *ynab.Payee) (int, any, error) {
	k, err := c.commit()
	if err != nil {
		return 0, nil, err
	}
	return status, map[string]any{"payee": *py, "server_knowledge": k}, nil
}

// accountTypes are the types POST /accounts creates (SaveAccountType), and whether an
// account of the type is on budget: assets and liabilities are tracking accounts.
var accountTypes = map[string]bool{
	ynab.AccountChecking: true, ynab.AccountSavings: true, ynab.AccountCash: true, ynab.AccountCreditCard: true,
	ynab.AccountOtherAsset: false, ynab.AccountOtherLiability: false,
}

// postAccount creates an account as YNAB's apps do: with its transfer payee, a "Starting
// Balance" transaction of the balance dated today (cleared, approved; to Ready to Assign on a
// budget account other than a card), and for a credit card its payment category in the
// "Credit Card Payments" group.
func postAccount(c *call) (int, any, error) {
	var body struct {
		Account *struct {
			Name    *string `json:"name"`
			Type    *string `json:"type"`
			Balance *int64  `json:"balance"`
		} `json:"account"`
	}
	if err := c.decode(&body); err != nil {
		return 0, nil, err
	}
	in := body.Account
	switch {
	case in == nil:
		return 0, nil, badRequest(`The body needs an account object: {"account":{"name":…,"type":…,"balance":…}}.`)
	case in.Name == nil:
		return 0, nil, badRequest("name is required.")
	case in.Type == nil:
		return 0, nil, badRequest("type is required.")
	case in.Balance == nil:
		return 0, nil, badRequest("balance is required.")
	}
	name := strings.TrimSpace(*in.Name)
	if err := validName("name", name, 0); err != nil {
		return 0, nil, err
	}
	onBudget, ok := accountTypes[*in.Type]
	if !ok {
		return 0, nil, badRequest("type must be checking, savings, cash, creditCard, otherAsset or otherLiability, not %q.", *in.Type)
	}
	a := &account{ID: c.p.newID("account"), Name: name, Type: *in.Type, OnBudget: onBudget,
		TransferPayeeID: c.p.newID("payee")}
	c.p.Accounts = append(c.p.Accounts, a)
	c.p.Payees = append(c.p.Payees, &ynab.Payee{ID: a.TransferPayeeID, Name: transferPrefix + name, TransferAccountID: ptr(a.ID)})
	card := a.Type == ynab.AccountCreditCard
	if card {
		c.p.addCardPayment(a, func(kind string) string { return c.p.newID(kind) })
	}
	start := &txn{TransactionSummary: ynab.TransactionSummary{ID: c.p.newID("transaction"), Date: c.v.today,
		Amount: *in.Balance, Cleared: ynab.Cleared, Approved: true, AccountID: a.ID,
		PayeeID: ptr(c.payeeNamed("Starting Balance"))}}
	if rta := c.p.readyToAssign(); onBudget && !card && rta != nil {
		start.CategoryID = ptr(rta.ID)
	}
	c.p.Transactions = append(c.p.Transactions, start)
	if _, err := c.commit(); err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, map[string]any{"account": c.f.account(c.v.accounts[c.v.accByID[a.ID]])}, nil
}

// addCardPayment adds a credit card's payment category, in the group that holds the others
// (or a new "Credit Card Payments" group).
func (p *plan) addCardPayment(a *account, newID func(kind string) string) {
	var groupID string
	for _, c := range p.Categories {
		if c.CardAccountID != "" && !c.Deleted {
			groupID = c.GroupID
			break
		}
	}
	if groupID == "" {
		g := &ynab.CategoryGroup{ID: newID("group"), Name: "Credit Card Payments"}
		p.Groups = append(p.Groups, g)
		groupID = g.ID
	}
	p.Categories = append(p.Categories, &category{ID: newID("category"), GroupID: groupID, Name: a.Name, CardAccountID: a.ID})
}
