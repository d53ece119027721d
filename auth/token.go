package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
)

// tokenResponse is RFC 6749 §5.1.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
}

// parseTokenForm reads a form-encoded POST body, refusing a parameter given twice (RFC 6749
// §3.2).
func parseTokenForm(w http.ResponseWriter, r *http.Request) (url.Values, *oauthError) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		return nil, oerr(400, "invalid_request", "the body must be application/x-www-form-urlencoded, at most 16 KiB")
	}
	for k, vs := range r.PostForm {
		if len(vs) > 1 {
			return nil, oerr(400, "invalid_request", "parameter %s is given more than once", k)
		}
	}
	if len(r.URL.Query()) > 0 {
		return nil, oerr(400, "invalid_request", "parameters belong in the body, not the URL")
	}
	return r.PostForm, nil
}

// authenticateClient finds and authenticates the client of a token or revocation request:
// client_secret_basic (the Authorization header), client_secret_post (client_secret in the
// body) or none (a public client names itself with client_id; PKCE proves the rest).
func (s *Server) authenticateClient(w http.ResponseWriter, r *http.Request, form url.Values) (*client, *oauthError) {
	id, secret, basic := r.BasicAuth()
	if basic {
		var err1, err2 error
		id, err1 = url.QueryUnescape(id) // RFC 6749 §2.3.1: both are form-encoded first
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			return nil, s.invalidClient(w, basic, "the Basic credentials are not form-encoded")
		}
		if form.Get("client_id") != "" && form.Get("client_id") != id {
			return nil, oerr(400, "invalid_request", "client_id in the body differs from the one in the Authorization header")
		}
		if form.Get("client_secret") != "" {
			return nil, oerr(400, "invalid_request", "use one way of client authentication, not two")
		}
	} else {
		id, secret = form.Get("client_id"), form.Get("client_secret")
	}
	if id == "" {
		return nil, s.invalidClient(w, basic, "client_id is required")
	}
	c, err := s.lookupClient(r.Context(), id, false)
	if errors.Is(err, errNotFound) {
		return nil, s.invalidClient(w, basic, "the client is not known")
	}
	if err != nil {
		s.log.Error("token: reading the client", "err", err)
		return nil, oerr(500, "server_error", "the client could not be read; try again")
	}
	if c.public() {
		if secret != "" || basic {
			return nil, s.invalidClient(w, basic, "this client registered as public (token_endpoint_auth_method none); it has no secret")
		}
		return c, nil
	}
	if secret == "" {
		return nil, s.invalidClient(w, basic, "this client must authenticate with its client secret (%s)", c.AuthMethod)
	}
	if !equalHashes(s.hashSecret(secret), c.SecretHash) {
		return nil, s.invalidClient(w, basic, "the client secret is wrong")
	}
	return c, nil
}

func (s *Server) invalidClient(w http.ResponseWriter, basic bool, format string, args ...any) *oauthError {
	if basic {
		w.Header().Set("WWW-Authenticate", `Basic realm="avenir"`)
	}
	return oerr(401, "invalid_client", format, args...)
}

func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	form, oe := parseTokenForm(w, r)
	if oe == nil {
		var c *client
		if c, oe = s.authenticateClient(w, r, form); oe == nil {
			var resp *tokenResponse
			switch gt := form.Get("grant_type"); gt {
			case "authorization_code":
				resp, oe = s.exchangeCode(r.Context(), c, form)
			case "refresh_token":
				resp, oe = s.exchangeRefresh(r.Context(), c, form)
			case "":
				oe = oerr(400, "invalid_request", "grant_type is required")
			default:
				oe = oerr(400, "unsupported_grant_type", "grant_type %q is not supported; use authorization_code or refresh_token", gt)
			}
			if oe == nil {
				writeJSON(w, http.StatusOK, resp)
				return
			}
		}
	}
	writeOAuthError(w, oe)
}

// checkResource: a token request may name the resource again (RFC 8707 §2.2); it must be the
// one granted.
func (s *Server) checkResource(form url.Values, granted string) *oauthError {
	raw := form.Get("resource")
	if raw == "" {
		return nil
	}
	if res, ok := s.canonicalResource(raw); !ok || res != granted {
		return oerr(400, "invalid_target", "resource must be %s, the resource this grant is for", granted)
	}
	return nil
}

var errDone = errors.New("refused") // ends a transaction that must still commit what it did

