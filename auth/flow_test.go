package auth

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"
)

// The whole life of a sign-in: discovery, registration, authorization with PKCE through YNAB's
// consent, the code, the tokens, a request through the middleware, refresh, revocation.
func TestFullFlow(t *testing.T) {
	h := newHarness(t, harnessOpts{})

	// Discovery, as an MCP client does it: 401 → resource metadata → AS metadata.
	resp, _ := h.callMCP("")
	h.wantChallenge(resp, "")
	var prm map[string]any
	getJSON(t, h.url+"/.well-known/oauth-protected-resource/mcp", &prm)
	if prm["resource"] != h.url+"/mcp" || !slices.Equal(toStrings(prm["authorization_servers"]), []string{h.url}) {
		t.Fatalf("protected resource metadata (/mcp) = %v", prm)
	}
	getJSON(t, h.url+"/.well-known/oauth-protected-resource", &prm)
	if prm["resource"] != h.url {
		t.Fatalf("protected resource metadata (root) = %v", prm)
	}
	var asm map[string]any
	getJSON(t, h.url+"/.well-known/oauth-authorization-server", &asm)
	for k, want := range map[string]any{
		"issuer": h.url, "authorization_endpoint": h.url + "/oauth/authorize", "token_endpoint": h.url + "/oauth/token",
		"registration_endpoint": h.url + "/oauth/register", "revocation_endpoint": h.url + "/oauth/revoke",
		"client_id_metadata_document_supported": true, "authorization_response_iss_parameter_supported": true,
	} {
		if asm[k] != want {
			t.Errorf("authorization server metadata %s = %v, want %v", k, asm[k], want)
		}
	}
	for k, want := range map[string][]string{
		"code_challenge_methods_supported":      {"S256"},
		"grant_types_supported":                 {"authorization_code", "refresh_token"},
		"response_types_supported":              {"code"},
		"token_endpoint_auth_methods_supported": {"none", "client_secret_post", "client_secret_basic"},
	} {
		if got := toStrings(asm[k]); !slices.Equal(got, want) {
			t.Errorf("authorization server metadata %s = %v, want %v", k, got, want)
		}
	}

	c := h.publicClient()
	b := newBrowser(t)
	code := h.code(b, c)
	status, out := h.exchange(c, code)
	if status != 200 || out["token_type"] != "Bearer" || out["expires_in"] != float64(3600) {
		t.Fatalf("token answer %d %v", status, out)
	}
	access, refresh := out["access_token"].(string), out["refresh_token"].(string)
	if !wellFormedSecret(access) || !wellFormedSecret(refresh) || access == refresh {
		t.Fatalf("tokens %q %q are not two opaque 32-byte base64url values", access, refresh)
	}

	resp, who := h.callMCP("Bearer " + access)
	if resp.StatusCode != 200 {
		t.Fatalf("MCP call with the access token: %s %v", resp.Status, who)
	}
	pid := int64(who["person_id"].(float64))
	if who["ynab_user_id"] != "user-alice" || who["ynab_says"] != "user-alice" || who["client_id"] != c.id ||
		who["resource"] != h.url+"/mcp" || who["sdk_user"] != strconv.FormatInt(pid, 10) {
		t.Fatalf("the MCP handler saw %v", who)
	}

	// YNAB's two-hour token expires: the token source refreshes it by itself.
	firstYNAB := who["ynab_token"]
	h.clock.Advance(50 * time.Minute)
	status, out = h.refresh(c, refresh)
	if status != 200 {
		t.Fatalf("refresh answered %d %v", status, out)
	}
	access2, refresh2 := out["access_token"].(string), out["refresh_token"].(string)
	if refresh2 == refresh || access2 == access {
		t.Fatal("refresh did not rotate the tokens")
	}
	if status, out := h.refresh(c, refresh); status != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("the spent refresh token was accepted again: %d %v", status, out)
	}
	// Presenting the spent refresh token revoked the grant (RFC 9700 §4.14.2): the tokens of
	// this grant are dead, and the person signs in again.
	resp, _ = h.callMCP("Bearer " + access2)
	h.wantChallenge(resp, "invalid_token")

	b2 := newBrowser(t)
	access3, refresh3 := h.tokens(b2, c)
	h.clock.Advance(2*time.Hour + time.Minute) // past YNAB's 2 hours and avenir's 1 hour since this sign-in
	resp, _ = h.callMCP("Bearer " + access3)
	h.wantChallenge(resp, "invalid_token") // avenir's access token expired
	status, out = h.refresh(c, refresh3)
	if status != 200 {
		t.Fatalf("refresh after expiry: %d %v", status, out)
	}
	access4, refresh4 := out["access_token"].(string), out["refresh_token"].(string)
	before := h.ynab.refreshes()
	resp, who = h.callMCP("Bearer " + access4)
	if resp.StatusCode != 200 || who["ynab_says"] != "user-alice" || who["ynab_token"] == firstYNAB {
		t.Fatalf("after YNAB's token expired: %s %v", resp.Status, who)
	}
	if h.ynab.refreshes() != before+1 {
		t.Fatalf("YNAB saw %d refreshes; want one", h.ynab.refreshes()-before)
	}
	if int64(who["person_id"].(float64)) != pid {
		t.Fatal("signing in again made a second person for the same YNAB user")
	}

	// Revoking the refresh token ends the grant: its access token stops working too.
	if status, out := h.postForm("/oauth/revoke", c, url.Values{"token": {refresh4}, "token_type_hint": {"refresh_token"}}); status != 200 {
		t.Fatalf("revoke answered %d %v", status, out)
	}
	resp, _ = h.callMCP("Bearer " + access4)
	h.wantChallenge(resp, "invalid_token")
	if status, out := h.refresh(c, refresh4); status != 400 || out["error"] != "invalid_grant" {
		t.Fatalf("a revoked refresh token was accepted: %d %v", status, out)
	}
	// Revoking something unknown is not an error (RFC 7009 §2.2).
	if status, _ := h.postForm("/oauth/revoke", c, url.Values{"token": {"nonsense"}}); status != 200 {
		t.Fatalf("revoking an unknown token answered %d", status)
	}
}

