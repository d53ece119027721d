package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/avenir-mcp/avenir/tools/internal/clientjson"
)

// toolArgs maps every tool to its argument struct, for the decoding tests and the fuzzer.
// TestToolArgsCoverEveryTool keeps it complete.
var toolArgs = map[string]reflect.Type{
	"list_plans":                   reflect.TypeFor[listPlansIn](),
	"get_plan_overview":            reflect.TypeFor[planOverviewIn](),
	"list_accounts":                reflect.TypeFor[listAccountsIn](),
	"list_categories":              reflect.TypeFor[listCategoriesIn](),
	"list_transactions":            reflect.TypeFor[listTransactionsIn](),
	"list_payees":                  reflect.TypeFor[listPayeesIn](),
	"list_scheduled_transactions":  reflect.TypeFor[listScheduledIn](),
	"list_operations":              reflect.TypeFor[listOperationsIn](),
	"get_operation":                reflect.TypeFor[getOperationIn](),
	"apply_categories":             reflect.TypeFor[applyCategoriesIn](),
	"set_category_budget":          reflect.TypeFor[setCategoryBudgetIn](),
	"move_money":                   reflect.TypeFor[moveMoneyIn](),
	"flag_transactions":            reflect.TypeFor[flagTransactionsIn](),
	"set_category_target":          reflect.TypeFor[setCategoryTargetIn](),
	"update_category":              reflect.TypeFor[updateCategoryIn](),
	"create_category":              reflect.TypeFor[createCategoryIn](),
	"create_transactions":          reflect.TypeFor[createTransactionsIn](),
	"reconcile_account":            reflect.TypeFor[reconcileAccountIn](),
	"import_statement":             reflect.TypeFor[importStatementIn](),
	"split_transaction":            reflect.TypeFor[splitTransactionIn](),
	"undo_operation":               reflect.TypeFor[undoOperationIn](),
	"approve_transactions":         reflect.TypeFor[approveTransactionsIn](),
	"import_transactions":          reflect.TypeFor[importTransactionsIn](),
	"update_transactions":          reflect.TypeFor[updateTransactionsIn](),
	"delete_transactions":          reflect.TypeFor[deleteTransactionsIn](),
	"create_scheduled_transaction": reflect.TypeFor[createScheduledIn](),
	"update_scheduled_transaction": reflect.TypeFor[updateScheduledIn](),
	"delete_scheduled_transaction": reflect.TypeFor[deleteScheduledIn](),
	"rename_payee":                 reflect.TypeFor[renamePayeeIn](),
	"merge_payees":                 reflect.TypeFor[mergePayeesIn](),
	"create_account":               reflect.TypeFor[createAccountIn](),
	"create_category_group":        reflect.TypeFor[createCategoryGroupIn](),
	"update_category_group":        reflect.TypeFor[updateCategoryGroupIn](),
	"spending_report":              reflect.TypeFor[spendingReportIn](),
	"suggest_categories":           reflect.TypeFor[suggestCategoriesIn](),
	"find_recurring":               reflect.TypeFor[findRecurringIn](),
	"list_money_movements":         reflect.TypeFor[listMoneyMovementsIn](),
	"answer_confirmation":          reflect.TypeFor[answerConfirmationIn](),
	"open_confirmation":            reflect.TypeFor[openConfirmationIn](),
}

func TestToolArgsCoverEveryTool(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	res, err := e.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if _, ok := toolArgs[tool.Name]; !ok {
			t.Errorf("toolArgs has no entry for %s: add its argument struct", tool.Name)
		}
	}
}

// decodeTool reads raw as the arguments of tool into a new value of its struct.
func decodeTool(t testing.TB, tool, raw string) (any, error) {
	t.Helper()
	at, err := argTypeFor(toolArgs[tool])
	if err != nil {
		t.Fatal(err)
	}
	v := reflect.New(toolArgs[tool])
	var in []byte
	if raw != "" {
		in = []byte(raw)
	}
	err = decodeArgs(in, at, v.Interface(), tool)
	return v.Elem().Interface(), err
}

