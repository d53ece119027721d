package main

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
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/internal/pgtest"
	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

// avenir hosted end to end, over loopback: a real PostgreSQL (internal/pgtest), the sandbox
// playing YNAB and its OAuth, two avenir instances on one database behind one public URL, people
// signing in through a hostedBrowser (a cookie jar: avenir's consent, the sandbox's consent with a
// login name, the callbacks), and the go-sdk's MCP client over Streamable HTTP with the access
// token.

const (
	hostedClientID     = "avenir-hosted-test"
	hostedClientSecret = "sandbox-oauth-secret-for-tests"
)

// hostedEnv is the deployment under test.
type hostedEnv struct {
	t        *testing.T
	cluster  *pgtest.Cluster
	dsn      string
	sb       *sandbox.Sandbox
	sbAPI    string // the sandbox's /v1
	sbOrigin string
	public   string // AVENIR_MCP_PUBLIC_URL: instance A's address, shared by every instance
	key      string
	logs     *hostedLogBuffer
	inst     []*hostedInstance
	budget   int // each person's YNAB requests an hour, when not YNAB's 200
}

type hostedInstance struct {
	url string
	h   *hosted
}

type hostedLogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *hostedLogBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *hostedLogBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newHostedEnv(t *testing.T) *hostedEnv {
	t.Helper()
	e := &hostedEnv{t: t, logs: &hostedLogBuffer{}}
	e.cluster = pgtest.Start(t)
	var err error
	if e.dsn, err = e.cluster.CreateDatabase(); err != nil {
		t.Fatal(err)
	}
	// The sandbox lives on today, as the server does: "current" is the same month for both.
	var srv *sandbox.Server
	e.sb, srv = sandboxtest.New(t, sandbox.Options{Now: time.Now,
		OAuthClients: []sandbox.OAuthClient{{ID: hostedClientID, Secret: hostedClientSecret}}})
	e.sbAPI = srv.URL
	e.sbOrigin = strings.TrimSuffix(srv.URL, "/v1")
	k := make([]byte, 32)
	rand.Read(k)
	e.key = base64.StdEncoding.EncodeToString(k)
	return e
}

func (e *hostedEnv) getenv(k string) string {
	return map[string]string{
		"AVENIR_MCP_DATABASE_URL":       e.dsn,
		"AVENIR_MCP_PUBLIC_URL":         e.public,
		"AVENIR_MCP_YNAB_CLIENT_ID":     hostedClientID,
		"AVENIR_MCP_YNAB_CLIENT_SECRET": hostedClientSecret,
		"AVENIR_MCP_SECRET_KEY":         e.key,
		"AVENIR_MCP_YNAB_OAUTH_URL":     e.sbOrigin + "/oauth",
		"AVENIR_MCP_YNAB_URL":           e.sbAPI,
	}[k]
}

// start starts one more instance; the first one's address is the public URL of all.
func (e *hostedEnv) start() *hostedInstance {
	e.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		e.t.Fatal(err)
	}
	u := "http://" + ln.Addr().String()
	if e.public == "" {
		e.public = u
	}
	cfg, err := hostedConfigFromEnv(e.getenv)
	if err != nil {
		e.t.Fatal(err)
	}
	if e.budget > 0 {
		cfg.auth.RequestBudget = e.budget
	}
	ctx := context.Background()
	pool, err := hostedPool(ctx, e.dsn)
	if err != nil {
		e.t.Fatal(err)
	}
	log := hostedLogger(e.logs, slog.LevelDebug) // the log serve --hosted writes
	h, err := newHosted(ctx, pool, cfg, log.With("instance", len(e.inst)))
	if err != nil {
		e.t.Fatal(err)
	}
	srv := &http.Server{Handler: h.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	e.t.Cleanup(func() { srv.Close(); pool.Close() })
	in := &hostedInstance{url: u, h: h}
	e.inst = append(e.inst, in)
	return in
}

// hostedBrowser is a person's browser: cookies, and each redirect looked at.
type hostedBrowser struct {
	t *testing.T
	c *http.Client
}

