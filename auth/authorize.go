package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/oauth2"
)

// The binding cookie ties a sign-in to the browser that consented to it: YNAB's callback is
// accepted only with the cookie avenir set in that browser when the person chose Continue.
// Without it, someone could hand the victim's browser the callback of a sign-in he started
// himself, or finish in his own browser one the victim started. Its value is always avenir's
// own, made for this one sign-in (a value the browser brings is never adopted), and its name
// carries a tag of the sign-in, so two sign-ins in two tabs do not overwrite each other. On an
// https origin the name has the __Host- prefix (Secure, Path=/, no Domain): browsers then refuse
// it from a sibling subdomain or a plain-http answer, so nobody can plant one (RFC 6265bis
// §4.1.3.2; the MCP security best practices ask for it).
const (
	browserCookiePrefix = "avenir-signin-"
	hostCookiePrefix    = "__Host-"
)

// browserCookieName is the binding cookie's name for the sign-in whose YNAB state is ynabState.
func (s *Server) browserCookieName(ynabState string) string {
	name := browserCookiePrefix + ynabState[:12]
	if strings.HasPrefix(s.origin, "https://") {
		name = hostCookiePrefix + name
	}
	return name
}

func (s *Server) setBrowserCookie(w http.ResponseWriter, ynabState, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name: s.browserCookieName(ynabState), Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: strings.HasPrefix(s.origin, "https://"), SameSite: http.SameSiteLaxMode,
	})
}

// pending is an authorization request waiting for the person: shown the consent page, maybe
// gone to YNAB.
type pending struct {
	BrowserHash   []byte // nil until the person consents
	Purpose       string // purposeAuthorize, or purposeAccount (no client)
	YNABVerifier  string // PKCE on the YNAB leg (RFC 7636)
	ClientID      string
	RedirectURI   string
	RedirectGiven bool // the request named its redirect URI, so the token request must too
	State         string
	CodeChallenge string
	Resource      string
	ExpiresAt     time.Time
}

// canonicalResource accepts the two names of avenir's MCP resource, the origin and the origin
// with /mcp (RFC 8707 §2; case is folded in scheme and host, a trailing slash dropped, as the
// MCP spec's "Canonical Server URI" advises accepting), and returns the canonical form.
func (s *Server) canonicalResource(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery != "" || u.Fragment != "" || u.User != nil || strings.Contains(raw, "#") {
		return "", false
	}
	if strings.ToLower(u.Scheme)+"://"+strings.ToLower(u.Host) != s.origin {
		return "", false
	}
	switch strings.TrimSuffix(u.EscapedPath(), "/") {
	case "":
		return s.origin, true
	case MCPPath:
		return s.origin + MCPPath, true
	}
	return "", false
}

// redirectWith adds params to a redirect URI, keeping the query it has (RFC 6749 §3.1.2), and
// the issuer (RFC 9207 §2), so that a client talking to several authorization servers knows
// which one answered.
func (s *Server) redirectWith(redirectURI string, params url.Values) string {
	u, err := url.Parse(redirectURI)
	if err != nil { // registered URIs were checked; this cannot happen
		return redirectURI
	}
	q := u.Query()
	for k, vs := range params {
		for _, v := range vs {
			if v != "" {
				q.Set(k, v)
			}
		}
	}
	q.Set("iss", s.origin)
	u.RawQuery = q.Encode()
	return u.String()
}

// authError shows an authorization error on avenir's own page, with a link that takes the
// error back to the client (RFC 6749 §4.1.2.1). It never redirects by itself: registration is
// open, so a redirect URI proves nothing about who owns it, and answering a malformed request
// with a redirect there would make avenir an open redirector (OAuth 2.1 §7.12.2, RFC 9700
// §4.11.2, the MCP spec's "Open Redirection").
func (s *Server) authError(w http.ResponseWriter, clientName, redirectURI, state, code, desc string) {
	back := s.redirectWith(redirectURI, url.Values{"error": {code}, "error_description": {desc}, "state": {state}})
	s.renderError(w, http.StatusBadRequest, "This sign-in request is not valid",
		"The app asked in a way avenir does not accept ("+code+": "+desc+"). Nothing was shared.", clientName, back)
}

