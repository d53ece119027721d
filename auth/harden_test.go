package auth

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The attacks of issue 30, each played from outside: an HTTP client (a browser with a cookie jar
// that keeps cookies as browsers do, an app, an attacker's script) against avenir's auth server
// on loopback, with a throwaway PostgreSQL and the fake YNAB.

// prefixJar keeps cookies as a browser does for the cookie name prefixes (RFC 6265bis §4.1.3):
// a __Host- cookie only from an https answer, with Secure, Path=/ and no Domain; a __Secure-
// one only from https with Secure; and no Secure cookie from a plain-http answer.
type prefixJar struct{ http.CookieJar }

func (j prefixJar) SetCookies(u *url.URL, cs []*http.Cookie) {
	var keep []*http.Cookie
	for _, c := range cs {
		secureOrigin := u.Scheme == "https"
		switch {
		case c.Secure && !secureOrigin:
		case strings.HasPrefix(c.Name, "__Secure-") && (!secureOrigin || !c.Secure):
		case strings.HasPrefix(c.Name, "__Host-") && (!secureOrigin || !c.Secure || c.Domain != "" || c.Path != "/"):
		default:
			keep = append(keep, c)
		}
	}
	j.CookieJar.SetCookies(u, keep)
}

// browser is a person's browser for this harness: it trusts the harness's certificate and
// keeps cookies as browsers do.
func (h *harness) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t, &http.Client{Jar: prefixJar{jar}, Transport: h.client.Transport, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// An attacker registers a client whose redirect URI is his own. Neither a malformed
// authorization request nor Cancel sends the browser there by itself (#1): avenir shows its own
// page, whose link back the person may follow.
func TestNoOpenRedirect(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	evil := h.register(map[string]any{"client_name": "Shortener", "redirect_uris": []string{"https://attacker.example/land"},
		"token_endpoint_auth_method": "none"})
	for _, tc := range []struct {
		name  string
		extra url.Values
		code  string
	}{
		{"no PKCE", url.Values{"code_challenge": {""}, "code_challenge_method": {""}}, "invalid_request"},
		{"token response", url.Values{"response_type": {"token"}}, "unsupported_response_type"},
		{"other resource", url.Values{"resource": {"https://other.example/mcp"}}, "invalid_target"},
		{"long state", url.Values{"state": {strings.Repeat("s", 1001)}}, "invalid_request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := h.with(t)
			resp, body := newBrowser(t).get(h.authorizeURL(evil, tc.extra))
			if resp.StatusCode/100 == 3 || resp.Header.Get("Location") != "" {
				t.Fatalf("answered %s with Location %q: an automatic redirect to an untrusted redirect URI", resp.Status, resp.Header.Get("Location"))
			}
			if resp.StatusCode != 400 || !strings.Contains(body, `href="https://attacker.example/land?`) || !strings.Contains(body, "error="+tc.code) {
				t.Fatalf("answered %s; want avenir's page with a link back carrying error=%s:\n%s", resp.Status, tc.code, body)
			}
		})
	}
	t.Run("cancel", func(t *testing.T) {
		h := h.with(t)
		b := newBrowser(t)
		request := h.consent(b, h.authorizeURL(evil, nil))
		resp, body := b.post(h.url+"/oauth/consent", url.Values{"request": {request}, "decision": {"deny"}})
		if resp.StatusCode/100 == 3 || resp.Header.Get("Location") != "" {
			t.Fatalf("Cancel answered %s with Location %q", resp.Status, resp.Header.Get("Location"))
		}
		if !strings.Contains(body, "Nothing was shared") || !strings.Contains(body, "error=access_denied") || !strings.Contains(body, "Return to Shortener") {
			t.Fatalf("Cancel's page:\n%s", body)
		}
	})
}

// Someone who can set a cookie for avenir's host (a plain-http answer, a sibling subdomain)
// consents in his own browser, plants his sign-in cookie in the victim's and has the victim
// finish the sign-in at YNAB: avenir must not give his client a code for the victim's YNAB (#2).
func TestSignInCookieCannotBePlanted(t *testing.T) {
	h := newHarness(t, harnessOpts{tls: true})
	mallory := h.register(map[string]any{"client_name": "Mallory's app", "redirect_uris": []string{"https://mallory.example/cb"},
		"token_endpoint_auth_method": "none"})

	attacker := h.browser(t)
	resp, _ := attacker.get(h.authorizeURL(mallory, nil))
	if sc := resp.Header.Values("Set-Cookie"); len(sc) != 0 {
		t.Errorf("the consent page sets cookies %q; the binding cookie belongs to consent given", sc)
	}
	request := h.consent(attacker, h.authorizeURL(mallory, nil))
	resp, _ = attacker.post(h.url+"/oauth/consent", url.Values{"request": {request}, "decision": {"allow"}})
	ynabURL := location(t, resp)
	var binding *http.Cookie
	for _, c := range resp.Cookies() {
		binding = c
	}

	victim := h.browser(t)
	avenir, _ := url.Parse(h.url)
	plain := &url.URL{Scheme: "http", Host: avenir.Host, Path: "/"}
	for _, c := range attacker.c.Jar.Cookies(avenir) {
		victim.c.Jar.SetCookies(plain, []*http.Cookie{{Name: c.Name, Value: c.Value, Path: "/"}})
		victim.c.Jar.SetCookies(plain, []*http.Cookie{{Name: c.Name, Value: c.Value, Path: "/", Secure: true}})
	}
	h.ynab.set(func(f *fakeYNAB) { f.user = "user-victim" })
	resp, _ = victim.get(ynabURL.String())
	resp, body := victim.get(location(t, resp).String())
	if loc := resp.Header.Get("Location"); strings.HasPrefix(loc, "https://mallory.example/") {
		t.Fatalf("the victim's browser was sent to %s: the attacker's client has a code for the victim's YNAB", loc)
	}
	if resp.StatusCode != 400 || !strings.Contains(body, "another browser") {
		t.Fatalf("the callback in the victim's browser: %s\n%s", resp.Status, body)
	}
	if n := h.count("SELECT count(*) FROM auth.people WHERE ynab_user_id = 'user-victim'"); n != 0 {
		t.Fatal("the victim's YNAB sign-in was stored")
	}
	if binding == nil || !strings.HasPrefix(binding.Name, "__Host-") || !binding.Secure || !binding.HttpOnly ||
		binding.Path != "/" || binding.Domain != "" || binding.SameSite != http.SameSiteLaxMode {
		t.Fatalf("the binding cookie set at consent: %+v; want __Host-, Secure, HttpOnly, Path=/, no Domain, SameSite=Lax", binding)
	}

	// A page elsewhere posting avenir's consent form in the victim's browser is refused.
	request = h.consent(attacker, h.authorizeURL(mallory, nil))
	resp, _ = victim.postFrom("https://mallory.example", h.url+"/oauth/consent", url.Values{"request": {request}, "decision": {"allow"}})
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a consent posted from another origin: %s", resp.Status)
	}
	resp, _ = victim.postFrom("", h.url+"/oauth/consent", url.Values{"request": {request}, "decision": {"allow"}})
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a consent posted without Origin: %s", resp.Status)
	}

	// The person's own sign-in over https still goes through, two tabs at once.
	h.ynab.set(func(f *fakeYNAB) { f.user = "user-alice" })
	c1, c2 := h.publicClient(), h.publicClient()
	b := h.browser(t)
	y1 := h.toYNAB(b, h.consent(b, h.authorizeURL(c1, nil)))
	y2 := h.toYNAB(b, h.consent(b, h.authorizeURL(c2, nil)))
	for _, y := range []*url.URL{y2, y1} {
		resp, _ := b.get(y.String())
		resp, body := b.get(location(t, resp).String())
		if resp.StatusCode != http.StatusFound || location(t, resp).Query().Get("code") == "" {
			t.Fatalf("a sign-in in one of two tabs: %s\n%s", resp.Status, body)
		}
	}
}

