package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/internal/pgtest"
	"github.com/jackc/pgx/v5/pgxpool"
	mcpauth "github.com/modelcontextprotocol/go-sdk/auth"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// clock is the test's time, shared by avenir and the fake YNAB. It starts at the real time and
// only moves forward.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// harness is avenir's auth server over real HTTP on loopback, on a throwaway PostgreSQL, with a
// fake YNAB, and an MCP endpoint that reports who called it.
type harness struct {
	t      *testing.T
	dsn    string
	pool   *pgxpool.Pool
	srv    *Server
	http   *httptest.Server
	url    string // avenir's public URL
	ynab   *fakeYNAB
	clock  *clock
	key    []byte
	client *http.Client // trusts the harness's certificate when it serves https
	logs   *syncBuffer  // what avenir logged
}

type harnessOpts struct {
	dsn   string    // share another harness's database
	ynab  *fakeYNAB // share another harness's YNAB
	clock *clock
	key   []byte
	edit  func(*Config)
	mcp   http.Handler // the MCP endpoint behind the middleware; default harness.mcp
	tls   bool         // serve avenir over https (a test certificate), as a deployment does
}

// syncBuffer is a log destination the test reads while avenir writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newHarness(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	ctx := context.Background()
	h := &harness{t: t, dsn: o.dsn, clock: o.clock, key: o.key}
	if h.dsn == "" {
		h.dsn = pgtest.NewDatabase(t)
	}
	if h.clock == nil {
		h.clock = &clock{t: time.Now()}
	}
	if h.key == nil {
		h.key = []byte("0123456789abcdef0123456789abcdef")
	}
	var err error
	if h.pool, err = pgxpool.New(ctx, h.dsn); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.pool.Close)
	var handler http.Handler
	h.http = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	h.url = "http://" + h.http.Listener.Addr().String()
	if o.tls {
		h.url = "https://" + h.http.Listener.Addr().String()
	}
	h.logs = &syncBuffer{}
	h.ynab = o.ynab // shared: the sign-in goes through the harness that made it
	if h.ynab == nil {
		h.ynab = newFakeYNAB(t, h.clock.Now)
		h.ynab.redirectURI = h.url + "/oauth/ynab/callback"
	}
	cfg := Config{
		PublicURL:        h.url,
		YNABClientID:     h.ynab.clientID,
		YNABClientSecret: h.ynab.secret,
		SecretKey:        h.key,
		YNABOAuthURL:     h.ynab.srv.URL + "/oauth",
		YNABAPIURL:       h.ynab.srv.URL + "/v1",
		Now:              h.clock.Now,
		Logger:           slog.New(slog.NewTextHandler(h.logs, nil)),
	}
	if o.edit != nil {
		o.edit(&cfg)
	}
	if h.srv, err = New(ctx, h.pool, cfg); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	h.srv.Mount(mux)
	var endpoint http.Handler = http.HandlerFunc(h.mcp)
	if o.mcp != nil {
		endpoint = o.mcp
	}
	mux.Handle("/mcp", h.srv.Middleware(endpoint))
	handler = mux
	if o.tls {
		h.http.StartTLS()
	} else {
		h.http.Start()
	}
	h.client = h.http.Client()
	t.Cleanup(h.http.Close)
	return h
}

// with is h for a subtest: its helpers fail t, not the parent.
func (h *harness) with(t *testing.T) *harness {
	c := *h
	c.t = t
	return &c
}

// mcp stands in for the MCP handler: it reports the caller from the context and proves the YNAB
// token source works by asking the fake YNAB who the token belongs to.
func (h *harness) mcp(w http.ResponseWriter, r *http.Request) {
	c, ok := CallerFrom(r.Context())
	if !ok {
		http.Error(w, "no caller in the context", 500)
		return
	}
	ti := mcpauth.TokenInfoFromContext(r.Context())
	if ti == nil {
		http.Error(w, "no go-sdk TokenInfo in the context", 500)
		return
	}
	tok, err := c.YNAB.Token(r.Context())
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		json.NewEncoder(w).Encode(map[string]any{"error": err.Error(), "sign_in": strings.Contains(err.Error(), "sign in again")})
		return
	}
	req, _ := http.NewRequestWithContext(r.Context(), "GET", h.ynab.srv.URL+"/v1/user", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	var u struct {
		Data struct{ User struct{ ID string } }
	}
	json.NewDecoder(resp.Body).Decode(&u)
	json.NewEncoder(w).Encode(map[string]any{
		"person_id": c.Person.ID, "ynab_user_id": c.Person.YNABUserID, "ynab_says": u.Data.User.ID,
		"client_id": c.ClientID, "resource": c.Resource, "sdk_user": ti.UserID, "ynab_token": tok,
	})
}

