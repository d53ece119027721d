package auth

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Every way a request can reach the MCP endpoint without a good token is answered 401 with the
// challenge, and the handler does not run.
func TestMiddlewareRefuses(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c := h.publicClient()
	access, refresh := h.tokens(newBrowser(t), c)
	revokedAccess, _ := h.tokens(newBrowser(t), c)
	if status, _ := h.postForm("/oauth/revoke", c, url.Values{"token": {revokedAccess}}); status != 200 {
		t.Fatal("revoke failed")
	}
	if resp, _ := h.callMCP("Bearer " + access); resp.StatusCode != 200 {
		t.Fatalf("the good token is refused: %s", resp.Status)
	}

	// Another avenir deployment on the same database: its tokens are for another resource.
	other := newHarness(t, harnessOpts{dsn: h.dsn, key: h.key})
	oc := other.publicClient()
	otherAccess, _ := other.tokens(newBrowser(t), oc)
	if resp, _ := other.callMCP("Bearer " + otherAccess); resp.StatusCode != 200 {
		t.Fatalf("the other deployment refuses its own token: %s", resp.Status)
	}

	for _, tc := range []struct {
		name, auth, errCode, desc string
	}{
		{"no token", "", "", ""},
		{"another scheme", "Basic " + b64("user:pass"), "", ""},
		{"empty bearer", "Bearer ", "invalid_token", "malformed"},
		{"malformed", "Bearer not-a-token", "invalid_token", "malformed"},
		{"tampered", "Bearer " + tamper(access), "invalid_token", "not one avenir issued"},
		{"revoked", "Bearer " + revokedAccess, "invalid_token", "revoked"},
		{"refresh token as access token", "Bearer " + refresh, "invalid_token", "not one avenir issued"},
		{"other resource", "Bearer " + otherAccess, "invalid_token", "another resource"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := h.with(t)
			resp, _ := h.callMCP(tc.auth)
			h.wantChallenge(resp, tc.errCode)
			if tc.desc != "" && !strings.Contains(resp.Header.Get("WWW-Authenticate"), tc.desc) {
				t.Errorf("WWW-Authenticate = %q; want a description mentioning %q", resp.Header.Get("WWW-Authenticate"), tc.desc)
			}
		})
	}

	t.Run("expired", func(t *testing.T) {
		h := h.with(t)
		h.clock.Advance(time.Hour + time.Second)
		resp, _ := h.callMCP("Bearer " + access)
		h.wantChallenge(resp, "invalid_token")
		if !strings.Contains(resp.Header.Get("WWW-Authenticate"), "expired") {
			t.Errorf("WWW-Authenticate = %q; want it to say the token expired", resp.Header.Get("WWW-Authenticate"))
		}
	})
}

// A token whose resource is the origin is as good as one for origin + /mcp: both name avenir.
func TestResourceOriginAccepted(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c := h.publicClient()
	back := h.signIn(newBrowser(t), c, url.Values{"resource": {strings.ToUpper(h.url[:7]) + h.url[7:] + "/"}})
	status, out := h.token(c, url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")},
		"redirect_uri": {c.redirectURI}, "code_verifier": {c.verifier}, "resource": {h.url}})
	if status != 200 {
		t.Fatalf("exchange: %d %v", status, out)
	}
	resp, who := h.callMCP("Bearer " + out["access_token"].(string))
	if resp.StatusCode != 200 || who["resource"] != h.url {
		t.Fatalf("MCP call: %s %v", resp.Status, who)
	}
}

