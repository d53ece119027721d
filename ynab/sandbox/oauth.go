package sandbox

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The sandbox plays YNAB's OAuth when an OAuth application is registered (Options.OAuthClients),
// so that an application that signs people in with YNAB (hosted avenir) is tested without YNAB.
// What it follows, from YNAB's API documentation (https://api.ynab.com/#oauth-applications,
// "OAuth Applications", read as of spec 1.79) and RFC 6749 where YNAB says nothing:
//
//   - GET /oauth/authorize?client_id&redirect_uri&response_type=code[&state][&scope]
//     [&code_challenge&code_challenge_method] asks the person to approve the application. YNAB
//     shows its consent screen to the person signed in; the sandbox shows a form with a login
//     name (any name: each is a user of its own, see users.go) and Authorize and Deny buttons.
//     Authorize redirects to redirect_uri with ?code=…&state=…, Deny with
//     ?error=access_denied&state=… (RFC 6749 §4.1.2, §4.1.2.1).
//   - A request naming no application the sandbox knows, no (or an unregistered) redirect_uri,
//     or a response_type other than code is answered with an error page, never a redirect: the
//     first two because the redirect cannot be trusted (RFC 6749 §4.1.2.1); the last because
//     the sandbox plays only the authorization code grant (YNAB's implicit grant,
//     response_type=token, gives no refresh token and suits no server). Other faults (an
//     unknown scope, a bad PKCE parameter) redirect with the error, as RFC 6749 §4.1.2.1 says.
//   - scope=read-only is YNAB's one scope: a token granted it may only read; a write (POST,
//     PATCH, PUT, DELETE) with it gets 403 (YNAB's error 403.3, unauthorized_scope).
//   - PKCE (RFC 7636) is optional, as on YNAB: code_challenge with code_challenge_method S256
//     (or plain, RFC 7636's default); the token request must then send the code_verifier.
//   - POST /oauth/token, form-encoded (RFC 6749 §3.2), grant_type=authorization_code with
//     client_id, client_secret, redirect_uri and code, or grant_type=refresh_token with
//     client_id, client_secret and refresh_token. The client may authenticate with HTTP Basic
//     instead (RFC 6749 §2.3.1). The answer is YNAB's documented one: {access_token,
//     token_type: "bearer", expires_in: 7200, refresh_token}, plus scope when the grant has one
//     (RFC 6749 §5.1) and created_at (Unix seconds), which YNAB's example leaves out but some
//     of its clients read; a client that reads the four documented fields is unaffected. It is
//     never cached (Cache-Control: no-store).
//   - Access tokens expire 2 hours after they are issued, by the sandbox's clock (Options.Now);
//     an expired, revoked or unknown one gets YNAB's 401 on /v1. POST /_sandbox/oauth/expire
//     expires every live one at once (ExpireTokens); POST /_sandbox/oauth/revoke revokes a
//     user's tokens, refresh tokens included (RevokeTokens), as a person removing the
//     application from their YNAB settings does.
//   - A code is single-use and lives 10 minutes (RFC 6749 §4.1.2's recommended maximum); it
//     is bound to its client and its redirect_uri. A code used twice is refused, and every
//     token issued from it revoked (RFC 6749 §4.1.2, §10.5).
//   - Refreshing answers "in the same format as an initial token response", that is with a
//     new refresh token: refresh tokens rotate. YNAB's documentation does not say when the old
//     ones stop working; the sandbox takes the strictest reading, so that a client that keeps
//     an old one is caught: the refresh token used, and the access token issued with it, stop
//     working at once, and a refresh token used twice is refused (invalid_grant).
//   - Token errors are RFC 6749 §5.2's JSON: {"error": "invalid_grant", "error_description":
//     "…"}, status 400, or 401 for invalid_client.
//
// Tokens, codes and users are kept in the state file (tokens and codes as their SHA-256
// only), so a restarted sandbox still knows who signed in. The OAuth endpoints, like the control
// endpoint, are neither counted, rate-limited nor faulted.

// OAuthClient is an OAuth application registered with the sandbox, as an application is on
// YNAB's Developer Settings page.
type OAuthClient struct {
	ID, Secret string
	// RedirectURIs are the redirect URIs the application registered: an authorization request's
	// redirect_uri must be one of them, exactly. If empty, any absolute http or https URI
	// without a fragment is accepted.
	RedirectURIs []string
}

