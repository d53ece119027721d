package sandbox_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// control sends a request to the sandbox's control endpoint (base is the API's URL, …/v1).
func (a *api) control(method, path, body string) (int, []byte) {
	a.t.Helper()
	req, err := http.NewRequest(method, strings.TrimSuffix(a.base, "/v1")+"/_sandbox"+path, strings.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	var raw json.RawMessage
	if err := json.NewDecoder(res.Body).Decode(&raw); err != nil {
		a.t.Fatalf("%s %s: the answer is not JSON: %v", method, path, err)
	}
	return res.StatusCode, raw
}

func TestControlNeedsTheTokenAndThisMachine(t *testing.T) {
	a := newAPI(t, sandbox.Options{Token: "s3cret"})
	for _, token := range []string{"", "guess"} {
		a.token = token
		if status, raw := a.control("POST", "/faults", "* * status=500"); status != 401 || !strings.Contains(string(raw), "sandbox's token") {
			t.Errorf("token %q: %d %s, want 401", token, status, raw)
		}
	}
	a.token = "s3cret"
	if status, raw := a.control("GET", "/faults", ""); status != 200 || string(raw) != `{"data":{"faults":[]}}` {
		t.Errorf("with the token: %d %s", status, raw)
	}
	if len(a.sb.Faults()) != 0 {
		t.Fatal("a refused request queued a fault")
	}

	// The sandbox listens on loopback, so a request from elsewhere can only be made up.
	for _, remote := range []string{"192.0.2.7:4040", "[2001:db8::1]:4040", "10.0.0.1:80"} {
		req := httptest.NewRequest("POST", "/_sandbox/faults", strings.NewReader("* * status=500"))
		req.RemoteAddr = remote
		req.Header.Set("Authorization", "Bearer s3cret")
		rec := httptest.NewRecorder()
		a.sb.ServeHTTP(rec, req)
		if rec.Code != 403 || !strings.Contains(rec.Body.String(), "only requests from this machine") {
			t.Errorf("from %s: %d %s, want 403", remote, rec.Code, rec.Body)
		}
	}
	req := httptest.NewRequest("GET", "/_sandbox/faults", nil)
	req.RemoteAddr = "[::1]:4040"
	req.Header.Set("Authorization", "Bearer s3cret")
	rec := httptest.NewRecorder()
	a.sb.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Errorf("from ::1: %d %s", rec.Code, rec.Body)
	}
	if len(a.sb.Faults()) != 0 {
		t.Error("a request from another machine queued a fault")
	}
}

// Without a token of its own the sandbox takes any bearer token, on the API and here alike.
func TestControlWithoutASandboxToken(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	a.token = ""
	if status, _ := a.control("GET", "/faults", ""); status != 401 {
		t.Errorf("no Authorization: %d, want 401", status)
	}
	a.token = "anything"
	if status, _ := a.control("GET", "/faults", ""); status != 200 {
		t.Errorf("any token: %d, want 200", status)
	}
}

func TestControlFaultChangesTheNextRequest(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	a.ok(200, "GET", plan+"/payees", nil, nil)
	status, raw := a.control("POST", "/faults", `{"method":"GET","path":"/plans/{plan_id}/payees","status":503,"retry_after":"20s","times":2}`)
	if status != 201 {
		t.Fatalf("POST: %d %s", status, raw)
	}
	var listed struct {
		Data struct{ Faults []map[string]any }
	}
	if status, raw := a.control("GET", "/faults", ""); status != 200 || json.Unmarshal(raw, &listed) != nil || len(listed.Data.Faults) != 1 ||
		listed.Data.Faults[0]["times"] != 2.0 || listed.Data.Faults[0]["retry_after"] != "20s" {
		t.Fatalf("GET: %d %s", status, raw)
	}
	status, h, body := a.do("GET", plan+"/payees", nil)
	if status != 503 || h.Get("Retry-After") != "20" || !strings.Contains(string(body), `"id":"503"`) {
		t.Fatalf("the next request got %d (Retry-After %q) %s, want the fault's 503", status, h.Get("Retry-After"), body)
	}
	if _, raw := a.control("GET", "/faults", ""); !strings.Contains(string(raw), `"times":1`) {
		t.Errorf("after one use: %s, want times 1", raw)
	}
	if status, raw := a.control("DELETE", "/faults", ""); status != 200 || string(raw) != `{"data":{"cleared":1}}` {
		t.Errorf("DELETE: %d %s", status, raw)
	}
	a.ok(200, "GET", plan+"/payees", nil, nil)

	// Text rules, one a line; a JSON array.
	if status, raw := a.control("POST", "/faults", "# flaky writes\nPOST /plans/*/transactions status=500\n\nGET /user error=401 times=2\n"); status != 201 {
		t.Fatalf("POST text: %d %s", status, raw)
	}
	if status, raw := a.control("POST", "/faults", `[{"method":"PATCH","path":"*","drop":"after"},{"path":"/user","delay":0.01,"status":500}]`); status != 201 {
		t.Fatalf("POST array: %d %s", status, raw)
	}
	want := []string{"POST /plans/*/transactions status=500 times=1", "GET /user error=401 times=2",
		"PATCH * drop=after times=1", "* /user status=500 delay=10ms times=1"}
	got := a.sb.Faults()
	if len(got) != len(want) {
		t.Fatalf("queued %v, want %v", got, want)
	}
	for i, f := range got {
		if f.String() != want[i] {
			t.Errorf("fault %d = %q, want %q", i, f.String(), want[i])
		}
	}
	a.fail(401, "GET", "/user", nil)
}

