package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

var createAccountTool = mcp.Tool{
	Name:        "create_account",
	Title:       "Create an account",
	Description: "Create an account with its starting balance. Cannot be undone: YNAB's API deletes no account." + confirmDescription,
	Meta:        cardMeta,
	// Idempotent: an account of that name is refused, so a repeated call adds nothing.
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type createAccountIn struct {
	planArg
	Name    string `json:"name"`
	Type    string `json:"type" jsonschema:"checking, savings, cash, creditCard, otherAsset or otherLiability"`
	Balance Amount `json:"balance" jsonschema:"negative for a debt"`
	confirmArg
}

type createAccountSubject struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Balance int64  `json:"balance"`
}

// creatableAccountTypes are the account types YNAB's API creates (SaveAccountType); loans,
// mortgages and lines of credit only its apps do.
var creatableAccountTypes = []string{ynab.AccountChecking, ynab.AccountSavings, ynab.AccountCash, ynab.AccountCreditCard,
	ynab.AccountOtherAsset, ynab.AccountOtherLiability}

// appOnlyAccountTypes are YNAB's other account types.
var appOnlyAccountTypes = []string{ynab.AccountLineOfCredit, ynab.AccountMortgage, ynab.AccountAutoLoan, ynab.AccountStudentLoan,
	ynab.AccountPersonalLoan, ynab.AccountMedicalDebt, ynab.AccountOtherDebt}

// maxAccountName bounds an account's name; YNAB documents no limit.
const maxAccountName = 200

func (h *handlers) createAccount(ctx context.Context, req *mcp.CallToolRequest, in createAccountIn) (*mcp.CallToolResult, writeOut, error) {
	name, err := nameArg("name", "account", in.Name, maxAccountName)
	if err != nil {
		return nil, writeOut{}, err
	}
	typ, err := accountTypeArg("type", in.Type)
	if err != nil {
		return nil, writeOut{}, err
	}
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		for _, a := range p.Accounts {
			if !a.Deleted && strings.EqualFold(a.Name, name) {
				return nil, fmt.Errorf("name: there is already an account ‘%s’; choose another name", a.Name)
			}
		}
		digits := Digits(currency(p))
		balance, err := in.Balance.Milliunits(digits)
		if err != nil {
			return nil, fmt.Errorf("balance: %w", err)
		}
		s := createAccountSubject{Name: name, Type: typ, Balance: balance}
		ed := &edit{
			plan:    p,
			tool:    createAccountTool.Name,
			subject: s,
			first:   fmt.Sprintf("Create account ‘%s’ (%s) with balance %s?", name, typ, FormatPlain(balance, digits)),
			lines:   []string{fmt.Sprintf("YNAB enters the balance as a ‘Starting Balance’ transaction of %s, dated today.", FormatPlain(balance, digits))},
			notes:   []string{"This cannot be undone through avenir: YNAB's API cannot delete or close an account. To remove it later, close or delete it in YNAB."},
			changes: []journal.Change{{Kind: journal.KindNewAccount, Label: "account " + name, Before: fieldsJSON(nil),
				After: fieldsJSON(map[string]any{"name": name, "type": typ, "balance": balance})}},
		}
		if typ == ynab.AccountCreditCard {
			ed.lines = append(ed.lines, "YNAB also makes its credit card payment category.")
		}
		return h.appliedAsJournaled(ed)
	}
	args, code := splitCode(in)
	res, out, err := h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
	if id := createdIDOf(out); id != "" {
		out.Message = fmt.Sprintf("Account ‘%s’ is created (id %s).", name, id)
	}
	return res, out, err
}

// accountTypeArg reads an account type YNAB's API can create, in any case.
func accountTypeArg(arg, s string) (string, error) {
	t := strings.TrimSpace(s)
	for _, c := range creatableAccountTypes {
		if strings.EqualFold(c, t) {
			return c, nil
		}
	}
	for _, c := range appOnlyAccountTypes {
		if strings.EqualFold(c, t) {
			return "", fmt.Errorf("%s: YNAB's API cannot create a %s account (only YNAB's apps can); it creates %s", arg, c, strings.Join(creatableAccountTypes, ", "))
		}
	}
	return "", fmt.Errorf("%s: %s is not an account type: use %s", arg, quoted(s), strings.Join(creatableAccountTypes, ", "))
}