func TestDecodeArgs(t *testing.T) {
	ok := func(tool, raw string, check func(v any) bool) {
		t.Helper()
		v, err := decodeTool(t, tool, raw)
		if err != nil {
			t.Errorf("%s %s: %v", tool, raw, err)
			return
		}
		if !check(v) {
			t.Errorf("%s %s: read as %+v", tool, raw, v)
		}
	}
	budget := func(f func(setCategoryBudgetIn) bool) func(any) bool {
		return func(v any) bool { return f(v.(setCategoryBudgetIn)) }
	}
	// null for an optional argument means absent; the confirmation code is text whatever it is.
	ok("set_category_budget", `{"category":"Restaurants","amount":150,"month":null,"plan_id":null,"confirmation":null}`,
		budget(func(in setCategoryBudgetIn) bool {
			return in.Category == "Restaurants" && in.Amount.String() == "150" && in.Month == "" && in.Confirmation == ""
		}))
	ok("set_category_budget", `{"category":"R","amount":" 150.50 ","confirmation":"abc"}`,
		budget(func(in setCategoryBudgetIn) bool { return in.Amount.String() == "150.50" && in.Confirmation == "abc" }))
	ok("set_category_budget", `{"category":"R","amount":-1.5e3,"confirmation":12345}`,
		budget(func(in setCategoryBudgetIn) bool { return in.Amount.String() == "-1.5e3" && in.Confirmation == "12345" }))
	ok("set_category_budget", `{"category":"R","amount":1,"confirmation":{"a":[1,2]}}`,
		budget(func(in setCategoryBudgetIn) bool { return in.Confirmation == `{"a":[1,2]}` }))
	ok("list_plans", ``, func(v any) bool { return true })
	ok("list_plans", `null`, func(v any) bool { return true })
	ok("list_plans", ` {} `, func(v any) bool { return true })
	ok("list_transactions", `{"limit":-3,"min_amount":null,"max_amount":"7"}`, func(v any) bool {
		in := v.(listTransactionsIn)
		return in.Limit == -3 && in.MinAmount.IsZero() && in.MaxAmount.String() == "7"
	})
	ok("create_transactions", `{"account":"A","approved":false,"transactions":[{"date":"today","amount":"-1","payee":"P","memo":null}]}`,
		func(v any) bool {
			in := v.(createTransactionsIn)
			return in.Approved != nil && !*in.Approved && len(in.Transactions) == 1 && in.Transactions[0].Amount.String() == "-1"
		})
	ok("update_category", `{"category":"C","name":""}`, func(v any) bool {
		in := v.(updateCategoryIn)
		return in.Name != nil && *in.Name == ""
	})
	ok("update_category", `{"category":"C","name":null}`, func(v any) bool { return v.(updateCategoryIn).Name == nil })

	refused := []struct {
		tool, raw string
		want      []string
	}{
		{"set_category_budget", `[]`, []string{"the arguments must be an object of named arguments, not an array"}},
		{"set_category_budget", `"x"`, []string{"not a string"}},
		{"set_category_budget", ``, []string{"category: missing; it is required and must be a string"}},
		{"set_category_budget", `{"category":"R"}`, []string{`amount: missing — an amount: a decimal such as 150, -12.34 or "150.00", the new total`}},
		{"set_category_budget", `{"category":null,"amount":1}`, []string{"category: missing"}},
		{"set_category_budget", `{"category":"R","amount":1,"amount":2}`, []string{`"amount" is given twice`}},
		{"set_category_budget", `{"category":"R","amount":1,"colour":"red"}`,
			[]string{`set_category_budget takes no argument "colour"`, "plan_id, category, month, amount, confirmation"}},
		{"set_category_budget", `{"category":5,"amount":1}`, []string{"category: must be a string", "not the number 5"}},
		{"set_category_budget", `{"category":"R","amount":true}`, []string{`amount: must be an amount: a decimal such as 150, -12.34 or "150.00"`, "not a boolean"}},
		{"set_category_budget", `{"category":"R","amount":{"a":1}}`, []string{"amount:", "not an object"}},
		{"set_category_budget", `{"category":"R","amount":["x","x","x"]}`, []string{"amount:", "not an array"}},
		{"set_category_budget", `{"category":{"a":1},"amount":1}`, []string{"category: must be a string", "not an object"}},
		{"list_transactions", `{"limit":1.5}`, []string{"limit: must be a whole number (default 100, at most 500), not 1.5"}},
		{"list_transactions", `{"limit":1234567890123e0}`, []string{"limit: must be a whole number", "not 1234567890123e0"}},
		{"list_transactions", `{"limit":99999999999999999999}`, []string{"limit: must be a whole number"}},
		{"list_transactions", `{"limit":"5"}`, []string{"limit: must be a whole number", `not the string "5"`}},
		{"list_accounts", `{"include_closed":"yes"}`, []string{"include_closed: must be true or false, not the string"}},
		{"list_accounts", `{"include_closed":1}`, []string{"include_closed: must be true or false"}},
		{"create_transactions", `{"account":"A","transactions":{}}`, []string{"transactions: must be an array, not an object"}},
		{"create_transactions", `{"account":"A","transactions":[null]}`, []string{"transactions[0]: must be an object, not null"}},
		{"create_transactions", `{"account":"A","transactions":["x"]}`, []string{`transactions[0]: must be an object, not the string "x"`}},
		{"create_transactions", `{"account":"A","transactions":[{"date":"today","payee":"P"}]}`,
			[]string{"transactions[0].amount: missing — an amount", "negative for an outflow"}},
		{"create_transactions", `{"account":"A","transactions":[{"date":"today","amount":1,"payee":"P","amount":2}]}`,
			[]string{"transactions[0].amount is given twice"}},
		{"create_transactions", `{"account":"A","transactions":[{"date":"today","amount":1,"payee":"P","colour":1}]}`,
			[]string{`transactions[0]: there is no field "colour"`, "date, amount, payee"}},
		{"create_transactions", `{"account":"A","transactions":[],"approved":"true"}`, []string{"approved: must be true or false"}},
		{"apply_categories", `{"changes":[{"transaction_id":1,"category":"x"}]}`, []string{"changes[0].transaction_id: must be a string"}},
		{"approve_transactions", `{"transaction_ids":[1]}`, []string{"transaction_ids[0]: must be a string, not the number 1"}},
		{"list_plans", `{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, []string{`list_plans takes no argument "a"`}},
		{"list_payees", `{"query":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, []string{"query: must be a string"}},
		{"list_payees", `{"query":"a",}`, []string{"not valid JSON"}},
		{"get_operation", `{"operation_id":"` + strings.Repeat("é", 10_000) + `","x":1}`, []string{`get_operation takes no argument "x"`}},
		{"get_operation", `{"operation_id":"` + strings.Repeat("é", 10_000) + `"`, []string{"not valid JSON"}},
		{"set_category_budget", `{"category":"R","amount":"` + strings.Repeat("9", 10_000) + `","x":"` + strings.Repeat("y", 10_000) + `"}`,
			[]string{`takes no argument "x"`}},
		{"list_transactions", `{"text":"` + strings.Repeat("t", 500) + `","limit":"` + strings.Repeat("l", 500) + `"}`, []string{"…"}},
	}
	for _, tt := range refused {
		_, err := decodeTool(t, tt.tool, tt.raw)
		if err == nil {
			t.Errorf("%s %.80s: accepted, want an error", tt.tool, tt.raw)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %.80s: error %q does not contain %q", tt.tool, tt.raw, err, w)
			}
		}
		checkErrorText(t, err.Error())
	}
}