// A request with one wrong rule queues none of its rules.
func TestControlRefusesBadRules(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	for body, want := range map[string]string{
		"":                                     "Send a fault rule",
		"GET /user status=503\nGET /user oops": `Line 2, \"GET /user oops\": \"oops\" is not key=value`,
		`{"method":"GET","path":"/user"}`:      "the rule does nothing",
		`{"method":"GET","path":"/user",`:      "The rule is not valid JSON.",
		`[{"method":"GET","status":503},{"method":"GET","status":99}]`: "Rule 2: status must be an error status",
		`[{"method":"GET","status":503},`:                              "not a valid JSON array",
	} {
		status, raw := a.control("POST", "/faults", body)
		if status != 400 || !strings.Contains(string(raw), want) {
			t.Errorf("POST %q: %d %s; want 400 with %q", body, status, raw, want)
		}
	}
	if fs := a.sb.Faults(); len(fs) != 0 {
		t.Errorf("bad requests queued %v", fs)
	}
	if status, raw := a.control("PUT", "/faults", "x"); status != 405 || !strings.Contains(string(raw), "allowed: GET, POST, DELETE") {
		t.Errorf("PUT /faults: %d %s", status, raw)
	}
	if status, raw := a.control("GET", "/nothing", ""); status != 404 || !strings.Contains(string(raw), "/_sandbox/faults") {
		t.Errorf("GET /_sandbox/nothing: %d %s", status, raw)
	}
}

// The control endpoint is not part of what a client under test does: its requests are neither
// counted, rate-limited nor faulted.
func TestControlIsNotCountedLimitedOrFaulted(t *testing.T) {
	a := newAPI(t, sandbox.Options{RateLimit: 2})
	a.sb.InjectFault(sandbox.Fault{Path: "/", Status: 500, Count: 5, Skip: 1}) // every path, after one
	a.ok(200, "GET", "/user", nil, nil)
	for range 3 {
		if status, raw := a.control("GET", "/faults", ""); status != 200 {
			t.Fatalf("the control endpoint got %d %s", status, raw)
		}
	}
	status, raw := a.control("GET", "/counts", "")
	var counts struct {
		Data struct {
			Counts struct {
				Total, Reads, Writes int
				ByRoute              map[string]int `json:"by_route"`
			}
		}
	}
	if status != 200 || json.Unmarshal(raw, &counts) != nil {
		t.Fatalf("GET /counts: %d %s", status, raw)
	}
	c := counts.Data.Counts
	if c.Total != 1 || c.Reads != 1 || c.Writes != 0 || len(c.ByRoute) != 1 || c.ByRoute["GET /user"] != 1 {
		t.Errorf("counts %+v, want the one GET /user", c)
	}
	if f := a.sb.Faults(); len(f) != 1 || f[0].Count != 5 || f[0].Skip != 0 {
		t.Errorf("the fault was used by control requests: %+v", f)
	}
	a.fail(500, "GET", "/user", nil) // the fault, not the rate limit: one more admitted request is allowed
	if status, raw := a.control("DELETE", "/counts", ""); status != 200 || !strings.Contains(string(raw), `"total":0`) {
		t.Errorf("DELETE /counts: %d %s", status, raw)
	}
	if got := a.sb.Counts(); got.Total != 0 {
		t.Errorf("after DELETE /counts: %+v", got)
	}
}

