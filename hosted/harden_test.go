package hosted_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/hosted"
	"github.com/avenir-mcp/avenir/hosted/hostedtest"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// The server-level findings of issue 30, each played from outside against instances on
// loopback with a real PostgreSQL and the sandbox as YNAB.

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"origin-test","version":"1"}}}`

// A web page a person visits drives their browser at /mcp (DNS rebinding, or a page holding a
// token it should not): the Streamable HTTP transport says the server MUST refuse a foreign
// Origin with 403 (#13). Native clients send no Origin and pass; the public origin and the
// operator's allowed ones pass.
func TestMCPRefusesForeignOrigin(t *testing.T) {
	e := hostedtest.New(t)
	a := e.StartWith(func(c *hosted.Config) { c.AllowedOrigins = []string{"https://inspector.example"} })
	access, _ := e.SignIn("alice")
	post := func(origin, token string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", a.URL+"/mcp", strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		origin, token string
		want          int
	}{
		{"https://evil.example", access, http.StatusForbidden},
		{"http://127.0.0.1.evil.example", access, http.StatusForbidden},
		{"null", access, http.StatusForbidden},
		{"https://evil.example", "", http.StatusForbidden},
		{"", access, http.StatusOK},
		{e.Public, access, http.StatusOK},
		{"https://inspector.example", access, http.StatusOK},
	} {
		if got := post(tc.origin, tc.token); got != tc.want {
			t.Errorf("POST /mcp with Origin %q (token %v): %d, want %d", tc.origin, tc.token != "", got, tc.want)
		}
	}
}

// /metrics (how many people, how their calls fare) and /readyz (a database round trip per
// request) are not on the public listener; they answer on the operator's own (#12). /healthz
// stays public, for a load balancer.
func TestMetricsAndReadinessOffThePublicListener(t *testing.T) {
	e := hostedtest.New(t)
	a := e.Start()
	for _, path := range []string{"/metrics", "/readyz"} {
		if code, body := e.Get(a.URL + path); code != http.StatusNotFound {
			t.Errorf("GET %s on the public listener: %d\n%.300s", path, code, body)
		}
	}
	if code, _ := e.Get(a.URL + "/healthz"); code != 200 {
		t.Errorf("GET /healthz on the public listener: %d", code)
	}
	if code, body := e.Get(a.OpsURL + "/metrics"); code != 200 || !strings.Contains(body, "avenir_") {
		t.Errorf("GET /metrics on the metrics listener: %d", code)
	}
	if code, _ := e.Get(a.OpsURL + "/readyz"); code != 200 {
		t.Errorf("GET /readyz on the metrics listener: %d", code)
	}
}

// waitClosed reads conn until the server closes it, and says how long that took, or fails at
// limit: the server holds the connection.
func waitClosed(t *testing.T, conn net.Conn, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	conn.SetReadDeadline(start.Add(limit))
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server still holds the connection after %s", limit)
	}
	return time.Since(start)
}

// A request whose body never arrives holds its connection only BodyTimeout; a keep-alive
// connection with nothing asked is closed after IdleTimeout; a response that streams for longer
// than either is not cut (#8). The defaults are 30 s and 120 s.
func TestSlowClientsAreCut(t *testing.T) {
	e := hostedtest.New(t)
	a := e.StartWith(func(c *hosted.Config) { c.BodyTimeout, c.IdleTimeout = time.Second, 2*time.Second })
	access, _ := e.SignIn("alice")
	host := strings.TrimPrefix(a.URL, "http://")

	for _, token := range []string{"", access} { // refused by auth before the body is read, and read by MCP
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		req := "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 4096\r\n"
		if token != "" {
			req += "Authorization: Bearer " + token + "\r\n"
		}
		io.WriteString(conn, req+"\r\n{\"jsonrpc\":") // and the rest never comes
		if took := waitClosed(t, conn, 10*time.Second); took > 4*time.Second {
			t.Errorf("a body that never arrives (token %v) held its connection %s", token != "", took)
		}
		conn.Close()
	}

	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: "+host+"\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /healthz: %v %v", resp, err)
	}
	if took := waitClosed(t, conn, 10*time.Second); took > 5*time.Second {
		t.Errorf("an idle keep-alive connection was held %s", took)
	}

	// A tool call whose answer takes longer than the body timeout (YNAB slow) still answers.
	e.Sandbox.InjectFault(sandbox.Fault{Method: "GET", Delay: 2500 * time.Millisecond, Count: 1})
	c := e.Connect(a, access, "", false)
	var plans struct {
		Plans []struct{ ID string } `json:"plans"`
	}
	c.OK("list_plans", map[string]any{}, &plans)
	if len(plans.Plans) == 0 {
		t.Fatal("list_plans after a slow YNAB answered no plan")
	}

	d := e.Start()
	if srv := d.Server.HTTPServer(); srv.IdleTimeout != 120*time.Second || srv.ReadHeaderTimeout == 0 || srv.WriteTimeout != 0 || srv.ReadTimeout != 0 {
		t.Errorf("the default server: idle %s, header %s, write %s, read %s; want 120 s idle, a header timeout, and no write or whole-read timeout (streams)",
			srv.IdleTimeout, srv.ReadHeaderTimeout, srv.WriteTimeout, srv.ReadTimeout)
	}
	if hosted.DefaultBodyTimeout != 30*time.Second {
		t.Errorf("the default body timeout is %s, want 30 s", hosted.DefaultBodyTimeout)
	}
}

// YNAB failing shows in the log with its HTTP status, though amounts in errors are masked (#16).
func TestStatusCodesReadableInLogs(t *testing.T) {
	e := hostedtest.New(t)
	a := e.Start()
	access, _ := e.SignIn("alice")
	c := e.Connect(a, access, "", false)
	e.Sandbox.InjectFault(sandbox.Fault{Method: "GET", Status: 503, Count: 10})
	res := c.Call("list_plans", map[string]any{})
	if !res.IsError {
		t.Fatalf("list_plans with YNAB failing: %s", hostedtest.ResultText(res))
	}
	logs := e.Logs.String()
	if !strings.Contains(logs, "HTTP 503") {
		t.Fatalf("the log does not say YNAB answered 503:\n%s", logs)
	}
}

// A YNAB URL that redirects elsewhere (a compromised or hijacked endpoint, a proxy gone wrong)
// must not get the person's YNAB token sent to the other host: hosted mode sets the token per
// request (auth.Transport), so the client must refuse the hop itself (#9).
func TestYNABTokenNeverFollowsARedirect(t *testing.T) {
	e := hostedtest.New(t)
	var leaked atomic.Int32
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			leaked.Add(1)
		}
		http.NotFound(w, r)
	}))
	defer collector.Close()
	elsewhere := strings.Replace(collector.URL, "127.0.0.1", "localhost", 1) // another host
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	a := e.StartWith(func(c *hosted.Config) { c.YNABURL = redirector.URL + "/v1" })
	access, _ := e.SignIn("alice")
	c := e.Connect(a, access, "", false)
	if res := c.Call("list_plans", map[string]any{}); !res.IsError {
		t.Fatalf("list_plans through a redirecting YNAB URL: %s", hostedtest.ResultText(res))
	}
	if n := leaked.Load(); n != 0 {
		t.Fatalf("the person's YNAB token was sent to another host %d times", n)
	}
}