// The OAuth endpoints, beside /v1 on the same origin (YNAB's are on app.ynab.com).
const (
	authorizePath = "/oauth/authorize"
	tokenPath     = "/oauth/token"
)

// Lifetimes: YNAB's access tokens last 2 hours; a code, RFC 6749's recommended 10 minutes.
const (
	AccessTokenLifetime = 2 * time.Hour
	codeLifetime        = 10 * time.Minute
)

// ScopeReadOnly is YNAB's read-only scope.
const ScopeReadOnly = "read-only"

// maxOAuthBody bounds the body of a consent form or a token request.
const maxOAuthBody = 64 << 10

// AuthorizeURL returns the sandbox's authorization endpoint, beside its API.
func (srv *Server) AuthorizeURL() string {
	return strings.TrimSuffix(srv.URL, apiPrefix) + authorizePath
}

// TokenURL returns the sandbox's token endpoint, beside its API.
func (srv *Server) TokenURL() string { return strings.TrimSuffix(srv.URL, apiPrefix) + tokenPath }

// oauthState is what the sandbox remembers of its grants, saved with its state. Every map is
// keyed by the SHA-256 of the code or token, which never appears in the clear.
type oauthState struct {
	Codes   map[string]*codeGrant    `json:"codes,omitempty"`
	Access  map[string]*accessGrant  `json:"access_tokens,omitempty"`
	Refresh map[string]*refreshGrant `json:"refresh_tokens,omitempty"`
}

// grant is what a code or token stands for: a user's approval of an application.
type grant struct {
	ClientID string `json:"client_id"`
	User     string `json:"user"`
	Scope    string `json:"scope,omitempty"`
	// Code is the hash of the authorization code the grant started from: every token that
	// descends from it is revoked if the code is used twice.
	Code string `json:"code"`
}

type codeGrant struct {
	grant
	RedirectURI         string    `json:"redirect_uri"`
	CodeChallenge       string    `json:"code_challenge,omitempty"`
	CodeChallengeMethod string    `json:"code_challenge_method,omitempty"`
	Expires             time.Time `json:"expires"`
	Used                bool      `json:"used,omitempty"`
}

type accessGrant struct {
	grant
	Expires time.Time `json:"expires"`
	Refresh string    `json:"refresh"` // the hash of the refresh token issued with it
}

type refreshGrant struct {
	grant
}

func newOAuthState() *oauthState {
	return &oauthState{Codes: map[string]*codeGrant{}, Access: map[string]*accessGrant{}, Refresh: map[string]*refreshGrant{}}
}

// filled returns st with its maps made, for a state read from a file.
func (st *oauthState) filled() *oauthState {
	if st == nil {
		return newOAuthState()
	}
	if st.Codes == nil {
		st.Codes = map[string]*codeGrant{}
	}
	if st.Access == nil {
		st.Access = map[string]*accessGrant{}
	}
	if st.Refresh == nil {
		st.Refresh = map[string]*refreshGrant{}
	}
	return st
}

// saved is what the state file holds of st: nothing when nothing was ever granted, so a state
// file of a sandbox without OAuth stays as it was.
func (st *oauthState) saved() *oauthState {
	if len(st.Codes) == 0 && len(st.Access) == 0 && len(st.Refresh) == 0 {
		return nil
	}
	return st
}

// prune forgets codes and access tokens past their lifetime: nothing can use them any more.
func (st *oauthState) prune(now time.Time) {
	for h, c := range st.Codes {
		if !now.Before(c.Expires) {
			delete(st.Codes, h)
		}
	}
	for h, a := range st.Access {
		if !now.Before(a.Expires) {
			delete(st.Access, h)
		}
	}
}

// revokeDescendants revokes every token that descends from the code with hash code.
func (st *oauthState) revokeDescendants(code string) {
	for h, a := range st.Access {
		if a.Code == code {
			delete(st.Access, h)
		}
	}
	for h, r := range st.Refresh {
		if r.Code == code {
			delete(st.Refresh, h)
		}
	}
}

