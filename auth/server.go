package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/oauth2"
)

// Server is avenir's OAuth 2.1 authorization server and the resource server's token check for
// its MCP endpoint. It keeps no state of its own: everything lives in PostgreSQL, so any number
// of instances on one database serve the same people. It is safe for concurrent use.
type Server struct {
	cfg     Config
	pool    *pgxpool.Pool
	origin  string // the issuer, and the resource with no path
	seal    *sealer
	ynab    *oauth2.Config
	fetcher *http.Client // for client metadata documents
	budget  *Budget
	*hasher              // credentials' keyed hashes
	limits  *rateLimiter // per client address and overall, on the endpoints anyone may call
	log     *slog.Logger
	now     func() time.Time
}

// New checks cfg, brings the database's auth schema up to date ([Migrate]) and returns the
// server. The pool is the caller's: avenir's other PostgreSQL users share it, and the caller
// closes it after the server is done.
func New(ctx context.Context, pool *pgxpool.Pool, cfg Config) (*Server, error) {
	cfg, origin, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	seal, err := newSealer(cfg.SecretKey)
	if err != nil {
		return nil, err
	}
	if err := Migrate(ctx, pool); err != nil {
		return nil, err
	}
	hasher := newHasher(cfg.SecretKey)
	if err := rekey(ctx, pool, hasher); err != nil {
		return nil, err
	}
	s := &Server{
		cfg:    cfg,
		pool:   pool,
		origin: origin,
		seal:   seal,
		ynab: &oauth2.Config{
			ClientID:     cfg.YNABClientID,
			ClientSecret: cfg.YNABClientSecret,
			Endpoint: oauth2.Endpoint{
				AuthURL:  cfg.YNABOAuthURL + "/authorize",
				TokenURL: cfg.YNABOAuthURL + "/token",
				// YNAB takes the client's id and secret as form fields.
				AuthStyle: oauth2.AuthStyleInParams,
			},
			RedirectURL: origin + ynabCallbackPath,
		},
		fetcher: newFetcher(cfg.ClientMetadata),
		hasher:  hasher,
		limits:  &rateLimiter{pool: pool, now: cfg.Now, header: cfg.ClientIPHeader, log: cfg.Logger},
		log:     cfg.Logger,
		now:     cfg.Now,
	}
	if cfg.ReadOnly {
		// YNAB's OAuth offers a read-only scope; a deployment that writes nothing asks for no
		// more (https://api.ynab.com/#oauth-applications).
		s.ynab.Scopes = []string{"read-only"}
	}
	s.budget = &Budget{pool: pool, limit: cfg.RequestBudget, window: time.Hour, now: cfg.Now}
	return s, nil
}

// Paths avenir's OAuth endpoints answer at.
const (
	protectedResourcePath = "/.well-known/oauth-protected-resource"
	authServerMetaPath    = "/.well-known/oauth-authorization-server"
	registerPath          = "/oauth/register"
	authorizePath         = "/oauth/authorize"
	consentPath           = "/oauth/consent"
	ynabCallbackPath      = "/oauth/ynab/callback"
	tokenPath             = "/oauth/token"
	revokePath            = "/oauth/revoke"
	accountPath           = "/account"
	accountSignInPath     = "/account/signin"
	accountRevokePath     = "/account/revoke"
	accountSignOutPath    = "/account/signout"
)

// Mount adds the metadata documents and the OAuth endpoints to mux:
//
//	GET  /.well-known/oauth-protected-resource       RFC 9728, resource = the origin
//	GET  /.well-known/oauth-protected-resource/mcp   RFC 9728, resource = the origin + /mcp
//	GET  /.well-known/oauth-authorization-server     RFC 8414
//	POST /oauth/register                             RFC 7591
//	GET  /oauth/authorize                            the consent page
//	POST /oauth/consent                              on to YNAB's sign-in
//	GET  /oauth/ynab/callback                        back from YNAB; on to the client
//	POST /oauth/token                                authorization_code and refresh_token grants
//	POST /oauth/revoke                               RFC 7009
//
// The MCP endpoint itself is the caller's, wrapped in [Server.Middleware].
//
//	GET  /account                                    a person's apps, to revoke (signed in with YNAB)
//	POST /account/signin, /account/revoke, /account/signout
//
// Registration, authorization, the token endpoint and YNAB's callback are rate-limited per
// client address and overall ([RateLimits]); a request over a limit is answered 429 with
// Retry-After.
//
// The MCP endpoint itself is the caller's, wrapped in [Server.Middleware].
func (s *Server) Mount(mux *http.ServeMux) {
	public := func(h http.HandlerFunc) http.Handler { return cors(h) }
	rl := s.cfg.RateLimits
	mux.Handle("GET "+protectedResourcePath, public(s.resourceMetadata(s.origin)))
	mux.Handle("GET "+protectedResourcePath+MCPPath, public(s.resourceMetadata(s.origin+MCPPath)))
	mux.Handle("GET "+authServerMetaPath, public(s.handleAuthServerMetadata))
	mux.Handle("POST "+registerPath, public(s.limited("register", rl.Register, s.handleRegister)))
	mux.Handle("GET "+authorizePath, s.limited("authorize", rl.Authorize, s.handleAuthorize))
	mux.Handle("POST "+consentPath, s.limited("authorize", rl.Authorize, s.handleConsent))
	mux.Handle("GET "+ynabCallbackPath, s.limited("callback", rl.Callback, s.handleYNABCallback))
	mux.Handle("POST "+tokenPath, public(s.limited("token", rl.Token, s.handleToken)))
	mux.Handle("POST "+revokePath, public(s.limited("token", rl.Token, s.handleRevoke)))
	mux.Handle("GET "+accountPath, http.HandlerFunc(s.handleAccount))
	mux.Handle("POST "+accountSignInPath, s.limited("authorize", rl.Authorize, s.handleAccountSignIn))
	mux.Handle("POST "+accountRevokePath, http.HandlerFunc(s.handleAccountRevoke))
	mux.Handle("POST "+accountSignOutPath, http.HandlerFunc(s.handleAccountSignOut))
	for _, p := range []string{protectedResourcePath, protectedResourcePath + MCPPath, authServerMetaPath, registerPath, tokenPath, revokePath} {
		mux.Handle("OPTIONS "+p, public(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	}
}

// Handler is a mux holding only what [Server.Mount] adds, for callers that route by prefix.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	s.Mount(mux)
	return mux
}

// Issuer is avenir's OAuth issuer identifier: the public URL's origin.
func (s *Server) Issuer() string { return s.origin }

// ResourceMetadataURL is the protected resource metadata document of the MCP endpoint, the URL
// the 401 challenge names.
func (s *Server) ResourceMetadataURL() string { return s.origin + protectedResourcePath + MCPPath }

// Budget is the per-person YNAB request budget.
func (s *Server) Budget() *Budget { return s.budget }

// Ready reports whether the database answers and holds this avenir's auth schema; for /readyz.
func (s *Server) Ready(ctx context.Context) error { return migrated(ctx, s.pool) }

// cors lets browser-based clients read the public JSON endpoints. They use no cookies, so any
// origin may.
func cors(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
		h(w, r)
	})
}

