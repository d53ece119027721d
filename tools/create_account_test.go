package tools

import (
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/journal"
)

var accountArgs = func(*testEnv) map[string]any {
	return map[string]any{"name": "Spaarpot", "type": "Savings", "balance": "500"}
}

// accountListed is the account of that name as list_accounts shows it.
func accountListed(e *testEnv, name string) (accountView, bool) {
	e.t.Helper()
	var out listAccountsOut
	e.ok("list_accounts", nil, &out)
	for _, a := range out.Accounts {
		if a.Name == name {
			return a, true
		}
	}
	return accountView{}, false
}

func TestCreateAccount(t *testing.T) {
	t.Parallel()
	op := wrAcrossClients(t, wrCase{tool: "create_account", args: accountArgs,
		first:  "Create account ‘Spaarpot’ (savings) with balance 500.00?",
		writes: map[string]int{"POST /plans/{plan_id}/accounts": 1},
		check: func(t *testing.T, e *testEnv) {
			if a, ok := accountListed(e, "Spaarpot"); !ok || a.Type != "savings" || a.BalanceMilliunits != 500000 {
				t.Fatalf("list_accounts shows %+v (%v)", a, ok)
			}
		}})
	if ch := op.Changes[0]; ch.Kind != journal.KindNewAccount || ch.ID == "" || !strings.Contains(op.Preview, "YNAB's API cannot delete or close an account") {
		t.Fatalf("journal %+v, preview %q", ch, op.Preview)
	}
}

func TestCreateAccountCannotBeUndone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{kind: noElicit})
	_, out := e.apply("create_account", accountArgs(e))
	wrUndoRefused(e, out.OperationID, "YNAB's API cannot delete or close an account: close or delete it in YNAB yourself")
}

func TestCreateAccountAfterALostAnswer(t *testing.T) {
	t.Parallel()
	e, op := wrLostAnswer(t, "create_account", accountArgs, "POST", "/accounts")
	if a, _ := accountListed(e, "Spaarpot"); a.ID != op.Changes[0].ID {
		t.Fatalf("the journal records %s, YNAB holds %s", op.Changes[0].ID, a.ID)
	}
}

func TestCreateAccountRefusals(t *testing.T) {
	t.Parallel()
	with := func(k string, v any) map[string]any { return withArg(accountArgs(nil), k, v) }
	moneyRefusals(t, "create_account", []moneyRefusal{
		{"no name", with("name", " "), "name: give the account a name; it cannot be empty"},
		{"a name too long", with("name", strings.Repeat("n", 201)), "name: the name is 201 characters long"},
		{"the name of an account", with("name", "betaalrekening"), "name: there is already an account ‘Betaalrekening’"},
		{"a type the API cannot create", with("type", "mortgage"), "type: YNAB's API cannot create a mortgage account (only YNAB's apps can)"},
		{"no type", with("type", "piggybank"), `type: "piggybank" is not an account type`},
		{"too many decimals", with("balance", "500.001"), `balance: "500.001" has more decimals`},
		{"no balance", map[string]any{"name": "Spaarpot", "type": "savings"}, "balance: missing"},
	})
}