func TestRegistrationRedirectURIs(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	for _, tc := range []struct {
		name    string
		meta    map[string]any
		wantErr string // "" = registered
	}{
		{"https", map[string]any{"redirect_uris": []string{"https://app.example.com/callback"}}, ""},
		{"localhost", map[string]any{"redirect_uris": []string{"http://localhost:8976/callback"}, "token_endpoint_auth_method": "none"}, ""},
		{"127.0.0.1", map[string]any{"redirect_uris": []string{"http://127.0.0.1/cb"}}, ""},
		{"::1", map[string]any{"redirect_uris": []string{"http://[::1]:9000/cb"}}, ""},
		{"plain http", map[string]any{"redirect_uris": []string{"http://app.example.com/callback"}}, "invalid_redirect_uri"},
		{"private address", map[string]any{"redirect_uris": []string{"http://192.168.1.20/cb"}}, "invalid_redirect_uri"},
		{"one bad among good", map[string]any{"redirect_uris": []string{"https://ok.example/cb", "http://evil.example/cb"}}, "invalid_redirect_uri"},
		{"custom scheme", map[string]any{"redirect_uris": []string{"myapp://callback"}}, "invalid_redirect_uri"},
		{"javascript", map[string]any{"redirect_uris": []string{"javascript:alert(1)"}}, "invalid_redirect_uri"},
		{"fragment", map[string]any{"redirect_uris": []string{"https://app.example.com/cb#x"}}, "invalid_redirect_uri"},
		{"relative", map[string]any{"redirect_uris": []string{"/callback"}}, "invalid_redirect_uri"},
		{"none", map[string]any{"client_name": "x"}, "invalid_redirect_uri"},
		{"implicit grant", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "grant_types": []string{"implicit"}}, "invalid_client_metadata"},
		{"token response", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "response_types": []string{"token"}}, "invalid_client_metadata"},
		{"jwt auth", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "token_endpoint_auth_method": "private_key_jwt"}, "invalid_client_metadata"},
		{"wrong type", map[string]any{"redirect_uris": "https://a.example/cb"}, "invalid_client_metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := h.with(t)
			before := h.count("SELECT count(*) FROM auth.clients")
			status, out := h.postJSON("/oauth/register", tc.meta)
			if tc.wantErr == "" {
				if status != 201 || out["client_id"] == "" {
					t.Fatalf("registration refused: %d %v", status, out)
				}
				return
			}
			if status != 400 || out["error"] != tc.wantErr || out["error_description"] == "" {
				t.Fatalf("registration answered %d %v; want 400 %s with a description", status, out, tc.wantErr)
			}
			if after := h.count("SELECT count(*) FROM auth.clients"); after != before {
				t.Fatal("a refused registration was stored")
			}
		})
	}
}

var backLink = regexp.MustCompile(`<a class="button secondary" href="([^"]+)">`)