// exchangeCode is the authorization_code grant. A code is spent by its first exchange by its own
// client, whether or not the rest checks out; a code presented again means it leaked, so the
// grant it started is revoked with every token issued from it (OAuth 2.1 §4.1.3).
func (s *Server) exchangeCode(ctx context.Context, c *client, form url.Values) (*tokenResponse, *oauthError) {
	code := form.Get("code")
	if code == "" {
		return nil, oerr(400, "invalid_request", "code is required")
	}
	verifier := form.Get("code_verifier")
	if verifier == "" {
		return nil, oerr(400, "invalid_request", "code_verifier is required (PKCE)")
	}
	invalid := oerr(400, "invalid_grant", "the code is not valid: unknown, expired, already used, or issued to another client")
	if !wellFormedSecret(code) {
		return nil, invalid
	}
	var resp *tokenResponse
	var refusal *oauthError
	now := s.now()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var grantID, personID int64
		var clientID, redirectURI, challenge, resource string
		var expires time.Time
		var used *time.Time
		var redirectGiven bool
		err := tx.QueryRow(ctx, `SELECT grant_id, person_id, client_id, redirect_uri, redirect_given, code_challenge, resource, expires_at, used_at
			FROM auth.codes WHERE code_hash = $1 FOR UPDATE`, s.hashSecret(code)).
			Scan(&grantID, &personID, &clientID, &redirectURI, &redirectGiven, &challenge, &resource, &expires, &used)
		if errors.Is(err, pgx.ErrNoRows) {
			refusal = invalid
			return errDone
		}
		if err != nil {
			return err
		}
		if clientID != c.ID {
			refusal = invalid // not spent: the code's own client may still exchange it
			return errDone
		}
		if used != nil {
			if _, err := tx.Exec(ctx, `UPDATE auth.grants SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`, grantID, now); err != nil {
				return err
			}
			s.log.Warn("an authorization code was used twice; its grant is revoked", "client_id", c.ID, "person", personID)
			refusal = oerr(400, "invalid_grant", "the code was already used; the tokens issued from it are revoked")
			return nil // commit the revocation
		}
		if _, err := tx.Exec(ctx, `UPDATE auth.codes SET used_at = $2 WHERE code_hash = $1`, s.hashSecret(code), now); err != nil {
			return err
		}
		switch {
		case !now.Before(expires):
			refusal = oerr(400, "invalid_grant", "the code has expired; sign in again")
		case (redirectGiven || form.Has("redirect_uri")) && form.Get("redirect_uri") != redirectURI:
			// RFC 6749 §4.1.3: required, and identical, when the authorization request named it.
			refusal = oerr(400, "invalid_grant", "redirect_uri must be the one the authorization request named")
		case !validVerifier(verifier) || s256(verifier) != challenge:
			refusal = oerr(400, "invalid_grant", "code_verifier does not match the code_challenge (PKCE S256)")
		}
		if refusal == nil {
			refusal = s.checkResource(form, resource)
		}
		if refusal != nil {
			return nil // commit: the code is spent
		}
		resp, err = s.issueTokens(ctx, tx, c, grantID, personID, resource, now)
		return err
	})
	if err != nil && !errors.Is(err, errDone) {
		s.log.Error("token: exchanging a code", "err", err)
		return nil, oerr(500, "server_error", "the code could not be exchanged; try again")
	}
	if refusal != nil {
		return nil, refusal
	}
	return resp, nil
}

// exchangeRefresh is the refresh_token grant, with rotation: the refresh token presented is
// spent and a new one issued (the MCP spec requires rotation for public clients; avenir rotates
// for all). A spent refresh token presented again means one of the two copies is a thief's:
// the whole grant is revoked.
func (s *Server) exchangeRefresh(ctx context.Context, c *client, form url.Values) (*tokenResponse, *oauthError) {
	rt := form.Get("refresh_token")
	if rt == "" {
		return nil, oerr(400, "invalid_request", "refresh_token is required")
	}
	invalid := oerr(400, "invalid_grant", "the refresh token is not valid: unknown, expired, revoked, already used, or issued to another client")
	if !wellFormedSecret(rt) {
		return nil, invalid
	}
	var resp *tokenResponse
	var refusal *oauthError
	now := s.now()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var grantID, personID int64
		var clientID, resource string
		var expires time.Time
		var used, revoked, grantRevoked *time.Time
		var grantCreated time.Time
		err := tx.QueryRow(ctx, `SELECT t.grant_id, t.person_id, t.client_id, t.resource, t.expires_at, t.used_at, t.revoked_at, g.revoked_at, g.created_at
			FROM auth.tokens t JOIN auth.grants g ON g.id = t.grant_id
			WHERE t.token_hash = $1 AND t.kind = 'refresh' FOR UPDATE OF t, g`, s.hashSecret(rt)).
			Scan(&grantID, &personID, &clientID, &resource, &expires, &used, &revoked, &grantRevoked, &grantCreated)
		if errors.Is(err, pgx.ErrNoRows) {
			refusal = invalid
			return errDone
		}
		if err != nil {
			return err
		}
		switch {
		case clientID != c.ID:
			refusal = invalid
			return errDone
		case used != nil:
			if grantRevoked == nil {
				if _, err := tx.Exec(ctx, `UPDATE auth.grants SET revoked_at = $2 WHERE id = $1`, grantID, now); err != nil {
					return err
				}
				s.log.Warn("a spent refresh token was presented again; its grant is revoked", "client_id", c.ID, "person", personID)
			}
			refusal = oerr(400, "invalid_grant", "the refresh token was already used; the grant is revoked, sign in again")
			return nil
		case revoked != nil || grantRevoked != nil:
			refusal = oerr(400, "invalid_grant", "the refresh token has been revoked; sign in again")
			return errDone
		case !now.Before(expires):
			refusal = oerr(400, "invalid_grant", "the refresh token has expired; sign in again")
			return errDone
		case !now.Before(grantCreated.Add(s.cfg.GrantLifetime)):
			refusal = oerr(400, "invalid_grant", "this sign-in is older than %d days, the longest avenir keeps one; sign in again", int(s.cfg.GrantLifetime.Hours()/24))
			return errDone
		case !c.allows("refresh_token"):
			refusal = oerr(400, "unauthorized_client", "the client did not register the refresh_token grant")
			return errDone
		}
		if refusal = s.checkResource(form, resource); refusal != nil {
			return errDone
		}
		if _, err := tx.Exec(ctx, `UPDATE auth.tokens SET used_at = $2 WHERE token_hash = $1`, s.hashSecret(rt), now); err != nil {
			return err
		}
		resp, err = s.issueTokens(ctx, tx, c, grantID, personID, resource, now)
		return err
	})
	if err != nil && !errors.Is(err, errDone) {
		s.log.Error("token: refreshing", "err", err)
		return nil, oerr(500, "server_error", "the token could not be refreshed; try again")
	}
	if refusal != nil {
		return nil, refusal
	}
	return resp, nil
}

