// Package hostedtest deploys avenir hosted for tests, over loopback: a real PostgreSQL
// (internal/pgtest), the sandbox playing YNAB and its OAuth, any number of instances on one
// database behind one public URL (the first one's), people signing in through a browser (a
// cookie jar: avenir's consent, the sandbox's consent with a login name, the callbacks), and
// the go-sdk's MCP client over Streamable HTTP with the access token.
//
// Package hosted's tests use it, and cmd/avenir's tests of the real binary, which start
// `avenir serve --hosted` with Env.Getenv's settings beside the instances Start runs in the test.
package hostedtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/auth"
	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/hosted"
	"github.com/avenir-mcp/avenir/internal/pgtest"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

// The YNAB OAuth application the sandbox knows avenir as.
const (
	ClientID     = "avenir-hosted-test"
	ClientSecret = "sandbox-oauth-secret-for-tests"
)

// Env is the deployment under test.
type Env struct {
	t             *testing.T
	Cluster       *pgtest.Cluster
	DSN           string
	Sandbox       *sandbox.Sandbox
	SandboxAPI    string // the sandbox's /v1
	SandboxOrigin string
	Public        string // AVENIR_MCP_PUBLIC_URL: the first instance's address, shared by every instance
	Key           string // AVENIR_MCP_SECRET_KEY
	Logs          *LogBuffer
	Instances     []*Instance
	// Budget is each person's YNAB requests an hour for the instances started next, when not
	// YNAB's 200.
	Budget int
}

// Instance is one avenir hosted instance the test runs (Server nil for one it does not, such
// as a real binary's).
type Instance struct {
	URL    string
	OpsURL string // its metrics and readiness listener (Server.OpsHandler)
	Server *hosted.Server
}

// LogBuffer is a log the instances write to while the test reads it.
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *LogBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *LogBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// New starts the database (a cluster of the test's own, so that the test may pause it) and
// the sandbox; Start starts the instances.
func New(t *testing.T) *Env {
	t.Helper()
	e := &Env{t: t, Logs: &LogBuffer{}}
	e.Cluster = pgtest.Start(t)
	var err error
	if e.DSN, err = e.Cluster.CreateDatabase(); err != nil {
		t.Fatal(err)
	}
	// The sandbox lives on today, as the server does: "current" is the same month for both.
	var srv *sandbox.Server
	e.Sandbox, srv = sandboxtest.New(t, sandbox.Options{Now: time.Now,
		OAuthClients: []sandbox.OAuthClient{{ID: ClientID, Secret: ClientSecret}}})
	e.SandboxAPI = srv.URL
	e.SandboxOrigin = strings.TrimSuffix(srv.URL, "/v1")
	k := make([]byte, 32)
	rand.Read(k)
	e.Key = base64.StdEncoding.EncodeToString(k)
	return e
}

// Getenv is the environment `avenir serve --hosted` reads for this deployment.
func (e *Env) Getenv(k string) string {
	return map[string]string{
		"AVENIR_MCP_DATABASE_URL":       e.DSN,
		"AVENIR_MCP_PUBLIC_URL":         e.Public,
		"AVENIR_MCP_YNAB_CLIENT_ID":     ClientID,
		"AVENIR_MCP_YNAB_CLIENT_SECRET": ClientSecret,
		"AVENIR_MCP_SECRET_KEY":         e.Key,
		"AVENIR_MCP_YNAB_OAUTH_URL":     e.SandboxOrigin + "/oauth",
		"AVENIR_MCP_YNAB_URL":           e.SandboxAPI,
	}[k]
}

// Listen reserves a loopback address; the first one reserved is the public URL of all.
func (e *Env) Listen() net.Listener {
	e.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		e.t.Fatal(err)
	}
	if e.Public == "" {
		e.Public = "http://" + ln.Addr().String()
	}
	return ln
}

// Start starts one more instance in the test's process, with the log serve --hosted writes.
func (e *Env) Start() *Instance {
	e.t.Helper()
	return e.StartWith(nil)
}

// StartWith starts one more instance as Start does, with its Config changed by change first
// (confirm's clock, say, or RequireElicitation).
func (e *Env) StartWith(change func(*hosted.Config)) *Instance {
	e.t.Helper()
	ln := e.Listen()
	authCfg, err := auth.ConfigFromEnv(func(k string) (string, bool) { v := e.Getenv(k); return v, v != "" })
	if err != nil {
		e.t.Fatal(err)
	}
	if e.Budget > 0 {
		authCfg.RequestBudget = e.Budget
	}
	cfg := hosted.Config{Auth: authCfg, YNABURL: e.SandboxAPI, Version: "test",
		Logger: hosted.Logger(e.Logs, slog.LevelDebug).With("instance", len(e.Instances))}
	if change != nil {
		change(&cfg)
	}
	ctx := context.Background()
	pcfg, err := pgxpool.ParseConfig(e.DSN)
	if err != nil {
		e.t.Fatal(err)
	}
	pcfg.MaxConns = hosted.PoolSize
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		e.t.Fatal(err)
	}
	h, err := hosted.New(ctx, pool, cfg)
	if err != nil {
		pool.Close()
		e.t.Fatal(err)
	}
	srv := h.HTTPServer()
	go srv.Serve(ln)
	ops := httptest.NewServer(h.OpsHandler())
	e.t.Cleanup(func() { srv.Close(); ops.Close(); pool.Close() })
	in := &Instance{URL: "http://" + ln.Addr().String(), OpsURL: ops.URL, Server: h}
	e.Instances = append(e.Instances, in)
	return in
}

