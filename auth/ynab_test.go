package auth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// signedIn signs alice in and returns her person id.
func (h *harness) signedIn() int64 {
	h.t.Helper()
	c := h.publicClient()
	access, _ := h.tokens(newBrowser(h.t), c)
	resp, who := h.callMCP("Bearer " + access)
	if resp.StatusCode != 200 {
		h.t.Fatalf("MCP call: %s %v", resp.Status, who)
	}
	return int64(who["person_id"].(float64))
}

// Two instances on one database refreshing one person's expired YNAB token at once: YNAB sees one
// refresh (its refresh tokens are single-use, so a second would be refused and sign the person
// out), and everyone gets the refreshed token.
func TestConcurrentRefreshAcrossInstances(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h2 := newHarness(t, harnessOpts{dsn: h.dsn, ynab: h.ynab, clock: h.clock, key: h.key})
	pid := h.signedIn()
	h.clock.Advance(2*time.Hour + time.Minute)
	h.ynab.set(func(f *fakeYNAB) { f.refreshDelay = 150 * time.Millisecond })
	before := h.ynab.refreshes()

	const n = 8
	var wg sync.WaitGroup
	toks, errs := make([]string, n), make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			srv := h.srv
			if i%2 == 1 {
				srv = h2.srv
			}
			toks[i], errs[i] = srv.TokenSource(pid).Token(context.Background())
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("refresher %d: %v", i, errs[i])
		}
		if toks[i] != toks[0] {
			t.Fatalf("refreshers got different tokens: %q and %q", toks[0], toks[i])
		}
	}
	if got := h.ynab.refreshes() - before; got != 1 {
		t.Fatalf("YNAB saw %d refreshes; want exactly one", got)
	}
	// The rotated refresh token was stored: the next expiry refreshes again, successfully.
	h.clock.Advance(2*time.Hour + time.Minute)
	if tok, err := h2.srv.TokenSource(pid).Token(context.Background()); err != nil || tok == toks[0] {
		t.Fatalf("the second refresh: %q, %v", tok, err)
	}
}

// The Transport sets the token, refreshes after YNAB's 401 and retries, and answers 429 once the
// budget is spent.
func TestTransport(t *testing.T) {
	h := newHarness(t, harnessOpts{edit: func(c *Config) { c.RequestBudget = 3 }})
	pid := h.signedIn()
	client := &http.Client{Transport: &Transport{Source: h.srv.TokenSource(pid), Budget: h.srv.Budget()}}
	get := func() (*http.Response, string) {
		t.Helper()
		resp, err := client.Get(h.ynab.srv.URL + "/v1/user")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	if resp, body := get(); resp.StatusCode != 200 || !strings.Contains(body, "user-alice") {
		t.Fatalf("through the transport: %s %s", resp.Status, body)
	}
	// YNAB forgets the access token before its time (as after a refresh elsewhere): 401, then
	// the transport refreshes and retries.
	h.ynab.set(func(f *fakeYNAB) { clear(f.access) })
	before := h.ynab.refreshes()
	if resp, body := get(); resp.StatusCode != 200 || !strings.Contains(body, "user-alice") {
		t.Fatalf("after YNAB's 401: %s %s", resp.Status, body)
	}
	if h.ynab.refreshes() != before+1 {
		t.Fatal("the transport did not refresh after YNAB's 401")
	}
	get() // the third request of the hour
	resp, body := get()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "hourly budget of 3") {
		t.Fatalf("over the budget: %s %q %s", resp.Status, resp.Header.Get("Retry-After"), body)
	}
	var yerr struct {
		Error struct{ ID, Name, Detail string }
	}
	if json.Unmarshal([]byte(body), &yerr); yerr.Error.ID != "429" {
		t.Fatalf("the refusal is not shaped like YNAB's: %s", body)
	}
}

