package hosted_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/avenir-mcp/avenir/auth"
	"github.com/avenir-mcp/avenir/hosted"
	"github.com/avenir-mcp/avenir/hosted/hostedtest"
	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// avenir hosted signed in to by the TypeScript MCP SDK 1.x's own OAuth client, the one most
// web and desktop apps are built on: testdata/hosted-ts/hosted_client.mjs gives the SDK's
// StreamableHTTPClientTransport an OAuthClientProvider and plays the person at the browser,
// and everything else — discovery, dynamic registration, PKCE, the code exchange, the refresh
// after a 401 — is the SDK's. The deployment is TestHosted's (hostedEnv: a real PostgreSQL, the
// sandbox playing YNAB and its OAuth).

// hostedTSRun is what one run of hosted_client.mjs printed.
type hostedTSRun struct {
	Login         string `json:"login"`
	ClientID      string `json:"client_id"`
	Registered    bool   `json:"registered"`
	Authorization *struct {
		ClientID            string `json:"client_id"`
		RedirectURI         string `json:"redirect_uri"`
		ResponseType        string `json:"response_type"`
		CodeChallenge       string `json:"code_challenge"`
		CodeChallengeMethod string `json:"code_challenge_method"`
		CodeVerifier        string `json:"code_verifier"`
		Resource            string `json:"resource"`
		Iss                 string `json:"iss"`
	} `json:"authorization"`
	Pages []string `json:"pages"`
	OAuth []struct {
		Method    string `json:"method"`
		Path      string `json:"path"`
		GrantType string `json:"grant_type"`
		Status    int    `json:"status"`
	} `json:"oauth"`
	Unauthorized int            `json:"unauthorized"`
	Protocol     string         `json:"protocol"`
	Tools        []string       `json:"tools"`
	Plans        []hostedTSPlan `json:"plans"`
	Write        struct {
		First       string `json:"first"`
		Status      string `json:"status"`
		OperationID string `json:"operation_id"`
	} `json:"write"`
}

type hostedTSPlan struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// oauthCalls lists the run's requests to the authorization server as "METHOD PATH [grant] STATUS".
func (r hostedTSRun) oauthCalls() []string {
	var out []string
	for _, c := range r.OAuth {
		s := c.Method + " " + c.Path
		if c.GrantType != "" {
			s += " " + c.GrantType
		}
		out = append(out, s+" "+http.StatusText(c.Status))
	}
	return out
}

// hostedTSState is the script's STATE_FILE: what the app keeps between runs.
type hostedTSState struct {
	Client struct {
		ClientID string `json:"client_id"`
	} `json:"client"`
	Tokens struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	} `json:"tokens"`
}