// browser is a person's browser: cookies, and each redirect looked at.
type browser struct {
	t *testing.T
	c *http.Client
}

func newBrowser(t *testing.T) *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t, &http.Client{Jar: jar, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) do(method, u string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	var resp *http.Response
	var err error
	if method == "GET" {
		resp, err = b.c.Get(u)
	} else {
		// A form posted from the page it is on: a browser sends the page's Origin, which
		// avenir's forms require.
		req, _ := http.NewRequest(method, u, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if pu, perr := url.Parse(u); perr == nil {
			req.Header.Set("Origin", pu.Scheme+"://"+pu.Host)
		}
		resp, err = b.c.Do(req)
	}
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatalf("%s %s: reading the answer: %v", method, u, err)
	}
	return resp, string(body)
}

func (b *browser) redirected(resp *http.Response, body string) *url.URL {
	b.t.Helper()
	loc, err := resp.Location()
	if resp.StatusCode/100 != 3 || err != nil {
		b.t.Fatalf("%s %s answered %s, want a redirect: %s", resp.Request.Method, resp.Request.URL, resp.Status, body)
	}
	return loc
}

var (
	requestField = regexp.MustCompile(`name="request" value="([^"]+)"`)
	hiddenField  = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
)

// SignIn takes a person through sign-in as their app and browser would, and returns avenir's
// access and refresh tokens: dynamic registration (RFC 7591), the authorization request with
// PKCE S256 and the resource, avenir's consent, the sandbox's consent under login, the
// callbacks, the code exchanged at the token endpoint.
func (e *Env) SignIn(login string) (access, refresh string) {
	t := e.t
	t.Helper()
	redirect := "http://127.0.0.1:1/callback"
	reg, _ := json.Marshal(map[string]any{"client_name": "Test client of " + login, "redirect_uris": []string{redirect},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}})
	resp, err := http.Post(e.Public+"/oauth/register", "application/json", bytes.NewReader(reg))
	if err != nil {
		t.Fatal(err)
	}
	var client struct {
		ClientID string `json:"client_id"`
	}
	json.NewDecoder(resp.Body).Decode(&client)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || client.ClientID == "" {
		t.Fatalf("registration answered %s", resp.Status)
	}

	vb := make([]byte, 32)
	rand.Read(vb)
	verifier := base64.RawURLEncoding.EncodeToString(vb)
	sum := sha256.Sum256([]byte(verifier))
	state := "st-" + login
	b := newBrowser(t)
	q := url.Values{"response_type": {"code"}, "client_id": {client.ClientID}, "redirect_uri": {redirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"state": {state}, "resource": {e.Public + "/mcp"}}
	r, body := b.do("GET", e.Public+"/oauth/authorize?"+q.Encode(), nil)
	m := requestField.FindStringSubmatch(body)
	if r.StatusCode != 200 || m == nil {
		t.Fatalf("avenir's consent page: %s\n%s", r.Status, body)
	}
	toYNAB := b.redirected(b.do("POST", e.Public+"/oauth/consent", url.Values{"request": {html.UnescapeString(m[1])}, "decision": {"allow"}}))
	if !strings.HasPrefix(toYNAB.String(), e.SandboxOrigin+"/oauth/authorize") {
		t.Fatalf("avenir sent the browser to %s, not the sandbox's sign-in", toYNAB)
	}
	r, body = b.do("GET", toYNAB.String(), nil)
	form := url.Values{"user": {login}, "decision": {"authorize"}}
	for _, f := range hiddenField.FindAllStringSubmatch(body, -1) {
		form.Set(html.UnescapeString(f[1]), html.UnescapeString(f[2]))
	}
	if r.StatusCode != 200 || form.Get("client_id") != ClientID {
		t.Fatalf("the sandbox's consent page: %s\n%s", r.Status, body)
	}
	callback := b.redirected(b.do("POST", e.SandboxOrigin+"/oauth/authorize", form))
	back := b.redirected(b.do("GET", callback.String(), nil))
	if bq := back.Query(); !strings.HasPrefix(back.String(), redirect) || bq.Get("state") != state || bq.Get("iss") != e.Public || bq.Get("code") == "" {
		t.Fatalf("back at the client: %s", back)
	}

	resp, err = http.PostForm(e.Public+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")},
		"redirect_uri": {redirect}, "client_id": {client.ClientID}, "code_verifier": {verifier}, "resource": {e.Public + "/mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	json.NewDecoder(resp.Body).Decode(&tok)
	if resp.StatusCode != 200 || tok.AccessToken == "" {
		t.Fatalf("the token endpoint answered %s", resp.Status)
	}
	return tok.AccessToken, tok.RefreshToken
}

// bearer adds the access token to every request, as an MCP client's auth provider does.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// Client is one MCP client of one person on one instance.
type Client struct {
	t  *testing.T
	CS *mcp.ClientSession
}

// Connect opens an MCP session on in with the token, closed when the test ends. protocol "" is
// the SDK's newest; apps declares the MCP Apps extension (a host that draws the card).
func (e *Env) Connect(in *Instance, token, protocol string, apps bool) *Client {
	e.t.Helper()
	opts := &mcp.ClientOptions{}
	if apps {
		caps := &mcp.ClientCapabilities{}
		caps.AddExtension(confirm.AppExtension, map[string]any{"mimeTypes": []string{confirm.AppMIMEType}})
		opts.Capabilities = caps
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "hosted-test", Version: "1"}, opts).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: in.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}},
			DisableStandaloneSSE: true, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		e.t.Fatalf("connecting to %s: %v", in.URL, err)
	}
	e.t.Cleanup(func() { cs.Close() })
	return &Client{e.t, cs}
}

