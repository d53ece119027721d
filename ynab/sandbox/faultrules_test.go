package sandbox_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

func TestParseFault(t *testing.T) {
	tests := []struct {
		rule string
		want sandbox.Fault
	}{
		{"POST /plans/*/transactions status=503 times=2",
			sandbox.Fault{Method: "POST", Path: "/plans/*/transactions", Status: 503, Count: 2}},
		{"get /plans/{plan_id}/ status=429 retry-after=60 skip=3",
			sandbox.Fault{Method: "GET", Path: "/plans/{plan_id}/", Status: 429, RetryAfter: time.Minute, Skip: 3, Count: 1}},
		{"* * error=403.1", sandbox.Fault{ErrorID: "403.1", Count: 1}},
		{"ANY /user delay=1.5s status=500", sandbox.Fault{Path: "/user", Delay: 1500 * time.Millisecond, Status: 500, Count: 1}},
		{"PATCH /plans/*/transactions drop=after", sandbox.Fault{Method: "PATCH", Path: "/plans/*/transactions", DropAfter: true, Count: 1}},
		{"DELETE * drop=before times=3", sandbox.Fault{Method: "DELETE", Drop: true, Count: 3}},
		{"GET /v1/plans delay=2", sandbox.Fault{Method: "GET", Path: "/v1/plans", Delay: 2 * time.Second, Count: 1}},
		{"  GET   /user   status=401  ", sandbox.Fault{Method: "GET", Path: "/user", Status: 401, Count: 1}},
		{"GET * contains=/payees status=503 retry_after=1m30s",
			sandbox.Fault{Method: "GET", PathContains: "/payees", Status: 503, RetryAfter: 90 * time.Second, Count: 1}},
		{"GET /user status=429 error=429", sandbox.Fault{Method: "GET", Path: "/user", Status: 429, ErrorID: "429", Count: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			got, err := sandbox.ParseFault(tt.rule)
			if err != nil {
				t.Fatalf("ParseFault: %v", err)
			}
			if got != tt.want {
				t.Fatalf("ParseFault = %+v\nwant        %+v", got, tt.want)
			}
			again, err := sandbox.ParseFault(got.String()) // String writes a rule ParseFault reads back
			if err != nil || again != got {
				t.Errorf("ParseFault(%q) = %+v, %v; want %+v", got.String(), again, err, got)
			}
		})
	}
}

func TestParseFaultRefusesWhatIsWrong(t *testing.T) {
	tests := []struct{ rule, want string }{
		{"", "starts with a method and a path"},
		{"GET", "starts with a method and a path"},
		{"FETCH /user status=503", `method must be GET, POST, PUT, PATCH, DELETE or *, not "FETCH"`},
		{"GET plans status=503", `path must start with /`},
		{"GET /user?x=1 status=503", "must not have a query"},
		{"GET /user", "the rule does nothing"},
		{"GET /user times=2", "the rule does nothing"},
		{"GET /user status=200", "status must be an error status from 400 to 599, not 200"},
		{"GET /user status=abc", `status must be a whole number of 0 or more, not "abc"`},
		{"GET /user error=418", `error must be one of YNAB's error ids`},
		{"GET /user status=500 error=403.1", "status 500 and error 403.1 disagree"},
		{"GET /user delay=soon", `delay must be seconds (30) or a duration like 500ms, 2s or 1m, not "soon"`},
		{"GET /user delay=-2s", "delay must be"},
		{"GET /user retry-after=30", "retry-after goes with an error answer"},
		{"GET /user drop=later", `drop must be before or after, not "later"`},
		{"GET /user drop=before status=503", "a dropped request gets no answer"},
		{"GET /user status=503 times=0", "times must be 1 or more"},
		{"GET /user status=503 skip=-1", `skip must be a whole number of 0 or more, not "-1"`},
		{"GET /user status=503 color=red", `unknown key "color"`},
		{"GET /user status=503 oops", `"oops" is not key=value`},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			f, err := sandbox.ParseFault(tt.rule)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ParseFault(%q) = %+v, %v; want an error with %q", tt.rule, f, err, tt.want)
			}
			for _, internal := range []string{"strconv", "time:", "%!", "sandbox.", "json:"} {
				if strings.Contains(err.Error(), internal) {
					t.Errorf("the error shows Go internals (%q): %v", internal, err)
				}
			}
		})
	}
}