// resourceMetadata serves RFC 9728 §2 metadata for resource, naming avenir as its only
// authorization server.
func (s *Server) resourceMetadata(resource string) http.HandlerFunc {
	doc := map[string]any{
		"resource":                 resource,
		"authorization_servers":    []string{s.origin},
		"bearer_methods_supported": []string{"header"},
		"resource_name":            "avenir",
	}
	return func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, doc) }
}

// authServerMetadata is RFC 8414 §2, with client_id_metadata_document_supported (the MCP spec's
// Client Registration) and authorization_response_iss_parameter_supported (RFC 9207).
type authServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	ResponseModesSupported            []string `json:"response_modes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethods     []string `json:"revocation_endpoint_auth_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	AuthorizationResponseIssParameter bool     `json:"authorization_response_iss_parameter_supported"`
	ProtectedResources                []string `json:"protected_resources,omitempty"`
	ServiceDocumentation              string   `json:"service_documentation,omitempty"`
}

func (s *Server) handleAuthServerMetadata(w http.ResponseWriter, r *http.Request) {
	methods := []string{"none", "client_secret_post", "client_secret_basic"}
	writeJSON(w, http.StatusOK, authServerMetadata{
		Issuer:                            s.origin,
		AuthorizationEndpoint:             s.origin + authorizePath,
		TokenEndpoint:                     s.origin + tokenPath,
		RegistrationEndpoint:              s.origin + registerPath,
		RevocationEndpoint:                s.origin + revokePath,
		ResponseTypesSupported:            []string{"code"},
		ResponseModesSupported:            []string{"query"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		TokenEndpointAuthMethodsSupported: methods,
		RevocationEndpointAuthMethods:     methods,
		ClientIDMetadataDocumentSupported: true,
		AuthorizationResponseIssParameter: true,
		ProtectedResources:                []string{s.origin, s.origin + MCPPath},
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encoding the answer failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func writeOAuthError(w http.ResponseWriter, e *oauthError) {
	status := e.status
	if status == 0 {
		status = http.StatusBadRequest
	}
	writeJSON(w, status, e)
}

// noStore: answers that carry credentials must not be cached (RFC 6749 §5.1).
func noStore(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
}

// Sweep deletes what has expired: sign-ins never finished, codes, tokens, grants left with no
// live token, old rate counters, sessions of the account page, and clients that were never
// given a grant within a day of registering (registration is open: without this, anyone could
// fill the database with clients). Nothing it deletes could still be used. Call it now and then (say hourly) from
// one place; concurrent sweeps are harmless.
func (s *Server) Sweep(ctx context.Context) error {
	now := s.now()
	// A spent code is kept until it expires: a second use within its lifetime must still find
	// it, to refuse it and revoke what it gave.
	stmts := []string{
		`DELETE FROM auth.pending_authorizations WHERE expires_at <= $1`,
		`DELETE FROM auth.codes WHERE expires_at <= $1`,
		`DELETE FROM auth.tokens WHERE expires_at <= $1 OR revoked_at IS NOT NULL`,
		`DELETE FROM auth.grants g WHERE (g.revoked_at IS NOT NULL OR g.created_at <= $1::timestamptz - interval '1 hour')
			AND NOT EXISTS (SELECT 1 FROM auth.tokens t WHERE t.grant_id = g.id)
			AND NOT EXISTS (SELECT 1 FROM auth.codes c WHERE c.grant_id = g.id)`,
		`DELETE FROM auth.ynab_requests WHERE at <= $1::timestamptz - interval '1 hour'`,
		`DELETE FROM auth.rate_counters WHERE window_start <= $1::timestamptz - interval '1 day'`,
		`DELETE FROM auth.sessions WHERE expires_at <= $1`,
		`DELETE FROM auth.clients c WHERE c.granted_at IS NULL AND c.created_at <= $1::timestamptz - interval '1 day'
			AND NOT EXISTS (SELECT 1 FROM auth.grants g WHERE g.client_id = c.client_id)`,
	}
	var errs []error
	for _, q := range stmts {
		if _, err := s.pool.Exec(ctx, q, now); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sweeping expired sign-in records: %w", err)
	}
	return nil
}