// secretHash is how codes and tokens are kept.
func secretHash(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// newSecret returns a fresh code or token: 128 random bits (crypto/rand.Text).
func newSecret() string { return rand.Text() }

// checkClients checks the registered applications and indexes them by client id.
func checkClients(clients []OAuthClient) (map[string]OAuthClient, error) {
	byID := make(map[string]OAuthClient, len(clients))
	for i, c := range clients {
		switch {
		case c.ID == "":
			return nil, fmt.Errorf("sandbox: OAuth client %d: the client id is empty", i+1)
		case c.Secret == "":
			return nil, fmt.Errorf("sandbox: OAuth client %q: the client secret is empty", c.ID)
		case strings.ContainsFunc(c.ID+c.Secret, func(r rune) bool { return r <= ' ' || r == 0x7f }):
			return nil, fmt.Errorf("sandbox: OAuth client %q: the client id and secret have no spaces or control characters", c.ID)
		}
		if _, dup := byID[c.ID]; dup {
			return nil, fmt.Errorf("sandbox: OAuth client %q is registered twice", c.ID)
		}
		for _, u := range c.RedirectURIs {
			if err := checkRedirectURI(u); err != nil {
				return nil, fmt.Errorf("sandbox: OAuth client %q: redirect URI %q: %v", c.ID, u, err)
			}
		}
		c.RedirectURIs = slices.Clone(c.RedirectURIs)
		byID[c.ID] = c
	}
	return byID, nil
}

// checkRedirectURI checks a redirect URI as RFC 6749 §3.1.2 wants it: absolute, without a
// fragment; the sandbox takes http and https ones.
func checkRedirectURI(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return errors.New("it is not a URI")
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("it must be an absolute http or https URI")
	case u.Host == "":
		return errors.New("it has no host")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return errors.New("it must not have a fragment (#…)")
	}
	return nil
}

// serveOAuth answers a request for the OAuth endpoints, and reports whether it was one. Without
// a registered application the sandbox has no OAuth, and those paths are YNAB API paths it
// lacks, as before.
func (s *Sandbox) serveOAuth(w http.ResponseWriter, r *http.Request) bool {
	if len(s.clients) == 0 || (r.URL.Path != authorizePath && r.URL.Path != tokenPath) {
		return false
	}
	started := time.Now()
	sw := &statusWriter{ResponseWriter: w}
	if r.URL.Path == authorizePath {
		s.authorize(sw, r)
	} else {
		s.token(sw, r)
	}
	if s.opts.Logger != nil { // never the query or the body: they hold codes, tokens and secrets
		s.opts.Logger.Info("sandbox oauth", "method", r.Method, "path", r.URL.Path,
			"status", sw.status, "duration", time.Since(started))
	}
	return true
}

// statusWriter remembers the status written, for the log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

// authRequest is an authorization request that names a known application and a redirect URI
// it may be sent back to.
type authRequest struct {
	client              OAuthClient
	redirectURI         string
	state               string
	scope               string // "" or ScopeReadOnly
	codeChallenge       string
	codeChallengeMethod string
}

// oauthError is an OAuth error (RFC 6749 §4.1.2.1, §5.2).
type oauthError struct {
	status      int
	code        string
	description string
}

func oauthErrorf(status int, code, format string, args ...any) *oauthError {
	return &oauthError{status: status, code: code, description: fmt.Sprintf(format, args...)}
}

// authParams are the parameters of an authorization request, and the consent form's.
var authParams = []string{"client_id", "redirect_uri", "response_type", "state", "scope", "code_challenge", "code_challenge_method"}