// checkErrorText fails on an error text that shows Go's insides or quotes a client's value
// at length.
func checkErrorText(t testing.TB, msg string) {
	t.Helper()
	for _, bad := range []string{"reflect", "map[", "struct field", "%!", "<invalid", "json:", "Go value", "mcp.", "tools.", "[]string", "int64", "interface {"} {
		if strings.Contains(msg, bad) {
			t.Fatalf("error text shows Go (%q): %s", bad, msg)
		}
	}
	if utf8.RuneCountInString(msg) > 1000 { // a mistake in the arguments is a sentence or two
		t.Fatalf("error text of %d characters", utf8.RuneCountInString(msg))
	}
	// No run of one repeated character longer than a quote's bound: nothing echoed whole.
	run, last := 0, rune(0)
	for _, r := range msg {
		if r == last {
			run++
		} else {
			run, last = 1, r
		}
		if run > maxQuoted+1 {
			t.Fatalf("error text echoes a value at length: %.200s…", msg)
		}
	}
}

// The tools are called through the SDK: an error is a tool result, and null for confirmation
// is no code (the spec's §2.3), not a type error.
func TestArgumentErrorsThroughTheServer(t *testing.T) {
	e := newEnv(t, envOptions{kind: noElicit})
	res := e.call("set_category_budget", map[string]any{"category": "Restaurants", "amount": "151", "confirmation": nil})
	var out writeOut
	decode(t, res, &out)
	if res.IsError || out.Status != "confirmation_required" {
		t.Fatalf("null confirmation: %s", text(res))
	}
	res = e.call("set_category_budget", map[string]any{"category": "Restaurants", "amount": "151", "confirmation": 12345})
	if !res.IsError || !strings.Contains(text(res), "12345") && !strings.Contains(strings.ToLower(text(res)), "code") {
		t.Fatalf("a numeric confirmation: %s", text(res))
	}
	e.fails("set_category_budget", map[string]any{"category": strings.Repeat("k", 1<<20), "amount": 1}, `there is no category "kkkk`)
	msg := text(e.call("set_category_budget", map[string]any{"category": strings.Repeat("k", 1<<20), "amount": 1}))
	if len(msg) > 1000 {
		t.Fatalf("a 1 MB category name comes back in %d bytes", len(msg))
	}
	checkErrorText(t, msg)
	if n := e.writes(); n != 0 {
		t.Fatalf("%d writes", n)
	}
}

// Every input schema is portable to every major model API: one type per property, no $ref or
// $defs, no oneOf/anyOf/allOf. Tools added later are held to it by the same walk.
func TestInputSchemasArePortable(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernNone})
	res, err := e.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s any
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		for _, problem := range portabilityProblems(s, "inputSchema") {
			t.Errorf("%s: %s", tool.Name, problem)
		}
	}
}

