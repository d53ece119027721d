package auth

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	mcpauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// Person is someone signed in to avenir: a YNAB user. ID scopes everything avenir keeps for
// them (journal, confirmations, budget); two people never share it.
type Person struct {
	ID         int64
	YNABUserID string
	CreatedAt  time.Time
}

// Caller is who a request through [Server.Middleware] comes from.
type Caller struct {
	Person   Person
	ClientID string       // the OAuth client the token was issued to
	Resource string       // the resource the token is for: the origin or origin + /mcp
	Expires  time.Time    // when the access token expires
	YNAB     *TokenSource // the person's YNAB access token
}

type callerKey struct{}

// CallerFrom returns the caller [Server.Middleware] put in a request's context.
func CallerFrom(ctx context.Context) (*Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(*Caller)
	return c, ok
}

// WithCaller returns ctx carrying c, for tests of code that reads [CallerFrom].
func WithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// Middleware guards the MCP endpoint (OAuth 2.1 §5.2, the MCP spec's "Token Handling"). A
// request without a bearer token in the Authorization header gets 401 with
//
//	WWW-Authenticate: Bearer resource_metadata="<origin>/.well-known/oauth-protected-resource/mcp"
//
// and one whose token is unknown, malformed, expired, revoked or for another resource gets the
// same with error="invalid_token" and an error_description (RFC 6750 §3.1); next is not run.
// A valid token puts the [Caller] in the request's context, and the go-sdk's TokenInfo (UserID
// is the person's id), so that the SDK's streamable handler keeps each session to the person
// who opened it.
func (s *Server) Middleware(next http.Handler) http.Handler {
	// The go-sdk sets its TokenInfo only through its own middleware; this one hands it the
	// caller already verified below.
	sdk := mcpauth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*mcpauth.TokenInfo, error) {
		c, ok := CallerFrom(ctx)
		if !ok {
			return nil, mcpauth.ErrInvalidToken
		}
		return &mcpauth.TokenInfo{UserID: strconv.FormatInt(c.Person.ID, 10), Expiration: c.Expires}, nil
	}, &mcpauth.RequireBearerTokenOptions{ResourceMetadataURL: s.ResourceMetadataURL()})(next)

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, present := bearerToken(r)
		if !present {
			s.challenge(w, "", "")
			return
		}
		c, why, err := s.verify(r.Context(), tok)
		if err != nil {
			s.log.Error("checking an access token", "err", err)
			w.Header().Set("Retry-After", "5")
			http.Error(w, "avenir cannot check the access token just now (its database is unreachable); try again shortly", http.StatusServiceUnavailable)
			return
		}
		if c == nil {
			s.challenge(w, "invalid_token", why)
			return
		}
		sdk.ServeHTTP(w, r.WithContext(WithCaller(r.Context(), c)))
	})
}

// bearerToken reads "Authorization: Bearer <token>" (RFC 6750 §2.1; the scheme is
// case-insensitive). present is false when there is no Authorization header with the Bearer
// scheme; a token in the query or body is never read (the MCP spec forbids it in the URI).
func bearerToken(r *http.Request) (tok string, present bool) {
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	if strings.EqualFold(h, "Bearer") {
		return "", true // the scheme with no token: a malformed credential, not a missing one
	}
	scheme, rest, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// challenge answers 401 with the Bearer challenge naming the resource metadata.
func (s *Server) challenge(w http.ResponseWriter, code, desc string) {
	v := `Bearer resource_metadata="` + s.ResourceMetadataURL() + `"`
	if code != "" {
		v += `, error="` + code + `", error_description="` + desc + `"`
	}
	w.Header().Set("WWW-Authenticate", v)
	w.Header().Set("Cache-Control", "no-store")
	msg := "sign-in required: this MCP endpoint needs an OAuth access token from avenir"
	if desc != "" {
		msg = "the access token was refused: " + desc
	}
	http.Error(w, msg, http.StatusUnauthorized)
}

// verify looks the access token up. A refused token returns a nil caller and why (words for
// error_description: no quotes or backslashes); err is for the database failing.
func (s *Server) verify(ctx context.Context, tok string) (c *Caller, why string, err error) {
	if !wellFormedSecret(tok) {
		return nil, "the access token is malformed", nil
	}
	var resource string
	var expires time.Time
	var revoked, grantRevoked *time.Time
	c = &Caller{}
	err = s.pool.QueryRow(ctx, `SELECT t.client_id, t.resource, t.expires_at, t.revoked_at, g.revoked_at,
			p.id, p.ynab_user_id, p.created_at
		FROM auth.tokens t JOIN auth.grants g ON g.id = t.grant_id JOIN auth.people p ON p.id = t.person_id
		WHERE t.token_hash = $1 AND t.kind = 'access'`, s.hashSecret(tok)).
		Scan(&c.ClientID, &resource, &expires, &revoked, &grantRevoked, &c.Person.ID, &c.Person.YNABUserID, &c.Person.CreatedAt)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, "the access token is not one avenir issued", nil
	case err != nil:
		return nil, "", err
	case revoked != nil || grantRevoked != nil:
		return nil, "the access token has been revoked", nil
	case !s.now().Before(expires):
		return nil, "the access token has expired", nil
	case resource != s.origin && resource != s.origin+MCPPath:
		// Another avenir deployment sharing this database issued it: it is not for us.
		return nil, "the access token was issued for another resource", nil
	}
	c.Resource, c.Expires, c.YNAB = resource, expires, s.TokenSource(c.Person.ID)
	return c, "", nil
}
