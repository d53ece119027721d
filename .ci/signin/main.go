// Command signin is the MCP client packaging/container/test.sh signs in to a running avenir
// hosted with, as an app would: from the 401 of /mcp to the protected-resource metadata
// (RFC 9728), the authorization server's metadata (RFC 8414), dynamic registration (RFC 7591),
// the authorization request with PKCE S256 and the resource (RFC 8707), avenir's consent page,
// the sign-in and consent page of the YNAB it was given (the sandbox's, under a login name), the
// callbacks, the code exchanged for a token, then MCP over Streamable HTTP with that token:
// tools/list and one tool call. It exits non-zero, naming the step, at the first answer that is
// not what a client expects.
//
// It is a test tool, not part of avenir: it follows redirects by hand and reads the consent
// pages' forms, which only avenir's and the sandbox's pages are known to have.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	mcpURL := flag.String("mcp", "http://127.0.0.1:8080/mcp", "avenir's MCP endpoint")
	login := flag.String("login", "container-test", "the login name given to the sandbox's YNAB sign-in")
	wantPlan := flag.String("want-plan", "Huishouden", "a plan name list_plans must answer")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, *mcpURL, *login, *wantPlan); err != nil {
		fmt.Fprintln(os.Stderr, "signin:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, mcpURL, login, wantPlan string) error {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return err
	}
	// The browser: one cookie jar, redirects taken one at a time so each hop is checked.
	b := &browser{ctx: ctx, c: &http.Client{Jar: jar, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}

	// 1. An unauthenticated MCP request: 401 naming the resource metadata.
	resp, body, err := b.do("POST", mcpURL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		return err
	}
	challenge := resp.Header.Get("WWW-Authenticate")
	m := regexp.MustCompile(`resource_metadata="([^"]+)"`).FindStringSubmatch(challenge)
	if resp.StatusCode != http.StatusUnauthorized || m == nil {
		return fmt.Errorf("POST %s without a token answered %s, WWW-Authenticate %q, want 401 with resource_metadata: %s", mcpURL, resp.Status, challenge, body)
	}
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := b.getJSON(m[1], &prm); err != nil {
		return err
	}
	if prm.Resource != mcpURL || len(prm.AuthorizationServers) != 1 {
		return fmt.Errorf("protected-resource metadata %s: resource %q, authorization servers %q; want %q and one server", m[1], prm.Resource, prm.AuthorizationServers, mcpURL)
	}
	fmt.Printf("ok   protected-resource metadata: resource %s, authorization server %s\n", prm.Resource, prm.AuthorizationServers[0])

	// 2. The authorization server's metadata.
	var as struct {
		Issuer                string   `json:"issuer"`
		AuthorizationEndpoint string   `json:"authorization_endpoint"`
		TokenEndpoint         string   `json:"token_endpoint"`
		RegistrationEndpoint  string   `json:"registration_endpoint"`
		CodeChallengeMethods  []string `json:"code_challenge_methods_supported"`
	}
	if err := b.getJSON(prm.AuthorizationServers[0]+"/.well-known/oauth-authorization-server", &as); err != nil {
		return err
	}
	if as.Issuer != prm.AuthorizationServers[0] || as.RegistrationEndpoint == "" || !slices.Contains(as.CodeChallengeMethods, "S256") {
		return fmt.Errorf("authorization server metadata: issuer %q, registration %q, PKCE methods %q", as.Issuer, as.RegistrationEndpoint, as.CodeChallengeMethods)
	}

	// 3. Dynamic registration of a public client.
	redirect := "http://127.0.0.1:1/callback"
	reg, _ := json.Marshal(map[string]any{"client_name": "avenir container test", "redirect_uris": []string{redirect},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}})
	resp, body, err = b.do("POST", as.RegistrationEndpoint, "application/json", bytes.NewReader(reg))
	if err != nil {
		return err
	}
	var client struct {
		ClientID string `json:"client_id"`
	}
	if resp.StatusCode != http.StatusCreated || json.Unmarshal([]byte(body), &client) != nil || client.ClientID == "" {
		return fmt.Errorf("registration answered %s: %s", resp.Status, body)
	}
	fmt.Printf("ok   registered client %s\n", client.ClientID)

	// 4. The authorization request, avenir's consent, YNAB's (the sandbox's) sign-in and consent.
	vb := make([]byte, 32)
	rand.Read(vb)
	verifier := base64.RawURLEncoding.EncodeToString(vb)
	sum := sha256.Sum256([]byte(verifier))
	state := base64.RawURLEncoding.EncodeToString(vb[:8])
	q := url.Values{"response_type": {"code"}, "client_id": {client.ClientID}, "redirect_uri": {redirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"state": {state}, "resource": {mcpURL}}
	resp, body, err = b.do("GET", as.AuthorizationEndpoint+"?"+q.Encode(), "", nil)
	if err != nil {
		return err
	}
	req := regexp.MustCompile(`name="request" value="([^"]+)"`).FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || req == nil {
		return fmt.Errorf("avenir's consent page answered %s: %.500s", resp.Status, body)
	}
	form := url.Values{"request": {html.UnescapeString(req[1])}, "decision": {"allow"}}
	toYNAB, err := b.redirect("POST", as.Issuer+"/oauth/consent", form)
	if err != nil {
		return fmt.Errorf("avenir's consent: %w", err)
	}
	resp, body, err = b.do("GET", toYNAB.String(), "", nil)
	if err != nil {
		return err
	}
	form = url.Values{"user": {login}, "decision": {"authorize"}}
	for _, f := range regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindAllStringSubmatch(body, -1) {
		form.Set(html.UnescapeString(f[1]), html.UnescapeString(f[2]))
	}
	if resp.StatusCode != http.StatusOK || form.Get("client_id") == "" {
		return fmt.Errorf("YNAB's sign-in page %s answered %s: %.500s", toYNAB, resp.Status, body)
	}
	toYNAB.RawQuery = ""
	callback, err := b.redirect("POST", toYNAB.String(), form)
	if err != nil {
		return fmt.Errorf("YNAB's consent: %w", err)
	}
	back, err := b.redirect("GET", callback.String(), nil)
	if err != nil {
		return fmt.Errorf("avenir's YNAB callback: %w", err)
	}
	bq := back.Query()
	if !strings.HasPrefix(back.String(), redirect) || bq.Get("state") != state || bq.Get("iss") != as.Issuer || bq.Get("code") == "" {
		return fmt.Errorf("back at the client with %s, want %s with the state, the issuer and a code", back, redirect)
	}
	fmt.Printf("ok   signed in as %q through YNAB's sign-in at %s://%s\n", login, toYNAB.Scheme, toYNAB.Host)

	// 5. The token.
	tf := url.Values{"grant_type": {"authorization_code"}, "code": {bq.Get("code")}, "redirect_uri": {redirect},
		"client_id": {client.ClientID}, "code_verifier": {verifier}, "resource": {mcpURL}}
	resp, body, err = b.do("POST", as.TokenEndpoint, "application/x-www-form-urlencoded", strings.NewReader(tf.Encode()))
	if err != nil {
		return err
	}
	var tok struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &tok) != nil || tok.AccessToken == "" {
		return fmt.Errorf("the token endpoint answered %s", resp.Status) // the body may hold a token
	}
	fmt.Printf("ok   token (%s)\n", tok.TokenType)

	// 6. MCP with the token.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "avenir-container-test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: mcpURL, HTTPClient: &http.Client{Transport: bearer(tok.AccessToken), Timeout: 30 * time.Second},
			DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		return fmt.Errorf("MCP initialize with the token: %w", err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_plans", Arguments: map[string]any{}})
	if err != nil {
		return fmt.Errorf("list_plans: %w", err)
	}
	out, _ := json.Marshal(res)
	if res.IsError || !strings.Contains(string(out), wantPlan) {
		return fmt.Errorf("list_plans answered without the plan %q: %.1000s", wantPlan, out)
	}
	fmt.Printf("ok   MCP: %d tools, list_plans names %q\n", len(tools.Tools), wantPlan)
	return nil
}

type browser struct {
	ctx context.Context
	c   *http.Client
}

// do sends one request and reads its whole answer.
func (b *browser) do(method, u, contentType string, body io.Reader) (*http.Response, string, error) {
	req, err := http.NewRequestWithContext(b.ctx, method, u, body)
	if err != nil {
		return nil, "", fmt.Errorf("%s %s: %w", method, u, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if contentType == "application/x-www-form-urlencoded" {
		// A form posted from the page it is on: a browser sends that page's origin, which avenir
		// checks on its consent form.
		req.Header.Set("Origin", req.URL.Scheme+"://"+req.URL.Host)
	}
	if strings.Contains(u, "/mcp") {
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	resp, err := b.c.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("%s %s: %w", method, u, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", fmt.Errorf("%s %s: reading the answer: %w", method, u, err)
	}
	return resp, string(data), nil
}

// redirect sends a GET, or a POST of form, that must answer with a redirect, and returns where.
func (b *browser) redirect(method, u string, form url.Values) (*url.URL, error) {
	var body io.Reader
	ct := ""
	if form != nil {
		body, ct = strings.NewReader(form.Encode()), "application/x-www-form-urlencoded"
	}
	resp, data, err := b.do(method, u, ct, body)
	if err != nil {
		return nil, err
	}
	loc, err := resp.Location()
	if resp.StatusCode/100 != 3 || err != nil {
		return nil, fmt.Errorf("%s %s answered %s, want a redirect: %.500s", method, u, resp.Status, data)
	}
	return loc, nil
}

func (b *browser) getJSON(u string, v any) error {
	resp, body, err := b.do("GET", u, "", nil)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s answered %s: %.500s", u, resp.Status, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return nil
}

// bearer adds the access token to every request, as an MCP client's auth provider does.
type bearer string

func (t bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if t == "" {
		return nil, errors.New("no token")
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(t))
	return http.DefaultTransport.RoundTrip(r)
}
