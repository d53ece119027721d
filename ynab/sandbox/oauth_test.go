package sandbox_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

func newClock() *clock { return &clock{now: sandboxtest.FixedNow()} }

const (
	appID     = "test-app"
	appSecret = "test-secret"
)

// oauthEnv is a sandbox with a registered OAuth application, the application's callback (a
// real HTTP server the browser is sent back to) and a browser: an HTTP client that follows
// redirects.
type oauthEnv struct {
	t           *testing.T
	sb          *sandbox.Sandbox
	srv         *sandbox.Server
	clock       *clock
	redirectURI string
	callbacks   chan url.Values
	browser     *http.Client
}

func newOAuthEnv(t *testing.T, opts sandbox.Options) *oauthEnv {
	t.Helper()
	e := newBrowser(t)
	if opts.Now == nil {
		opts.Now = e.clock.Now
	}
	if opts.OAuthClients == nil {
		opts.OAuthClients = []sandbox.OAuthClient{{ID: appID, Secret: appSecret}}
	}
	e.sb, e.srv = sandboxtest.New(t, opts)
	return e
}

// newBrowser starts the application's callback and makes a browser and a clock, without a
// sandbox yet.
func newBrowser(t *testing.T) *oauthEnv {
	e := &oauthEnv{t: t, clock: newClock(), callbacks: make(chan url.Values, 8), browser: &http.Client{Timeout: 10 * time.Second}}
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.callbacks <- r.URL.Query()
		io.WriteString(w, "signed in")
	}))
	t.Cleanup(cb.Close)
	e.redirectURI = cb.URL + "/callback?app=kept"
	return e
}

// authorizeURL is the authorization request of the test application, with extra parameters
// (or parameters removed, given as "").
func (e *oauthEnv) authorizeURL(extra url.Values) string {
	q := url.Values{"client_id": {appID}, "redirect_uri": {e.redirectURI}, "response_type": {"code"}, "state": {"st-123"}}
	for k, v := range extra {
		if len(v) == 1 && v[0] == "" {
			delete(q, k)
		} else {
			q[k] = v
		}
	}
	return e.srv.AuthorizeURL() + "?" + q.Encode()
}

var (
	hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
	formTag     = regexp.MustCompile(`<form method="post" action="([^"]+)">`)
)

// consent opens the consent page as a browser does and returns its form: where it posts and
// its hidden fields.
func (e *oauthEnv) consent(authorizeURL string) (action string, fields url.Values) {
	e.t.Helper()
	res, err := e.browser.Get(authorizeURL)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	page, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		e.t.Fatalf("GET the consent page: %d %s:\n%s", res.StatusCode, res.Header.Get("Content-Type"), page)
	}
	for _, want := range []string{`name="user"`, `name="decision" value="authorize">Authorize</button>`, `name="decision" value="deny"`} {
		if !strings.Contains(string(page), want) {
			e.t.Fatalf("the consent page has no %s:\n%s", want, page)
		}
	}
	m := formTag.FindStringSubmatch(string(page))
	if m == nil {
		e.t.Fatalf("the consent page has no form that posts:\n%s", page)
	}
	fields = url.Values{}
	for _, h := range hiddenInput.FindAllStringSubmatch(string(page), -1) {
		fields.Set(html.UnescapeString(h[1]), html.UnescapeString(h[2]))
	}
	return html.UnescapeString(m[1]), fields
}

// answer posts the consent form as the person pressing a button, follows the redirect to the
// application's callback, and returns what the callback got.
func (e *oauthEnv) answer(action string, fields url.Values, user, decision string) url.Values {
	e.t.Helper()
	form := url.Values{"user": {user}, "decision": {decision}}
	for k, v := range fields {
		form[k] = v
	}
	origin := strings.TrimSuffix(e.srv.URL, "/v1")
	res, err := e.browser.PostForm(origin+action, form)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || string(body) != "signed in" {
		e.t.Fatalf("the consent form did not lead back to the application: %d %s", res.StatusCode, body)
	}
	select {
	case q := <-e.callbacks:
		if q.Get("app") != "kept" {
			e.t.Errorf("the redirect lost the redirect URI's own query: %v", q)
		}
		return q
	default:
		e.t.Fatal("the callback was not called")
		return nil
	}
}

// signIn runs the whole consent flow for a user and returns the code.
func (e *oauthEnv) signIn(user string, extra url.Values) string {
	e.t.Helper()
	action, fields := e.consent(e.authorizeURL(extra))
	q := e.answer(action, fields, user, "authorize")
	if q.Get("state") != "st-123" || q.Get("code") == "" || q.Get("error") != "" {
		e.t.Fatalf("the redirect after Authorize has %v, want a code and state st-123", q)
	}
	return q.Get("code")
}

