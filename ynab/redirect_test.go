package ynab

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// everyHop sets the token on each request it carries, as hosted mode's auth.Transport does (it
// refreshes the person's YNAB token and sets it per request).
type everyHop struct{ token string }

func (t everyHop) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return http.DefaultTransport.RoundTrip(r)
}

// A YNAB URL that answers with a redirect to another host (a compromised or mistyped endpoint, a
// proxy) must not receive the person's token there (issue 30 #9): neither with the client's own
// token nor through a transport that sets it on every request.
func TestTokenNeverFollowsARedirectToAnotherHost(t *testing.T) {
	var leaked atomic.Int32
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Authorization"), secretToken) {
			leaked.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":{"user":{"id":"collector"}}}`))
	}))
	defer collector.Close()
	// The collector is reached by another host name than the API (localhost, not 127.0.0.1).
	elsewhere := strings.Replace(collector.URL, "127.0.0.1", "localhost", 1)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/user":
			http.Redirect(w, r, elsewhere+"/steal", http.StatusFound)
		case "/v1/moved":
			http.Redirect(w, r, "/v1/here", http.StatusTemporaryRedirect)
		case "/v1/here":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"data":{"user":{"id":"same-host"}}}`))
		}
	}))
	defer api.Close()

	for name, opts := range map[string]Options{
		"the client's token":             {BaseURL: api.URL + "/v1", Token: secretToken},
		"a transport setting it per hop": {BaseURL: api.URL + "/v1", HTTPClient: &http.Client{Transport: everyHop{secretToken}}},
	} {
		t.Run(name, func(t *testing.T) {
			c := New(opts)
			if _, err := c.GetUser(context.Background()); err == nil {
				t.Fatal("a redirect to another host was followed as if YNAB had answered")
			}
			if n := leaked.Load(); n != 0 {
				t.Fatalf("the token reached another host %d times", n)
			}
			// A redirect within YNAB's own origin is still followed.
			var u struct {
				User struct{ ID string } `json:"user"`
			}
			if err := c.get(context.Background(), "/moved", nil, &u); err != nil || u.User.ID != "same-host" {
				t.Fatalf("a redirect on the same host: %+v %v", u, err)
			}
		})
	}
}

// http YNAB URLs only on loopback (issue 30 #10).
func TestCheckBaseURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://api.ynab.com/v1": true, "http://127.0.0.1:8080/v1": true, "http://localhost:9/v1": true, "http://[::1]:9/v1": true,
		"http://api.ynab.com/v1": false, "http://10.0.0.2/v1": false, "ftp://api.ynab.com/v1": false, "https://u:p@api.ynab.com/v1": false,
		"http://127.0.0.1.evil.example/v1": false,
	} {
		err := CheckBaseURL("AVENIR_MCP_YNAB_URL", raw)
		if (err == nil) != ok || (err != nil && !strings.Contains(err.Error(), "AVENIR_MCP_YNAB_URL")) {
			t.Errorf("CheckBaseURL(%q) = %v; want ok %v, naming the setting", raw, err, ok)
		}
	}
}