// pkceValue is RFC 7636 §4.1's code verifier and §4.2's challenge: 43 to 128 unreserved
// characters.
var pkceValue = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// parseAuthRequest reads an authorization request. A fault that makes the redirect untrusted is
// returned as page (answered with an error page); any other, with the request, as redirect (sent
// back to the application).
func (s *Sandbox) parseAuthRequest(v url.Values) (req *authRequest, page, redirect *oauthError) {
	for _, name := range []string{"client_id", "redirect_uri"} {
		if len(v[name]) > 1 {
			return nil, oauthErrorf(http.StatusBadRequest, "invalid_request", "The parameter %s is given more than once.", name), nil
		}
	}
	id, uri := v.Get("client_id"), v.Get("redirect_uri")
	client, known := s.clients[id]
	switch {
	case id == "":
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_request", "The request has no client_id: it must name the OAuth application asking for access."), nil
	case !known:
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_client", "No OAuth application has the client_id %q.", id), nil
	case uri == "":
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_request", "The request has no redirect_uri: it must name where to send you back, one the application registered."), nil
	}
	if err := checkRedirectURI(uri); err != nil {
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_request", "The redirect_uri %q is not valid: %v.", uri, err), nil
	}
	if len(client.RedirectURIs) > 0 && !slices.Contains(client.RedirectURIs, uri) {
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_request", "The redirect_uri %q is not one the application %q registered.", uri, id), nil
	}
	switch rt := v.Get("response_type"); {
	case len(v["response_type"]) > 1:
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_request", "The parameter response_type is given more than once."), nil
	case rt == "":
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_request", "The request has no response_type: it must be code."), nil
	case rt != "code":
		return nil, oauthErrorf(http.StatusBadRequest, "unsupported_response_type",
			"The response_type %q is not supported here: the sandbox plays YNAB's authorization code grant, response_type=code.", rt), nil
	}
	req = &authRequest{client: client, redirectURI: uri, state: v.Get("state")}
	for _, name := range authParams {
		if len(v[name]) > 1 {
			return req, nil, oauthErrorf(http.StatusFound, "invalid_request", "The parameter %s is given more than once.", name)
		}
	}
	for _, sc := range strings.Fields(v.Get("scope")) {
		if sc != ScopeReadOnly {
			return req, nil, oauthErrorf(http.StatusFound, "invalid_scope", "The scope %q is unknown: YNAB has one scope, %s.", sc, ScopeReadOnly)
		}
		req.scope = ScopeReadOnly
	}
	req.codeChallenge, req.codeChallengeMethod = v.Get("code_challenge"), v.Get("code_challenge_method")
	switch {
	case req.codeChallenge == "" && req.codeChallengeMethod != "":
		return req, nil, oauthErrorf(http.StatusFound, "invalid_request", "code_challenge_method is given without a code_challenge.")
	case req.codeChallenge == "":
	case !pkceValue.MatchString(req.codeChallenge):
		return req, nil, oauthErrorf(http.StatusFound, "invalid_request", "code_challenge must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_' and '~' (RFC 7636 §4.2).")
	case req.codeChallengeMethod == "":
		req.codeChallengeMethod = "plain" // RFC 7636 §4.3
	case req.codeChallengeMethod != "S256" && req.codeChallengeMethod != "plain":
		return req, nil, oauthErrorf(http.StatusFound, "invalid_request", "code_challenge_method must be S256 (or plain), not %q.", req.codeChallengeMethod)
	}
	return req, nil, nil
}

// authorize serves the authorization endpoint: GET shows the consent page, POST is its answer.
func (s *Sandbox) authorize(w http.ResponseWriter, r *http.Request) {
	var params url.Values
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		params = r.URL.Query()
	case http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, maxOAuthBody)
		if err := r.ParseForm(); err != nil {
			writeErrorPage(w, oauthErrorf(http.StatusBadRequest, "invalid_request", "The form could not be read: %v.", err))
			return
		}
		params = r.PostForm
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		writeErrorPage(w, oauthErrorf(http.StatusMethodNotAllowed, "invalid_request", "%s is not allowed here: GET shows the consent page, POST answers it.", r.Method))
		return
	}
	req, page, redirect := s.parseAuthRequest(params)
	switch {
	case page != nil:
		writeErrorPage(w, page)
		return
	case redirect != nil:
		redirectBack(w, req, url.Values{"error": {redirect.code}, "error_description": {redirect.description}})
		return
	case r.Method != http.MethodPost:
		writeConsent(w, http.StatusOK, req, "", "")
		return
	}
	switch params.Get("decision") {
	case "deny":
		redirectBack(w, req, url.Values{"error": {"access_denied"}, "error_description": {"The user denied the application access."}})
		return
	case "authorize":
	default:
		writeConsent(w, http.StatusBadRequest, req, params.Get("user"), "Press Authorize or Deny.")
		return
	}
	login, err := normalLogin(params.Get("user"))
	if err != nil {
		writeConsent(w, http.StatusBadRequest, req, params.Get("user"), sentence(err))
		return
	}
	code, err := s.issueCode(req, login)
	if err != nil {
		writeErrorPage(w, oauthErrorf(http.StatusInternalServerError, "server_error", "The sandbox failed: %v.", err))
		return
	}
	redirectBack(w, req, url.Values{"code": {code}})
}