// Registration, authorization, the token endpoint and YNAB's callback are bounded per client
// address and overall, with 429 and Retry-After; registration bodies are small; clients that
// never got a grant are swept (#3).
func TestRateLimitsAndBounds(t *testing.T) {
	h := newHarness(t, harnessOpts{edit: func(c *Config) {
		c.ClientIPHeader = "X-Forwarded-For"
		c.RateLimits = RateLimits{
			Register:  RateLimit{PerAddress: 3, Overall: 5, Window: time.Hour},
			Authorize: RateLimit{PerAddress: 4, Overall: 100, Window: time.Minute},
			Token:     RateLimit{PerAddress: 4, Overall: 100, Window: time.Minute},
			Callback:  RateLimit{PerAddress: 2, Overall: 100, Window: time.Minute},
		}
	}})
	send := func(method, path, from, contentType, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, h.url+path, strings.NewReader(body))
		req.Header.Set("X-Forwarded-For", "203.0.113.99, "+from) // the proxy's entry is the last
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := h.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	reg := `{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"none"}`
	want429 := func(resp *http.Response, what string) {
		t.Helper()
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("%s: %s (Retry-After %q); want 429 with Retry-After", what, resp.Status, resp.Header.Get("Retry-After"))
		}
	}
	for i := range 3 {
		if resp := send("POST", "/oauth/register", "198.51.100.1", "application/json", reg); resp.StatusCode != 201 {
			t.Fatalf("registration %d: %s", i+1, resp.Status)
		}
	}
	want429(send("POST", "/oauth/register", "198.51.100.1", "application/json", reg), "a 4th registration from one address")
	for _, from := range []string{"198.51.100.2", "2001:db8:1:2::7"} {
		if resp := send("POST", "/oauth/register", from, "application/json", reg); resp.StatusCode != 201 {
			t.Fatalf("a registration from %s: %s", from, resp.Status)
		}
	}
	want429(send("POST", "/oauth/register", "2001:db8:1:2::8", "application/json", reg), "a 6th registration overall")
	if n := h.count("SELECT count(*) FROM auth.clients"); n != 5 {
		t.Fatalf("%d clients stored; want the 5 allowed", n)
	}

	authz := "/oauth/authorize?client_id=nobody"
	for range 4 {
		send("GET", authz, "198.51.100.3", "", "")
	}
	want429(send("GET", authz, "198.51.100.3", "", ""), "a 5th authorization request a minute")
	if resp := send("GET", authz, "198.51.100.4", "", ""); resp.StatusCode != 400 {
		t.Fatalf("another address is held by the first one's limit: %s", resp.Status)
	}
	tokenBody := "grant_type=authorization_code&client_id=nobody&code=x&code_verifier=y"
	for range 4 {
		send("POST", "/oauth/token", "198.51.100.5", "application/x-www-form-urlencoded", tokenBody)
	}
	want429(send("POST", "/oauth/token", "198.51.100.5", "application/x-www-form-urlencoded", tokenBody), "a 5th token request a minute")
	for range 2 {
		send("GET", "/oauth/ynab/callback?state=x", "198.51.100.6", "", "")
	}
	want429(send("GET", "/oauth/ynab/callback?state=x", "198.51.100.6", "", ""), "a 3rd callback a minute")
	h.clock.Advance(time.Minute)
	if resp := send("GET", "/oauth/ynab/callback?state=x", "198.51.100.6", "", ""); resp.StatusCode != 400 {
		t.Fatalf("the callback a minute later: %s", resp.Status)
	}

	// A registration body of 5 KiB is refused.
	h.clock.Advance(time.Hour)
	big := fmt.Sprintf(`{"redirect_uris":["https://app.example/cb"],"client_name":"x","client_uri":"https://app.example/%s"}`, strings.Repeat("a", 5<<10))
	if resp := send("POST", "/oauth/register", "198.51.100.7", "application/json", big); resp.StatusCode != 400 {
		t.Fatalf("a 5 KiB registration: %s", resp.Status)
	}

	// Clients never given a grant are swept after a day; one that signed someone in stays.
	used := h.publicClient()
	h.tokens(newBrowser(t), used)
	h.clock.Advance(25 * time.Hour)
	if err := h.srv.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := h.count("SELECT count(*) FROM auth.clients"); n != 1 {
		t.Fatalf("%d clients after the sweep; want only the one that was granted", n)
	}
	if n := h.count("SELECT count(*) FROM auth.clients WHERE client_id = $1", used.id); n != 1 {
		t.Fatal("the sweep removed a client that signed someone in")
	}
}

