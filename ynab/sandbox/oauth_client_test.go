package sandbox_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// golang.org/x/oauth2, the client a Go application signing people in with YNAB would use,
// goes through the sandbox's OAuth unchanged: PKCE, the code exchange (its HTTP Basic first),
// the token's expiry, an authorised client, and a refresh when the token has expired.
func TestOAuthWithGoOAuth2(t *testing.T) {
	e := newOAuthEnv(t, sandbox.Options{})
	cfg := &oauth2.Config{ClientID: appID, ClientSecret: appSecret, RedirectURL: e.redirectURI,
		Endpoint: oauth2.Endpoint{AuthURL: e.srv.AuthorizeURL(), TokenURL: e.srv.TokenURL()}}
	verifier := oauth2.GenerateVerifier()
	action, fields := e.consent(cfg.AuthCodeURL("st-123", oauth2.S256ChallengeOption(verifier)))
	q := e.answer(action, fields, "carol", "authorize")
	if q.Get("state") != "st-123" {
		t.Fatalf("the redirect has state %q", q.Get("state"))
	}

	ctx := context.Background()
	tok, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	if left := time.Until(tok.Expiry); tok.RefreshToken == "" || tok.Type() != "Bearer" || left < 119*time.Minute || left > 121*time.Minute {
		t.Errorf("x/oauth2 read the token as type %q, refresh %t, expiring in %s; want a bearer token for 2 hours with a refresh token",
			tok.Type(), tok.RefreshToken != "", left)
	}
	carol := sandbox.UserPlanID("carol", sandbox.PlanID)
	get := func(c *http.Client) int {
		t.Helper()
		res, err := c.Get(e.srv.URL + "/plans/" + carol + "/accounts")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if status := get(cfg.Client(ctx, tok)); status != http.StatusOK {
		t.Fatalf("GET Carol's accounts with x/oauth2's client: %d", status)
	}

	if _, err := e.sb.ExpireTokens(); err != nil {
		t.Fatal(err)
	}
	stale := *tok
	if status := get(oauth2.NewClient(ctx, oauth2.StaticTokenSource(&stale))); status != http.StatusUnauthorized {
		t.Errorf("an expired token: %d, want 401", status)
	}
	stale.Expiry = time.Now().Add(-time.Minute) // what the client knows once the API said 401
	ts := cfg.TokenSource(ctx, &stale)
	fresh, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	if fresh.AccessToken == tok.AccessToken || fresh.RefreshToken == tok.RefreshToken {
		t.Error("the refresh did not rotate the tokens")
	}
	if status := get(oauth2.NewClient(ctx, ts)); status != http.StatusOK {
		t.Errorf("GET Carol's accounts after the refresh: %d", status)
	}
}