// Call calls a tool; a protocol error fails the test, a tool's error is in the result.
func (c *Client) Call(name string, args map[string]any) *mcp.CallToolResult {
	c.t.Helper()
	res, err := c.CS.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	return res
}

// OK calls a tool that must succeed and decodes its structured result into out.
func (c *Client) OK(name string, args map[string]any, out any) {
	c.t.Helper()
	res := c.Call(name, args)
	if res.IsError {
		c.t.Fatalf("%s(%v) failed: %s", name, args, ResultText(res))
	}
	Remarshal(c.t, res.StructuredContent, out)
}

// Write is what a write tool answers.
type Write struct {
	Status       string `json:"status"`
	OperationID  string `json:"operation_id"`
	Confirmation string `json:"confirmation"`
}

// Move asks for a move of amount from Tennis to Restaurants this month.
func Move(amount string) map[string]any {
	return map[string]any{"from_category": "Tennis", "to_category": "Restaurants", "month": "current", "amount": amount}
}

// WithCode is args with the confirmation code.
func WithCode(args map[string]any, code string) map[string]any {
	out := map[string]any{"confirmation": code}
	for k, v := range args {
		out[k] = v
	}
	return out
}

// ConfirmedMove makes one confirmed move of 1.00 from Tennis to Restaurants by code, and
// reports whether it was applied (another writer of the plan between the preview and the code
// makes it ask again, which is no failure).
func ConfirmedMove(cs *mcp.ClientSession) bool {
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "move_money", Arguments: Move("1")})
	if err != nil || res.IsError {
		return false
	}
	var first Write
	if raw, err := json.Marshal(res.StructuredContent); err != nil || json.Unmarshal(raw, &first) != nil {
		return false
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "move_money", Arguments: WithCode(Move("1"), first.Confirmation)})
	if err != nil || res.IsError {
		return false
	}
	var done Write
	if raw, err := json.Marshal(res.StructuredContent); err != nil || json.Unmarshal(raw, &done) != nil {
		return false
	}
	return done.Status == "applied"
}

// Assigned is what login's copy of the sample has assigned to category this month.
func (e *Env) Assigned(login, category string) int64 {
	e.t.Helper()
	p, err := e.Sandbox.Export(sandbox.UserPlanID(login, sandbox.PlanID))
	if err != nil {
		e.t.Fatal(err)
	}
	var id string
	for _, c := range p.Categories {
		if c.Name == category && !c.Deleted {
			id = c.ID
		}
	}
	month := time.Now().UTC().Format("2006-01") + "-01"
	for _, m := range p.Months {
		for _, mc := range m.Categories {
			if m.Month == month && mc.ID == id {
				return mc.Budgeted
			}
		}
	}
	e.t.Fatalf("no %s in %s's plan for %s", category, login, month)
	return 0
}

// Get fetches u and returns its status and body.
func (e *Env) Get(u string) (int, string) {
	e.t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Metric returns the value of the sample named exactly series in in's /metrics, 0 if absent.
func (e *Env) Metric(in *Instance, series string) float64 {
	e.t.Helper()
	_, body := e.Get(in.OpsURL + "/metrics")
	for _, line := range strings.Split(body, "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			var v float64
			fmt.Sscan(rest, &v)
			return v
		}
	}
	return 0
}

// ResultText is a tool result's text.
func ResultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Remarshal reads from (a result's structured content, say) into to, through JSON.
func Remarshal(t testing.TB, from, to any) {
	t.Helper()
	raw, err := json.Marshal(from)
	if err == nil {
		err = json.Unmarshal(raw, to)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// WaitFor polls cond until it holds or the time is up.
func WaitFor(limit time.Duration, cond func() bool) bool {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}