// A person's YNAB code that leaks (a log, a referrer) cannot be brought to the attacker's own
// sign-in: the YNAB leg uses PKCE, so YNAB refuses the code to any sign-in but its own (#4).
func TestLeakedYNABCodeCannotBeInjected(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	victimApp, mallory := h.publicClient(), h.publicClient()

	h.ynab.set(func(f *fakeYNAB) { f.user = "user-victim" })
	vb := newBrowser(t)
	resp, _ := vb.get(h.toYNAB(vb, h.consent(vb, h.authorizeURL(victimApp, nil))).String())
	leaked := location(t, resp).Query().Get("code") // the victim's callback, never delivered
	if q := h.ynab.lastAuthorize(); q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		t.Errorf("avenir's authorization request to YNAB: %v; want a PKCE S256 challenge", q)
	}

	h.ynab.set(func(f *fakeYNAB) { f.user = "user-mallory" })
	mb := newBrowser(t)
	resp, _ = mb.get(h.toYNAB(mb, h.consent(mb, h.authorizeURL(mallory, nil))).String())
	own := location(t, resp)
	q := own.Query()
	q.Set("code", leaked)
	own.RawQuery = q.Encode()
	resp, body := mb.get(own.String())
	if resp.StatusCode == http.StatusFound {
		back := location(t, resp)
		if code := back.Query().Get("code"); code != "" {
			if status, out := h.exchange(mallory, code); status == 200 {
				_, who := h.callMCP("Bearer " + out["access_token"].(string))
				t.Fatalf("the attacker's client signed in as %v with the victim's leaked YNAB code", who["ynab_user_id"])
			}
		}
	}
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "Nothing was stored") {
		t.Fatalf("the injected code: %s\n%s", resp.Status, body)
	}
	if n := h.count("SELECT count(*) FROM auth.people WHERE ynab_user_id = 'user-victim'"); n != 0 {
		t.Fatal("the victim's YNAB grant was stored")
	}
}