// issueCode records the user's approval and returns its code; a new user gets their copy of
// the sample now, so the API answers them as soon as they have a token.
func (s *Sandbox) issueCode(req *authRequest, login string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.worldOf(login); err != nil {
		return "", err
	}
	now := s.opts.Now()
	s.oauth.prune(now)
	code := newSecret()
	h := secretHash(code)
	s.oauth.Codes[h] = &codeGrant{grant: grant{ClientID: req.client.ID, User: login, Scope: req.scope, Code: h},
		RedirectURI: req.redirectURI, CodeChallenge: req.codeChallenge, CodeChallengeMethod: req.codeChallengeMethod,
		Expires: now.Add(codeLifetime)}
	if err := s.save(); err != nil {
		return "", err
	}
	return code, nil
}

// redirectBack sends the person back to the application with the answer's parameters, and the
// request's state (RFC 6749 §4.1.2): the redirect URI's own query is kept.
func redirectBack(w http.ResponseWriter, req *authRequest, answer url.Values) {
	u, _ := url.Parse(req.redirectURI) // checked by parseAuthRequest
	q := u.Query()
	for k, vs := range answer {
		q[k] = vs
	}
	if req.state != "" {
		q.Set("state", req.state)
	}
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Location", u.String())
	w.WriteHeader(http.StatusFound)
}

// sentence writes an error as a sentence for a page.
func sentence(err error) string {
	msg := err.Error()
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}

type hiddenField struct{ Name, Value string }

var consentPage = template.Must(template.New("consent").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Authorize {{.ClientID}} · YNAB sandbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;line-height:1.5}
label,button{font-size:1rem}input[name=user]{font-size:1rem;padding:.3rem;width:100%;box-sizing:border-box;margin:.3rem 0 1rem}
.problem{color:#b00020}</style>
</head>
<body>
<h1>Authorize {{.ClientID}}</h1>
<p>The application <strong>{{.ClientID}}</strong> asks to {{if .ReadOnly}}read{{else}}read and change{{end}} the plans of the YNAB account you sign in as.</p>
<p>This is avenir's YNAB sandbox: any login name is an account of its own, which starts with its own copy of the sample plans.</p>
{{with .Problem}}<p class="problem" role="alert">{{.}}</p>
{{end}}<form method="post" action="/oauth/authorize">
{{range .Hidden}}<input type="hidden" name="{{.Name}}" value="{{.Value}}">
{{end}}<label for="user">Login name</label>
<input id="user" name="user" value="{{.User}}" required autofocus autocomplete="username" maxlength="100">
<button type="submit" name="decision" value="authorize">Authorize</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</form>
</body>
</html>
`))

var errorPage = template.Must(template.New("error").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Authorization failed · YNAB sandbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;line-height:1.5}</style>
</head>
<body>
<h1>This authorization request cannot go on</h1>
<p>{{.Description}}</p>
<p>Error: <code>{{.Code}}</code></p>
</body>
</html>
`))

func writeConsent(w http.ResponseWriter, status int, req *authRequest, user, problem string) {
	hidden := []hiddenField{{"client_id", req.client.ID}, {"redirect_uri", req.redirectURI}, {"response_type", "code"}}
	for _, f := range []hiddenField{{"state", req.state}, {"scope", req.scope},
		{"code_challenge", req.codeChallenge}, {"code_challenge_method", req.codeChallengeMethod}} {
		if f.Value != "" {
			hidden = append(hidden, f)
		}
	}
	writePage(w, status, consentPage, map[string]any{"ClientID": req.client.ID, "ReadOnly": req.scope == ScopeReadOnly,
		"Hidden": hidden, "User": user, "Problem": problem})
}

func writeErrorPage(w http.ResponseWriter, e *oauthError) {
	writePage(w, e.status, errorPage, map[string]any{"Code": e.code, "Description": e.description})
}