// hostedTSClient returns the directory where testdata/hosted-ts's packages are installed, with
// the script copied in (Node finds the packages from the script's own directory). Without node
// or the packages the test is skipped, except in CI, where it fails.
func hostedTSClient(t *testing.T) (dir, script string) {
	t.Helper()
	missing := func(why string) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatal(why + ": .ci/run installs testdata/hosted-ts's packages and sets AVENIR_HOSTED_TS_CLIENT")
		}
		t.Skip(why + " (see .ci/run: npm ci of testdata/hosted-ts into a directory named by AVENIR_HOSTED_TS_CLIENT)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing("node is not on PATH")
	}
	dir = os.Getenv("AVENIR_HOSTED_TS_CLIENT")
	if dir == "" {
		missing("AVENIR_HOSTED_TS_CLIENT is not set")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		missing("AVENIR_HOSTED_TS_CLIENT=" + dir + " has no installed SDK")
	}
	src, err := os.ReadFile(filepath.Join("testdata", "hosted-ts", "hosted_client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	script = filepath.Join(dir, "hosted_client.mjs")
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, script
}

func TestHostedTSOAuth(t *testing.T) {
	dir, script := hostedTSClient(t)
	e := hostedtest.New(t)
	a := e.Start()
	mcpURL := e.Public + "/mcp"
	ctx := context.Background()
	db, err := pgxpool.New(ctx, e.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	start := time.Now().Add(-time.Second)
	states := t.TempDir()

	run := func(t *testing.T, login, amount string, urlAndMode ...string) hostedTSRun {
		t.Helper()
		url, mode := mcpURL, "code"
		if len(urlAndMode) == 2 {
			url, mode = urlAndMode[0], urlAndMode[1]
		}
		cmd := exec.Command("node", script, url, login, filepath.Join(states, login+".json"), amount, mode)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node hosted_client.mjs %s: %v\n%s\navenir's log:\n%s", login, err, stderr.String(), e.Logs)
		}
		var r hostedTSRun
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		t.Logf("%s, protocol %s: %q", login, r.Protocol, r.oauthCalls())
		return r
	}
	state := func(t *testing.T, login string) hostedTSState {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(states, login+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var s hostedTSState
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	// mcpStatus is what avenir answers a tools/list with token.
	mcpStatus := func(t *testing.T, token string) int {
		t.Helper()
		req, err := http.NewRequest("POST", mcpURL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	ynabRefreshed := func(t *testing.T, person int64) time.Time {
		t.Helper()
		var at time.Time
		if err := db.QueryRow(ctx, `SELECT updated_at FROM auth.ynab_grants WHERE person_id = $1`, person).Scan(&at); err != nil {
			t.Fatal(err)
		}
		return at
	}
	// written checks that op is in person's journal, of set_category_budget on login's plan,
	// confirmed by code from this client, and in no one else's journal.
	written := func(t *testing.T, login, op string, person, other int64) {
		t.Helper()
		got, err := hosted.JournalFor(a.Server, person).Get(ctx, op)
		if err != nil {
			t.Fatalf("%s's journal: %v", login, err)
		}
		if got.Tool != "set_category_budget" || got.PlanID != sandbox.UserPlanID(login, sandbox.PlanID) || got.Status != journal.StatusApplied ||
			got.ConfirmedVia != "code" || got.Client.Name != "avenir-hosted-ts" {
			t.Fatalf("%s's journal holds %s: tool %s, plan %s, status %s, confirmed via %s, client %q", login, op, got.Tool, got.PlanID, got.Status, got.ConfirmedVia, got.Client.Name)
		}
		if _, err := hosted.JournalFor(a.Server, other).Get(ctx, op); err == nil {
			t.Fatalf("%s's operation %s is in another person's journal", login, op)
		}
	}
	journalSize := func(t *testing.T, person int64) int {
		t.Helper()
		ops, err := hosted.JournalFor(a.Server, person).List(ctx, journal.Filter{Since: start, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return len(ops)
	}

	people := map[string]int64{}
	ops := map[string][]string{}
	// What each person's Restaurants holds this month, once their copy of the sample exists (the
	// sandbox makes it at their first sign-in).
	restaurants := map[string]int64{}
	other := map[string]string{"alice": "bob", "bob": "alice"}

	t.Run("each signs in through the SDK's OAuth and writes to their own plan", func(t *testing.T) {
		for _, c := range []struct {
			login, amount string
			milli         int64
		}{{"alice", "123.45", 123450}, {"bob", "67.89", 67890}} {
			r := run(t, c.login, c.amount)
			// The SDK met the 401, discovered, registered, sent the person to sign in, and traded
			// the code — in that order, each answered.
			want := []string{
				"GET /.well-known/oauth-protected-resource/mcp OK",
				"GET /.well-known/oauth-authorization-server OK",
				"POST /oauth/register Created",
				"POST /oauth/token authorization_code OK",
			}
			if got := r.oauthCalls(); !slices.Equal(got, want) || !r.Registered || r.Unauthorized != 1 {
				t.Fatalf("%s's OAuth requests: %q, registered %v, %d 401s; want %q, registered, one 401", c.login, got, r.Registered, r.Unauthorized, want)
			}
			au := r.Authorization
			if au == nil {
				t.Fatalf("%s was not sent to sign in", c.login)
			}
			sum := sha256.Sum256([]byte(au.CodeVerifier))
			if au.CodeChallengeMethod != "S256" || au.CodeVerifier == "" || au.CodeChallenge != base64.RawURLEncoding.EncodeToString(sum[:]) {
				t.Fatalf("%s's authorization URL: code_challenge_method %q, challenge %q of verifier %q; want S256 of the verifier", c.login, au.CodeChallengeMethod, au.CodeChallenge, au.CodeVerifier)
			}
			if au.ClientID != r.ClientID || au.ResponseType != "code" || au.Resource != mcpURL || au.Iss != e.Public {
				t.Fatalf("%s's authorization: %+v; want client %s, code, resource %s, and iss %s on the way back", c.login, au, r.ClientID, mcpURL, e.Public)
			}
			if u, err := url.Parse(au.RedirectURI); err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" {
				t.Fatalf("%s's redirect URI %q; want a loopback one", c.login, au.RedirectURI)
			}
			// The person saw avenir's consent page naming the client, then YNAB's (the sandbox's).
			if len(r.Pages) != 2 || r.Pages[0] != "Connect avenir hosted-ts test ("+c.login+") to your YNAB plans?" || r.Pages[1] != "Authorize "+hostedtest.ClientID {
				t.Fatalf("%s was shown the pages %q; want avenir's consent, then the sandbox's", c.login, r.Pages)
			}
			// avenir holds the registration as the SDK sent it, and the code it issued was bound
			// to the challenge and spent.
			var kind, method, name string
			var redirects []string
			if err := db.QueryRow(ctx, `SELECT kind, auth_method, name, redirect_uris FROM auth.clients WHERE client_id = $1`, r.ClientID).
				Scan(&kind, &method, &name, &redirects); err != nil {
				t.Fatalf("%s's client %s in auth.clients: %v", c.login, r.ClientID, err)
			}
			if kind != "registered" || method != "none" || name != "avenir hosted-ts test ("+c.login+")" || !slices.Equal(redirects, []string{au.RedirectURI}) {
				t.Fatalf("%s's client is %s, %s, %q, %q; want registered, public, its name and its redirect URI", c.login, kind, method, name, redirects)
			}
			var challenge string
			var person int64
			var spent bool
			if err := db.QueryRow(ctx, `SELECT code_challenge, person_id, used_at IS NOT NULL FROM auth.codes WHERE client_id = $1`, r.ClientID).
				Scan(&challenge, &person, &spent); err != nil {
				t.Fatalf("%s's code in auth.codes: %v", c.login, err)
			}
			if challenge != au.CodeChallenge || !spent {
				t.Fatalf("%s's code: challenge %q, spent %v; want %q, spent", c.login, challenge, spent, au.CodeChallenge)
			}
			people[c.login] = person

			if !slices.Contains(r.Tools, "list_plans") || !slices.Contains(r.Tools, "set_category_budget") {
				t.Fatalf("%s's tools: %v", c.login, r.Tools)
			}
			own, theirs := sandbox.UserPlanID(c.login, sandbox.PlanID), sandbox.UserPlanID(other[c.login], sandbox.PlanID)
			if !slices.ContainsFunc(r.Plans, func(p hostedTSPlan) bool { return p.ID == own && p.Name != "" }) {
				t.Fatalf("%s sees plans %+v; want their own copy %s", c.login, r.Plans, own)
			}
			for _, p := range r.Plans {
				if p.ID == theirs {
					t.Fatalf("%s sees %s's plan %s", c.login, other[c.login], theirs)
				}
			}
			if r.Write.First != "confirmation_required" || r.Write.Status != "applied" || r.Write.OperationID == "" {
				t.Fatalf("%s's write: %+v; want confirmation_required, then applied with an operation", c.login, r.Write)
			}
			ops[c.login] = append(ops[c.login], r.Write.OperationID)
			restaurants[c.login] = c.milli
			for who, want := range restaurants {
				if got := e.Assigned(who, "Restaurants"); got != want {
					t.Fatalf("after %s's write %s's Restaurants holds %d, want %d", c.login, who, got, want)
				}
			}
		}
		if people["alice"] == people["bob"] {
			t.Fatalf("alice and bob are one person (%d) at avenir", people["alice"])
		}
		for login, person := range people {
			written(t, login, ops[login][0], person, people[other[login]])
			if n := journalSize(t, person); n != 1 {
				t.Fatalf("%s's journal holds %d operations; want their one", login, n)
			}
		}
	})
	if t.Failed() {
		return
	}

	t.Run("the saved tokens are refreshed, avenir's and YNAB's", func(t *testing.T) {
		before := map[string]hostedTSState{"alice": state(t, "alice"), "bob": state(t, "bob")}
		// Alice's app revoked its access token (RFC 7009, as a public client); Bob's expired.
		resp, err := http.PostForm(e.Public+"/oauth/revoke", url.Values{"token": {before["alice"].Tokens.AccessToken}, "client_id": {before["alice"].Client.ClientID}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("revoking Alice's access token: %s", resp.Status)
		}
		tag, err := db.Exec(ctx, `UPDATE auth.tokens SET expires_at = now() - interval '1 second' WHERE kind = 'access' AND client_id = $1`, before["bob"].Client.ClientID)
		if err != nil || tag.RowsAffected() != 1 {
			t.Fatalf("expiring Bob's access token: %v, %d rows", err, tag.RowsAffected())
		}
		for login, s := range before {
			if got := mcpStatus(t, s.Tokens.AccessToken); got != http.StatusUnauthorized {
				t.Fatalf("%s's old access token answered %d; want 401", login, got)
			}
		}
		// And YNAB's tokens of everyone expired.
		req, _ := http.NewRequest("POST", e.SandboxOrigin+"/_sandbox/oauth/expire", nil)
		req.Header.Set("Authorization", "Bearer control") // any token: the sandbox has none of its own
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("expiring the sandbox's tokens: %s", resp.Status)
		}
		const ynabToken = `avenir_ynab_requests_total{endpoint="oauth",method="POST",status="2xx"}`
		ynabRefreshes := e.Metric(a, ynabToken)
		ynabBefore := map[string]time.Time{"alice": ynabRefreshed(t, people["alice"]), "bob": ynabRefreshed(t, people["bob"])}

		for _, c := range []struct {
			login, amount string
			milli         int64
		}{{"alice", "111.11", 111110}, {"bob", "22.22", 22220}} {
			r := run(t, c.login, c.amount)
			want := []string{
				"GET /.well-known/oauth-protected-resource/mcp OK",
				"GET /.well-known/oauth-authorization-server OK",
				"POST /oauth/token refresh_token OK",
			}
			if got := r.oauthCalls(); !slices.Equal(got, want) || r.Registered || r.Authorization != nil || len(r.Pages) != 0 || r.Unauthorized != 1 {
				t.Fatalf("%s's second run: OAuth requests %q, registered %v, sent to sign in %v, pages %q, %d 401s; want only %q after one 401",
					c.login, got, r.Registered, r.Authorization != nil, r.Pages, r.Unauthorized, want)
			}
			after := state(t, c.login)
			if r.ClientID != before[c.login].Client.ClientID || after.Tokens.AccessToken == before[c.login].Tokens.AccessToken ||
				after.Tokens.RefreshToken == before[c.login].Tokens.RefreshToken || after.Tokens.RefreshToken == "" {
				t.Fatalf("%s's second run: client %s (was %s); want the same client with a new access token and a rotated refresh token",
					c.login, r.ClientID, before[c.login].Client.ClientID)
			}
			var spent bool
			if err := db.QueryRow(ctx, `SELECT used_at IS NOT NULL FROM auth.tokens WHERE token_hash = $1`, hashOf(t, e.Key, before[c.login].Tokens.RefreshToken)).Scan(&spent); err != nil || !spent {
				t.Fatalf("%s's first refresh token: spent %v, %v; want it spent by the refresh", c.login, spent, err)
			}
			if r.Write.First != "confirmation_required" || r.Write.Status != "applied" || r.Write.OperationID == "" || slices.Contains(ops[c.login], r.Write.OperationID) {
				t.Fatalf("%s's second write: %+v; want confirmation_required, then applied with a new operation", c.login, r.Write)
			}
			ops[c.login] = append(ops[c.login], r.Write.OperationID)
			restaurants[c.login] = c.milli
			for who, want := range restaurants {
				if got := e.Assigned(who, "Restaurants"); got != want {
					t.Fatalf("after %s's second write %s's Restaurants holds %d, want %d", c.login, who, got, want)
				}
			}
			written(t, c.login, r.Write.OperationID, people[c.login], people[other[c.login]])
			if got := ynabRefreshed(t, people[c.login]); !got.After(ynabBefore[c.login]) {
				t.Fatalf("%s's YNAB grant was last stored %s, as before the expiry; want it refreshed", c.login, got)
			}
		}
		if got := e.Metric(a, ynabToken) - ynabRefreshes; got < 2 {
			t.Fatalf("YNAB's token endpoint was asked %v times after the expiry; want a refresh for each person", got)
		}
		for login, person := range people {
			if n := journalSize(t, person); n != 2 {
				t.Fatalf("%s's journal holds %d operations; want their two", login, n)
			}
		}
	})

	t.Run("on a card host, through another instance, the card's answer writes", func(t *testing.T) {
		b := e.Start() // a second instance on the same database; the public URL stays A's
		r := run(t, "alice", "22.22", b.URL+"/mcp", "card")
		if r.Write.First != "confirmation_pending" || r.Write.Status != "applied" || r.Write.OperationID == "" {
			t.Fatalf("alice's card write through instance B: %+v; want confirmation_pending, then applied", r.Write)
		}
		if got := e.Assigned("alice", "Restaurants"); got != 22220 {
			t.Fatalf("alice's Restaurants holds %d after the card's answer, want 22220", got)
		}
		op, err := hosted.JournalFor(a.Server, people["alice"]).Get(ctx, r.Write.OperationID)
		if err != nil || op.ConfirmedVia != "app" || op.Status != journal.StatusApplied {
			t.Fatalf("alice's card write in the journal instance A reads: %+v, %v; want applied, confirmed by app", op, err)
		}
		if got := e.Assigned("bob", "Restaurants"); got != restaurants["bob"] {
			t.Fatalf("alice's card write changed bob's Restaurants: %d", got)
		}
	})

	t.Run("moves through both instances at once conserve money", func(t *testing.T) {
		if len(e.Instances) < 2 {
			t.Skip("needs the second instance of the test before")
		}
		tennis, restaurants := e.Assigned("alice", "Tennis"), e.Assigned("alice", "Restaurants")
		saved, err := os.ReadFile(filepath.Join(states, "alice.json"))
		if err != nil {
			t.Fatal(err)
		}
		const runs = 4
		results := make([]hostedTSRun, runs)
		errs := make([]error, runs)
		var wg sync.WaitGroup
		for i := range runs {
			// Each run its own copy of alice's tokens (each writes its state at the end).
			login := fmt.Sprintf("alice-%d", i)
			if err := os.WriteFile(filepath.Join(states, login+".json"), saved, 0o600); err != nil {
				t.Fatal(err)
			}
			url := e.Instances[i%2].URL + "/mcp"
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command("node", script, url, "alice", filepath.Join(states, login+".json"), "1.00", "move")
				cmd.Dir = dir
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err == nil {
					err = json.Unmarshal(out, &results[i])
				}
				if err != nil {
					errs[i] = fmt.Errorf("%v: %s", err, stderr.String())
				}
			}()
		}
		wg.Wait()
		applied := 0
		for i, r := range results {
			switch {
			case errs[i] != nil:
				t.Logf("run %d: %v", i, errs[i]) // the plan moved between preview and code: asked again, nothing written
			case r.Write.Status == "applied":
				applied++
			}
		}
		gotT, gotR := e.Assigned("alice", "Tennis"), e.Assigned("alice", "Restaurants")
		if applied == 0 || gotT+gotR != tennis+restaurants || gotT != tennis-int64(applied)*1000 {
			t.Fatalf("%d of %d moves applied; Tennis %d → %d, Restaurants %d → %d: money is not conserved to the milliunit", applied, runs, tennis, gotT, restaurants, gotR)
		}
		t.Logf("%d of %d concurrent moves through the TypeScript client applied", applied, runs)
	})
}

// hashOf is how avenir keys a token in auth.tokens: its hash keyed from the secret key.
func hashOf(t *testing.T, secretKey, token string) []byte {
	key, err := auth.ParseSecretKey(secretKey)
	if err != nil {
		t.Fatal(err)
	}
	return auth.CredentialHash(key, token)
}
