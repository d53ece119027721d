package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// route is one operation of YNAB's API. The sandbox routes by itself rather than with
// http.ServeMux because YNAB answers unknown paths and wrong methods with its own error body,
// and counts requests by route pattern.
type route struct {
	method  string
	pattern string // under /v1, like "/plans/{plan_id}/transactions"
	write   bool
	handle  func(*call) (status int, data any, err error)
	// legacy marks an operation YNAB serves only under the old /budgets paths.
	legacy bool
}

// routes lists the API; a literal segment is listed before a wildcard in the same place.
var routes = []route{
	{"GET", "/user", false, getUser, false},
	{"GET", "/plans", false, getPlans, false},
	{"GET", "/plans/{plan_id}", false, getPlan, false},
	{"GET", "/plans/{plan_id}/settings", false, getSettings, false},
	{"GET", "/plans/{plan_id}/accounts", false, getAccounts, false},
	{"POST", "/plans/{plan_id}/accounts", true, postAccount, false},
	{"GET", "/plans/{plan_id}/accounts/{account_id}", false, getAccount, false},
	{"GET", "/plans/{plan_id}/accounts/{account_id}/transactions", false, getAccountTransactions, false},
	{"GET", "/plans/{plan_id}/categories", false, getCategories, false},
	{"POST", "/plans/{plan_id}/categories", true, postCategory, false},
	{"GET", "/plans/{plan_id}/categories/{category_id}", false, getCategory, false},
	{"PATCH", "/plans/{plan_id}/categories/{category_id}", true, patchCategory, false},
	{"GET", "/plans/{plan_id}/categories/{category_id}/transactions", false, getCategoryTransactions, false},
	{"POST", "/plans/{plan_id}/category_groups", true, postCategoryGroup, false},
	{"PATCH", "/plans/{plan_id}/category_groups/{category_group_id}", true, patchCategoryGroup, false},
	{"GET", "/plans/{plan_id}/payees", false, getPayees, false},
	{"POST", "/plans/{plan_id}/payees", true, postPayee, false},
	{"GET", "/plans/{plan_id}/payees/{payee_id}", false, getPayee, false},
	{"PATCH", "/plans/{plan_id}/payees/{payee_id}", true, patchPayee, false},
	{"GET", "/plans/{plan_id}/payees/{payee_id}/transactions", false, getPayeeTransactions, false},
	{"GET", "/plans/{plan_id}/payees/{payee_id}/payee_locations", false, getPayeeLocationsByPayee, false},
	{"GET", "/plans/{plan_id}/payee_locations", false, getPayeeLocations, false},
	{"GET", "/plans/{plan_id}/payee_locations/{payee_location_id}", false, getPayeeLocation, false},
	{"GET", "/plans/{plan_id}/months", false, getMonths, false},
	{"GET", "/plans/{plan_id}/months/{month}", false, getMonth, false},
	{"GET", "/plans/{plan_id}/months/{month}/categories/{category_id}", false, getMonthCategory, false},
	{"PATCH", "/plans/{plan_id}/months/{month}/categories/{category_id}", true, patchMonthCategory, false},
	{"GET", "/plans/{plan_id}/months/{month}/transactions", false, getMonthTransactions, false},
	{"GET", "/plans/{plan_id}/months/{month}/money_movements", false, getMonthMoneyMovements, false},
	{"GET", "/plans/{plan_id}/months/{month}/money_movement_groups", false, getMonthMoneyMovementGroups, false},
	{"GET", "/plans/{plan_id}/money_movements", false, getMoneyMovements, false},
	{"GET", "/plans/{plan_id}/money_movement_groups", false, getMoneyMovementGroups, false},
	{"GET", "/plans/{plan_id}/transactions", false, getTransactions, false},
	{"POST", "/plans/{plan_id}/transactions", true, postTransactions, false},
	{"PATCH", "/plans/{plan_id}/transactions", true, patchTransactions, false},
	{"POST", "/plans/{plan_id}/transactions/import", true, importTransactions, false},
	{"POST", "/plans/{plan_id}/transactions/bulk", true, postBulkTransactions, true},
	{"GET", "/plans/{plan_id}/transactions/{transaction_id}", false, getTransaction, false},
	{"PUT", "/plans/{plan_id}/transactions/{transaction_id}", true, putTransaction, false},
	{"DELETE", "/plans/{plan_id}/transactions/{transaction_id}", true, deleteTransaction, false},
	{"GET", "/plans/{plan_id}/scheduled_transactions", false, getScheduledTransactions, false},
	{"POST", "/plans/{plan_id}/scheduled_transactions", true, postScheduledTransaction, false},
	{"GET", "/plans/{plan_id}/scheduled_transactions/{scheduled_transaction_id}", false, getScheduledTransaction, false},
	{"PUT", "/plans/{plan_id}/scheduled_transactions/{scheduled_transaction_id}", true, putScheduledTransaction, false},
	{"DELETE", "/plans/{plan_id}/scheduled_transactions/{scheduled_transaction_id}", true, deleteScheduledTransaction, false},
}

// matched is the outcome of routing a request.
type matched struct {
	route   *route            // nil when no route has this method and path
	params  map[string]string // the path's wildcards
	allowed []string          // the methods the path has, when the method is wrong
	key     string            // the counting key, like "GET /plans/{plan_id}"
	// budgets is set for a request under the old /budgets paths (spec ≤ 1.78), which YNAB
	// still serves, with the old keys in its answers (see legacyKeys).
	budgets bool
}

