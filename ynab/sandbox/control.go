package sandbox

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// The control endpoint lets a test that is not written in Go (or not in this process) steer
// the sandbox: queue faults, read the request counts, set the export's cost. It lives beside
// /v1, on the same listener, answers only requests from this machine that carry the sandbox's
// token, and is neither counted, rate-limited nor faulted: a client under test never sees it.
const controlPath = "/_sandbox"

// controlPaths are the control endpoint's resources and the methods each takes.
var controlPaths = map[string][]string{
	controlPath + "/faults":       {http.MethodGet, http.MethodPost, http.MethodDelete},
	controlPath + "/counts":       {http.MethodGet, http.MethodDelete},
	controlPath + "/export_cost":  {http.MethodGet, http.MethodPut},
	controlPath + "/oauth/expire": {http.MethodPost},
	controlPath + "/oauth/revoke": {http.MethodPost},
}

// maxControlBody bounds a control request's body: a few hundred rules.
const maxControlBody = 64 << 10

// serveControl answers a request for the control endpoint, and reports whether it was one.
func (s *Sandbox) serveControl(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != controlPath && !strings.HasPrefix(r.URL.Path, controlPath+"/") {
		return false
	}
	started := time.Now()
	res := s.control(r)
	res.write(w)
	if s.opts.Logger != nil {
		s.opts.Logger.Info("sandbox control", "method", r.Method, "path", r.URL.Path,
			"status", res.status, "duration", time.Since(started))
	}
	return true
}

func (s *Sandbox) control(r *http.Request) response {
	switch {
	case !fromLoopback(r.RemoteAddr):
		return errorResponse(&apiError{Status: http.StatusForbidden, ID: "403", Name: "forbidden",
			Detail: "The sandbox's control endpoint answers only requests from this machine."})
	case !s.authorised(r):
		return errorResponse(ynabError("401", "The sandbox's control endpoint needs the sandbox's token: "+
			"send it as Authorization: Bearer TOKEN (any token when the sandbox was started without one)."))
	}
	methods, ok := controlPaths[r.URL.Path]
	switch {
	case !ok:
		return errorResponse(ynabError("404.1", fmt.Sprintf("There is no %s in the sandbox's control endpoint; "+
			"it has %[2]s/faults, %[2]s/counts, %[2]s/export_cost, %[2]s/oauth/expire and %[2]s/oauth/revoke.", r.URL.Path, controlPath)))
	case !slices.Contains(methods, r.Method):
		res := errorResponse(&apiError{Status: http.StatusMethodNotAllowed, ID: "405", Name: "method_not_allowed",
			Detail: fmt.Sprintf("%s is not allowed on %s; allowed: %s", r.Method, r.URL.Path, strings.Join(methods, ", "))})
		res.header = append(res.header, [2]string{"Allow", strings.Join(methods, ", ")})
		return res
	}
	switch r.Method + " " + strings.TrimPrefix(r.URL.Path, controlPath) {
	case "GET /faults":
		return ok200(map[string]any{"faults": s.Faults()})
	case "POST /faults":
		return s.addFaults(r)
	case "DELETE /faults":
		return ok200(map[string]any{"cleared": s.ClearFaults()})
	case "GET /counts":
		return ok200(map[string]any{"counts": countsJSON(s.Counts())})
	case "DELETE /counts":
		s.ResetCounts()
		return ok200(map[string]any{"counts": countsJSON(s.Counts())})
	case "GET /export_cost":
		return ok200(map[string]any{"export_cost": s.exportCostJSON()})
	case "POST /oauth/expire":
		return s.controlExpire()
	case "POST /oauth/revoke":
		return s.controlRevoke(r)
	default: // PUT /export_cost
		return s.setExportCost(r)
	}
}

func ok200(data any) response {
	return response{status: http.StatusOK, body: map[string]any{"data": data}}
}

// fromLoopback reports whether a request's remote address is on this machine.
func fromLoopback(remoteAddr string) bool {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// addFaults queues the faults of a POST body: one JSON rule, a JSON array of them, or rules in
// ParseFault's syntax one a line. Either every rule is queued or, if one is wrong, none.
func (s *Sandbox) addFaults(r *http.Request) response {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxControlBody+1))
	switch {
	case err != nil:
		return errorResponse(badRequest("The request body could not be read: %v", err))
	case len(body) > maxControlBody:
		return errorResponse(badRequest("The request body is larger than %d bytes.", maxControlBody))
	}
	text := strings.TrimSpace(string(body))
	var faults []Fault
	switch {
	case text == "":
		return errorResponse(badRequest("Send a fault rule: JSON like {\"method\":\"POST\",\"path\":\"/plans/*/transactions\",\"status\":503}, or text like POST /plans/*/transactions status=503."))
	case strings.HasPrefix(text, "["):
		var raws []json.RawMessage
		if err := json.Unmarshal(body, &raws); err != nil {
			return errorResponse(badRequest("The rules are not a valid JSON array: %v.", jsonProblem(err, faultKeys)))
		}
		for i, raw := range raws {
			var f Fault
			if err := json.Unmarshal(raw, &f); err != nil {
				return errorResponse(badRequest("Rule %d: %v.", i+1, err))
			}
			faults = append(faults, f)
		}
	case strings.HasPrefix(text, "{"):
		var f Fault
		if !json.Valid(body) {
			return errorResponse(badRequest("The rule is not valid JSON."))
		}
		if err := json.Unmarshal(body, &f); err != nil {
			return errorResponse(badRequest("The rule is not valid: %v.", err))
		}
		faults = append(faults, f)
	default:
		sc := bufio.NewScanner(strings.NewReader(text))
		for line := 1; sc.Scan(); line++ {
			rule := strings.TrimSpace(sc.Text())
			if rule == "" || strings.HasPrefix(rule, "#") {
				continue
			}
			f, err := ParseFault(rule)
			if err != nil {
				return errorResponse(badRequest("Line %d, %q: %v.", line, rule, err))
			}
			faults = append(faults, f)
		}
	}
	for _, f := range faults {
		s.InjectFault(f)
	}
	return response{status: http.StatusCreated, body: map[string]any{"data": map[string]any{"faults": faults}}}
}