func writePage(w http.ResponseWriter, status int, t *template.Template, data any) {
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		http.Error(w, "the sandbox failed to write the page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY") // a consent page is never framed (clickjacking)
	w.WriteHeader(status)
	fmt.Fprint(w, b.String())
}

// tokenAnswer is YNAB's token response.
type tokenAnswer struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope,omitempty"`
	CreatedAt    int64  `json:"created_at"`
}

// token serves the token endpoint.
func (s *Sandbox) token(w http.ResponseWriter, r *http.Request) {
	answer, e := s.tokenRequest(w, r)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store") // RFC 6749 §5.1
	w.Header().Set("Pragma", "no-cache")
	var body any = answer
	status := http.StatusOK
	if e != nil {
		body, status = map[string]string{"error": e.code, "error_description": e.description}, e.status
		if e.code == "invalid_client" {
			w.Header().Set("WWW-Authenticate", `Basic realm="YNAB sandbox OAuth"`)
		}
	}
	b, _ := json.Marshal(body)
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func (s *Sandbox) tokenRequest(w http.ResponseWriter, r *http.Request) (*tokenAnswer, *oauthError) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return nil, oauthErrorf(http.StatusMethodNotAllowed, "invalid_request", "The token endpoint takes POST, not %s.", r.Method)
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_request",
			"Send the parameters form-encoded (Content-Type: application/x-www-form-urlencoded), as RFC 6749 §3.2 asks.")
	}
	if r.URL.RawQuery != "" {
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_request",
			"Send the parameters in the request body, not in the URL, where a secret would be logged.")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxOAuthBody)
	if err := r.ParseForm(); err != nil {
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_request", "The request body could not be read: %v.", err)
	}
	form := r.PostForm
	for name, vs := range form {
		if len(vs) > 1 {
			return nil, oauthErrorf(http.StatusBadRequest, "invalid_request", "The parameter %s is given more than once.", name)
		}
	}
	client, e := s.authenticateClient(r, form)
	if e != nil {
		return nil, e
	}
	switch gt := form.Get("grant_type"); gt {
	case "authorization_code":
		return s.exchangeCode(client, form)
	case "refresh_token":
		return s.refresh(client, form)
	case "":
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_request", "The request has no grant_type: authorization_code or refresh_token.")
	default:
		return nil, oauthErrorf(http.StatusBadRequest, "unsupported_grant_type",
			"The grant_type %q is not supported: the sandbox takes authorization_code and refresh_token, as YNAB does.", gt)
	}
}

// authenticateClient finds the application a token request comes from, by client_id and
// client_secret in the body or by HTTP Basic (RFC 6749 §2.3.1), but not both.
func (s *Sandbox) authenticateClient(r *http.Request, form url.Values) (OAuthClient, *oauthError) {
	id, secret := form.Get("client_id"), form.Get("client_secret")
	if bid, bsecret, basic := r.BasicAuth(); basic {
		if secret != "" {
			return OAuthClient{}, oauthErrorf(http.StatusBadRequest, "invalid_request",
				"The client authenticates twice, with HTTP Basic and with client_secret: use one (RFC 6749 §2.3).")
		}
		var err1, err2 error
		bid, err1 = url.QueryUnescape(bid)
		bsecret, err2 = url.QueryUnescape(bsecret)
		if err1 != nil || err2 != nil {
			return OAuthClient{}, oauthErrorf(http.StatusUnauthorized, "invalid_client", "The HTTP Basic credentials are not form-encoded as RFC 6749 §2.3.1 asks.")
		}
		if id != "" && id != bid {
			return OAuthClient{}, oauthErrorf(http.StatusUnauthorized, "invalid_client", "The client_id in the body is not the one of the HTTP Basic credentials.")
		}
		id, secret = bid, bsecret
	}
	client, known := s.clients[id]
	switch {
	case id == "" || secret == "":
		return OAuthClient{}, oauthErrorf(http.StatusUnauthorized, "invalid_client",
			"The client is not authenticated: send client_id and client_secret (or HTTP Basic).")
	case !known || subtle.ConstantTimeCompare([]byte(secret), []byte(client.Secret)) != 1:
		return OAuthClient{}, oauthErrorf(http.StatusUnauthorized, "invalid_client", "Client authentication failed: unknown client_id or wrong client_secret.")
	}
	return client, nil
}