func TestAuthorizeRefuses(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c := h.publicClient()
	// Refusals the client should learn of: avenir's page, with a link back carrying the error,
	// the state and the issuer (never an automatic redirect: see TestNoOpenRedirect).
	for _, tc := range []struct {
		name  string
		extra url.Values
		code  string
	}{
		{"no PKCE", url.Values{"code_challenge": {""}, "code_challenge_method": {""}}, "invalid_request"},
		{"plain", url.Values{"code_challenge": {"this-is-a-plain-challenge-of-enough-length-0123"}, "code_challenge_method": {"plain"}}, "invalid_request"},
		{"no method", url.Values{"code_challenge_method": {""}}, "invalid_request"},
		{"challenge not a digest", url.Values{"code_challenge": {"short"}}, "invalid_request"},
		{"other resource", url.Values{"resource": {"https://other.example/mcp"}}, "invalid_target"},
		{"other path", url.Values{"resource": {h.url + "/admin"}}, "invalid_target"},
		{"token response", url.Values{"response_type": {"token"}}, "unsupported_response_type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := h.with(t)
			b := newBrowser(t)
			resp, body := b.get(h.authorizeURL(c, tc.extra))
			m := backLink.FindStringSubmatch(body)
			if resp.StatusCode != 400 || resp.Header.Get("Location") != "" || m == nil {
				t.Fatalf("answered %s (Location %q); want avenir's page with a link back:\n%s", resp.Status, resp.Header.Get("Location"), body)
			}
			back, _ := url.Parse(html.UnescapeString(m[1]))
			q := back.Query()
			if !strings.HasPrefix(back.String(), c.redirectURI+"?") || q.Get("error") != tc.code ||
				q.Get("state") != c.state || q.Get("iss") != h.url || q.Get("error_description") == "" || q.Get("code") != "" {
				t.Fatalf("the link back is %s; want %s with error=%s, the state and iss", back, c.redirectURI, tc.code)
			}
		})
	}
	// Refusals shown to the person: the client or its redirect URI cannot be trusted with one.
	for _, tc := range []struct {
		name  string
		extra url.Values
		want  string
	}{
		{"unknown client", url.Values{"client_id": {"no-such-client"}}, "not known"},
		{"no client", url.Values{"client_id": {""}}, "client_id is missing"},
		{"unregistered redirect", url.Values{"redirect_uri": {"https://evil.example/cb"}}, "did not register"},
		{"other loopback path", url.Values{"redirect_uri": {"http://127.0.0.1:33418/other"}}, "did not register"},
		{"repeated parameter", url.Values{"state": {"a", "b"}}, "more than once"},
		{"metadata URL over http", url.Values{"client_id": {"http://app.example.com/client.json"}}, "not known"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := h.with(t)
			resp, body := newBrowser(t).get(h.authorizeURL(c, tc.extra))
			if resp.StatusCode != 400 || resp.Header.Get("Location") != "" || !strings.Contains(body, tc.want) {
				t.Fatalf("answered %s (Location %q); want a 400 page saying %q:\n%s", resp.Status, resp.Header.Get("Location"), tc.want, body)
			}
		})
	}
	if n := h.count("SELECT count(*) FROM auth.pending_authorizations"); n != 0 {
		t.Fatalf("refused requests left %d pending authorizations", n)
	}
	// A loopback redirect URI may come back on another port (RFC 8252 §7.3).
	resp, _ := newBrowser(t).get(h.authorizeURL(c, url.Values{"redirect_uri": {"http://127.0.0.1:50123/callback"}}))
	if resp.StatusCode != 200 {
		t.Fatalf("a loopback redirect on another port: %s", resp.Status)
	}
	if resp.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Error("the consent page may be framed")
	}
}

// A code used twice: refused, and what the first use gave is revoked (OAuth 2.1 §4.1.3).
func TestCodeUsedTwice(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c := h.publicClient()
	code := h.code(newBrowser(t), c)
	status, out := h.exchange(c, code)
	if status != 200 {
		t.Fatalf("first exchange: %d %v", status, out)
	}
	access, refresh := out["access_token"].(string), out["refresh_token"].(string)
	status, out = h.exchange(c, code)
	if status != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("second exchange: %d %v; want invalid_grant", status, out)
	}
	resp, _ := h.callMCP("Bearer " + access)
	h.wantChallenge(resp, "invalid_token")
	if status, out := h.refresh(c, refresh); status != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("the refresh token of a replayed code still works: %d %v", status, out)
	}
}

