package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

func TestCountsEveryRequest(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	a.sb.InjectFault(sandbox.Fault{PathContains: "/payees", Status: 500})
	a.ok(200, "GET", plan+"/accounts", nil, nil)
	a.ok(200, "GET", plan+"/accounts", nil, nil)
	a.fail(500, "GET", plan+"/payees", nil)
	a.ok(200, "PATCH", plan+"/months/current/categories/"+n.id(t, "Tennis"), map[string]any{"category": map[string]any{"budgeted": 50000}}, nil)
	a.fail(404, "GET", "/nope", nil)
	got := a.sb.Counts()
	want := map[string]int{"GET /plans/{plan_id}/accounts": 2, "GET /plans/{plan_id}/payees": 1,
		"PATCH /plans/{plan_id}/months/{month}/categories/{category_id}": 1, "GET /v1/nope": 1}
	if got.Total != 5 || got.Reads != 4 || got.Writes != 1 || len(got.ByRoute) != len(want) {
		t.Fatalf("counts = %+v", got)
	}
	for k, v := range want {
		if got.ByRoute[k] != v {
			t.Errorf("ByRoute[%q] = %d, want %d", k, got.ByRoute[k], v)
		}
	}
	a.sb.ResetCounts()
	if c := a.sb.Counts(); c.Total != 0 || len(c.ByRoute) != 0 {
		t.Errorf("after ResetCounts: %+v", c)
	}
}

func TestFaultAnswers(t *testing.T) {
	tests := []struct {
		fault    sandbox.Fault
		status   int
		id, name string
	}{
		{sandbox.Fault{Status: 503}, 503, "503", "service_unavailable"},
		{sandbox.Fault{Status: 429}, 429, "429", "too_many_requests"},
		{sandbox.Fault{Status: 401}, 401, "401", "not_authorized"},
		{sandbox.Fault{ErrorID: "403.1"}, 403, "403.1", "subscription_lapsed"},
		{sandbox.Fault{ErrorID: "403.3"}, 403, "403.3", "unauthorized_scope"},
		{sandbox.Fault{Status: 502}, 502, "502", "bad_gateway"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			a := newAPI(t, sandbox.Options{})
			a.sb.InjectFault(tt.fault)
			e := a.fail(tt.status, "GET", "/user", nil)
			if e.ID != tt.id || e.Name != tt.name {
				t.Errorf("error = %+v, want %s %s", e, tt.id, tt.name)
			}
			a.ok(200, "GET", "/user", nil, nil) // the fault was used up
		})
	}
}

func TestFaultsMatchMethodPathAndCount(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	a.sb.InjectFault(sandbox.Fault{Method: "POST", PathContains: "/transactions", Count: 2, Status: 500})
	a.ok(200, "GET", plan+"/transactions", nil, nil) // a GET does not match
	for range 2 {
		a.fail(500, "POST", plan+"/transactions", map[string]any{})
	}
	a.fail(400, "POST", plan+"/transactions", map[string]any{}) // used up: the real answer
}

func TestDropClosesWithoutAnswer(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	a.sb.InjectFault(sandbox.Fault{Method: "POST", Drop: true})
	_, err := postRaw(a, plan+"/transactions/import")
	if err == nil {
		t.Fatal("a dropped request got an answer")
	}
	var got struct {
		TransactionIDs []string `json:"transaction_ids"`
	}
	a.ok(201, "POST", plan+"/transactions/import", nil, &got) // Drop came before handling: nothing imported
	if len(got.TransactionIDs) != 2 {
		t.Errorf("import after the dropped one brought %d transactions, want 2", len(got.TransactionIDs))
	}
}

func TestDropAfterAppliesTheWrite(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	a.sb.InjectFault(sandbox.Fault{Method: "POST", DropAfter: true})
	if _, err := postRaw(a, plan+"/transactions/import"); err == nil {
		t.Fatal("a dropped request got an answer")
	}
	var got struct {
		TransactionIDs []string `json:"transaction_ids"`
	}
	a.ok(200, "POST", plan+"/transactions/import", nil, &got) // already imported before the drop
	if len(got.TransactionIDs) != 0 {
		t.Errorf("second import brought %d transactions, want 0", len(got.TransactionIDs))
	}
}