// YNAB answers 503 when a plan's export runs past 30 seconds; the sandbox prices the export by
// the transactions it returns, so only a full export of a large plan fails.
func TestExportFailsPastItsCost(t *testing.T) {
	const n = 1000
	a := newAPI(t, sandbox.Options{Sample: sandbox.LargeSample(n), ExportCost: 31 * time.Millisecond}) // 31 s
	path := "/plans/" + sandbox.LargePlanID
	e := a.fail(503, "GET", path, nil)
	if e.ID != "503" || e.Name != "service_unavailable" || !strings.Contains(e.Detail, "took longer than 30s") ||
		!strings.Contains(e.Detail, strconv.Itoa(n)+" transactions") {
		t.Errorf("error = %+v", e)
	}
	a.fail(503, "GET", "/plans/last-used", nil)
	a.fail(503, "GET", path+"?last_knowledge_of_server=0", nil) // everything changed since 0: as big

	var list struct {
		Transactions    []json.RawMessage
		ServerKnowledge int64 `json:"server_knowledge"`
	}
	a.ok(200, "GET", path+"/transactions", nil, &list)
	if len(list.Transactions) != n {
		t.Errorf("GET transactions: %d, want %d", len(list.Transactions), n)
	}
	for _, p := range []string{"/accounts", "/categories", "/months", "/payees", "/scheduled_transactions"} {
		a.ok(200, "GET", path+p, nil, nil)
	}
	var delta struct {
		Plan struct{ Transactions []json.RawMessage }
	}
	a.ok(200, "GET", path+"?last_knowledge_of_server="+strconv.FormatInt(list.ServerKnowledge, 10), nil, &delta)
	if len(delta.Plan.Transactions) != 0 {
		t.Errorf("a delta with nothing new has %d transactions", len(delta.Plan.Transactions))
	}
	if c := a.sb.Counts(); c.ByRoute["GET /plans/{plan_id}"] != 4 {
		t.Errorf("the failed exports are not counted as requests: %v", c.ByRoute)
	}

	// Cheaper, or with more time, the export answers; the control endpoint changes both.
	for _, tt := range []struct {
		body string
		want int
	}{
		{`{"per_transaction":"30ms"}`, 200}, // 30 s: not past the limit
		{`{"per_transaction":"31ms","limit":"40s"}`, 200},
		{`{"per_transaction":0.031,"limit":30.5}`, 503},
		{`{"per_transaction":"0s"}`, 200},
		{`{"per_transaction":"1s","limit":"10m"}`, 503},
	} {
		body, want := tt.body, tt.want
		if status, raw := a.control("PUT", "/export_cost", body); status != 200 {
			t.Fatalf("PUT export_cost %s: %d %s", body, status, raw)
		}
		if got, _, raw := a.do("GET", path, nil); got != want {
			t.Errorf("after %s: export %d, want %d: %.200s", body, got, want, raw)
		}
	}
	if status, raw := a.control("GET", "/export_cost", ""); status != 200 || string(raw) != `{"data":{"export_cost":{"limit":"10m0s","per_transaction":"1s"}}}` {
		t.Errorf("GET export_cost: %d %s", status, raw)
	}
	for body, want := range map[string]string{
		`{"limit":"30s"}`:                       "per_transaction is required",
		`{"per_transaction":"soon"}`:            "per_transaction must be",
		`{"per_transaction":"1ms","limt":"1s"}`: `unknown key \"limt\" (keys: per_transaction, limit)`,
	} {
		if status, raw := a.control("PUT", "/export_cost", body); status != 400 || !strings.Contains(string(raw), want) {
			t.Errorf("PUT %s: %d %s, want 400 with %q", body, status, raw, want)
		}
	}
}

// A write's delta stays small when the full export would fail.
func TestExportCostLetsDeltasThrough(t *testing.T) {
	a := newAPI(t, sandbox.Options{ExportCost: time.Second, ExportLimit: 80 * time.Second})
	a.fail(503, "GET", plan, nil) // Huishouden has 83 transactions: 83 s
	var k struct {
		ServerKnowledge int64 `json:"server_knowledge"`
	}
	a.ok(200, "GET", plan+"/accounts", nil, &k)
	a.ok(201, "POST", plan+"/transactions/import", nil, nil) // the bank brings in 2
	var delta struct {
		Plan struct{ Transactions []json.RawMessage }
	}
	a.ok(200, "GET", plan+"?last_knowledge_of_server="+strconv.FormatInt(k.ServerKnowledge, 10), nil, &delta)
	if len(delta.Plan.Transactions) != 2 {
		t.Errorf("the delta has %d transactions, want the 2 imported", len(delta.Plan.Transactions))
	}
	a.ok(200, "GET", "/plans/"+sandbox.SecondPlanID, nil, nil) // 10 transactions: 10 s
	a.sb.SetExportCost(0, 0)
	a.ok(200, "GET", plan, nil, nil)
}