// The metadata document fetch refuses every IANA special-purpose range before it connects (#5):
// NAT64, 6to4, Teredo and IPv4-compatible addresses carry an IPv4 address inside.
func TestMetadataFetchRefusesSpecialPurposeRanges(t *testing.T) {
	h := newHarness(t, harnessOpts{edit: func(c *Config) { c.ClientMetadata.Timeout = 2 * time.Second }})
	for _, addr := range []string{
		"[64:ff9b::7f00:1]", "[64:ff9b:1::a00:1]", "[2002:7f00:1::1]", "[2001:0:4136:e378:8000:63bf:3fff:fdd2]",
		"[::7f00:1]", "[::ffff:0:a00:1]", "[100::1]", "[2001:db8::1]", "[fec0::1]", "[3fff::1]", "[5f00::1]",
		"0.1.2.3", "198.18.0.1", "240.0.0.1", "192.0.0.170", "192.88.99.1", "203.0.113.5", "192.31.196.1",
	} {
		t.Run(addr, func(t *testing.T) {
			h := h.with(t)
			c := &appClient{id: "https://" + addr + "/client.json", redirectURI: "http://127.0.0.1:44100/cb"}
			start := time.Now()
			resp, body := newBrowser(t).get(h.authorizeURL(c, nil))
			if resp.StatusCode != 400 || !strings.Contains(body, "could not be fetched") {
				t.Fatalf("answered %s:\n%s", resp.Status, body)
			}
			refused := false
			for _, line := range strings.Split(h.logs.String(), "\n") {
				refused = refused || strings.Contains(line, c.id) && strings.Contains(line, "refused before connecting")
			}
			if !refused || time.Since(start) > time.Second {
				t.Fatalf("the fetch of %s was tried (%s); want it refused before connecting. Log:\n%s", addr, time.Since(start), h.logs)
			}
		})
	}
}