// tokenAnswer is the token endpoint's answer, success or error.
type tokenAnswer struct {
	AccessToken      string `json:"access_token"`
	TokenType        string `json:"token_type"`
	ExpiresIn        int64  `json:"expires_in"`
	RefreshToken     string `json:"refresh_token"`
	Scope            string `json:"scope"`
	CreatedAt        int64  `json:"created_at"`
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// tokenRequest posts a form to the token endpoint, with HTTP Basic if basic is set.
func (e *oauthEnv) tokenRequest(form url.Values, basic bool) (int, http.Header, tokenAnswer) {
	e.t.Helper()
	req, _ := http.NewRequest("POST", e.srv.TokenURL(), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if basic {
		req.SetBasicAuth(url.QueryEscape(appID), url.QueryEscape(appSecret))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var a tokenAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		e.t.Fatalf("the token endpoint answered %d, not JSON: %s", res.StatusCode, raw)
	}
	return res.StatusCode, res.Header, a
}

func (e *oauthEnv) codeForm(code string) url.Values {
	return url.Values{"grant_type": {"authorization_code"}, "client_id": {appID}, "client_secret": {appSecret},
		"redirect_uri": {e.redirectURI}, "code": {code}}
}

func (e *oauthEnv) refreshForm(refresh string) url.Values {
	return url.Values{"grant_type": {"refresh_token"}, "client_id": {appID}, "client_secret": {appSecret}, "refresh_token": {refresh}}
}

// exchange trades a code for tokens, which must succeed.
func (e *oauthEnv) exchange(code string) tokenAnswer {
	e.t.Helper()
	status, _, a := e.tokenRequest(e.codeForm(code), false)
	if status != http.StatusOK {
		e.t.Fatalf("exchange the code: %d %+v", status, a)
	}
	return a
}

// refresh uses a refresh token, which must succeed.
func (e *oauthEnv) refresh(refresh string) tokenAnswer {
	e.t.Helper()
	status, _, a := e.tokenRequest(e.refreshForm(refresh), false)
	if status != http.StatusOK {
		e.t.Fatalf("refresh: %d %+v", status, a)
	}
	return a
}

// refused checks that a token request fails with the RFC 6749 §5.2 error code and status.
func (e *oauthEnv) refused(form url.Values, basic bool, status int, code string) tokenAnswer {
	e.t.Helper()
	got, h, a := e.tokenRequest(form, basic)
	if got != status || a.Error != code || a.ErrorDescription == "" || a.AccessToken != "" {
		e.t.Fatalf("token request %v: %d %+v, want %d %s with a description", form.Get("grant_type"), got, a, status, code)
	}
	if h.Get("Cache-Control") != "no-store" {
		e.t.Errorf("a token error is not marked no-store: %v", h)
	}
	return a
}

// v1 calls the API with a token and returns the status and body.
func (e *oauthEnv) v1(token, method, path, body string) (int, []byte) {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, raw
}

// plans lists the plans a token reaches.
func (e *oauthEnv) plans(token string) []string {
	e.t.Helper()
	status, raw := e.v1(token, "GET", "/plans", "")
	if status != http.StatusOK {
		e.t.Fatalf("GET /plans: %d %s", status, raw)
	}
	var body struct {
		Data struct {
			Plans []struct{ ID string } `json:"plans"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		e.t.Fatal(err)
	}
	var ids []string
	for _, p := range body.Data.Plans {
		ids = append(ids, p.ID)
	}
	return ids
}

// unauthorized checks that a token gets YNAB's 401 on /v1.
func (e *oauthEnv) unauthorized(token, why string) {
	e.t.Helper()
	status, raw := e.v1(token, "GET", "/plans", "")
	var body ynab.ErrorBody
	if err := json.Unmarshal(raw, &body); status != http.StatusUnauthorized || err != nil || body.Error.ID != "401" || body.Error.Name != "not_authorized" {
		e.t.Errorf("%s: GET /plans answered %d %s, want YNAB's 401 not_authorized", why, status, raw)
	}
}

// The whole flow, as a browser and an application go through it: the consent page, the
// redirect with the code and the state, the exchange, the API, a refresh.
func TestOAuthSignIn(t *testing.T) {
	e := newOAuthEnv(t, sandbox.Options{})
	code := e.signIn("Alice@Example.com", nil)

	status, h, tok := e.tokenRequest(e.codeForm(code), false)
	switch {
	case status != http.StatusOK:
		t.Fatalf("exchange: %d %+v", status, tok)
	case tok.AccessToken == "" || tok.RefreshToken == "" || tok.AccessToken == tok.RefreshToken:
		t.Errorf("the answer has no distinct access and refresh tokens: %+v", tok)
	case tok.TokenType != "bearer" || tok.ExpiresIn != 7200:
		t.Errorf("token_type %q, expires_in %d, want YNAB's bearer and 7200", tok.TokenType, tok.ExpiresIn)
	case tok.CreatedAt != sandboxtest.FixedNow().Unix() || tok.Scope != "":
		t.Errorf("created_at %d scope %q, want %d (the sandbox's clock) and no scope", tok.CreatedAt, tok.Scope, sandboxtest.FixedNow().Unix())
	case h.Get("Cache-Control") != "no-store" || !strings.HasPrefix(h.Get("Content-Type"), "application/json"):
		t.Errorf("the token answer's headers: %v", h)
	}

	want := []string{sandbox.UserPlanID("alice@example.com", sandbox.PlanID), sandbox.UserPlanID("alice@example.com", sandbox.SecondPlanID)}
	if got := e.plans(tok.AccessToken); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Alice's plans are %v, want her copies %v", got, want)
	}
	if want[0] == sandbox.PlanID {
		t.Fatal("a user's copy has the sandbox's own plan id")
	}
	// Her copy is the sample: the same plan, the same money, other ids.
	own, err := e.sb.Export(sandbox.PlanID)
	if err != nil {
		t.Fatal(err)
	}
	hers, err := e.sb.Export(want[0])
	if err != nil {
		t.Fatal(err)
	}
	if hers.Name != own.Name || len(hers.Transactions) != len(own.Transactions) || len(hers.Accounts) != len(own.Accounts) ||
		hers.Accounts[0].Balance != own.Accounts[0].Balance || hers.Accounts[0].Name != own.Accounts[0].Name ||
		hers.Accounts[0].ID == own.Accounts[0].ID || hers.Transactions[0].ID == own.Transactions[0].ID {
		t.Errorf("Alice's copy is not the sample with its own ids: %s %d transactions, first account %s %d (%s)",
			hers.Name, len(hers.Transactions), hers.Accounts[0].Name, hers.Accounts[0].Balance, hers.Accounts[0].ID)
	}
	if status, raw := e.v1(tok.AccessToken, "GET", "/plans/last-used/accounts/"+hers.Accounts[0].ID, ""); status != http.StatusOK {
		t.Errorf("Alice's own account by id: %d %s", status, raw)
	}

	// A refresh rotates both tokens; the old ones stop working at once.
	e.clock.advance(time.Hour)
	next := e.refresh(tok.RefreshToken)
	if next.AccessToken == tok.AccessToken || next.RefreshToken == tok.RefreshToken || next.ExpiresIn != 7200 ||
		next.CreatedAt != sandboxtest.FixedNow().Add(time.Hour).Unix() {
		t.Errorf("the refresh answered %+v", next)
	}
	if got := e.plans(next.AccessToken); len(got) != 2 || got[0] != want[0] {
		t.Errorf("after a refresh the token reaches %v, want Alice's plans", got)
	}
	e.unauthorized(tok.AccessToken, "the access token a refresh replaced")
	e.refused(e.refreshForm(tok.RefreshToken), false, http.StatusBadRequest, "invalid_grant")
	e.refresh(next.RefreshToken)
}

// Access tokens live 2 hours by the sandbox's clock; the control endpoint expires them all at
// once; a refresh token outlives its access token.
func TestOAuthExpiry(t *testing.T) {
	e := newOAuthEnv(t, sandbox.Options{})
	tok := e.exchange(e.signIn("alice", nil))
	e.clock.advance(2*time.Hour - time.Second)
	if status, raw := e.v1(tok.AccessToken, "GET", "/user", ""); status != http.StatusOK {
		t.Fatalf("a token 1 second short of 2 hours: %d %s", status, raw)
	}
	e.clock.advance(time.Second)
	e.unauthorized(tok.AccessToken, "a token 2 hours old")
	next := e.refresh(tok.RefreshToken)

	other := e.exchange(e.signIn("bob", nil))
	req, _ := http.NewRequest("POST", strings.TrimSuffix(e.srv.URL, "/v1")+"/_sandbox/oauth/expire", nil)
	req.Header.Set("Authorization", "Bearer control")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || strings.TrimSpace(string(raw)) != `{"data":{"expired":2}}` {
		t.Fatalf("POST /_sandbox/oauth/expire: %d %s, want both live tokens expired", res.StatusCode, raw)
	}
	e.unauthorized(next.AccessToken, "Alice's token after the control endpoint expired it")
	e.unauthorized(other.AccessToken, "Bob's token after the control endpoint expired it")
	again := e.refresh(other.RefreshToken)
	if got := e.plans(again.AccessToken); len(got) != 2 || got[0] != sandbox.UserPlanID("bob", sandbox.PlanID) {
		t.Errorf("Bob's refreshed token reaches %v", got)
	}
	if n, err := e.sb.ExpireTokens(); err != nil || n != 1 {
		t.Errorf("ExpireTokens = %d, %v; want the 1 live token", n, err)
	}
}

// Two users each reach only their own copy: the other's plan id is not found, as on YNAB, and a
// write of one changes nothing of the other's.
func TestOAuthUsersIsolated(t *testing.T) {
	e := newOAuthEnv(t, sandbox.Options{})
	a := e.exchange(e.signIn("alice", nil))
	b := e.exchange(e.signIn("bob", nil))
	alicePlan, bobPlan := sandbox.UserPlanID("alice", sandbox.PlanID), sandbox.UserPlanID("bob", sandbox.PlanID)
	if alicePlan == bobPlan {
		t.Fatal("two users have the same plan id")
	}
	status, raw := e.v1(b.AccessToken, "GET", "/plans/"+alicePlan+"/accounts", "")
	var body ynab.ErrorBody
	if err := json.Unmarshal(raw, &body); status != http.StatusNotFound || err != nil || body.Error.ID != "404.2" {
		t.Errorf("Bob asking for Alice's plan: %d %s, want YNAB's 404.2", status, raw)
	}
	if status, _ := e.v1(a.AccessToken, "GET", "/plans/"+sandbox.PlanID, ""); status != http.StatusNotFound {
		t.Errorf("Alice asking for the sandbox's own plan: %d, want 404", status)
	}
	var ids [2]string
	for i, tok := range []string{a.AccessToken, b.AccessToken} {
		status, raw := e.v1(tok, "GET", "/user", "")
		var u struct {
			Data struct{ User ynab.User } `json:"data"`
		}
		if err := json.Unmarshal(raw, &u); status != http.StatusOK || err != nil || u.Data.User.ID == "" {
			t.Fatalf("GET /user: %d %s", status, raw)
		}
		ids[i] = u.Data.User.ID
	}
	if ids[0] == ids[1] {
		t.Errorf("Alice and Bob have the same user id %s", ids[0])
	}

	aliceNames, bobNames := sampleNames(t, e.sb, alicePlan), sampleNames(t, e.sb, bobPlan)
	path := "/plans/last-used/months/current/categories/"
	if status, raw := e.v1(a.AccessToken, "PATCH", path+aliceNames.id(t, "Restaurants"), `{"category":{"budgeted":999000}}`); status != http.StatusOK {
		t.Fatalf("Alice's write: %d %s", status, raw)
	}
	if status, _ := e.v1(b.AccessToken, "PATCH", path+aliceNames.id(t, "Restaurants"), `{"category":{"budgeted":1000}}`); status != http.StatusNotFound {
		t.Errorf("Bob writing to Alice's category id in his plan: %d, want 404", status)
	}
	for _, c := range []struct {
		token, id string
		want      int64
	}{{a.AccessToken, aliceNames.id(t, "Restaurants"), 999000}, {b.AccessToken, bobNames.id(t, "Restaurants"), 120000}} {
		status, raw := e.v1(c.token, "GET", path+c.id, "")
		var got struct {
			Data struct{ Category struct{ Budgeted int64 } } `json:"data"`
		}
		if err := json.Unmarshal(raw, &got); status != http.StatusOK || err != nil || got.Data.Category.Budgeted != c.want {
			t.Errorf("Restaurants of %s: %d %s, want %d assigned", c.id, status, raw, c.want)
		}
	}
	if d, err := e.sb.Export(sandbox.PlanID); err != nil || d.Categories == nil {
		t.Fatal(err)
	} else {
		for _, c := range d.Categories {
			if c.Name == "Restaurants" && c.Budgeted != 120000 {
				t.Errorf("the sandbox's own Restaurants has %d after Alice's write", c.Budgeted)
			}
		}
	}

	// Signing in again under the same name, in another case, is the same user.
	again := e.exchange(e.signIn("  ALICE ", nil))
	if got := e.plans(again.AccessToken); len(got) != 2 || got[0] != alicePlan {
		t.Errorf("Alice signing in again reaches %v, want her plans", got)
	}
}

// A code is single-use, short-lived and bound to its client and redirect URI.
func TestOAuthCodeRules(t *testing.T) {
	e := newOAuthEnv(t, sandbox.Options{OAuthClients: []sandbox.OAuthClient{{ID: appID, Secret: appSecret}, {ID: "other-app", Secret: "other-secret"}}})

	t.Run("used twice", func(t *testing.T) {
		code := e.signIn("alice", nil)
		tok := e.exchange(code)
		e.refused(e.codeForm(code), false, http.StatusBadRequest, "invalid_grant")
		e.unauthorized(tok.AccessToken, "a token of a code used twice")
		e.refused(e.refreshForm(tok.RefreshToken), false, http.StatusBadRequest, "invalid_grant")
	})
	t.Run("expired", func(t *testing.T) {
		code := e.signIn("alice", nil)
		e.clock.advance(10 * time.Minute)
		e.refused(e.codeForm(code), false, http.StatusBadRequest, "invalid_grant")
	})
	t.Run("wrong redirect_uri", func(t *testing.T) {
		code := e.signIn("alice", nil)
		form := e.codeForm(code)
		form.Set("redirect_uri", e.redirectURI+"&x=1")
		e.refused(form, false, http.StatusBadRequest, "invalid_grant")
		form.Del("redirect_uri")
		e.refused(form, false, http.StatusBadRequest, "invalid_request")
		e.exchange(code) // a refused exchange does not use the code up
	})
	t.Run("wrong secret", func(t *testing.T) {
		code := e.signIn("alice", nil)
		form := e.codeForm(code)
		form.Set("client_secret", "guess")
		e.refused(form, false, http.StatusUnauthorized, "invalid_client")
		form.Del("client_secret")
		e.refused(form, false, http.StatusUnauthorized, "invalid_client")
		form.Set("client_id", "nobody")
		form.Set("client_secret", appSecret)
		e.refused(form, false, http.StatusUnauthorized, "invalid_client")
		e.exchange(code)
	})
	t.Run("another client", func(t *testing.T) {
		code := e.signIn("alice", nil)
		form := e.codeForm(code)
		form.Set("client_id", "other-app")
		form.Set("client_secret", "other-secret")
		e.refused(form, false, http.StatusBadRequest, "invalid_grant")
		tok := e.exchange(code)
		form = e.refreshForm(tok.RefreshToken)
		form.Set("client_id", "other-app")
		form.Set("client_secret", "other-secret")
		e.refused(form, false, http.StatusBadRequest, "invalid_grant")
	})
	t.Run("HTTP Basic", func(t *testing.T) {
		form := e.codeForm(e.signIn("alice", nil))
		e.refused(form, true, http.StatusBadRequest, "invalid_request") // authenticated twice
		form.Del("client_secret")
		form.Del("client_id")
		if status, _, a := e.tokenRequest(form, true); status != http.StatusOK || a.AccessToken == "" {
			t.Fatalf("a client authenticated with HTTP Basic: %d %+v", status, a)
		}
	})
	t.Run("bad requests", func(t *testing.T) {
		e.refused(url.Values{"client_id": {appID}, "client_secret": {appSecret}}, false, http.StatusBadRequest, "invalid_request")
		e.refused(url.Values{"grant_type": {"password"}, "client_id": {appID}, "client_secret": {appSecret}}, false,
			http.StatusBadRequest, "unsupported_grant_type")
		form := e.refreshForm("x")
		form.Add("refresh_token", "y")
		e.refused(form, false, http.StatusBadRequest, "invalid_request")
		e.refused(e.refreshForm("not-a-token"), false, http.StatusBadRequest, "invalid_grant")

		for _, tc := range []struct{ method, contentType, query string }{
			{"GET", "", ""}, {"POST", "application/json", ""}, {"POST", "application/x-www-form-urlencoded", "?code=1"},
		} {
			req, _ := http.NewRequest(tc.method, e.srv.TokenURL()+tc.query, strings.NewReader(e.refreshForm("x").Encode()))
			req.Header.Set("Content-Type", tc.contentType)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var a tokenAnswer
			json.NewDecoder(res.Body).Decode(&a)
			res.Body.Close()
			if res.StatusCode/100 != 4 || a.Error != "invalid_request" {
				t.Errorf("%s %s %s: %d %+v, want invalid_request", tc.method, tc.contentType, tc.query, res.StatusCode, a)
			}
		}
	})
}

// A bad authorization request: an error page when the redirect cannot be trusted or the grant
// is not the code grant, the error sent back to the application otherwise.
func TestOAuthAuthorizeErrors(t *testing.T) {
	e := newOAuthEnv(t, sandbox.Options{OAuthClients: []sandbox.OAuthClient{
		{ID: appID, Secret: appSecret}, {ID: "strict-app", Secret: "s", RedirectURIs: []string{"https://app.example/cb"}}}})
	noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	pages := []struct {
		name  string
		extra url.Values
		want  string
	}{
		{"unknown client", url.Values{"client_id": {"nobody"}}, "invalid_client"},
		{"no client", url.Values{"client_id": {""}}, "invalid_request"},
		{"no redirect_uri", url.Values{"redirect_uri": {""}}, "no redirect_uri"},
		{"a relative redirect_uri", url.Values{"redirect_uri": {"/callback"}}, "absolute"},
		{"a redirect_uri with a fragment", url.Values{"redirect_uri": {"https://app.example/cb#x"}}, "fragment"},
		{"an unregistered redirect_uri", url.Values{"client_id": {"strict-app"}, "redirect_uri": {"https://app.example/other"}}, "not one the application"},
		{"the implicit grant", url.Values{"response_type": {"token"}}, "unsupported_response_type"},
		{"no response_type", url.Values{"response_type": {""}}, "no response_type"},
		{"two redirect_uris", url.Values{"redirect_uri": {e.redirectURI, "https://evil.example/"}}, "more than once"},
	}
	for _, tc := range pages {
		t.Run(tc.name, func(t *testing.T) {
			for _, method := range []string{"GET", "POST"} {
				var res *http.Response
				var err error
				if method == "GET" {
					res, err = noRedirects.Get(e.authorizeURL(tc.extra))
				} else {
					u, _ := url.Parse(e.authorizeURL(tc.extra))
					form := u.Query()
					form.Set("user", "alice")
					form.Set("decision", "authorize")
					res, err = noRedirects.PostForm(e.srv.AuthorizeURL(), form)
				}
				if err != nil {
					t.Fatal(err)
				}
				page, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusBadRequest || res.Header.Get("Location") != "" || !strings.Contains(string(page), tc.want) ||
					!strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
					t.Errorf("%s: %d Location %q, want an error page (400) saying %q:\n%s", method, res.StatusCode, res.Header.Get("Location"), tc.want, page)
				}
			}
		})
	}

	redirects := []struct {
		name  string
		extra url.Values
		want  string
	}{
		{"an unknown scope", url.Values{"scope": {"write"}}, "invalid_scope"},
		{"a PKCE method YNAB lacks", url.Values{"code_challenge": {strings.Repeat("a", 43)}, "code_challenge_method": {"S512"}}, "invalid_request"},
		{"a short PKCE challenge", url.Values{"code_challenge": {"abc"}, "code_challenge_method": {"S256"}}, "invalid_request"},
		{"a method without a challenge", url.Values{"code_challenge_method": {"S256"}}, "invalid_request"},
	}
	for _, tc := range redirects {
		t.Run(tc.name, func(t *testing.T) {
			res, err := noRedirects.Get(e.authorizeURL(tc.extra))
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			loc, _ := url.Parse(res.Header.Get("Location"))
			if res.StatusCode != http.StatusFound || !strings.HasPrefix(loc.String(), strings.Split(e.redirectURI, "?")[0]) ||
				loc.Query().Get("error") != tc.want || loc.Query().Get("state") != "st-123" || loc.Query().Get("code") != "" {
				t.Errorf("%d to %s, want a redirect back with error=%s and the state", res.StatusCode, loc, tc.want)
			}
		})
	}

	t.Run("deny", func(t *testing.T) {
		action, fields := e.consent(e.authorizeURL(nil))
		q := e.answer(action, fields, "alice", "deny")
		if q.Get("error") != "access_denied" || q.Get("state") != "st-123" || q.Get("code") != "" {
			t.Errorf("Deny sent back %v, want error=access_denied and the state", q)
		}
	})
	t.Run("no login name", func(t *testing.T) {
		action, fields := e.consent(e.authorizeURL(nil))
		form := url.Values{"user": {"   "}, "decision": {"authorize"}}
		for k, v := range fields {
			form[k] = v
		}
		res, err := noRedirects.PostForm(strings.TrimSuffix(e.srv.URL, "/v1")+action, form)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest || res.Header.Get("Location") != "" ||
			!strings.Contains(string(page), "Type a login name") || !strings.Contains(string(page), `name="decision" value="authorize"`) {
			t.Errorf("an empty login name: %d %q, want the consent page again saying why:\n%s", res.StatusCode, res.Header.Get("Location"), page)
		}
	})
	t.Run("registered redirect_uri", func(t *testing.T) {
		res, err := noRedirects.Get(e.authorizeURL(url.Values{"client_id": {"strict-app"}, "redirect_uri": {"https://app.example/cb"}}))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("a registered redirect_uri: %d, want the consent page", res.StatusCode)
		}
	})
}

// The read-only scope: reads work, writes get YNAB's 403.3, and a refresh keeps the scope (or
// narrows a full grant to it, never the other way).
func TestOAuthReadOnlyScope(t *testing.T) {
	e := newOAuthEnv(t, sandbox.Options{})
	action, fields := e.consent(e.authorizeURL(url.Values{"scope": {"read-only"}}))
	if fields.Get("scope") != "read-only" {
		t.Fatalf("the consent form does not carry the scope: %v", fields)
	}
	q := e.answer(action, fields, "alice", "authorize")
	tok := e.exchange(q.Get("code"))
	if tok.Scope != "read-only" {
		t.Errorf("the token answer's scope is %q, want read-only", tok.Scope)
	}
	n := sampleNames(t, e.sb, sandbox.UserPlanID("alice", sandbox.PlanID))
	path := "/plans/last-used/months/current/categories/" + n.id(t, "Restaurants")
	if status, raw := e.v1(tok.AccessToken, "GET", path, ""); status != http.StatusOK {
		t.Errorf("a read with a read-only token: %d %s", status, raw)
	}
	readOnlyRefused := func(token string) {
		t.Helper()
		status, raw := e.v1(token, "PATCH", path, `{"category":{"budgeted":1000}}`)
		var body ynab.ErrorBody
		if err := json.Unmarshal(raw, &body); status != http.StatusForbidden || err != nil || body.Error.ID != "403.3" || body.Error.Name != "unauthorized_scope" {
			t.Errorf("a write with a read-only token: %d %s, want YNAB's 403.3", status, raw)
		}
	}
	readOnlyRefused(tok.AccessToken)

	form := e.refreshForm(tok.RefreshToken)
	form.Set("scope", "write")
	e.refused(form, false, http.StatusBadRequest, "invalid_scope")
	next := e.refresh(tok.RefreshToken)
	if next.Scope != "read-only" {
		t.Errorf("a refresh of a read-only grant has scope %q", next.Scope)
	}
	readOnlyRefused(next.AccessToken)

	full := e.exchange(e.signIn("alice", nil))
	if status, raw := e.v1(full.AccessToken, "PATCH", path, `{"category":{"budgeted":1000}}`); status != http.StatusOK {
		t.Errorf("a write with a full token: %d %s", status, raw)
	}
	form = e.refreshForm(full.RefreshToken)
	form.Set("scope", "read-only")
	status, _, narrowed := e.tokenRequest(form, false)
	if status != http.StatusOK || narrowed.Scope != "read-only" {
		t.Fatalf("narrowing a full grant to read-only on refresh: %d %+v", status, narrowed)
	}
	readOnlyRefused(narrowed.AccessToken)
}

// PKCE, as YNAB takes it: S256 (or plain); the verifier must come with the code.
func TestOAuthPKCE(t *testing.T) {
	e := newOAuthEnv(t, sandbox.Options{})
	verifier := strings.Repeat("v3rifier-", 6)
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	pkce := url.Values{"code_challenge": {challenge}, "code_challenge_method": {"S256"}}

	code := e.signIn("alice", pkce)
	form := e.codeForm(code)
	e.refused(form, false, http.StatusBadRequest, "invalid_grant") // no verifier
	form.Set("code_verifier", strings.Repeat("x", 43))
	e.refused(form, false, http.StatusBadRequest, "invalid_grant")
	form.Set("code_verifier", verifier)
	if status, _, a := e.tokenRequest(form, false); status != http.StatusOK || a.AccessToken == "" {
		t.Fatalf("the right verifier: %d %+v", status, a)
	}

	plain := e.signIn("alice", url.Values{"code_challenge": {verifier}})
	form = e.codeForm(plain)
	form.Set("code_verifier", verifier)
	if status, _, a := e.tokenRequest(form, false); status != http.StatusOK {
		t.Errorf("a plain challenge (RFC 7636's default method): %d %+v", status, a)
	}

	form = e.codeForm(e.signIn("alice", nil))
	form.Set("code_verifier", verifier)
	e.refused(form, false, http.StatusBadRequest, "invalid_grant") // a verifier for a code without a challenge
}

// Revoking a user's tokens, as removing the application from one's YNAB settings does.
func TestOAuthRevoke(t *testing.T) {
	e := newOAuthEnv(t, sandbox.Options{})
	a := e.exchange(e.signIn("alice", nil))
	b := e.exchange(e.signIn("bob", nil))
	req, _ := http.NewRequest("POST", strings.TrimSuffix(e.srv.URL, "/v1")+"/_sandbox/oauth/revoke", strings.NewReader(`{"user":"Alice"}`))
	req.Header.Set("Authorization", "Bearer control")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || strings.TrimSpace(string(raw)) != `{"data":{"revoked":2}}` {
		t.Fatalf("POST /_sandbox/oauth/revoke: %d %s, want Alice's two tokens revoked", res.StatusCode, raw)
	}
	e.unauthorized(a.AccessToken, "a revoked token")
	e.refused(e.refreshForm(a.RefreshToken), false, http.StatusBadRequest, "invalid_grant")
	if got := e.plans(b.AccessToken); len(got) != 2 {
		t.Errorf("Bob's token after Alice's were revoked reaches %v", got)
	}
}

// With an OAuth application, the sandbox's own token is a personal access token of its own
// user; no other token is accepted. Without one, nothing changes.
func TestOAuthPersonalAccessToken(t *testing.T) {
	e := newOAuthEnv(t, sandbox.Options{Token: "pat"})
	if got := e.plans("pat"); len(got) != 2 || got[0] != sandbox.PlanID {
		t.Errorf("the personal access token reaches %v, want the sandbox's own plans", got)
	}
	e.unauthorized("any-token", "a token the sandbox never issued")
	tok := e.exchange(e.signIn("alice", nil))
	if got := e.plans(tok.AccessToken); len(got) != 2 || got[0] == sandbox.PlanID {
		t.Errorf("Alice's token reaches %v", got)
	}

	e2 := newOAuthEnv(t, sandbox.Options{})
	e2.unauthorized("any-token", "a token the sandbox never issued, without --token")

	single := newAPI(t, sandbox.Options{})
	single.token = "whatever"
	var user struct{ User ynab.User }
	single.ok(http.StatusOK, "GET", "/user", nil, &user)
	single.base = strings.TrimSuffix(single.base, "/v1")
	if status, _, raw := single.do("GET", "/oauth/authorize?client_id=x", nil); status != http.StatusNotFound || !strings.Contains(string(raw), `"404.1"`) {
		t.Errorf("without an OAuth application /oauth/authorize: %d %s, want YNAB's 404 as before", status, raw)
	}
}

// Users, their copies and their tokens survive a restart: the state file keeps them, and
// never a token or a code in the clear.
func TestOAuthKeptAcrossRestarts(t *testing.T) {
	state := filepath.Join(t.TempDir(), "sandbox.json")
	e := newBrowser(t)
	opts := sandbox.Options{StatePath: state, Now: e.clock.Now, OAuthClients: []sandbox.OAuthClient{{ID: appID, Secret: appSecret}}}
	start := func() (*sandbox.Sandbox, *sandbox.Server) {
		sb, err := sandbox.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := sb.Listen("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return sb, srv
	}
	e.sb, e.srv = start()
	code := e.signIn("alice", nil)
	tok := e.exchange(code)
	n := sampleNames(t, e.sb, sandbox.UserPlanID("alice", sandbox.PlanID))
	path := "/plans/last-used/months/current/categories/" + n.id(t, "Restaurants")
	if status, raw := e.v1(tok.AccessToken, "PATCH", path, `{"category":{"budgeted":777000}}`); status != http.StatusOK {
		t.Fatalf("Alice's write: %d %s", status, raw)
	}
	if err := e.srv.Close(); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{tok.AccessToken, tok.RefreshToken, code, appSecret} {
		if strings.Contains(string(saved), secret) {
			t.Errorf("the state file holds a token, code or secret in the clear")
		}
	}

	e.sb, e.srv = start()
	t.Cleanup(func() { e.srv.Close() })
	status, raw := e.v1(tok.AccessToken, "GET", path, "")
	if status != http.StatusOK || !strings.Contains(string(raw), `"budgeted":777000`) {
		t.Errorf("after a restart Alice's token and write: %d %s", status, raw)
	}
	next := e.refresh(tok.RefreshToken)
	if got := e.plans(next.AccessToken); len(got) != 2 || got[0] != sandbox.UserPlanID("alice", sandbox.PlanID) {
		t.Errorf("after a restart and a refresh Alice reaches %v", got)
	}

	// Reset restores her copy too, and she stays signed in.
	if err := e.sb.Reset(); err != nil {
		t.Fatal(err)
	}
	status, raw = e.v1(next.AccessToken, "GET", path, "")
	if status != http.StatusOK || !strings.Contains(string(raw), `"budgeted":120000`) {
		t.Errorf("after a reset Alice's Restaurants: %d %s, want the sample's 120000", status, raw)
	}

	// The code is still known as used: using it again revokes what came of it.
	e.refused(e.codeForm(code), false, http.StatusBadRequest, "invalid_grant")
	e.unauthorized(next.AccessToken, "a token descending from a code used twice, after a restart")
}

// Registering applications: each needs an id and a secret, once.
func TestOAuthClientsChecked(t *testing.T) {
	for _, tc := range []struct {
		clients []sandbox.OAuthClient
		want    string
	}{
		{[]sandbox.OAuthClient{{ID: "", Secret: "s"}}, "client id is empty"},
		{[]sandbox.OAuthClient{{ID: "a", Secret: ""}}, "secret is empty"},
		{[]sandbox.OAuthClient{{ID: "a b", Secret: "s"}}, "no spaces"},
		{[]sandbox.OAuthClient{{ID: "a", Secret: "s"}, {ID: "a", Secret: "t"}}, "registered twice"},
		{[]sandbox.OAuthClient{{ID: "a", Secret: "s", RedirectURIs: []string{"ftp://x/"}}}, "absolute http or https"},
	} {
		_, err := sandbox.New(sandbox.Options{OAuthClients: tc.clients})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error saying %q", tc.clients, err, tc.want)
		}
	}
}

// A sandbox nobody signs in to saves the state it always did: no users, no grants.
func TestOAuthAbsentFromStateWithoutIt(t *testing.T) {
	state := filepath.Join(t.TempDir(), "sandbox.json")
	a := newAPI(t, sandbox.Options{StatePath: state})
	a.ok(http.StatusOK, "GET", "/plans", nil, nil)
	if err := a.sb.Reset(); err != nil {
		t.Fatal(err)
	}
	var saved map[string]json.RawMessage
	raw, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &saved); err != nil {
		t.Fatal(err)
	}
	if _, ok := saved["users"]; ok {
		t.Error("the state file of a sandbox without OAuth has users")
	}
	if _, ok := saved["oauth"]; ok {
		t.Error("the state file of a sandbox without OAuth has grants")
	}
}

// People signing in and using the API at once, while the tokens are expired under them: each
// ends with their own plans (run with -race).
func TestOAuthConcurrentUsers(t *testing.T) {
	e := newOAuthEnv(t, sandbox.Options{})
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for _, user := range []string{"ann", "ben", "cas", "dirk"} {
		wg.Go(func() {
			q := url.Values{"client_id": {appID}, "redirect_uri": {e.redirectURI}, "response_type": {"code"},
				"user": {user}, "decision": {"authorize"}}
			noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			res, err := noRedirects.PostForm(e.srv.AuthorizeURL(), q)
			if err != nil {
				errs <- err.Error()
				return
			}
			res.Body.Close()
			loc, _ := url.Parse(res.Header.Get("Location"))
			form := e.codeForm(loc.Query().Get("code"))
			req, _ := http.NewRequest("POST", e.srv.TokenURL(), strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			res, err = http.DefaultClient.Do(req)
			if err != nil {
				errs <- err.Error()
				return
			}
			var tok tokenAnswer
			json.NewDecoder(res.Body).Decode(&tok)
			res.Body.Close()
			for range 5 {
				req, _ := http.NewRequest("GET", e.srv.URL+"/plans/"+sandbox.UserPlanID(user, sandbox.PlanID)+"/accounts", nil)
				req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- err.Error()
					return
				}
				res.Body.Close()
				if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusUnauthorized {
					errs <- user + ": " + res.Status
				}
			}
		})
	}
	wg.Go(func() {
		for range 3 {
			if _, err := e.sb.ExpireTokens(); err != nil {
				errs <- err.Error()
			}
		}
	})
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
	for _, user := range []string{"ann", "ben", "cas", "dirk"} {
		if _, err := e.sb.Export(sandbox.UserPlanID(user, sandbox.PlanID)); err != nil {
			t.Errorf("%s has no copy: %v", user, err)
		}
	}
}