// exchangeCode answers grant_type=authorization_code (RFC 6749 §4.1.3, RFC 7636 §4.6).
func (s *Sandbox) exchangeCode(client OAuthClient, form url.Values) (*tokenAnswer, *oauthError) {
	code, uri, verifier := form.Get("code"), form.Get("redirect_uri"), form.Get("code_verifier")
	switch {
	case code == "":
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_request", "The request has no code.")
	case uri == "":
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_request", "The request has no redirect_uri: send the one of the authorization request.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Now()
	h := secretHash(code)
	c := s.oauth.Codes[h]
	switch {
	case c == nil || !now.Before(c.Expires):
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_grant", "The code is unknown or expired (a code lives %s).", codeLifetime)
	case c.Used:
		s.oauth.revokeDescendants(h)
		if err := s.save(); err != nil {
			return nil, oauthErrorf(http.StatusInternalServerError, "server_error", "The sandbox could not save its state: %v.", err)
		}
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_grant", "The code was used already: the tokens issued for it are revoked.")
	case c.ClientID != client.ID:
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_grant", "The code was issued to another client.")
	case c.RedirectURI != uri:
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_grant", "The redirect_uri is not the one of the authorization request.")
	}
	if e := checkVerifier(c, verifier); e != nil {
		return nil, e
	}
	c.Used = true
	return s.issueTokens(c.grant, now)
}

// checkVerifier checks a token request's PKCE code_verifier against the code's challenge.
func checkVerifier(c *codeGrant, verifier string) *oauthError {
	switch {
	case c.CodeChallenge == "" && verifier != "":
		return oauthErrorf(http.StatusBadRequest, "invalid_grant", "A code_verifier is sent, but the authorization request had no code_challenge.")
	case c.CodeChallenge == "":
		return nil
	case verifier == "":
		return oauthErrorf(http.StatusBadRequest, "invalid_grant", "The request has no code_verifier, and the authorization request had a code_challenge.")
	case !pkceValue.MatchString(verifier):
		return oauthErrorf(http.StatusBadRequest, "invalid_grant", "The code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_' and '~' (RFC 7636 §4.1).")
	}
	want := verifier
	if c.CodeChallengeMethod == "S256" {
		sum := sha256.Sum256([]byte(verifier))
		want = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if subtle.ConstantTimeCompare([]byte(want), []byte(c.CodeChallenge)) != 1 {
		return oauthErrorf(http.StatusBadRequest, "invalid_grant", "The code_verifier does not match the code_challenge.")
	}
	return nil
}

// refresh answers grant_type=refresh_token (RFC 6749 §6): the refresh token is used up, and
// so is the access token issued with it.
func (s *Sandbox) refresh(client OAuthClient, form url.Values) (*tokenAnswer, *oauthError) {
	token := form.Get("refresh_token")
	if token == "" {
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_request", "The request has no refresh_token.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	h := secretHash(token)
	old := s.oauth.Refresh[h]
	switch {
	case old == nil:
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_grant", "The refresh token is unknown, used already or revoked.")
	case old.ClientID != client.ID:
		return nil, oauthErrorf(http.StatusBadRequest, "invalid_grant", "The refresh token was issued to another client.")
	}
	g := old.grant
	for _, sc := range strings.Fields(form.Get("scope")) { // RFC 6749 §6: the same scope, or less
		if sc != ScopeReadOnly {
			return nil, oauthErrorf(http.StatusBadRequest, "invalid_scope", "The scope %q is more than the grant has, or unknown: YNAB has one scope, %s.", sc, ScopeReadOnly)
		}
		g.Scope = ScopeReadOnly
	}
	delete(s.oauth.Refresh, h)
	for ah, a := range s.oauth.Access {
		if a.Refresh == h {
			delete(s.oauth.Access, ah)
		}
	}
	return s.issueTokens(g, s.opts.Now())
}

// issueTokens issues an access token and its refresh token for a grant, and saves them. Callers
// hold s.mu.
func (s *Sandbox) issueTokens(g grant, now time.Time) (*tokenAnswer, *oauthError) {
	s.oauth.prune(now)
	access, refresh := newSecret(), newSecret()
	rh := secretHash(refresh)
	s.oauth.Access[secretHash(access)] = &accessGrant{grant: g, Expires: now.Add(AccessTokenLifetime), Refresh: rh}
	s.oauth.Refresh[rh] = &refreshGrant{grant: g}
	if err := s.save(); err != nil {
		return nil, oauthErrorf(http.StatusInternalServerError, "server_error", "The sandbox could not save its state: %v.", err)
	}
	return &tokenAnswer{AccessToken: access, TokenType: "bearer", ExpiresIn: int64(AccessTokenLifetime / time.Second),
		RefreshToken: refresh, Scope: g.Scope, CreatedAt: now.Unix()}, nil
}

// identity is who a /v1 request acts for.
type identity struct {
	user     string // "" for the sandbox's own user
	readOnly bool
}

// identify reads a /v1 request's bearer token. Without an OAuth application, any token (or
// Options.Token only) is the sandbox's own user, as before. With one, a live access token is
// its user, Options.Token (if set) is the sandbox's own user's personal access token, and
// anything else is refused.
func (s *Sandbox) identify(r *http.Request) (identity, bool) {
	if len(s.clients) == 0 {
		return identity{}, s.authorised(r)
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return identity{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	h := secretHash(token)
	if a := s.oauth.Access[h]; a != nil {
		if _, registered := s.clients[a.ClientID]; registered && s.opts.Now().Before(a.Expires) {
			return identity{user: a.User, readOnly: a.Scope == ScopeReadOnly}, true
		}
	}
	return identity{}, s.opts.Token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(s.opts.Token)) == 1
}

// writes reports whether a request's method changes a plan, which a read-only token may not.
func writes(method string) bool { return method != http.MethodGet && method != http.MethodHead }

// ExpireTokens expires every live OAuth access token at once, as 2 hours passing would, and
// returns how many it expired. Refresh tokens still work.
func (s *Sandbox) ExpireTokens() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Now()
	n := 0
	for _, a := range s.oauth.Access {
		if now.Before(a.Expires) {
			a.Expires = now
			n++
		}
	}
	s.oauth.prune(now)
	return n, s.save()
}

// RevokeTokens revokes the OAuth tokens of the user with that login name (every user's if
// login is ""), access and refresh tokens both, as removing the application from one's YNAB
// settings does: the application must send the person through the consent page again. It
// returns how many tokens it revoked.
func (s *Sandbox) RevokeTokens(login string) (int, error) {
	if login != "" {
		var err error
		if login, err = normalLogin(login); err != nil {
			return 0, fmt.Errorf("sandbox: revoke tokens: %w", err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.oauth.prune(s.opts.Now())
	n := 0
	for h, a := range s.oauth.Access {
		if login == "" || a.User == login {
			delete(s.oauth.Access, h)
			n++
		}
	}
	for h, rt := range s.oauth.Refresh {
		if login == "" || rt.User == login {
			delete(s.oauth.Refresh, h)
			n++
		}
	}
	for h, c := range s.oauth.Codes {
		if login == "" || c.User == login {
			delete(s.oauth.Codes, h)
		}
	}
	return n, s.save()
}

// controlExpire answers POST /_sandbox/oauth/expire.
func (s *Sandbox) controlExpire() response {
	n, err := s.ExpireTokens()
	if err != nil {
		return errorResponse(internalError(err))
	}
	return ok200(map[string]any{"expired": n})
}

// controlRevoke answers POST /_sandbox/oauth/revoke: an empty body revokes every user's
// tokens, {"user":"NAME"} one user's.
func (s *Sandbox) controlRevoke(r *http.Request) response {
	var body struct {
		User string `json:"user"`
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, maxControlBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil && !errors.Is(err, io.EOF) {
		return errorResponse(badRequest("Send nothing (every user) or {\"user\":\"NAME\"}: %v.", jsonProblem(err, "user")))
	}
	n, err := s.RevokeTokens(body.User)
	if err != nil {
		return errorResponse(badRequest("%v.", err))
	}
	return ok200(map[string]any{"revoked": n})
}