// handleAuthorize checks an authorization request and shows the consent page. Until the client
// and redirect URI are known good, errors are shown here and never redirected (RFC 6749
// §4.1.2.1), so the endpoint cannot be used to send a browser anywhere.
func (s *Server) handleAuthorize(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	for k, vs := range q {
		if len(vs) > 1 {
			s.renderError(w, 400, "This sign-in link is not valid", fmt.Sprintf("The parameter %s appears more than once. Start again from your app.", k), "", "")
			return
		}
	}
	clientID := q.Get("client_id")
	if clientID == "" {
		s.renderError(w, 400, "This sign-in link is not valid", "It names no app (client_id is missing). Start again from your app.", "", "")
		return
	}
	c, err := s.lookupClient(ctx, clientID, true)
	if err != nil {
		var de *documentError
		switch {
		case errors.As(err, &de):
			s.renderError(w, 400, "This app cannot sign in", "avenir could not accept the app's description: "+de.msg+".", "", "")
		case errors.Is(err, errNotFound):
			s.renderError(w, 400, "This app is not known to avenir", "The app's client_id is not registered with avenir. Start again from your app; it may need to register again.", "", "")
		default:
			s.log.Error("authorize: reading the client", "err", err)
			s.renderError(w, 500, "Something went wrong", "avenir could not read its records. Try again in a moment.", "", "")
		}
		return
	}
	name := c.Name
	if name == "" {
		name = "An app"
	}
	redirectURI := q.Get("redirect_uri")
	redirectGiven := redirectURI != ""
	if !redirectGiven {
		if len(c.RedirectURIs) != 1 {
			s.renderError(w, 400, "This sign-in link is not valid", "It does not say where to return (redirect_uri is missing, and the app registered several).", name, "")
			return
		}
		redirectURI = c.RedirectURIs[0]
	}
	registered := false
	for _, ru := range c.RedirectURIs {
		if redirectMatches(ru, redirectURI) {
			registered = true
			break
		}
	}
	if !registered {
		s.renderError(w, 400, "This sign-in link is not valid", "It would send you back to an address the app did not register (redirect_uri does not match). avenir will not send you there.", name, "")
		return
	}

	// From here on, errors are shown with a link back to the client.
	state := q.Get("state")
	fail := func(code, desc string) { s.authError(w, name, redirectURI, state, code, desc) }
	switch {
	case q.Get("response_type") != "code":
		fail("unsupported_response_type", "response_type must be code")
		return
	case !c.allows("authorization_code"):
		fail("unauthorized_client", "the client did not register the authorization_code grant")
		return
	case q.Get("code_challenge") == "":
		fail("invalid_request", "code_challenge is required: avenir requires PKCE with S256 (OAuth 2.1 section 4.1.1)")
		return
	case q.Get("code_challenge_method") != "S256":
		fail("invalid_request", "code_challenge_method must be S256; plain and an absent method are refused (OAuth 2.1 section 4.1.1, RFC 7636 section 4.2)")
		return
	case !validChallenge(q.Get("code_challenge")):
		fail("invalid_request", "code_challenge must be the base64url (no padding) of a SHA-256 digest: 43 characters")
		return
	case len(state) > 1000:
		fail("invalid_request", "state is longer than 1000 characters")
		return
	}
	resource := s.origin + MCPPath // a client that names no resource gets the MCP endpoint
	if raw := q.Get("resource"); raw != "" {
		var ok bool
		if resource, ok = s.canonicalResource(raw); !ok {
			fail("invalid_target", fmt.Sprintf("resource must be %s or %s", s.origin+MCPPath, s.origin))
			return
		}
	}

	request, requestHash := s.newSecret()
	now := s.now()
	_, err = s.pool.Exec(ctx, `INSERT INTO auth.pending_authorizations
		(id_hash, client_id, redirect_uri, redirect_given, state, code_challenge, resource, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		requestHash, c.ID, redirectURI, redirectGiven, state, q.Get("code_challenge"), resource, now, now.Add(s.cfg.SignInTTL))
	if err != nil {
		s.log.Error("authorize: storing the request", "err", err)
		s.renderError(w, 500, "Something went wrong", "avenir could not save this sign-in. Try again in a moment.", name, "")
		return
	}
	ru, _ := url.Parse(redirectURI)
	page := consentPage{
		ClientName: name, RedirectURI: redirectURI, Action: consentPath, Request: request,
		Document: c.Kind == kindDocument, Localhost: isLoopbackHost(ru.Hostname()),
	}
	if page.Document {
		cu, _ := url.Parse(c.ID)
		page.ClientHost = cu.Host
	}
	s.renderConsent(w, page)
}

// browserMatches: the request carries the binding cookie of the sign-in whose YNAB state is
// ynabState, with the value whose hash the sign-in recorded at consent.
func (s *Server) browserMatches(r *http.Request, ynabState string, want []byte) bool {
	ck, err := r.Cookie(s.browserCookieName(ynabState))
	return err == nil && want != nil && wellFormedSecret(ck.Value) && equalHashes(s.hashSecret(ck.Value), want)
}

// sameOrigin: a form was posted from avenir's own page. Browsers send Origin with every POST
// (and Sec-Fetch-Site where they have it); a page elsewhere that submits avenir's form in the
// person's browser is refused, so nobody can consent, cancel or revoke on their behalf.
func (s *Server) sameOrigin(r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		return strings.EqualFold(o, s.origin)
	}
	return r.Header.Get("Sec-Fetch-Site") == "same-origin"
}

// handleConsent takes the person's answer on the consent page: on to YNAB's sign-in with a state
// of avenir's own bound to this request and to this browser (the binding cookie is set here,
// when consent is given), or — on Cancel — a page of avenir's with a link back to the client.
func (s *Server) handleConsent(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if !s.sameOrigin(r) {
		s.renderError(w, 403, "This form was not sent from avenir's page", "For your safety avenir accepts a sign-in only from its own consent page. Start again from your app.", "", "")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil {
		s.renderError(w, 400, "This form is not valid", "Start again from your app.", "", "")
		return
	}
	request := r.PostForm.Get("request")
	if !wellFormedSecret(request) {
		s.renderError(w, 400, "This form is not valid", "It does not belong to a sign-in avenir started. Start again from your app.", "", "")
		return
	}
	var p pending
	var name string
	err := s.pool.QueryRow(ctx, `SELECT p.client_id, p.redirect_uri, p.state, p.expires_at, c.name
		FROM auth.pending_authorizations p JOIN auth.clients c USING (client_id)
		WHERE p.id_hash = $1 AND p.ynab_state_hash IS NULL AND p.purpose = 'authorize'`, s.hashSecret(request)).
		Scan(&p.ClientID, &p.RedirectURI, &p.State, &p.ExpiresAt, &name)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		s.renderError(w, 400, "This sign-in has already moved on", "This form was already answered, or it does not belong to a sign-in avenir started. Start again from your app.", "", "")
		return
	case err != nil:
		s.log.Error("consent: reading the request", "err", err)
		s.renderError(w, 500, "Something went wrong", "avenir could not read this sign-in. Try again in a moment.", "", "")
		return
	case !s.now().Before(p.ExpiresAt):
		s.renderError(w, 400, "This sign-in took too long", "Start again from your app.", name, "")
		return
	}
	if r.PostForm.Get("decision") != "allow" {
		s.pool.Exec(ctx, `DELETE FROM auth.pending_authorizations WHERE id_hash = $1`, s.hashSecret(request))
		back := s.redirectWith(p.RedirectURI, url.Values{
			"error": {"access_denied"}, "error_description": {"the person declined"}, "state": {p.State},
		})
		s.renderError(w, http.StatusOK, "Nothing was shared", "You cancelled: avenir gave the app no access.", name, back)
		return
	}
	s.toYNAB(w, r, `UPDATE auth.pending_authorizations SET ynab_state_hash = $2, browser_hash = $3, ynab_verifier = $4
		WHERE id_hash = $1 AND ynab_state_hash IS NULL`, s.hashSecret(request), name)
}

// toYNAB records a sign-in's YNAB state, binding cookie and PKCE verifier with update (whose $1
// is given; $2, $3 and $4 are the state's hash, the cookie's hash and the verifier), sets the
// cookie and sends the browser to YNAB's authorization page.
func (s *Server) toYNAB(w http.ResponseWriter, r *http.Request, update string, key []byte, name string) {
	ynabState, ynabStateHash := s.newSecret()
	browser, browserHash := s.newSecret()
	verifier := oauth2.GenerateVerifier()
	tag, err := s.pool.Exec(r.Context(), update, key, ynabStateHash, browserHash, verifier)
	if err != nil || tag.RowsAffected() != 1 {
		if err != nil {
			s.log.Error("consent: recording the YNAB state", "err", err)
		}
		s.renderError(w, 400, "This sign-in has already moved on", "This form was already answered. Start again from your app.", name, "")
		return
	}
	s.setBrowserCookie(w, ynabState, browser, int(s.cfg.SignInTTL.Seconds()))
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}
	http.Redirect(w, r, s.ynab.AuthCodeURL(ynabState, opts...), http.StatusSeeOther)
}

// handleYNABCallback is where YNAB sends the person back. The state is avenir's own, used once;
// on success the person is found or created, their YNAB tokens stored sealed, and a code of
// avenir's issued to the client — all in one transaction, so a failure stores nothing.
func (s *Server) handleYNABCallback(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	state := q.Get("state")
	again := "Start again from your app to sign in."
	if !wellFormedSecret(state) {
		s.renderError(w, 400, "This sign-in could not be matched", "YNAB's answer does not carry a sign-in avenir started (its state is missing or not avenir's). "+again, "", "")
		return
	}
	var p pending
	var name string
	var clientID *string
	err := s.pool.QueryRow(ctx, `DELETE FROM auth.pending_authorizations p
		WHERE p.ynab_state_hash = $1
		RETURNING p.browser_hash, p.purpose, coalesce(p.ynab_verifier, ''), p.client_id, p.redirect_uri, p.redirect_given, p.state, p.code_challenge, p.resource, p.expires_at,
			coalesce((SELECT c.name FROM auth.clients c WHERE c.client_id = p.client_id), '')`,
		s.hashSecret(state)).
		Scan(&p.BrowserHash, &p.Purpose, &p.YNABVerifier, &clientID, &p.RedirectURI, &p.RedirectGiven, &p.State, &p.CodeChallenge, &p.Resource, &p.ExpiresAt, &name)
	if clientID != nil {
		p.ClientID = *clientID
	}
	if p.Purpose == purposeAuthorize && err == nil && clientID == nil {
		err = pgx.ErrNoRows // the client was swept meanwhile
	}
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		s.renderError(w, 400, "This sign-in could not be matched", "YNAB's answer does not match a sign-in in progress: its state is unknown or was already used. "+again, "", "")
		return
	case err != nil:
		s.log.Error("ynab callback: reading the sign-in", "err", err)
		s.renderError(w, 500, "Something went wrong", "avenir could not read this sign-in. "+again, "", "")
		return
	case !s.now().Before(p.ExpiresAt):
		s.renderError(w, 400, "This sign-in took too long", again, name, "")
		return
	case !s.browserMatches(r, state, p.BrowserHash):
		s.renderError(w, 400, "This sign-in was started in another browser", "For your safety avenir finishes a sign-in only in the browser that started it. "+again, name, "")
		return
	}
	s.setBrowserCookie(w, state, "", -1) // spent
	if p.Purpose == purposeAccount {
		s.finishAccountSignIn(w, r, q, p.YNABVerifier)
		return
	}
	back := func(code, desc string) string {
		return s.redirectWith(p.RedirectURI, url.Values{"error": {code}, "error_description": {desc}, "state": {p.State}})
	}
	if e := q.Get("error"); e != "" {
		if e == "access_denied" {
			s.renderError(w, 403, "YNAB access was not allowed", "You did not allow avenir to use your YNAB account, so nothing was connected. To use avenir, try signing in again from your app and choose Authorize on YNAB's page.", name, back("access_denied", "the person did not allow access to YNAB"))
		} else {
			s.log.Warn("ynab callback: YNAB answered an error", "error", e)
			s.renderError(w, 502, "YNAB did not complete the sign-in", fmt.Sprintf("YNAB answered %q. Nothing was stored. Try signing in again from your app.", e), name, back("temporarily_unavailable", "YNAB did not complete the sign-in"))
		}
		return
	}
	code := q.Get("code")
	if code == "" {
		s.renderError(w, 400, "YNAB did not complete the sign-in", "YNAB's answer carries no authorization code. Nothing was stored. Try signing in again from your app.", name, back("temporarily_unavailable", "YNAB did not complete the sign-in"))
		return
	}
	tok, err := s.exchangeYNAB(ctx, code, p.YNABVerifier)
	if err != nil {
		s.log.Warn("ynab callback: YNAB's token endpoint refused or failed", "err", describeYNABError(err))
		s.renderError(w, 502, "YNAB did not complete the sign-in", "avenir could not obtain access from YNAB ("+describeYNABError(err)+"). Nothing was stored. Try signing in again from your app.", name, back("temporarily_unavailable", "YNAB's token endpoint failed"))
		return
	}
	if tok.RefreshToken == "" || tok.AccessToken == "" {
		s.log.Warn("ynab callback: YNAB's token answer lacks a token")
		s.renderError(w, 502, "YNAB did not complete the sign-in", "YNAB's answer lacked an access or refresh token. Nothing was stored. Try signing in again from your app.", name, back("temporarily_unavailable", "YNAB's token answer was incomplete"))
		return
	}
	userID, err := s.ynabUserID(ctx, tok.AccessToken)
	if err != nil {
		s.log.Warn("ynab callback: reading the YNAB user", "err", err)
		s.renderError(w, 502, "YNAB did not complete the sign-in", "avenir could not read who you are at YNAB ("+err.Error()+"). Nothing was stored. Try signing in again from your app.", name, back("temporarily_unavailable", "YNAB's user could not be read"))
		return
	}
	avenirCode, personID, err := s.completeSignIn(ctx, p, userID, tok)
	if errors.Is(err, errClientGone) {
		s.renderError(w, 400, "This app is no longer known to avenir", "Its registration was removed while you signed in. Nothing was stored. "+again, name, "")
		return
	}
	if err != nil {
		s.log.Error("ynab callback: storing the sign-in", "err", err)
		s.renderError(w, 500, "Something went wrong", "avenir could not save your sign-in; nothing was stored. Try signing in again from your app.", name, back("server_error", "the sign-in could not be stored"))
		return
	}
	s.log.Info("signed in", "person", personID, "client_id", p.ClientID)
	http.Redirect(w, r, s.redirectWith(p.RedirectURI, url.Values{"code": {avenirCode}, "state": {p.State}}), http.StatusFound)
}

// exchangeYNAB trades YNAB's code for YNAB's tokens, proving with the PKCE verifier that this
// sign-in is the one that asked for the code: a code that leaked from another person's sign-in
// is refused by YNAB when brought to this one.
func (s *Server) exchangeYNAB(ctx context.Context, code, verifier string) (*oauth2.Token, error) {
	var opts []oauth2.AuthCodeOption
	if verifier != "" { // a sign-in begun before the upgrade that added PKCE
		opts = append(opts, oauth2.VerifierOption(verifier))
	}
	return s.ynab.Exchange(s.ynabContext(ctx), code, opts...)
}

// ynabContext makes x/oauth2 use the configured HTTP client for YNAB.
func (s *Server) ynabContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, s.cfg.YNABHTTPClient)
}

// sealedYNAB is what a ynab_grants row seals.
type sealedYNAB struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
}

// ynabExpiry is when YNAB's access token expires, by avenir's clock: expires_in counted from
// now (x/oauth2's Expiry counts from the wall clock, which tests move), else YNAB's two hours.
func ynabExpiry(tok *oauth2.Token, now time.Time) time.Time {
	if tok.ExpiresIn > 0 {
		return now.Add(time.Duration(tok.ExpiresIn) * time.Second)
	}
	return now.Add(2 * time.Hour)
}

// errClientGone: the client was swept between consent and YNAB's callback.
var errClientGone = errors.New("the client is no longer registered")

// Purposes of a pending sign-in.
const (
	purposeAuthorize = "authorize" // an app's authorization request
	purposeAccount   = "account"   // a person signing in to their own page
)

func (s *Server) completeSignIn(ctx context.Context, p pending, ynabUserID string, tok *oauth2.Token) (code string, personID int64, err error) {
	now := s.now()
	code, codeHash := s.newSecret()
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO auth.people (ynab_user_id, created_at, signed_in_at) VALUES ($1, $2, $2)
			ON CONFLICT (ynab_user_id) DO UPDATE SET signed_in_at = excluded.signed_in_at RETURNING id`,
			ynabUserID, now).Scan(&personID); err != nil {
			return fmt.Errorf("finding the person: %w", err)
		}
		plain, err := json.Marshal(sealedYNAB{tok.AccessToken, tok.RefreshToken})
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO auth.ynab_grants (person_id, sealed, access_expires_at, updated_at)
			VALUES ($1, $2, $3, $4)
			ON CONFLICT (person_id) DO UPDATE SET sealed = excluded.sealed,
				access_expires_at = excluded.access_expires_at, updated_at = excluded.updated_at`,
			personID, s.seal.seal(personID, plain), ynabExpiry(tok, now), now); err != nil {
			return fmt.Errorf("storing the YNAB grant: %w", err)
		}
		tag, err := tx.Exec(ctx, `UPDATE auth.clients SET granted_at = $2 WHERE client_id = $1`, p.ClientID, now)
		if err != nil {
			return fmt.Errorf("marking the client granted: %w", err)
		}
		if tag.RowsAffected() != 1 {
			return errClientGone
		}
		var grantID int64
		if err := tx.QueryRow(ctx, `INSERT INTO auth.grants (person_id, client_id, resource, created_at)
			VALUES ($1, $2, $3, $4) RETURNING id`, personID, p.ClientID, p.Resource, now).Scan(&grantID); err != nil {
			return fmt.Errorf("storing the grant: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO auth.codes
			(code_hash, grant_id, person_id, client_id, redirect_uri, redirect_given, code_challenge, resource, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			codeHash, grantID, personID, p.ClientID, p.RedirectURI, p.RedirectGiven, p.CodeChallenge, p.Resource, now, now.Add(s.cfg.CodeTTL)); err != nil {
			return fmt.Errorf("storing the code: %w", err)
		}
		return nil
	})
	return code, personID, err
}