// portabilityProblems lists what in schema s lies outside the portable subset.
func portabilityProblems(s any, path string) []string {
	m, ok := s.(map[string]any)
	if !ok {
		return []string{path + " is not a schema object"}
	}
	var problems []string
	for _, k := range []string{"$ref", "$defs", "definitions", "oneOf", "anyOf", "allOf", "not", "if", "then", "else", "patternProperties", "const"} {
		if _, ok := m[k]; ok {
			problems = append(problems, fmt.Sprintf("%s has %s", path, k))
		}
	}
	if typ, ok := m["type"].(string); !ok {
		problems = append(problems, fmt.Sprintf("%s: type must be one string, got %v", path, m["type"]))
	} else if !slices.Contains([]string{"object", "array", "string", "integer", "number", "boolean"}, typ) {
		problems = append(problems, fmt.Sprintf("%s: type %q", path, typ))
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for name, p := range props {
			problems = append(problems, portabilityProblems(p, path+".properties."+name)...)
		}
	}
	if items, ok := m["items"]; ok {
		problems = append(problems, portabilityProblems(items, path+".items")...)
	} else if m["type"] == "array" {
		problems = append(problems, path+": an array without items")
	}
	if ap, ok := m["additionalProperties"]; ok && ap != false {
		problems = append(problems, fmt.Sprintf("%s: additionalProperties %v", path, ap))
	}
	return problems
}

func TestPortabilityProblemsFindsWhatIsNotPortable(t *testing.T) {
	for _, raw := range []string{
		`{"type":["null","array"],"items":{"type":"string"}}`,
		`{"type":"object","properties":{"a":{"type":["number","string"]}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{}}`,
		`{"type":"object","oneOf":[{}]}`,
		`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"}]}}}`,
		`{"type":"array"}`,
		`{"type":"object","properties":{"a":{}}}`,
	} {
		var s any
		json.Unmarshal([]byte(raw), &s)
		if len(portabilityProblems(s, "s")) == 0 {
			t.Errorf("no problem found in %s", raw)
		}
	}
}

// FuzzDecodeArgs reads random bytes as the arguments of every tool: nothing panics, an error
// is worded for people, and what is accepted reads back the same through encoding/json.
func FuzzDecodeArgs(f *testing.F) {
	names := make([]string, 0, len(toolArgs))
	for name := range toolArgs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, s := range []string{``, `null`, `{}`, `[]`, `{"category":"R","amount":150}`, `{"category":"R","amount":"1.5","confirmation":7}`,
		`{"account":"A","transactions":[{"date":"today","amount":-1,"payee":"P","memo":null}]}`,
		`{"limit":1.5}`, `{"limit":null,"status":"flagged"}`, `{"a":1,"a":2}`, `{"lines":[{"amount":"1","category":"c"},{"amount":-1,"category":"d"}]}`,
		`{"changes":[{"transaction_id":"t","category":"c"}]}`, `{"flags":[{"transaction_id":"t","color":"red"}]}`,
		`{"include_closed":true,"plan_id":"p"}`, `{"name":null,"category":"c"}`, "{\"x\":\"\xff\"}"} {
		for i := range names {
			f.Add(uint8(i), []byte(s))
		}
	}
	ats := map[string]*argType{}
	for _, name := range names {
		at, err := argTypeFor(toolArgs[name])
		if err != nil {
			f.Fatal(err)
		}
		ats[name] = at
	}
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		name := names[int(which)%len(names)]
		v := reflect.New(toolArgs[name])
		err := decodeArgs(raw, ats[name], v.Interface(), name)
		if err != nil {
			checkErrorText(t, err.Error())
			return
		}
		// Accepted arguments are strict JSON, and encoding/json reads them the same way (it is
		// case-insensitive about keys and lenient about types, so only compare where avenir
		// accepted).
		if s := strings.Trim(string(raw), " \t\r\n"); s != "" && s != "null" {
			if err := clientjson.Check(raw); err != nil {
				t.Fatalf("accepted arguments that are not strict JSON: %q: %v", raw, err)
			}
			w := reflect.New(toolArgs[name])
			if err := json.Unmarshal(raw, w.Interface()); err == nil && !reflect.DeepEqual(confirmless(v.Elem()), confirmless(w.Elem())) {
				t.Fatalf("%s %q: read as %+v, encoding/json reads %+v", name, raw, v.Elem(), w.Elem())
			}
		}
	})
}

// confirmless returns v without its confirmation code, which avenir reads from any JSON value
// and encoding/json only from a string.
func confirmless(v reflect.Value) any {
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	if f := c.FieldByName("Confirmation"); f.IsValid() {
		f.SetString("")
	}
	return c.Interface()
}