// A code is bound to its client, its redirect URI and its PKCE verifier.
func TestCodeBindings(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	t.Run("another client", func(t *testing.T) {
		h := h.with(t)
		a, thief := h.publicClient(), h.publicClient()
		code := h.code(newBrowser(t), a)
		thief.verifier, thief.redirectURI = a.verifier, a.redirectURI // the thief knows everything but is not a
		if status, out := h.exchange(thief, code); status != 400 || out["error"] != "invalid_grant" {
			t.Fatalf("another client exchanged the code: %d %v", status, out)
		}
		if status, out := h.exchange(a, code); status != 200 {
			t.Fatalf("the code's own client could no longer exchange it: %d %v", status, out)
		}
	})
	for _, tc := range []struct {
		name string
		edit func(url.Values)
		want string
	}{
		{"redirect_uri mismatch", func(f url.Values) { f.Set("redirect_uri", "http://127.0.0.1:33418/other") }, "invalid_grant"},
		{"redirect_uri missing", func(f url.Values) { f.Del("redirect_uri") }, "invalid_grant"},
		{"wrong verifier", func(f url.Values) { _, ch := pkce(); f.Set("code_verifier", ch+"x") }, "invalid_grant"},
		{"verifier missing", func(f url.Values) { f.Del("code_verifier") }, "invalid_request"},
		{"other resource", func(f url.Values) { f.Set("resource", "https://other.example/mcp") }, "invalid_target"},
		{"tampered code", func(f url.Values) { f.Set("code", tamper(f.Get("code"))) }, "invalid_grant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := h.with(t)
			c := h.publicClient()
			code := h.code(newBrowser(t), c)
			form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {c.redirectURI}, "code_verifier": {c.verifier}}
			tc.edit(form)
			if status, out := h.token(c, form); status != 400 || out["error"] != tc.want {
				t.Fatalf("answered %d %v; want %s", status, out, tc.want)
			}
			if tc.want == "invalid_request" {
				return // refused before the code was looked at
			}
			if tc.name == "tampered code" {
				if status, _ := h.exchange(c, code); status != 200 {
					t.Fatal("a tampered code spent the real one")
				}
				return
			}
			// The failed attempt spent the code: it cannot be retried into a success.
			if status, out := h.exchange(c, code); status != 400 || out["error"] != "invalid_grant" {
				t.Fatalf("the code still worked after a failed exchange: %d %v", status, out)
			}
		})
	}
	t.Run("redirect_uri omitted in both requests", func(t *testing.T) {
		h := h.with(t)
		c := h.publicClient() // one registered redirect URI: the request may leave it out
		back := h.signIn(newBrowser(t), c, url.Values{"redirect_uri": {""}})
		if !strings.HasPrefix(back.String(), c.redirectURI+"?") {
			t.Fatalf("redirected to %s; want the registered URI", back)
		}
		form := url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")}, "code_verifier": {c.verifier}}
		if status, out := h.token(c, form); status != 200 {
			t.Fatalf("a code whose request named no redirect_uri, exchanged without one: %d %v", status, out)
		}
	})
	t.Run("expired", func(t *testing.T) {
		h := h.with(t)
		c := h.publicClient()
		code := h.code(newBrowser(t), c)
		h.clock.Advance(DefaultCodeTTL + time.Second)
		if status, out := h.exchange(c, code); status != 400 || out["error"] != "invalid_grant" {
			t.Fatalf("an expired code: %d %v", status, out)
		}
	})
	t.Run("refresh by another client", func(t *testing.T) {
		h := h.with(t)
		a, b := h.publicClient(), h.publicClient()
		_, rt := h.tokens(newBrowser(t), a)
		if status, out := h.refresh(b, rt); status != 400 || out["error"] != "invalid_grant" {
			t.Fatalf("another client refreshed: %d %v", status, out)
		}
		if status, out := h.refresh(a, rt); status != 200 {
			t.Fatalf("the owner could not refresh after another's attempt: %d %v", status, out)
		}
	})
}