// The control endpoint's JSON form of a rule carries the same fields, checked the same way.
func TestFaultJSON(t *testing.T) {
	var f sandbox.Fault
	in := `{"method":"post","path":"/plans/*/transactions","status":503,"retry_after":30,"delay":"250ms","times":2,"skip":1}`
	if err := json.Unmarshal([]byte(in), &f); err != nil {
		t.Fatal(err)
	}
	want := sandbox.Fault{Method: "POST", Path: "/plans/*/transactions", Status: 503, RetryAfter: 30 * time.Second,
		Delay: 250 * time.Millisecond, Count: 2, Skip: 1}
	if f != want {
		t.Fatalf("decoded %+v, want %+v", f, want)
	}
	out, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"method":"POST","path":"/plans/*/transactions","status":503,"retry_after":"30s","delay":"250ms","times":2,"skip":1}` {
		t.Errorf("encoded %s", out)
	}
	var back sandbox.Fault
	if err := json.Unmarshal(out, &back); err != nil || back != f {
		t.Errorf("round trip: %+v, %v", back, err)
	}

	for in, want := range map[string]string{
		`{"method":"GET","path":"/user"}`:                         "the rule does nothing",
		`{"method":"GET","path":"/user","status":"503"}`:          "status must be a JSON integer",
		`{"method":"GET","path":"/user","statu":503}`:             `unknown key "statu"`,
		`{"method":"GET","path":"/user","delay":true}`:            "delay must be a number of seconds",
		`{"method":"GET","path":"/user","drop":"sideways"}`:       `drop must be before or after`,
		`{"method":"GET","path":"/user","status":503,"times":-1}`: "times and skip must be whole numbers",
	} {
		var f sandbox.Fault
		err := json.Unmarshal([]byte(in), &f)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("decoding %s: %v; want an error with %q", in, err, want)
		}
	}
}

// Which requests a rule's method and path pattern catch, through a real server.
func TestFaultPathPatterns(t *testing.T) {
	tests := []struct {
		rule, method, path string
		faulted            bool
	}{
		{"GET /user status=503", "GET", "/user", true},
		{"GET /user status=503", "POST", "/user", false},
		{"* /user status=503", "DELETE", "/user", true},
		{"GET /plans/{plan_id}/accounts status=503", "GET", plan + "/accounts", true},
		{"GET /plans/*/accounts status=503", "GET", "/plans/last-used/accounts", true},
		{"GET /plans/*/accounts status=503", "GET", plan + "/accounts/" + "x", false},
		{"GET /plans/*/accounts status=503", "GET", plan + "/payees", false},
		{"GET /plans/{plan_id} status=503", "GET", plan, true},
		{"GET /plans/{plan_id} status=503", "GET", plan + "/accounts", false},
		{"GET /plans/ status=503", "GET", "/plans", true},
		{"GET /plans/ status=503", "GET", plan + "/months/current", true},
		{"GET /plans/ status=503", "GET", "/user", false},
		{"GET /plans/*/ status=503", "GET", "/plans", false},
		{"GET /plans/*/ status=503", "GET", plan + "/transactions", true},
		{"GET /v1/user status=503", "GET", "/user", true},
		{"GET /plans/*/accounts status=503", "GET", "/budgets/last-used/accounts", true},
		{"GET /budgets/{budget_id}/ status=503", "GET", plan + "/payees", true},
		{"GET /budgets status=503", "GET", "/plans", true},
		{"GET /budgetsx status=503", "GET", "/plans", false},
		{"GET * status=503", "GET", "/nowhere/at/all", true},
		{"GET / status=503", "GET", "/user", true},
		{"GET * contains=months status=503", "GET", plan + "/months", true},
		{"GET * contains=months status=503", "GET", plan + "/accounts", false},
	}
	for _, tt := range tests {
		t.Run(tt.rule+" "+tt.method+" "+tt.path, func(t *testing.T) {
			a := newAPI(t, sandbox.Options{})
			f, err := sandbox.ParseFault(tt.rule)
			if err != nil {
				t.Fatal(err)
			}
			a.sb.InjectFault(f)
			status, _, raw := a.do(tt.method, tt.path, nil)
			var body struct{ Error struct{ Detail string } }
			_ = json.Unmarshal(raw, &body)
			faulted := status == 503 && strings.HasPrefix(body.Error.Detail, "Injected fault")
			if faulted != tt.faulted {
				t.Errorf("%s %s: status %d %s; faulted %v, want %v", tt.method, tt.path, status, raw, faulted, tt.faulted)
			}
			if left := len(a.sb.Faults()); left != map[bool]int{true: 0, false: 1}[tt.faulted] {
				t.Errorf("%d faults left after the request", left)
			}
		})
	}
}

func TestFaultRetryAfter(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	f, err := sandbox.ParseFault("GET /plans/{plan_id}/accounts status=429 retry-after=1500ms times=2")
	if err != nil {
		t.Fatal(err)
	}
	a.sb.InjectFault(f)
	for range 2 {
		status, h, raw := a.do("GET", plan+"/accounts", nil)
		if status != 429 || h.Get("Retry-After") != "2" || !strings.Contains(string(raw), `"too_many_requests"`) {
			t.Errorf("status %d, Retry-After %q, body %s; want 429, 2 (seconds, rounded up), too_many_requests", status, h.Get("Retry-After"), raw)
		}
	}
	status, h, _ := a.do("GET", plan+"/accounts", nil)
	if status != 200 || h.Get("Retry-After") != "" {
		t.Errorf("after the rule's two times: status %d, Retry-After %q", status, h.Get("Retry-After"))
	}
}

// Skips and times count per rule, and a rule still skipping lets the rules after it try.
func TestFaultRulesInOrder(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	for _, rule := range []string{"GET /user status=500 skip=1", "GET /user status=503 times=2"} {
		f, err := sandbox.ParseFault(rule)
		if err != nil {
			t.Fatal(err)
		}
		a.sb.InjectFault(f)
	}
	var got []int
	for range 4 {
		status, _, _ := a.do("GET", "/user", nil)
		got = append(got, status)
	}
	if want := []int{503, 500, 503, 200}; !reflect.DeepEqual(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	if fs := a.sb.Faults(); len(fs) != 0 {
		t.Errorf("faults left: %v", fs)
	}
	a.sb.InjectFault(sandbox.Fault{Status: http.StatusInternalServerError, Count: 3})
	if n := a.sb.ClearFaults(); n != 1 || len(a.sb.Faults()) != 0 {
		t.Errorf("ClearFaults = %d, then %d left", n, len(a.sb.Faults()))
	}
}