// browser is a person's browser: cookies, and redirects looked at one by one.
type browser struct {
	t *testing.T
	c *http.Client
}

func newBrowser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t, &http.Client{Jar: jar, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) get(u string) (*http.Response, string) {
	b.t.Helper()
	resp, err := b.c.Get(u)
	if err != nil {
		b.t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// post submits a form as a browser does from a page of the same origin, with its Origin header.
func (b *browser) post(u string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	pu, _ := url.Parse(u)
	return b.postFrom(pu.Scheme+"://"+pu.Host, u, form)
}

// postFrom submits a form from a page of origin.
func (b *browser) postFrom(origin, u string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	req, _ := http.NewRequest("POST", u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("POST %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func location(t *testing.T, resp *http.Response) *url.URL {
	t.Helper()
	if resp.StatusCode/100 != 3 {
		t.Fatalf("status %s, want a redirect", resp.Status)
	}
	u, err := resp.Location()
	if err != nil {
		t.Fatalf("redirect without a Location: %v", err)
	}
	return u
}

// pkce makes a verifier and its S256 challenge, as a client does (RFC 7636 §4.1, §4.2).
func pkce() (verifier, challenge string) {
	verifier = randomString() + randomString() // 64 characters
	return verifier, s256(verifier)
}

// appClient is an MCP client: its registration and one authorization in flight.
type appClient struct {
	id, secret  string
	redirectURI string
	verifier    string
	state       string
}

// register registers a client dynamically and returns it.
func (h *harness) register(meta map[string]any) *appClient {
	h.t.Helper()
	status, out := h.postJSON("/oauth/register", meta)
	if status != http.StatusCreated {
		h.t.Fatalf("registration answered %d %v", status, out)
	}
	c := &appClient{id: out["client_id"].(string), redirectURI: meta["redirect_uris"].([]string)[0]}
	if s, ok := out["client_secret"].(string); ok {
		c.secret = s
	}
	return c
}

func (h *harness) publicClient() *appClient {
	return h.register(map[string]any{
		"client_name": "Test App", "redirect_uris": []string{"http://127.0.0.1:33418/callback"},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"},
	})
}

func (h *harness) postJSON(path string, v any) (int, map[string]any) {
	h.t.Helper()
	b, _ := json.Marshal(v)
	resp, err := h.client.Post(h.url+path, "application/json", strings.NewReader(string(b)))
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// authorizeURL is the client's authorization request, with PKCE S256 and the MCP resource.
func (h *harness) authorizeURL(c *appClient, extra url.Values) string {
	var challenge string
	c.verifier, challenge = pkce()
	c.state = "state-" + randomString()
	q := url.Values{
		"response_type": {"code"}, "client_id": {c.id}, "redirect_uri": {c.redirectURI},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {c.state},
		"resource": {h.url + "/mcp"},
	}
	for k, v := range extra {
		if len(v) == 0 || v[0] == "" {
			q.Del(k)
		} else {
			q[k] = v
		}
	}
	return h.url + "/oauth/authorize?" + q.Encode()
}

var requestField = regexp.MustCompile(`name="request" value="([^"]+)"`)

// consent opens the authorization URL and returns the consent form's token.
func (h *harness) consent(b *browser, authorizeURL string) string {
	h.t.Helper()
	resp, body := b.get(authorizeURL)
	if resp.StatusCode != http.StatusOK {
		h.t.Fatalf("authorize answered %s: %s", resp.Status, body)
	}
	m := requestField.FindStringSubmatch(body)
	if m == nil {
		h.t.Fatalf("the consent page has no request field:\n%s", body)
	}
	return m[1]
}

// toYNAB submits the consent and returns YNAB's authorize URL avenir sends the browser to.
func (h *harness) toYNAB(b *browser, request string) *url.URL {
	h.t.Helper()
	resp, body := b.post(h.url+"/oauth/consent", url.Values{"request": {request}, "decision": {"allow"}})
	if resp.StatusCode != http.StatusSeeOther {
		h.t.Fatalf("consent answered %s: %s", resp.Status, body)
	}
	return location(h.t, resp)
}

// signIn runs the browser side of an authorization: consent page, YNAB, callback. It returns
// the redirect to the client's redirect URI.
func (h *harness) signIn(b *browser, c *appClient, extra url.Values) *url.URL {
	h.t.Helper()
	ynabURL := h.toYNAB(b, h.consent(b, h.authorizeURL(c, extra)))
	resp, body := b.get(ynabURL.String())
	callback := location(h.t, resp)
	if !strings.HasPrefix(callback.String(), h.url+"/oauth/ynab/callback") {
		h.t.Fatalf("YNAB sent the browser to %s (%s)", callback, body)
	}
	resp, body = b.get(callback.String())
	if resp.StatusCode != http.StatusFound {
		h.t.Fatalf("the callback answered %s: %s", resp.Status, body)
	}
	return location(h.t, resp)
}

// code signs in and returns avenir's authorization code, checking state and iss.
func (h *harness) code(b *browser, c *appClient) string {
	h.t.Helper()
	back := h.signIn(b, c, nil)
	q := back.Query()
	if q.Get("state") != c.state || q.Get("iss") != h.url || q.Get("code") == "" {
		h.t.Fatalf("the redirect to the client is %s; want code, state %q, iss %q", back, c.state, h.url)
	}
	return q.Get("code")
}

// token posts to the token endpoint as client c (Basic auth for confidential clients).
func (h *harness) token(c *appClient, form url.Values) (int, map[string]any) {
	h.t.Helper()
	return h.postForm("/oauth/token", c, form)
}

func (h *harness) postForm(path string, c *appClient, form url.Values) (int, map[string]any) {
	h.t.Helper()
	if c.secret == "" {
		form.Set("client_id", c.id)
	}
	req, _ := http.NewRequest("POST", h.url+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if c.secret != "" {
		req.SetBasicAuth(url.QueryEscape(c.id), url.QueryEscape(c.secret))
	}
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var out map[string]any
	json.Unmarshal(body, &out)
	if out == nil {
		out = map[string]any{}
	}
	return resp.StatusCode, out
}

func (h *harness) exchange(c *appClient, code string) (int, map[string]any) {
	h.t.Helper()
	return h.token(c, url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {c.redirectURI},
		"code_verifier": {c.verifier}, "resource": {h.url + "/mcp"},
	})
}

// tokens signs in and exchanges the code: the access and refresh tokens.
func (h *harness) tokens(b *browser, c *appClient) (access, refresh string) {
	h.t.Helper()
	status, out := h.exchange(c, h.code(b, c))
	if status != 200 {
		h.t.Fatalf("exchanging the code answered %d %v", status, out)
	}
	refresh, _ = out["refresh_token"].(string)
	return out["access_token"].(string), refresh
}

func (h *harness) refresh(c *appClient, rt string) (int, map[string]any) {
	h.t.Helper()
	return h.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
}

// callMCP calls the MCP endpoint with an Authorization header (none when auth is "").
func (h *harness) callMCP(auth string) (*http.Response, map[string]any) {
	h.t.Helper()
	req, _ := http.NewRequest("POST", h.url+"/mcp", strings.NewReader(`{}`))
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var out map[string]any
	json.Unmarshal(body, &out)
	return resp, out
}

// wantChallenge checks a 401 with the Bearer challenge naming the resource metadata, and
// error="invalid_token" when errCode is set.
func (h *harness) wantChallenge(resp *http.Response, errCode string) {
	h.t.Helper()
	if resp.StatusCode != http.StatusUnauthorized {
		h.t.Fatalf("status %s, want 401", resp.Status)
	}
	got := resp.Header.Get("WWW-Authenticate")
	want := fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, h.url)
	if !strings.HasPrefix(got, want) {
		h.t.Fatalf("WWW-Authenticate = %q; want it to start with %q", got, want)
	}
	hasErr := strings.Contains(got, `error="invalid_token"`)
	if errCode == "" && strings.Contains(got, "error=") {
		h.t.Fatalf("WWW-Authenticate = %q; a request without a token gets no error code (RFC 6750 §3.1)", got)
	}
	if errCode != "" && !hasErr {
		h.t.Fatalf("WWW-Authenticate = %q; want error=%q", got, errCode)
	}
}

// count runs a count(*) query.
func (h *harness) count(q string, args ...any) int {
	h.t.Helper()
	var n int
	if err := h.pool.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		h.t.Fatalf("%s: %v", q, err)
	}
	return n
}

// tamper changes one character of a token, keeping it well-formed.
func tamper(tok string) string {
	b := []byte(tok)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func errorsIs(err, target error) bool { return errors.Is(err, target) }

func errorsAs[T error](err error, target *T) bool { return errors.As(err, target) }
