package auth

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// clientDocs serves Client ID Metadata Documents over https on loopback.
type clientDocs struct {
	srv     *httptest.Server
	fetches atomic.Int32
}

func newClientDocs(t *testing.T) *clientDocs {
	d := &clientDocs{}
	mux := http.NewServeMux()
	doc := func(path string, edit func(m map[string]any)) {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			d.fetches.Add(1)
			m := map[string]any{
				"client_id": d.srv.URL + path, "client_name": "Doc App",
				"redirect_uris": []string{"http://127.0.0.1:44100/cb"},
				"grant_types":   []string{"authorization_code", "refresh_token"}, "token_endpoint_auth_method": "none",
			}
			if edit != nil {
				edit(m)
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "max-age=600")
			json.NewEncoder(w).Encode(m)
		})
	}
	doc("/good.json", nil)
	doc("/wrong-id.json", func(m map[string]any) { m["client_id"] = "https://elsewhere.example/client.json" })
	doc("/secret.json", func(m map[string]any) { m["token_endpoint_auth_method"] = "client_secret_basic" })
	doc("/no-name.json", func(m map[string]any) { delete(m, "client_name") })
	doc("/bad-redirect.json", func(m map[string]any) { m["redirect_uris"] = []string{"http://evil.example/cb"} })
	doc("/big.json", func(m map[string]any) { m["client_uri"] = "https://x.example/" + strings.Repeat("a", 6000) })
	mux.HandleFunc("GET /redirect.json", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/good.json", http.StatusFound)
	})
	mux.HandleFunc("GET /missing.json", http.NotFound)
	d.srv = httptest.NewTLSServer(mux)
	t.Cleanup(d.srv.Close)
	return d
}

func (d *clientDocs) tlsConfig() *tls.Config {
	roots := x509.NewCertPool()
	roots.AddCert(d.srv.Certificate())
	return &tls.Config{RootCAs: roots}
}

func TestClientIDMetadataDocument(t *testing.T) {
	docs := newClientDocs(t)
	h := newHarness(t, harnessOpts{edit: func(c *Config) {
		c.ClientMetadata = FetchOptions{AllowPrivateAddresses: true, TLSConfig: docs.tlsConfig()}
	}})
	c := &appClient{id: docs.srv.URL + "/good.json", redirectURI: "http://127.0.0.1:44100/cb"}

	b := newBrowser(t)
	resp, body := b.get(h.authorizeURL(c, nil))
	host := strings.TrimPrefix(docs.srv.URL, "https://")
	if resp.StatusCode != 200 || !strings.Contains(body, "Doc App") || !strings.Contains(body, host) || !strings.Contains(body, "this computer") {
		t.Fatalf("the consent page for a document client: %s\n%s", resp.Status, body)
	}
	access, refresh := h.tokens(newBrowser(t), c)
	if resp, who := h.callMCP("Bearer " + access); resp.StatusCode != 200 || who["client_id"] != c.id {
		t.Fatalf("MCP call of a document client: %s %v", resp.Status, who)
	}
	if status, out := h.refresh(c, refresh); status != 200 {
		t.Fatalf("refresh of a document client: %d %v", status, out)
	}
	if n := docs.fetches.Load(); n != 1 {
		t.Errorf("the document was fetched %d times within its max-age; want once", n)
	}
	h.clock.Advance(11 * time.Minute)
	h.consent(newBrowser(t), h.authorizeURL(c, nil))
	if n := docs.fetches.Load(); n != 2 {
		t.Errorf("after its max-age the document was fetched %d times in all; want it read again", n)
	}

	for _, tc := range []struct {
		path, redirect, want string
	}{
		{"/good.json", "http://127.0.0.1:44100/other", "did not register"},
		{"/wrong-id.json", "http://127.0.0.1:44100/cb", "must be the document&#39;s own URL"},
		{"/secret.json", "http://127.0.0.1:44100/cb", "must be none"},
		{"/no-name.json", "http://127.0.0.1:44100/cb", "no client_name"},
		{"/bad-redirect.json", "http://evil.example/cb", "must use https"},
		{"/big.json", "http://127.0.0.1:44100/cb", "larger than"},
		{"/redirect.json", "http://127.0.0.1:44100/cb", "could not be fetched"},
		{"/missing.json", "http://127.0.0.1:44100/cb", "could not be fetched"},
		{"/", "http://127.0.0.1:44100/cb", "with a path"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			h := h.with(t)
			dc := &appClient{id: docs.srv.URL + tc.path, redirectURI: tc.redirect}
			resp, body := newBrowser(t).get(h.authorizeURL(dc, nil))
			if resp.StatusCode != 400 || resp.Header.Get("Location") != "" || !strings.Contains(body, tc.want) {
				t.Fatalf("answered %s; want a 400 page saying %q:\n%s", resp.Status, tc.want, body)
			}
		})
	}
}