func TestBudget(t *testing.T) {
	h := newHarness(t, harnessOpts{edit: func(c *Config) { c.RequestBudget = 3 }})
	alice := h.signedIn()
	h.ynab.set(func(f *fakeYNAB) { f.user = "user-bob" })
	bob := h.signedIn()
	b := h.srv.Budget()
	ctx := context.Background()
	for want := 2; want >= 0; want-- {
		if left, err := b.Take(ctx, alice); err != nil || left != want {
			t.Fatalf("Take = %d, %v; want %d left", left, err, want)
		}
		h.clock.Advance(10 * time.Minute)
	}
	_, err := b.Take(ctx, alice)
	var be *BudgetExhaustedError
	if !errors.As(err, &be) || be.Limit != 3 || be.RetryAfter.Round(time.Second) != 30*time.Minute {
		t.Fatalf("the fourth Take = %v; want exhausted, free again in 30m (the first request leaves the hour then)", err)
	}
	if left, err := b.Take(ctx, bob); err != nil || left != 2 {
		t.Fatalf("bob's budget is not his own: %d, %v", left, err)
	}
	h.clock.Advance(30*time.Minute + time.Second)
	if left, err := b.Take(ctx, alice); err != nil || left != 0 {
		t.Fatalf("after the oldest request left the hour: %d, %v", left, err)
	}
	if _, err := b.Take(ctx, 999999); err == nil || !strings.Contains(err.Error(), "not known") {
		t.Fatalf("an unknown person: %v", err)
	}
	// Concurrent takes never overspend.
	h.clock.Advance(2 * time.Hour)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := b.Take(ctx, bob); err == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ok != 3 {
		t.Fatalf("%d of 10 concurrent takes succeeded; the budget is 3", ok)
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{
		"AVENIR_MCP_PUBLIC_URL":         "https://avenir.example.com",
		"AVENIR_MCP_YNAB_CLIENT_ID":     "id",
		"AVENIR_MCP_YNAB_CLIENT_SECRET": "hush",
		"AVENIR_MCP_SECRET_KEY":         "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
	}
	lookup := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	cfg, err := ConfigFromEnv(lookup(env))
	if err != nil || string(cfg.SecretKey) != "0123456789abcdef0123456789abcdef" || cfg.PublicURL != env["AVENIR_MCP_PUBLIC_URL"] {
		t.Fatalf("ConfigFromEnv = %+v, %v", cfg, err)
	}
	if _, _, err := cfg.withDefaults(); err != nil {
		t.Fatal(err)
	}
	_, err = ConfigFromEnv(lookup(map[string]string{"AVENIR_MCP_SECRET_KEY": "c2hvcnQ="}))
	for _, want := range []string{"AVENIR_MCP_PUBLIC_URL is not set", "AVENIR_MCP_YNAB_CLIENT_ID is not set", "AVENIR_MCP_YNAB_CLIENT_SECRET is not set", "32 bytes", "decodes to 5 bytes"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ConfigFromEnv error %q; want it to say %q", err, want)
		}
	}
	bad := map[string]string{}
	for k, v := range env {
		bad[k] = v
	}
	bad["AVENIR_MCP_SECRET_KEY"] = "not base64 !!!"
	if _, err := ConfigFromEnv(lookup(bad)); err == nil || strings.Contains(err.Error(), "!!!") || !strings.Contains(err.Error(), "not base64") {
		t.Errorf("a key that is not base64: %v (and the error must not repeat it)", err)
	}
}

func TestPublicURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://Avenir.Example.com":  "https://avenir.example.com",
		"https://avenir.example.com/": "https://avenir.example.com",
		"https://a.example:8443":      "https://a.example:8443",
		"http://127.0.0.1:8080":       "http://127.0.0.1:8080",
		"http://localhost:8080":       "http://localhost:8080",
		"http://[::1]:8080":           "http://[::1]:8080",
		"http://avenir.example.com":   "error: loopback",
		"https://a.example/mcp":       "error: origin only",
		"https://a.example?x=1":       "error: origin only",
		"avenir.example.com":          "error: absolute",
		"ftp://a.example":             "error: https",
	} {
		got, err := canonicalOrigin(raw)
		if strings.HasPrefix(want, "error: ") {
			if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(want, "error: ")) {
				t.Errorf("canonicalOrigin(%q) = %q, %v; want an error about %s", raw, got, err, strings.TrimPrefix(want, "error: "))
			}
		} else if err != nil || got != want {
			t.Errorf("canonicalOrigin(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
}

// YNAB's token endpoint failing during a refresh is temporary: the error says so, the stored
// grant is kept, and the next try succeeds.
func TestRefreshWhileYNABIsDown(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	pid := h.signedIn()
	h.clock.Advance(2*time.Hour + time.Minute)
	h.ynab.set(func(f *fakeYNAB) { f.tokenStatus = 503 })
	_, err := h.srv.TokenSource(pid).Token(context.Background())
	if err == nil || errors.Is(err, ErrSignInRequired) || !strings.Contains(err.Error(), "503") {
		t.Fatalf("Token() with YNAB down = %v; want a temporary error naming YNAB's answer", err)
	}
	for _, s := range h.ynab.issued() {
		if strings.Contains(err.Error(), s) {
			t.Fatal("the error holds a YNAB token")
		}
	}
	if n := h.count("SELECT count(*) FROM auth.ynab_grants"); n != 1 {
		t.Fatal("a temporary failure dropped the YNAB grant")
	}
	h.ynab.set(func(f *fakeYNAB) { f.tokenStatus = 0 })
	if tok, err := h.srv.TokenSource(pid).Token(context.Background()); err != nil || tok == "" {
		t.Fatalf("after YNAB is back: %q, %v", tok, err)
	}
}