// YNAB's callback must carry avenir's state for a sign-in in progress in this browser.
func TestYNABCallbackState(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c := h.publicClient()
	nothingStored := func(t *testing.T) {
		t.Helper()
		for _, table := range []string{"people", "ynab_grants", "grants", "codes", "tokens"} {
			if n := h.count("SELECT count(*) FROM auth." + table); n != 0 {
				t.Fatalf("auth.%s has %d rows after a refused callback", table, n)
			}
		}
	}
	t.Run("state mismatch", func(t *testing.T) {
		h := h.with(t)
		b := newBrowser(t)
		ynabURL := h.toYNAB(b, h.consent(b, h.authorizeURL(c, nil)))
		q := ynabURL.Query()
		q.Set("state", randomString()[:32]+"AAAAAAAAAAA") // well-formed, not avenir's
		ynabURL.RawQuery = q.Encode()
		resp, _ := b.get(ynabURL.String())
		resp, body := b.get(location(t, resp).String())
		if resp.StatusCode != 400 || !strings.Contains(body, "could not be matched") || !strings.Contains(body, "Start again") {
			t.Fatalf("a callback with another state: %s\n%s", resp.Status, body)
		}
		nothingStored(t)
	})
	t.Run("no state", func(t *testing.T) {
		h := h.with(t)
		resp, body := newBrowser(t).get(h.url + "/oauth/ynab/callback?code=abc")
		if resp.StatusCode != 400 || !strings.Contains(body, "could not be matched") {
			t.Fatalf("a callback without state: %s", resp.Status)
		}
		nothingStored(t)
	})
	t.Run("another browser", func(t *testing.T) {
		h := h.with(t)
		b := newBrowser(t)
		ynabURL := h.toYNAB(b, h.consent(b, h.authorizeURL(c, nil)))
		resp, _ := b.get(ynabURL.String())
		resp, body := newBrowser(t).get(location(t, resp).String()) // the victim's browser, no cookie
		if resp.StatusCode != 400 || !strings.Contains(body, "another browser") {
			t.Fatalf("a callback in another browser: %s\n%s", resp.Status, body)
		}
		nothingStored(t)
	})
	t.Run("consent from another origin", func(t *testing.T) {
		h := h.with(t)
		request := h.consent(newBrowser(t), h.authorizeURL(c, nil))
		resp, body := newBrowser(t).postFrom("https://evil.example", h.url+"/oauth/consent", url.Values{"request": {request}, "decision": {"allow"}})
		if resp.StatusCode != 403 || !strings.Contains(body, "not sent from avenir") {
			t.Fatalf("consent posted from another origin: %s\n%s", resp.Status, body)
		}
		if n := h.count("SELECT count(*) FROM auth.pending_authorizations WHERE id_hash = $1 AND ynab_state_hash IS NULL", h.srv.hashSecret(request)); n != 1 {
			t.Fatal("a consent from another origin moved the sign-in on")
		}
	})
	t.Run("replayed callback", func(t *testing.T) {
		h := h.with(t)
		b := newBrowser(t)
		ynabURL := h.toYNAB(b, h.consent(b, h.authorizeURL(c, nil)))
		resp, _ := b.get(ynabURL.String())
		callback := location(t, resp).String()
		if resp, _ := b.get(callback); resp.StatusCode != 302 {
			t.Fatalf("the callback: %s", resp.Status)
		}
		resp, body := b.get(callback)
		if resp.StatusCode != 400 || !strings.Contains(body, "already used") {
			t.Fatalf("the same callback again: %s\n%s", resp.Status, body)
		}
	})
	t.Run("consent cancelled", func(t *testing.T) {
		h := h.with(t)
		b := newBrowser(t)
		request := h.consent(b, h.authorizeURL(c, nil))
		_, body := b.post(h.url+"/oauth/consent", url.Values{"request": {request}, "decision": {"deny"}})
		m := backLink.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("cancel's page has no link back:\n%s", body)
		}
		back, _ := url.Parse(html.UnescapeString(m[1]))
		if back.Query().Get("error") != "access_denied" || back.Query().Get("state") != c.state || !strings.HasPrefix(back.String(), c.redirectURI) {
			t.Fatalf("cancel redirected to %s", back)
		}
	})
}