// Without the test switch, a document on a loopback address is not fetched.
func TestClientMetadataFetchRefusesPrivateAddresses(t *testing.T) {
	docs := newClientDocs(t)
	h := newHarness(t, harnessOpts{edit: func(c *Config) {
		c.ClientMetadata = FetchOptions{TLSConfig: docs.tlsConfig()}
	}})
	c := &appClient{id: docs.srv.URL + "/good.json", redirectURI: "http://127.0.0.1:44100/cb"}
	resp, body := newBrowser(t).get(h.authorizeURL(c, nil))
	if resp.StatusCode != 400 || !strings.Contains(body, "could not be fetched") || !strings.Contains(h.logs.String(), "refused before connecting: loopback") {
		t.Fatalf("a document on loopback: %s\n%s", resp.Status, body)
	}
	if n := docs.fetches.Load(); n != 0 {
		t.Fatalf("the loopback document was fetched %d times", n)
	}
	// Nor through a name that resolves to loopback.
	c.id = strings.Replace(docs.srv.URL, "127.0.0.1", "localhost", 1) + "/good.json"
	resp, body = newBrowser(t).get(h.authorizeURL(c, nil))
	if resp.StatusCode != 400 || !strings.Contains(body, "could not be fetched") {
		t.Fatalf("a document on localhost: %s\n%s", resp.Status, body)
	}
}

func TestPrivateAddress(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "::ffff:127.0.0.1": "loopback",
		"10.1.2.3": "private", "172.16.0.1": "private", "192.168.0.10": "private", "fd00::1": "unique-local",
		"100.64.0.1": "shared (CGNAT)", "169.254.169.254": "link-local", "fe80::1": "link-local",
		"0.0.0.0": "this-network", "239.1.1.1": "multicast", "224.0.0.1": "multicast", "255.255.255.255": "broadcast",
		"64:ff9b::a00:1": "NAT64", "2002:c0a8::1": "6to4", "::c0a8:1": "IPv4-compatible", "198.19.0.1": "benchmarking",
		"240.1.1.1": "reserved", "4000::1": "unassigned IPv6",
		"93.184.216.34": "", "2606:2800:220:1::1": "", "::ffff:93.184.216.34": "IPv4-mapped",
	} {
		if got := privateAddress(netip.MustParseAddr(addr)); got != want {
			t.Errorf("privateAddress(%s) = %q, want %q", addr, got, want)
		}
	}
}

func TestRedirectMatches(t *testing.T) {
	for _, tc := range []struct {
		registered, requested string
		want                  bool
	}{
		{"https://a.example/cb", "https://a.example/cb", true},
		{"https://a.example/cb", "https://a.example/cb/", false},
		{"https://a.example/cb", "https://a.example:8443/cb", false},
		{"https://a.example/cb", "https://A.example/cb", false},
		{"http://127.0.0.1/cb", "http://127.0.0.1:5555/cb", true},
		{"http://127.0.0.1:1/cb", "http://127.0.0.1:5555/cb", true},
		{"http://localhost:3000/cb", "http://localhost:4000/cb", true},
		{"http://[::1]:3000/cb", "http://[::1]:4000/cb", true},
		{"http://127.0.0.1/cb", "http://127.0.0.2/cb", false},
		{"http://127.0.0.1/cb", "http://127.0.0.1:5555/cb?x=1", false},
		{"http://127.0.0.1/cb", "http://127.0.0.1:5555/other", false},
		{"http://localhost/cb", "http://127.0.0.1/cb", false},
	} {
		if got := redirectMatches(tc.registered, tc.requested); got != tc.want {
			t.Errorf("redirectMatches(%q, %q) = %v, want %v", tc.registered, tc.requested, got, tc.want)
		}
	}
}

func TestCacheAge(t *testing.T) {
	for cc, want := range map[string]time.Duration{
		"": time.Hour, "max-age=600": 10 * time.Minute, "public, max-age=5": time.Minute,
		"max-age=999999": 24 * time.Hour, "no-store": 0, "no-cache, max-age=600": 0,
	} {
		if got := cacheAge(cc); got != want {
			t.Errorf("cacheAge(%q) = %s, want %s", cc, got, want)
		}
	}
}