func countsJSON(c Counts) map[string]any {
	return map[string]any{"total": c.Total, "reads": c.Reads, "writes": c.Writes, "by_route": c.ByRoute}
}

// exportCost is what the full plan export costs: a duration per transaction, and the limit
// past which YNAB gives up with its 503. Options set it; the control endpoint may change it.
type exportCost struct {
	mu         sync.Mutex
	set        bool // changed through the control endpoint; else Options hold it
	per, limit time.Duration
}

// defaultExportLimit is how long YNAB lets a request run before it answers 503.
const defaultExportLimit = 30 * time.Second

func (s *Sandbox) exportCosts() (per, limit time.Duration) {
	s.export.mu.Lock()
	defer s.export.mu.Unlock()
	if s.export.set {
		return s.export.per, s.export.limit
	}
	limit = s.opts.ExportLimit
	if limit <= 0 {
		limit = defaultExportLimit
	}
	return s.opts.ExportCost, limit
}

// SetExportCost sets what one transaction costs the full plan export and the limit past which
// the export fails with YNAB's 503 (0 for YNAB's 30 seconds). A cost of 0 makes it free.
func (s *Sandbox) SetExportCost(perTransaction, limit time.Duration) {
	if limit <= 0 {
		limit = defaultExportLimit
	}
	s.export.mu.Lock()
	defer s.export.mu.Unlock()
	s.export.set, s.export.per, s.export.limit = true, max(perTransaction, 0), limit
}

func (s *Sandbox) exportCostJSON() map[string]string {
	per, limit := s.exportCosts()
	return map[string]string{"per_transaction": per.String(), "limit": limit.String()}
}

func (s *Sandbox) setExportCost(r *http.Request) response {
	var body struct {
		PerTransaction json.RawMessage `json:"per_transaction"`
		Limit          json.RawMessage `json:"limit"`
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, maxControlBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		return errorResponse(badRequest("Send {\"per_transaction\":\"1ms\",\"limit\":\"30s\"}: %v.", jsonProblem(err, "per_transaction, limit")))
	}
	if body.PerTransaction == nil {
		return errorResponse(badRequest("per_transaction is required (\"0s\" makes the export free)."))
	}
	per, err := jsonDuration("per_transaction", body.PerTransaction)
	if err != nil {
		return errorResponse(badRequest("%v.", err))
	}
	limit, err := jsonDuration("limit", body.Limit)
	if err != nil {
		return errorResponse(badRequest("%v.", err))
	}
	s.SetExportCost(per, limit)
	return ok200(map[string]any{"export_cost": s.exportCostJSON()})
}

// exportTimeout is the 503 YNAB answers when a plan export (GET /plans/{plan_id}) runs longer
// than its 30-second limit, which a plan with years of history can (YNAB's advice: delta
// requests). The sandbox prices the export by the transactions it would return, so a full
// export of a large plan fails while a delta, and the accounts, categories, months and
// transactions endpoints, still answer. It answers at once rather than after the limit; a
// delay fault adds the wait. YNAB's error id and name are documented (ynab-api.md §4.1); the
// detail it writes in this case is not, so this one is the sandbox's.
func (c *call) exportTimeout(m matched) *apiError {
	if m.route == nil || m.route.method != http.MethodGet || m.route.pattern != "/plans/{plan_id}" || c.p == nil {
		return nil
	}
	per, limit := c.s.exportCosts()
	if per <= 0 {
		return nil
	}
	since, err := c.knowledge()
	if err != nil {
		return nil // the handler answers the bad parameter
	}
	n := 0
	for _, t := range c.p.Transactions {
		if c.p.wanted(keyTransaction(t.ID), t.Deleted, since) {
			n++
		}
	}
	if int64(n) <= int64(limit/per) {
		return nil
	}
	return ynabError("503", fmt.Sprintf("The plan export took longer than %s (%d transactions at %s each) and was stopped. "+
		"Ask for less at once: a delta request (last_knowledge_of_server), or the accounts, categories, months and transactions endpoints.",
		limit, n, per))
}