// postRaw sends a POST on a fresh connection, so that Go's client does not retry it.
func postRaw(a *api, path string) (*http.Response, error) {
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	req, _ := http.NewRequest("POST", a.base+path, nil)
	req.Header.Set("Authorization", "Bearer x")
	res, err := client.Do(req)
	if err == nil {
		res.Body.Close()
	}
	return res, err
}

func TestDelayStopsWhenTheClientGivesUp(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	a.sb.InjectFault(sandbox.Fault{Delay: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", a.base+"/user", nil)
	req.Header.Set("Authorization", "Bearer x")
	_, err := http.DefaultClient.Do(req)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the client's deadline", err)
	}
	a.ok(200, "GET", "/user", nil, nil) // the server is not stuck behind the delayed request
}

// A delayed write whose client gives up is abandoned, not applied once the delay ends: net/http
// notices a client that went away only after the body was read, so the sandbox reads it first.
func TestDelayedWriteIsNotAppliedWhenTheClientGivesUp(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, nil))
	a := newAPI(t, sandbox.Options{Logger: logger})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	path := plan + "/months/current/categories/" + n.id(t, "Tennis")
	var before struct{ Category struct{ Budgeted int64 } }
	a.ok(200, "GET", path, nil, &before)
	a.sb.InjectFault(sandbox.Fault{Method: "PATCH", Delay: 300 * time.Millisecond})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "PATCH", a.base+path, strings.NewReader(`{"category":{"budgeted":4321000}}`))
	req.Header.Set("Authorization", "Bearer x")
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the client's deadline", err)
	}
	var line string
	for deadline := time.Now().Add(5 * time.Second); line == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		for l := range strings.SplitSeq(buf.String(), "\n") {
			if strings.Contains(l, "method=PATCH") {
				line = l
			}
		}
		mu.Unlock()
	}
	if !strings.Contains(line, "status=abandoned") {
		t.Errorf("the delayed PATCH whose client gave up was logged as %q, want status=abandoned", line)
	}
	var after struct{ Category struct{ Budgeted int64 } }
	a.ok(200, "GET", path, nil, &after)
	if after.Category.Budgeted != before.Category.Budgeted {
		t.Errorf("Tennis assigned %d after the client gave up on the PATCH, want %d as before: the write was applied",
			after.Category.Budgeted, before.Category.Budgeted)
	}
}

func TestDelayThenAnswer(t *testing.T) {
	a := newAPI(t, sandbox.Options{})
	a.sb.InjectFault(sandbox.Fault{Delay: 10 * time.Millisecond, Status: 503})
	a.fail(503, "GET", "/user", nil)
}

// clock is a Now that a test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestRateLimitOverARollingHour(t *testing.T) {
	clk := &clock{now: sandboxtest.FixedNow()}
	a := newAPI(t, sandbox.Options{RateLimit: 3, Now: clk.Now})
	for i := 1; i <= 3; i++ {
		_, h, _ := a.do("GET", "/user", nil)
		if got := h.Get("X-Rate-Limit"); got != []string{"", "1/3", "2/3", "3/3"}[i] {
			t.Errorf("request %d: X-Rate-Limit = %q", i, got)
		}
		clk.advance(10 * time.Minute)
	}
	e := a.fail(429, "GET", "/user", nil)
	if e.ID != "429" || e.Name != "too_many_requests" {
		t.Errorf("error = %+v", e)
	}
	clk.advance(31 * time.Minute) // the first request is now over an hour old
	a.ok(200, "GET", "/user", nil, nil)
	a.fail(429, "GET", "/user", nil)
}

func TestLogsOneLinePerRequestWithoutSecrets(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &buf, mu: &mu}, nil))
	a := newAPI(t, sandbox.Options{Logger: logger, Token: "s3cret-token"})
	a.token = "s3cret-token"
	a.ok(200, "GET", plan+"/transactions?since_date=2026-01-01", nil, nil)
	a.token = "wrong-token"
	a.fail(401, "GET", "/user", nil)
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d log lines, want 2:\n%s", len(lines), out)
	}
	for _, want := range []string{"method=GET", "path=/v1/plans/" + sandbox.PlanID + "/transactions", "status=200", "duration="} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("log line %q lacks %q", lines[0], want)
		}
	}
	if strings.Contains(out, "s3cret") || strings.Contains(out, "wrong-token") || strings.Contains(out, "since_date") {
		t.Errorf("the log shows a token or the query:\n%s", out)
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