// issueTokens stores a new access token, and a refresh token when the client registered that
// grant, for a grant; only their hashes reach the database. Neither outlives the grant's
// absolute lifetime (GrantLifetime from its sign-in), however often it is refreshed.
func (s *Server) issueTokens(ctx context.Context, tx pgx.Tx, c *client, grantID, personID int64, resource string, now time.Time) (*tokenResponse, error) {
	var grantCreated time.Time
	if err := tx.QueryRow(ctx, `SELECT created_at FROM auth.grants WHERE id = $1`, grantID).Scan(&grantCreated); err != nil {
		return nil, fmt.Errorf("reading the grant: %w", err)
	}
	end := grantCreated.Add(s.cfg.GrantLifetime)
	insert := func(kind string, hash []byte, ttl time.Duration) error {
		expires := now.Add(ttl)
		if expires.After(end) {
			expires = end
		}
		_, err := tx.Exec(ctx, `INSERT INTO auth.tokens (token_hash, kind, grant_id, person_id, client_id, resource, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, hash, kind, grantID, personID, c.ID, resource, now, expires)
		if err != nil {
			return fmt.Errorf("storing the %s token: %w", kind, err)
		}
		return nil
	}
	access, accessHash := s.newSecret()
	if err := insert("access", accessHash, s.cfg.AccessTokenTTL); err != nil {
		return nil, err
	}
	resp := &tokenResponse{AccessToken: access, TokenType: "Bearer", ExpiresIn: int64(min(s.cfg.AccessTokenTTL, end.Sub(now)) / time.Second)}
	if c.allows("refresh_token") {
		refresh, refreshHash := s.newSecret()
		if err := insert("refresh", refreshHash, s.cfg.RefreshTokenTTL); err != nil {
			return nil, err
		}
		resp.RefreshToken = refresh
	}
	return resp, nil
}

// handleRevoke is RFC 7009. Revoking a refresh token revokes its whole grant (§2.1: the access
// tokens issued with it too); revoking an access token revokes that token. An unknown token, or
// one of another client, is answered 200 like any other (§2.2): the answer tells nobody whether
// a token exists.
func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	form, oe := parseTokenForm(w, r)
	if oe != nil {
		writeOAuthError(w, oe)
		return
	}
	c, oe := s.authenticateClient(w, r, form)
	if oe != nil {
		writeOAuthError(w, oe)
		return
	}
	tok := form.Get("token")
	if tok == "" {
		writeOAuthError(w, oerr(400, "invalid_request", "token is required"))
		return
	}
	if wellFormedSecret(tok) {
		now := s.now()
		_, err := s.pool.Exec(r.Context(), `WITH t AS (
				SELECT token_hash, kind, grant_id FROM auth.tokens WHERE token_hash = $1 AND client_id = $2
			), g AS (
				UPDATE auth.grants SET revoked_at = $3 WHERE id IN (SELECT grant_id FROM t WHERE kind = 'refresh') AND revoked_at IS NULL
			)
			UPDATE auth.tokens SET revoked_at = $3 WHERE token_hash IN (SELECT token_hash FROM t) AND revoked_at IS NULL`,
			s.hashSecret(tok), c.ID, now)
		if err != nil {
			s.log.Error("revoke", "err", err)
			writeOAuthError(w, oerr(503, "temporarily_unavailable", "the token could not be revoked; try again"))
			return
		}
	}
	w.WriteHeader(http.StatusOK)
}