// A failed metadata fetch's page says only that the document could not be fetched: refused,
// timed out and not-TLS look the same, and nothing the remote server sent is shown (#6).
func TestMetadataFetchFailuresLookAlike(t *testing.T) {
	// A TLS server whose status line carries the remote server's words.
	certs := httptest.NewTLSServer(http.NotFoundHandler()) // for its certificate
	defer certs.Close()
	words, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: certs.TLS.Certificates})
	if err != nil {
		t.Fatal(err)
	}
	defer words.Close()
	go func() {
		for {
			c, err := words.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				io.WriteString(c, "HTTP/1.1 500 Call +1-555-EVIL to verify your bank\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			}()
		}
	}()
	hang, _ := net.Listen("tcp", "127.0.0.1:0")
	defer hang.Close()
	go func() {
		var held []net.Conn // open, answered nothing, until the listener closes
		for {
			c, err := hang.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	closedAddr := closed.Addr().String()
	closed.Close()

	h := newHarness(t, harnessOpts{edit: func(c *Config) {
		c.ClientMetadata = FetchOptions{AllowPrivateAddresses: true, Timeout: time.Second, TLSConfig: &tls.Config{InsecureSkipVerify: true}}
	}})
	pages := map[string]string{}
	for name, host := range map[string]string{
		"remote words": words.Addr().String(), "timeout": hang.Addr().String(),
		"not TLS": strings.TrimPrefix(plain.URL, "http://"), "refused": closedAddr,
	} {
		id := "https://" + host + "/client.json"
		resp, body := newBrowser(t).get(h.authorizeURL(&appClient{id: id, redirectURI: "http://127.0.0.1:44100/cb"}, nil))
		if resp.StatusCode != 400 {
			t.Fatalf("%s: %s", name, resp.Status)
		}
		if strings.Contains(body, "EVIL") || strings.Contains(body, "bank") {
			t.Fatalf("%s: the page shows what the remote server sent:\n%s", name, body)
		}
		pages[name] = strings.ReplaceAll(body, id, "ID")
	}
	for name, page := range pages {
		if page != pages["refused"] {
			t.Fatalf("the page for %q differs from the one for a refused connection:\n%s\n---\n%s", name, page, pages["refused"])
		}
	}
}

// The consent page shows the whole redirect URI, and a client's name cannot hide what it is
// behind bidi overrides, zero-width or control characters (#7).
func TestConsentShowsRedirectURIAndPlainNames(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c := h.register(map[string]any{"client_name": "Notes", "redirect_uris": []string{"https://notes.example/oauth/cb?tenant=evil"},
		"token_endpoint_auth_method": "none"})
	_, body := newBrowser(t).get(h.authorizeURL(c, nil))
	if !strings.Contains(body, "https://notes.example/oauth/cb?tenant=evil") {
		t.Fatalf("the consent page does not show the full redirect URI:\n%s", body)
	}
	for _, name := range []string{"Claude\u202e", "Cla\u200bude", "Claude\u2066x\u2069", "Claude\x07", "Claude\u00ad", "\ufeffClaude", "Claude\u3164"} {
		if status, out := h.postJSON("/oauth/register", map[string]any{"client_name": name, "redirect_uris": []string{"https://a.example/cb"}}); status != 400 || out["error"] != "invalid_client_metadata" {
			t.Errorf("registering the name %q: %d %v; want invalid_client_metadata", name, status, out)
		}
	}
	if status, _ := h.postJSON("/oauth/register", map[string]any{"client_name": "Zoë's Café 日本", "redirect_uris": []string{"https://a.example/cb"}}); status != 201 {
		t.Errorf("a plain name with accents and CJK was refused: %d", status)
	}
}

// Someone with write access to the database (a leaked backup restored elsewhere, an injection
// in another program) stores the hash of a token of his own making beside a person's grant:
// with keyed hashes it is worth nothing (#11).
func TestDatabaseWriteIsNotAccess(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c := h.publicClient()
	access, _ := h.tokens(newBrowser(t), c)
	_, who := h.callMCP("Bearer " + access)
	forged := "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	sum := sha256.Sum256([]byte(forged))
	if _, err := h.pool.Exec(context.Background(), `INSERT INTO auth.tokens (token_hash, kind, grant_id, person_id, client_id, resource, created_at, expires_at)
		SELECT $1, 'access', grant_id, person_id, client_id, resource, created_at, expires_at FROM auth.tokens WHERE person_id = $2 AND kind = 'access' LIMIT 1`,
		sum[:], int64(who["person_id"].(float64))); err != nil {
		t.Fatal(err)
	}
	resp, out := h.callMCP("Bearer " + forged)
	if resp.StatusCode == 200 {
		t.Fatalf("a token forged by writing its plain SHA-256 to the database reached the person's YNAB: %v", out)
	}
	h.wantChallenge(resp, "invalid_token")
}

// An avenir before keyed hashes stored plain SHA-256 hashes: after the upgrade the people it
// signed in are still signed in, their refresh tokens still work, and the upgrade runs once.
func TestKeyedHashesKeepPeopleSignedIn(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c := h.publicClient()
	access, refresh := h.tokens(newBrowser(t), c)
	ctx := context.Background()
	// Put the database back as the previous avenir left it: plain SHA-256, no hash scheme.
	for _, tok := range []string{access, refresh} {
		sum := sha256.Sum256([]byte(tok))
		if _, err := h.pool.Exec(ctx, `UPDATE auth.tokens SET token_hash = $2 WHERE token_hash = $1`, h.srv.hashSecret(tok), sum[:]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.pool.Exec(ctx, `DELETE FROM auth.settings WHERE name = 'hash_scheme'`); err != nil {
		t.Fatal(err)
	}
	if resp, _ := h.callMCP("Bearer " + access); resp.StatusCode == 200 {
		t.Fatal("the test did not put the old hashes back")
	}
	// Two instances of the new avenir start on the database: the first re-keys, the second
	// finds nothing to do (a second re-keying would lose everyone).
	newHarness(t, harnessOpts{dsn: h.dsn, key: h.key, clock: h.clock, ynab: h.ynab})
	up := newHarness(t, harnessOpts{dsn: h.dsn, key: h.key, clock: h.clock, ynab: h.ynab})
	if resp, who := h.callMCP("Bearer " + access); resp.StatusCode != 200 { // h's origin is the token's resource
		t.Fatalf("after the upgrade the access token is refused: %s %v %s", resp.Status, who, resp.Header.Get("WWW-Authenticate"))
	}
	if status, out := up.refresh(c, refresh); status != 200 {
		t.Fatalf("after the upgrade the refresh token is refused: %d %v", status, out)
	}
}

// A refresh token does not slide forever: a sign-in lasts GrantLifetime at most (#14).
func TestGrantAbsoluteLifetime(t *testing.T) {
	h := newHarness(t, harnessOpts{edit: func(c *Config) { c.GrantLifetime = 60 * 24 * time.Hour }})
	c := h.publicClient()
	_, rt := h.tokens(newBrowser(t), c)
	for day := 20; day <= 40; day += 20 {
		h.clock.Advance(20 * 24 * time.Hour)
		status, out := h.refresh(c, rt)
		if status != 200 {
			t.Fatalf("a refresh on day %d: %d %v", day, status, out)
		}
		rt = out["refresh_token"].(string)
	}
	h.clock.Advance(20*24*time.Hour + time.Minute) // day 60: each refresh was within 30 days of the last
	if status, out := h.refresh(c, rt); status != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("a refresh 60 days after sign-in: %d %v; want invalid_grant", status, out)
	}
}

// A signed-in person sees the apps they gave access and revokes one; its tokens stop working at
// once, and nobody else's grant can be revoked from their page (#14).
func TestAccountPageRevokes(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	notes, other := h.register(map[string]any{"client_name": "Notes", "redirect_uris": []string{"http://127.0.0.1:5000/cb"},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}}), h.publicClient()
	access, refresh := h.tokens(newBrowser(t), notes)
	otherAccess, _ := h.tokens(newBrowser(t), other)
	h.ynab.set(func(f *fakeYNAB) { f.user = "user-bob" })
	bobAccess, _ := h.tokens(newBrowser(t), h.publicClient())

	h.ynab.set(func(f *fakeYNAB) { f.user = "user-alice" })
	b := newBrowser(t)
	_, body := b.get(h.url + "/account")
	if !strings.Contains(body, "Sign in with YNAB") {
		t.Fatalf("the account page before sign-in:\n%s", body)
	}
	resp, _ := b.post(h.url+"/account/signin", nil)
	resp, _ = b.get(location(t, resp).String()) // YNAB
	resp, _ = b.get(location(t, resp).String()) // the callback
	if location(t, resp).Path != "/account" {
		t.Fatalf("after signing in: %s", resp.Header.Get("Location"))
	}
	_, body = b.get(h.url + "/account")
	if !strings.Contains(body, "Notes") || !strings.Contains(body, "Test App") || !strings.Contains(body, "http://127.0.0.1:5000/cb") {
		t.Fatalf("the account page does not list alice's apps:\n%s", body)
	}
	var grant, bobGrant int64
	h.pool.QueryRow(context.Background(), `SELECT id FROM auth.grants WHERE client_id = $1`, notes.id).Scan(&grant)
	h.pool.QueryRow(context.Background(), `SELECT g.id FROM auth.grants g JOIN auth.people p ON p.id = g.person_id WHERE p.ynab_user_id = 'user-bob'`).Scan(&bobGrant)

	// A page elsewhere cannot revoke on the person's behalf; nor can alice revoke bob's app.
	resp, _ = b.postFrom("https://evil.example", h.url+"/account/revoke", url.Values{"grant": {fmt.Sprint(grant)}})
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a revocation from another origin: %s", resp.Status)
	}
	b.post(h.url+"/account/revoke", url.Values{"grant": {fmt.Sprint(bobGrant)}})
	if r, _ := h.callMCP("Bearer " + bobAccess); r.StatusCode != 200 {
		t.Fatalf("alice's page revoked bob's app: %s", r.Status)
	}

	resp, _ = b.post(h.url+"/account/revoke", url.Values{"grant": {fmt.Sprint(grant)}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoking: %s", resp.Status)
	}
	r, _ := h.callMCP("Bearer " + access)
	h.wantChallenge(r, "invalid_token")
	if status, out := h.refresh(notes, refresh); status != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("the revoked app refreshed: %d %v", status, out)
	}
	if r, _ := h.callMCP("Bearer " + otherAccess); r.StatusCode != 200 {
		t.Fatalf("revoking Notes revoked alice's other app: %s", r.Status)
	}
	if _, body = b.get(h.url + "/account"); strings.Contains(body, "Notes") {
		t.Fatalf("the revoked app is still listed:\n%s", body)
	}
	// Without the session cookie the page shows no one's apps.
	if _, body = newBrowser(t).get(h.url + "/account"); strings.Contains(body, "Test App") {
		t.Fatal("the account page lists apps without a sign-in")
	}
}

// A read-only deployment asks YNAB for read-only access (#15).
func TestReadOnlyAsksYNABForReadOnly(t *testing.T) {
	for _, ro := range []bool{true, false} {
		h := newHarness(t, harnessOpts{edit: func(c *Config) { c.ReadOnly = ro }})
		h.tokens(newBrowser(t), h.publicClient())
		scope := h.ynab.lastAuthorize().Get("scope")
		if ro && scope != "read-only" || !ro && scope != "" {
			t.Errorf("read-only %v: avenir asked YNAB for scope %q", ro, scope)
		}
	}
	cfg, err := ConfigFromEnv(func(k string) (string, bool) {
		v, ok := map[string]string{"AVENIR_MCP_PUBLIC_URL": "https://a.example", "AVENIR_MCP_YNAB_CLIENT_ID": "x",
			"AVENIR_MCP_YNAB_CLIENT_SECRET": "y", "AVENIR_MCP_SECRET_KEY": "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
			"AVENIR_MCP_READ_ONLY": "1"}[k]
		return v, ok
	})
	if err != nil || !cfg.ReadOnly {
		t.Fatalf("AVENIR_MCP_READ_ONLY=1: %+v %v", cfg.ReadOnly, err)
	}
}

// http YNAB URLs are accepted on loopback only; anything else is refused at start, naming the
// setting (#10).
func TestYNABURLsPlainHTTPOnLoopbackOnly(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	for _, tc := range []struct {
		api, oauth, want string
	}{
		{"http://ynab.example/v1", "", "AVENIR_MCP_YNAB_URL"},
		{"", "http://10.0.0.5/oauth", "AVENIR_MCP_YNAB_OAUTH_URL"},
		{"ftp://ynab.example/v1", "", "AVENIR_MCP_YNAB_URL"},
	} {
		cfg := Config{PublicURL: h.url, YNABClientID: "x", YNABClientSecret: "y", SecretKey: h.key, YNABAPIURL: tc.api, YNABOAuthURL: tc.oauth}
		if _, err := New(context.Background(), h.pool, cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New with %q, %q: %v; want a refusal naming %s", tc.api, tc.oauth, err, tc.want)
		}
	}
}