func newHostedBrowser(t *testing.T) *hostedBrowser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &hostedBrowser{t, &http.Client{Jar: jar, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *hostedBrowser) do(method, u string, form url.Values) (*http.Response, string) {
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

func (b *hostedBrowser) redirected(resp *http.Response, body string) *url.URL {
	b.t.Helper()
	loc, err := resp.Location()
	if resp.StatusCode/100 != 3 || err != nil {
		b.t.Fatalf("%s %s answered %s, want a redirect: %s", resp.Request.Method, resp.Request.URL, resp.Status, body)
	}
	return loc
}

var (
	hostedRequestField = regexp.MustCompile(`name="request" value="([^"]+)"`)
	hostedHiddenField  = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
)

// signIn takes a person through sign-in as their app and hostedBrowser would, and returns avenir's
// access and refresh tokens: dynamic registration (RFC 7591), the authorization request with
// PKCE S256 and the resource, avenir's consent, the sandbox's consent under login, the
// callbacks, the code exchanged at the token endpoint.
func (e *hostedEnv) signIn(login string) (access, refresh string) {
	t := e.t
	t.Helper()
	redirect := "http://127.0.0.1:1/callback"
	reg, _ := json.Marshal(map[string]any{"client_name": "Test client of " + login, "redirect_uris": []string{redirect},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}})
	resp, err := http.Post(e.public+"/oauth/register", "application/json", bytes.NewReader(reg))
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
	b := newHostedBrowser(t)
	q := url.Values{"response_type": {"code"}, "client_id": {client.ClientID}, "redirect_uri": {redirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"state": {state}, "resource": {e.public + "/mcp"}}
	r, body := b.do("GET", e.public+"/oauth/authorize?"+q.Encode(), nil)
	m := hostedRequestField.FindStringSubmatch(body)
	if r.StatusCode != 200 || m == nil {
		t.Fatalf("avenir's consent page: %s\n%s", r.Status, body)
	}
	toYNAB := b.redirected(b.do("POST", e.public+"/oauth/consent", url.Values{"request": {html.UnescapeString(m[1])}, "decision": {"allow"}}))
	if !strings.HasPrefix(toYNAB.String(), e.sbOrigin+"/oauth/authorize") {
		t.Fatalf("avenir sent the hostedBrowser to %s, not the sandbox's sign-in", toYNAB)
	}
	r, body = b.do("GET", toYNAB.String(), nil)
	form := url.Values{"user": {login}, "decision": {"authorize"}}
	for _, f := range hostedHiddenField.FindAllStringSubmatch(body, -1) {
		form.Set(html.UnescapeString(f[1]), html.UnescapeString(f[2]))
	}
	if r.StatusCode != 200 || form.Get("client_id") != hostedClientID {
		t.Fatalf("the sandbox's consent page: %s\n%s", r.Status, body)
	}
	callback := b.redirected(b.do("POST", e.sbOrigin+"/oauth/authorize", form))
	back := b.redirected(b.do("GET", callback.String(), nil))
	if bq := back.Query(); !strings.HasPrefix(back.String(), redirect) || bq.Get("state") != state || bq.Get("iss") != e.public || bq.Get("code") == "" {
		t.Fatalf("back at the client: %s", back)
	}

	resp, err = http.PostForm(e.public+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")},
		"redirect_uri": {redirect}, "client_id": {client.ClientID}, "code_verifier": {verifier}, "resource": {e.public + "/mcp"}})
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

// hostedBearer adds the access token to every request, as an MCP client's auth provider does.
type hostedBearer struct{ token string }

func (b hostedBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// hostedClient is one MCP client of one person on one instance.
type hostedClient struct {
	t  *testing.T
	cs *mcp.ClientSession
}

// connect opens an MCP session on in with the token. protocol "" is the SDK's newest; apps
// declares the MCP Apps extension (a host that draws the card).
func (e *hostedEnv) connect(in *hostedInstance, token, protocol string, apps bool) *hostedClient {
	e.t.Helper()
	opts := &mcp.ClientOptions{}
	if apps {
		caps := &mcp.ClientCapabilities{}
		caps.AddExtension(confirm.AppExtension, map[string]any{"mimeTypes": []string{confirm.AppMIMEType}})
		opts.Capabilities = caps
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "hosted-test", Version: "1"}, opts).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: in.url + "/mcp", HTTPClient: &http.Client{Transport: hostedBearer{token}},
			DisableStandaloneSSE: true, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		e.t.Fatalf("connecting to %s: %v", in.url, err)
	}
	e.t.Cleanup(func() { cs.Close() })
	return &hostedClient{e.t, cs}
}

func (c *hostedClient) call(name string, args map[string]any) *mcp.CallToolResult {
	c.t.Helper()
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	return res
}

// ok calls a tool that must succeed and decodes its structured result into out.
func (c *hostedClient) ok(name string, args map[string]any, out any) {
	c.t.Helper()
	res := c.call(name, args)
	if res.IsError {
		c.t.Fatalf("%s(%v) failed: %s", name, args, resultText(res))
	}
	remarshal(c.t, res.StructuredContent, out)
}

type hostedWrite struct {
	Status       string `json:"status"`
	OperationID  string `json:"operation_id"`
	Confirmation string `json:"confirmation"`
}

// move asks for a move of amount from Tennis to Restaurants this month.
func hostedMove(amount string) map[string]any {
	return map[string]any{"from_category": "Tennis", "to_category": "Restaurants", "month": "current", "amount": amount}
}

func hostedWithCode(args map[string]any, code string) map[string]any {
	out := map[string]any{"confirmation": code}
	for k, v := range args {
		out[k] = v
	}
	return out
}

// assigned is what login's copy of the sample has assigned to category this month.
func (e *hostedEnv) assigned(login, category string) int64 {
	e.t.Helper()
	p, err := e.sb.Export(sandbox.UserPlanID(login, sandbox.PlanID))
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

func (e *hostedEnv) get(u string) (int, string) {
	e.t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// metric returns the value of the sample named exactly series in in's /metrics, 0 if absent.
func (e *hostedEnv) metric(in *hostedInstance, series string) float64 {
	e.t.Helper()
	_, body := e.get(in.url + "/metrics")
	for _, line := range strings.Split(body, "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			var v float64
			fmt.Sscan(rest, &v)
			return v
		}
	}
	return 0
}

func TestHosted(t *testing.T) {
	e := newHostedEnv(t)
	a, b := e.start(), e.start()

	t.Run("no token gets the challenge", func(t *testing.T) {
		for _, in := range []*hostedInstance{a, b} {
			resp, err := http.Post(in.url+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			want := `Bearer resource_metadata="` + e.public + `/.well-known/oauth-protected-resource/mcp"`
			if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), want) {
				t.Fatalf("%s: %s, WWW-Authenticate %q; want 401 with %s", in.url, resp.Status, resp.Header.Get("WWW-Authenticate"), want)
			}
		}
	})

	t.Run("serve --hosted starts, is ready and stops", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		getenv := func(k string) string {
			if k == "AVENIR_MCP_PUBLIC_URL" {
				return "http://" + addr
			}
			return e.getenv(k)
		}
		ctx, cancel := context.WithCancel(context.Background())
		var stderr hostedLogBuffer
		done := make(chan error, 1)
		go func() {
			done <- runServe(ctx, []string{"--http", addr, "--hosted"}, env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, getenv: getenv})
		}()
		ready := false
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && !ready; time.Sleep(50 * time.Millisecond) {
			resp, err := http.Get("http://" + addr + "/readyz")
			if err == nil {
				ready = resp.StatusCode == 200
				resp.Body.Close()
			}
		}
		cancel()
		if err := <-done; err != nil || !ready {
			t.Fatalf("serve --hosted: ready %v, returned %v; stderr:\n%s", ready, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), `"msg":"avenir hosted serving MCP"`) {
			t.Fatalf("serve --hosted logged no JSON start line:\n%s", stderr.String())
		}
	})

	aliceToken, _ := e.signIn("alice")
	bobToken, _ := e.signIn("bob")
	alicePlan, bobPlan := sandbox.UserPlanID("alice", sandbox.PlanID), sandbox.UserPlanID("bob", sandbox.PlanID)
	aliceA := e.connect(a, aliceToken, "", false)
	aliceB := e.connect(b, aliceToken, "", false)
	bobB := e.connect(b, bobToken, "2025-11-25", false) // an older protocol: a session on B

	t.Run("each sees only their own plans", func(t *testing.T) {
		for _, c := range []struct {
			who        string
			cl         *hostedClient
			own, other string
		}{{"alice", aliceA, alicePlan, bobPlan}, {"bob", bobB, bobPlan, alicePlan}} {
			var out struct {
				Plans []struct {
					ID string `json:"id"`
				} `json:"plans"`
			}
			c.cl.ok("list_plans", map[string]any{}, &out)
			var ids []string
			for _, p := range out.Plans {
				ids = append(ids, p.ID)
			}
			joined := strings.Join(ids, " ")
			if !strings.Contains(joined, c.own) || strings.Contains(joined, c.other) {
				t.Fatalf("%s sees plans %v; want their own %s and not %s", c.who, ids, c.own, c.other)
			}
		}
	})

	var aliceOp string
	t.Run("a code issued by one instance is redeemed by the other", func(t *testing.T) {
		tennis, bobTennis := e.assigned("alice", "Tennis"), e.assigned("bob", "Tennis")
		var first hostedWrite
		aliceA.ok("move_money", hostedMove("30"), &first)
		if first.Status != "confirmation_required" || first.Confirmation == "" {
			t.Fatalf("first call = %+v; want a code", first)
		}
		// Bob holding Alice's code confirms nothing of his.
		if res := bobB.call("move_money", hostedWithCode(hostedMove("30"), first.Confirmation)); !res.IsError || !strings.Contains(resultText(res), "This confirmation code is unknown") {
			t.Fatalf("Bob passing Alice's code: %s; want it refused as unknown", resultText(res))
		}
		var done hostedWrite
		aliceB.ok("move_money", hostedWithCode(hostedMove("30"), first.Confirmation), &done)
		if done.Status != "applied" || done.OperationID == "" {
			t.Fatalf("with the code on the other instance: %+v; want applied", done)
		}
		aliceOp = done.OperationID
		if got := e.assigned("alice", "Tennis"); got != tennis-30000 {
			t.Fatalf("Alice's Tennis holds %d, want %d", got, tennis-30000)
		}
		if got := e.assigned("bob", "Tennis"); got != bobTennis {
			t.Fatalf("Bob's Tennis moved: %d, want %d", got, bobTennis)
		}
	})

	t.Run("another's operation is not found", func(t *testing.T) {
		var op map[string]any
		aliceA.ok("get_operation", map[string]any{"operation_id": aliceOp}, &op)
		for _, tool := range []string{"get_operation", "undo_operation"} {
			res := bobB.call(tool, map[string]any{"operation_id": aliceOp})
			if !res.IsError || !strings.Contains(resultText(res), "there is no operation") {
				t.Fatalf("Bob's %s of Alice's operation: %s; want not found", tool, resultText(res))
			}
		}
		var list struct {
			Operations []struct {
				ID string `json:"id"`
			} `json:"operations"`
		}
		bobB.ok("list_operations", map[string]any{}, &list)
		if len(list.Operations) != 0 {
			t.Fatalf("Bob's journal lists %+v; want nothing", list.Operations)
		}
	})

	t.Run("a write confirmed on the card", func(t *testing.T) {
		cardB := e.connect(b, aliceToken, "", true)
		cardA := e.connect(a, aliceToken, "", true)
		tennis := e.assigned("alice", "Tennis")
		res := cardB.call("move_money", hostedMove("5"))
		var pending struct {
			Status string `json:"status"`
			Card   struct {
				Handle string `json:"handle"`
			} `json:"card"`
		}
		remarshal(t, res.StructuredContent, &pending)
		if res.IsError || pending.Status != "confirmation_pending" || pending.Card.Handle == "" {
			t.Fatalf("on a card host: %s; want confirmation_pending with a card's handle", resultText(res))
		}
		// The card is drawn and opened through instance A; it answers through B.
		var view confirm.CardView
		cardA.ok("open_confirmation", map[string]any{"handle": pending.Card.Handle}, &view)
		if view.State != confirm.CardPending || view.Token == "" {
			t.Fatalf("open_confirmation on the other instance: %+v; want pending with a token", view)
		}
		var done hostedWrite
		cardB.ok("answer_confirmation", map[string]any{"token": view.Token, "answer": "accept", "version": confirm.CardVersion}, &done)
		if done.Status != "applied" {
			t.Fatalf("the card's answer on the other instance: %+v; want applied", done)
		}
		if got := e.assigned("alice", "Tennis"); got != tennis-5000 {
			t.Fatalf("Alice's Tennis holds %d, want %d", got, tennis-5000)
		}
		if res := cardA.call("answer_confirmation", map[string]any{"token": view.Token, "answer": "accept", "version": confirm.CardVersion}); !res.IsError {
			t.Fatalf("a card's token answered twice: %s", resultText(res))
		}
		// Mounted again, through A, the card shows what became of its change.
		var again confirm.CardView
		cardA.ok("open_confirmation", map[string]any{"handle": pending.Card.Handle}, &again)
		if again.State != confirm.CardAnswered || again.Token != "" || again.Outcome == nil || again.Outcome.Status != "applied" || again.Outcome.OperationID != done.OperationID {
			t.Fatalf("the card mounted again: %+v; want answered, applied, no token", again)
		}
	})

	t.Run("concurrent moves through both instances conserve money", func(t *testing.T) {
		tennis, restaurants := e.assigned("alice", "Tennis"), e.assigned("alice", "Restaurants")
		const workers, tries = 6, 6
		var mu sync.Mutex
		applied := 0
		var wg sync.WaitGroup
		for w := range workers {
			cl := aliceA
			if w%2 == 1 {
				cl = aliceB
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range tries {
					if confirmedMove(cl.cs) { // else the plan moved between preview and code: ask again
						mu.Lock()
						applied++
						mu.Unlock()
						return
					}
				}
			}()
		}
		wg.Wait()
		gotT, gotR := e.assigned("alice", "Tennis"), e.assigned("alice", "Restaurants")
		if applied == 0 || gotT+gotR != tennis+restaurants || gotT != tennis-int64(applied)*1000 {
			t.Fatalf("%d moves applied; Tennis %d → %d, Restaurants %d → %d: money is not conserved to the milliunit",
				applied, tennis, gotT, restaurants, gotR)
		}
		t.Logf("%d of %d concurrent moves applied", applied, workers)
	})

	t.Run("YNAB's expired tokens are refreshed", func(t *testing.T) {
		const token, refused = `avenir_ynab_requests_total{endpoint="oauth",method="POST",status="2xx"}`, `avenir_ynab_requests_total{endpoint="api",method="GET",status="4xx"}`
		refreshes := e.metric(a, token) + e.metric(b, token)
		refusals := e.metric(a, refused) + e.metric(b, refused)
		req, err := http.NewRequest("POST", e.sbOrigin+"/_sandbox/oauth/expire", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer control") // any token: the sandbox has none of its own
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("expiring the sandbox's tokens: %s", resp.Status)
		}
		var out map[string]any
		aliceA.ok("list_accounts", map[string]any{"fresh": true}, &out)
		bobB.ok("list_accounts", map[string]any{"fresh": true}, &out)
		after := e.metric(a, token) + e.metric(b, token)
		if got := e.metric(a, refused) + e.metric(b, refused) - refusals; got < 2 {
			t.Fatalf("YNAB refused %v requests after the expiry; want the expired token refused for each person", got)
		}
		if after < refreshes+2 {
			t.Fatalf("YNAB's token endpoint was asked %v times after the expiry; want a refresh for each person", after-refreshes)
		}
	})

	t.Run("metrics", func(t *testing.T) {
		_, body := e.get(b.url + "/metrics")
		for _, want := range []string{
			`avenir_tool_calls_total{status="applied",tool="move_money"}`,
			`avenir_writes_total{outcome="applied",tool="move_money"}`,
			`avenir_tool_calls_total{status="ok",tool="list_plans"}`,
			`avenir_ynab_requests_total{endpoint="api",method="PATCH",status="2xx"}`,
			`avenir_ynab_request_duration_seconds_bucket{endpoint="api",method="GET",status="2xx",le=`,
			`go_goroutines`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("/metrics has no %s", want)
			}
		}
		_, abody := e.get(a.url + "/metrics")
		if !strings.Contains(abody, `avenir_writes_total{outcome="confirmation_required",tool="move_money"}`) {
			t.Errorf("instance A's /metrics has no confirmation_required writes")
		}
		if strings.Contains(body+abody, alicePlan) || strings.Contains(body+abody, "/plans/") {
			t.Error("/metrics names a plan or a path")
		}
	})

	t.Run("logs hold no token and no amount", func(t *testing.T) {
		if res := aliceA.call("move_money", hostedMove("-30")); !res.IsError || !strings.Contains(resultText(res), "-30.00") {
			t.Fatalf("a negative move: %s; want an error naming the amount to the person", resultText(res))
		}
		logs := e.logs.String()
		if !strings.Contains(logs, `"msg":"tool call"`) {
			t.Fatal("no tool call was logged")
		}
		for _, secret := range []string{aliceToken, bobToken, hostedClientSecret, e.key} {
			if strings.Contains(logs, secret) {
				t.Fatal("a secret is in the log")
			}
		}
		for _, amount := range []string{"30.00", "15.00", "45.00"} {
			if strings.Contains(logs, amount) {
				t.Errorf("the log names the amount %s", amount)
			}
		}
	})

	t.Run("the sweep drops idle people's servers, and they come back", func(t *testing.T) {
		if got := e.metric(a, "avenir_people_cached"); got != 1 {
			t.Fatalf("instance A holds %v people's servers; want Alice's", got)
		}
		a.h.cfg.idleAfter = 0
		a.h.sweep(context.Background())
		if got := e.metric(a, "avenir_people_cached"); got != 0 {
			t.Fatalf("after the sweep instance A holds %v people's servers; want none", got)
		}
		var out map[string]any
		e.connect(a, aliceToken, "", false).ok("list_plans", map[string]any{}, &out)
		if got := e.metric(a, "avenir_people_cached"); got != 1 {
			t.Fatalf("after Alice's next call instance A holds %v people's servers; want hers", got)
		}
	})

	t.Run("readyz fails when the database is down, and it goes on when it is back", func(t *testing.T) {
		for _, in := range []*hostedInstance{a, b} {
			if code, body := e.get(in.url + "/readyz"); code != 200 {
				t.Fatalf("/readyz with the database up: %d %s", code, body)
			}
		}
		if err := e.cluster.Pause(); err != nil {
			t.Fatal(err)
		}
		if code, body := e.get(a.url + "/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "not ready") {
			t.Fatalf("/readyz with the database down: %d %s; want 503", code, body)
		}
		if code, _ := e.get(a.url + "/healthz"); code != 200 {
			t.Fatalf("/healthz with the database down: %d; want 200 (the process is up)", code)
		}
		req, err := http.NewRequest("POST", a.url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+aliceToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "database") {
			t.Fatalf("an MCP call with the database down: %s %s; want 503 saying why", resp.Status, body)
		}
		// Back up, it goes on: ready again, and a confirmed write goes through and is journaled.
		if err := e.cluster.Resume(); err != nil {
			t.Fatal(err)
		}
		if !waitFor(t, 30*time.Second, func() bool { code, _ := e.get(a.url + "/readyz"); return code == 200 }) {
			t.Fatal("/readyz stays failing after the database came back")
		}
		again := e.connect(a, aliceToken, "", false)
		var first, done hostedWrite
		again.ok("move_money", hostedMove("1"), &first)
		again.ok("move_money", hostedWithCode(hostedMove("1"), first.Confirmation), &done)
		if done.Status != "applied" {
			t.Fatalf("a write after the database came back: %+v", done)
		}
	})
}