const apiPrefix = "/v1"

// YNAB renamed budgets to plans in spec 1.79 and still serves every /budgets path: the
// routes are the same below the first segment.
const (
	plansSegment   = "/plans"
	budgetsSegment = "/budgets"
)

func match(method, path string) matched {
	rest, ok := strings.CutPrefix(path, apiPrefix)
	if !ok || rest == "" {
		return matched{key: method + " " + path}
	}
	budgets := false
	if tail, ok := strings.CutPrefix(rest, budgetsSegment); ok && (tail == "" || tail[0] == '/') {
		rest, budgets = plansSegment+tail, true
	}
	keyOf := func(pattern string) string {
		if budgets {
			pattern = budgetsSegment + strings.TrimPrefix(pattern, plansSegment)
		}
		return method + " " + pattern
	}
	segs := strings.Split(strings.TrimPrefix(rest, "/"), "/")
	m := matched{budgets: budgets}
	for i := range routes {
		rt := &routes[i]
		if rt.legacy && !budgets {
			continue
		}
		params, ok := matchPattern(rt.pattern, segs)
		if !ok {
			continue
		}
		if rt.method == method {
			return matched{route: rt, params: params, key: keyOf(rt.pattern), budgets: budgets}
		}
		if m.key == "" {
			m.key = keyOf(rt.pattern)
		}
		m.allowed = append(m.allowed, rt.method)
	}
	if m.key == "" {
		m.key = method + " " + path
	}
	return m
}

// legacyKeys are the members of an answer that the /budgets paths name the old way.
var legacyKeys = map[string]string{"plans": "budgets", "default_plan": "default_budget", "plan": "budget"}

// withLegacyKeys renames an answer's members for a request under /budgets.
func withLegacyKeys(data any) any {
	m, ok := data.(map[string]any)
	if !ok {
		return data
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if old, ok := legacyKeys[k]; ok {
			k = old
		}
		out[k] = v
	}
	return out
}

func matchPattern(pattern string, segs []string) (map[string]string, bool) {
	want := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
	if len(want) != len(segs) {
		return nil, false
	}
	params := map[string]string{}
	for i, w := range want {
		if name, ok := strings.CutPrefix(w, "{"); ok {
			if segs[i] == "" {
				return nil, false
			}
			params[strings.TrimSuffix(name, "}")] = segs[i]
			continue
		}
		if w != segs[i] {
			return nil, false
		}
	}
	return params, true
}

// call is one request being handled, with the plans of its user, the plan it addresses and that
// plan's view.
type call struct {
	s      *Sandbox
	r      *http.Request
	params map[string]string
	w      *world
	p      *plan
	v      *view
	f      formatter
}

// maxBody bounds a request body; YNAB's largest (1,000 transactions) is far below it.
const maxBody = 8 << 20

// decode reads the JSON request body into dst.
func (c *call) decode(dst any) error {
	body, err := io.ReadAll(io.LimitReader(c.r.Body, maxBody+1))
	if err != nil {
		return badRequest("The request body could not be read: %v", err)
	}
	if len(body) > maxBody {
		return badRequest("The request body is larger than %d bytes.", maxBody)
	}
	if err := json.Unmarshal(body, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return badRequest("The request body is not valid: %s must be a JSON %s.", te.Field, jsonKind(te.Type.Kind().String()))
		}
		return badRequest("The request body is not valid JSON: %v.", err)
	}
	return nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "int", "int64", "int32":
		return "integer"
	case "bool":
		return "boolean"
	case "slice":
		return "array"
	case "struct", "map", "ptr":
		return "object"
	}
	return goKind
}

// knowledge returns the request's last_knowledge_of_server, or -1 for a full read.
func (c *call) knowledge() (int64, error) {
	q := c.r.URL.Query().Get("last_knowledge_of_server")
	if q == "" {
		return -1, nil
	}
	n, err := strconv.ParseInt(q, 10, 64)
	if err != nil || n < 0 {
		return 0, badRequest("last_knowledge_of_server must be a whole number of 0 or more, not %q.", q)
	}
	return n, nil
}

// commit records the write the handler made (see Sandbox.commit) and refreshes the call's view.
func (c *call) commit() (int64, error) {
	k, err := c.s.commit(c.p)
	if err != nil {
		return 0, fmt.Errorf("save the sandbox state: %w", err)
	}
	c.v = c.s.views[c.p.ID]
	return k, nil
}

// month resolves a {month} path parameter: "current" or the first day of a month the plan has
// (any future month up to a year ahead counts: YNAB lets you assign money that far out).
func (c *call) month() (string, error) {
	raw := c.params["month"]
	if raw == "current" {
		return c.v.current, nil
	}
	t, ok := parseDate(raw)
	if !ok || t.Day() != 1 {
		return "", badRequest("The month %q is not valid: use the first day of a month (YYYY-MM-01) or \"current\".", raw)
	}
	if raw < c.v.months[0] || raw > max(c.v.months[len(c.v.months)-1], addMonths(c.v.current, 12)) {
		return "", notFound("month", raw)
	}
	return raw, nil
}
