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
}

// routes lists the API; a literal segment is listed before a wildcard in the same place.
var routes = []route{
	{"GET", "/user", false, getUser},
	{"GET", "/plans", false, getPlans},
	{"GET", "/plans/{plan_id}", false, getPlan},
	{"GET", "/plans/{plan_id}/settings", false, getSettings},
	{"GET", "/plans/{plan_id}/accounts", false, getAccounts},
	{"GET", "/plans/{plan_id}/accounts/{account_id}", false, getAccount},
	{"GET", "/plans/{plan_id}/accounts/{account_id}/transactions", false, getAccountTransactions},
	{"GET", "/plans/{plan_id}/categories", false, getCategories},
	{"POST", "/plans/{plan_id}/categories", true, postCategory},
	{"GET", "/plans/{plan_id}/categories/{category_id}", false, getCategory},
	{"PATCH", "/plans/{plan_id}/categories/{category_id}", true, patchCategory},
	{"GET", "/plans/{plan_id}/categories/{category_id}/transactions", false, getCategoryTransactions},
	{"POST", "/plans/{plan_id}/category_groups", true, postCategoryGroup},
	{"PATCH", "/plans/{plan_id}/category_groups/{category_group_id}", true, patchCategoryGroup},
	{"GET", "/plans/{plan_id}/payees", false, getPayees},
	{"GET", "/plans/{plan_id}/payees/{payee_id}", false, getPayee},
	{"GET", "/plans/{plan_id}/payees/{payee_id}/transactions", false, getPayeeTransactions},
	{"GET", "/plans/{plan_id}/payee_locations", false, getPayeeLocations},
	{"GET", "/plans/{plan_id}/months", false, getMonths},
	{"GET", "/plans/{plan_id}/months/{month}", false, getMonth},
	{"GET", "/plans/{plan_id}/months/{month}/categories/{category_id}", false, getMonthCategory},
	{"PATCH", "/plans/{plan_id}/months/{month}/categories/{category_id}", true, patchMonthCategory},
	{"GET", "/plans/{plan_id}/months/{month}/transactions", false, getMonthTransactions},
	{"GET", "/plans/{plan_id}/transactions", false, getTransactions},
	{"POST", "/plans/{plan_id}/transactions", true, postTransactions},
	{"PATCH", "/plans/{plan_id}/transactions", true, patchTransactions},
	{"POST", "/plans/{plan_id}/transactions/import", true, importTransactions},
	{"GET", "/plans/{plan_id}/transactions/{transaction_id}", false, getTransaction},
	{"PUT", "/plans/{plan_id}/transactions/{transaction_id}", true, putTransaction},
	{"DELETE", "/plans/{plan_id}/transactions/{transaction_id}", true, deleteTransaction},
	{"GET", "/plans/{plan_id}/scheduled_transactions", false, getScheduledTransactions},
	{"GET", "/plans/{plan_id}/scheduled_transactions/{scheduled_transaction_id}", false, getScheduledTransaction},
}

// matched is the outcome of routing a request.
type matched struct {
	route   *route            // nil when no route has this method and path
	params  map[string]string // the path's wildcards
	allowed []string          // the methods the path has, when the method is wrong
	key     string            // the counting key, like "GET /plans/{plan_id}"
}

const apiPrefix = "/v1"

func match(method, path string) matched {
	rest, ok := strings.CutPrefix(path, apiPrefix)
	if !ok || rest == "" {
		return matched{key: method + " " + path}
	}
	segs := strings.Split(strings.TrimPrefix(rest, "/"), "/")
	var m matched
	for i := range routes {
		rt := &routes[i]
		params, ok := matchPattern(rt.pattern, segs)
		if !ok {
			continue
		}
		if rt.method == method {
			return matched{route: rt, params: params, key: method + " " + rt.pattern}
		}
		if m.key == "" {
			m.key = method + " " + rt.pattern
		}
		m.allowed = append(m.allowed, rt.method)
	}
	if m.key == "" {
		m.key = method + " " + path
	}
	return m
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

// call is one request being handled, with the plan it addresses and that plan's view.
type call struct {
	s      *Sandbox
	r      *http.Request
	params map[string]string
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