// The environment is read with an error naming every variable that is missing or wrong, and
// never a secret's value.
func TestHostedConfig(t *testing.T) {
	good := map[string]string{
		"AVENIR_MCP_DATABASE_URL":       "postgres://avenir:pw-9d8c@db:5432/avenir",
		"AVENIR_MCP_PUBLIC_URL":         "https://avenir.example.com",
		"AVENIR_MCP_YNAB_CLIENT_ID":     "cid",
		"AVENIR_MCP_YNAB_CLIENT_SECRET": "csecret-77aa",
		"AVENIR_MCP_SECRET_KEY":         base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)),
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range good {
			m[a] = b
		}
		m[k] = v
		return m
	}
	cfg, err := hostedConfigFromEnv(func(k string) string { return good[k] })
	if err != nil || cfg.databaseURL != good["AVENIR_MCP_DATABASE_URL"] || cfg.ynabURL != ynab.DefaultBaseURL || len(cfg.auth.SecretKey) != 32 {
		t.Fatalf("a good environment: %+v %v", cfg.databaseURL, err)
	}
	for _, c := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"nothing set", map[string]string{}, []string{"AVENIR_MCP_DATABASE_URL is not set", "AVENIR_MCP_PUBLIC_URL is not set",
			"AVENIR_MCP_YNAB_CLIENT_ID is not set", "AVENIR_MCP_YNAB_CLIENT_SECRET is not set", "AVENIR_MCP_SECRET_KEY is not set"}},
		{"a short key", with("AVENIR_MCP_SECRET_KEY", base64.StdEncoding.EncodeToString([]byte("short"))), []string{"AVENIR_MCP_SECRET_KEY", "32 bytes"}},
		{"a key that is not base64", with("AVENIR_MCP_SECRET_KEY", "not base64!!"), []string{"AVENIR_MCP_SECRET_KEY", "base64"}},
		{"a database URL that is not one", with("AVENIR_MCP_DATABASE_URL", "postgres://avenir:pw-9d8c@db:notaport/avenir"), []string{"AVENIR_MCP_DATABASE_URL is not a PostgreSQL connection string"}},
		{"a bad freshness", with("AVENIR_MCP_FRESHNESS", "600"), []string{"AVENIR_MCP_FRESHNESS"}},
		{"contradictory confirmation", with("AVENIR_MCP_CONFIRM", "code"), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := c.env
			if c.name == "contradictory confirmation" {
				env["AVENIR_MCP_REQUIRE_ELICITATION"] = "1"
				c.want = []string{"AVENIR_MCP_CONFIRM=code and AVENIR_MCP_REQUIRE_ELICITATION=1"}
			}
			_, err := hostedConfigFromEnv(func(k string) string { return env[k] })
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			for _, secret := range []string{"pw-9d8c", "csecret-77aa", env["AVENIR_MCP_SECRET_KEY"]} {
				if secret != "" && strings.Contains(err.Error(), secret) {
					t.Errorf("error %q repeats a secret", err)
				}
			}
		})
	}
}

func TestHostedFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--hosted"}, "--hosted goes with --http"},
		{[]string{"--hosted", "--http", "nonsense"}, "give an address and port"},
		{[]string{"--hosted", "--http", ":0", "--sandbox"}, "--sandbox and --sample do not go with it"},
	} {
		var stderr bytes.Buffer
		err := runServe(context.Background(), c.args, env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, getenv: func(string) string { return "" }})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("serve %v: %v; want %q", c.args, err, c.want)
		}
	}
	// Reachable from elsewhere without --http-allow-remote: OAuth guards hosted avenir.
	h := &httpFlags{addr: "0.0.0.0:8080", hosted: true}
	if err := h.check(); err != nil {
		t.Errorf("--hosted --http 0.0.0.0:8080: %v", err)
	}
}

func TestHostedLogMasksMoney(t *testing.T) {
	for in, want := range map[string]string{
		"amount: -30.00 is not more than zero":                 "amount: -# is not more than zero",
		"Tennis: 45.00 → 15.00; €1.234,56 and 86.40 EUR":       "Tennis: # → #; €# and # EUR",
		"plan 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 2026-12-01": "plan 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 2026-12-01",
		"at 10:30:00, op 01JABCD2EFGH":                         "at 10:30:00, op 01JABCD2EFGH",
	} {
		if got := maskMoney(in); got != want {
			t.Errorf("maskMoney(%q) = %q, want %q", in, got, want)
		}
	}
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: maskMoneyAttr}))
	log.Info("tool call", "tool", "move_money", "ynab_requests", 3, "error", "Restaurants has 12.50 available")
	log.Warn("x", "err", fmt.Errorf("wrapped: %w", io.EOF), "amount_free", "12.50")
	if s := buf.String(); strings.Contains(s, "12.50 available") || !strings.Contains(s, `"ynab_requests":3`) || !strings.Contains(s, `"amount_free":"12.50"`) {
		t.Fatalf("log = %s", s)
	}
}

// remarshal reads from (a result's structured content, say) into to, through JSON.
func remarshal(t testing.TB, from, to any) {
	t.Helper()
	raw, err := json.Marshal(from)
	if err == nil {
		err = json.Unmarshal(raw, to)
	}
	if err != nil {
		t.Fatal(err)
	}
}