// YNAB refusing consent, or its token endpoint failing: a page that says to sign in again, and
// nothing stored.
func TestYNABSignInFails(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c := h.publicClient()
	run := func(t *testing.T) (int, string) {
		t.Helper()
		b := newBrowser(t)
		ynabURL := h.toYNAB(b, h.consent(b, h.authorizeURL(c, nil)))
		resp, _ := b.get(ynabURL.String())
		resp, body := b.get(location(t, resp).String())
		for _, table := range []string{"people", "ynab_grants", "grants", "codes", "tokens", "pending_authorizations"} {
			if n := h.count("SELECT count(*) FROM auth." + table); n != 0 {
				t.Fatalf("auth.%s has %d rows after a failed sign-in", table, n)
			}
		}
		return resp.StatusCode, body
	}
	t.Run("consent refused", func(t *testing.T) {
		h := h.with(t)
		h.ynab.set(func(f *fakeYNAB) { f.deny = true })
		defer h.ynab.set(func(f *fakeYNAB) { f.deny = false })
		status, body := run(t)
		if status != 403 || !strings.Contains(body, "try signing in again") || !strings.Contains(body, "error=access_denied") {
			t.Fatalf("YNAB consent refused: %d\n%s", status, body)
		}
	})
	for _, code := range []int{500, 400, 401} {
		t.Run("token endpoint "+http.StatusText(code), func(t *testing.T) {
			h := h.with(t)
			h.ynab.set(func(f *fakeYNAB) { f.tokenStatus = code })
			defer h.ynab.set(func(f *fakeYNAB) { f.tokenStatus = 0 })
			status, body := run(t)
			if status != 502 || !strings.Contains(body, "Try signing in again") || strings.Contains(body, h.ynab.secret) {
				t.Fatalf("YNAB's token endpoint failing: %d\n%s", status, body)
			}
		})
	}
	// And after all that, a sign-in works.
	if access, _ := h.tokens(newBrowser(t), c); access == "" {
		t.Fatal("no token")
	}
}

// YNAB refusing the stored refresh token: a typed error telling the person to sign in again,
// and the person's avenir grants end so their app sends them through sign-in.
func TestYNABRefreshRevoked(t *testing.T) {
	h := newHarness(t, harnessOpts{edit: func(c *Config) { c.AccessTokenTTL = 4 * time.Hour }})
	c := h.publicClient()
	access, refresh := h.tokens(newBrowser(t), c)
	_, who := h.callMCP("Bearer " + access)
	pid := int64(who["person_id"].(float64))

	h.ynab.revokeUser("user-alice") // the person removed avenir in YNAB's settings
	h.clock.Advance(2*time.Hour + time.Minute)
	// The tool call in flight learns it through the caller's token source…
	resp, out := h.callMCP("Bearer " + access)
	if resp.StatusCode != http.StatusConflict || out["sign_in"] != true {
		t.Fatalf("the MCP handler's token source: %s %v; want the sign-in-again error", resp.Status, out)
	}
	// …and so does every later use of the person's source.
	_, err := h.srv.TokenSource(pid).Token(context.Background())
	var sre *SignInRequiredError
	if !asSignIn(err, &sre) || sre.PersonID != pid || !strings.Contains(err.Error(), "sign in again") {
		t.Fatalf("Token() = %v; want a *SignInRequiredError for person %d telling them to sign in again", err, pid)
	}
	if n := h.count("SELECT count(*) FROM auth.ynab_grants"); n != 0 {
		t.Fatal("the refused YNAB grant is still stored")
	}
	resp, _ = h.callMCP("Bearer " + access)
	h.wantChallenge(resp, "invalid_token")
	if status, out := h.refresh(c, refresh); status != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("the refresh token outlived the YNAB grant: %d %v", status, out)
	}
	// Signing in again restores everything, for the same person.
	access, _ = h.tokens(newBrowser(t), c)
	resp, who = h.callMCP("Bearer " + access)
	if resp.StatusCode != 200 || int64(who["person_id"].(float64)) != pid {
		t.Fatalf("after signing in again: %s %v", resp.Status, who)
	}
}

func asSignIn(err error, target **SignInRequiredError) bool {
	if err == nil || !errorsIs(err, ErrSignInRequired) {
		return false
	}
	return errorsAs(err, target)
}