// A confidential client (client_secret_basic and client_secret_post) goes through the same
// flow; its secret is required at the token endpoint.
func TestConfidentialClient(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	for _, method := range []string{"client_secret_basic", "client_secret_post"} {
		t.Run(method, func(t *testing.T) {
			h := h.with(t)
			c := h.register(map[string]any{
				"client_name": "Server App", "redirect_uris": []string{"https://app.example.com/cb"},
				"token_endpoint_auth_method": method, "grant_types": []string{"authorization_code"},
			})
			if c.secret == "" {
				t.Fatal("a confidential client got no secret")
			}
			code := h.code(newBrowser(t), c)
			form := url.Values{"grant_type": {"authorization_code"}, "code": {code},
				"redirect_uri": {c.redirectURI}, "code_verifier": {c.verifier}}
			wrong := *c
			wrong.secret = "not-the-secret"
			if status, out := h.token(&wrong, cloneForm(form)); status != 401 || out["error"] != "invalid_client" {
				t.Fatalf("a wrong secret: %d %v", status, out)
			}
			public := *c
			public.secret = ""
			if status, out := h.token(&public, cloneForm(form)); status != 401 || out["error"] != "invalid_client" {
				t.Fatalf("no secret: %d %v", status, out)
			}
			var status int
			var out map[string]any
			if method == "client_secret_post" {
				f := cloneForm(form)
				f.Set("client_id", c.id)
				f.Set("client_secret", c.secret)
				status, out = h.token(&public, f)
			} else {
				status, out = h.token(c, form)
			}
			if status != 200 {
				t.Fatalf("the right secret: %d %v", status, out)
			}
			if _, ok := out["refresh_token"]; ok {
				t.Error("a client that registered only authorization_code got a refresh token")
			}
			resp, _ := h.callMCP("Bearer " + out["access_token"].(string))
			if resp.StatusCode != 200 {
				t.Fatalf("MCP call: %s", resp.Status)
			}
		})
	}
}

func cloneForm(f url.Values) url.Values {
	out := url.Values{}
	for k, v := range f {
		out[k] = append([]string(nil), v...)
	}
	return out
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("GET %s: %s (CORS %q)", u, resp.Status, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
