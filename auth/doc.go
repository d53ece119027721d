// Package auth is avenir's sign-in for its hosted mode: the OAuth 2.1 authorization server of
// avenir's own MCP endpoint, the check of the tokens it issues, and each person's YNAB access.
//
// It follows the MCP authorization specification, revision 2026-07-28
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization, with its
// "Client Registration" and "Security Considerations" pages), which keeps what revision
// 2025-11-25 (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization)
// asked of an authorization server and adds RFC 9207's iss parameter. In short:
//
//   - Protected resource metadata (RFC 9728) at /.well-known/oauth-protected-resource (resource:
//     the origin) and /.well-known/oauth-protected-resource/mcp (resource: the origin + /mcp);
//     the MCP endpoint's 401 names the latter in WWW-Authenticate's resource_metadata.
//   - Authorization server metadata (RFC 8414) at /.well-known/oauth-authorization-server; the
//     issuer is AVENIR_MCP_PUBLIC_URL's origin.
//   - Clients register dynamically (RFC 7591, /oauth/register, open to all) or are known by a
//     Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document): a client_id
//     that is an https URL is fetched — bounded in time and size, no redirects, never to a
//     loopback, private or link-local address — and must name itself and list the redirect URI.
//     Redirect URIs are https, or http on a loopback host (any port, RFC 8252 §7.3).
//   - The authorization code grant with PKCE S256, always (OAuth 2.1 §4.1.1; plain and a missing
//     challenge are refused), state passed through, iss added to the answer (RFC 9207), the
//     resource (RFC 8707) the origin or the origin + /mcp; refresh tokens rotate (a spent one
//     presented again revokes its grant), codes are single-use (a second use revokes what the
//     first gave), revocation at /oauth/revoke (RFC 7009).
//   - avenir's tokens are opaque: 32 random bytes in base64url, stored only as HMAC-SHA256
//     hashes keyed from AVENIR_MCP_SECRET_KEY (so a row written into the database without the
//     key opens nothing), bound to client, person and resource; access tokens live an hour,
//     refresh tokens 30 days, and no sign-in more than 90 days however often it is refreshed.
//
// # Signing in with YNAB
//
// avenir is a proxy to YNAB with a single YNAB OAuth application, so — as the spec's "Confused
// Deputy Problem" requires — the person first sees avenir's consent page naming the client and
// the whole redirect URI it will send them back to; only then (the consent form is taken only
// from avenir's own origin) are they sent to YNAB's /authorize, with a state of avenir's own
// bound to this request and to the browser (a cookie set at consent, of avenir's own value,
// __Host- on https) and PKCE. Before consent avenir never redirects to the client: errors and
// Cancel are avenir's pages with a link back. YNAB's callback (/oauth/ynab/callback) exchanges
// YNAB's code and the PKCE verifier at YNAB's /token with the operator's client id and secret, asks YNAB's GET /user who signed in, and in one transaction finds or creates the
// [Person], stores YNAB's tokens sealed with AES-256-GCM (AVENIR_MCP_SECRET_KEY; the
// associated data names the person, so a sealed value moved to another's row does not open),
// and issues avenir's code to the client. A refusal at YNAB, or YNAB's token endpoint failing,
// ends at a page telling the person to sign in again, with nothing stored.
//
// [TokenSource] then gives a valid YNAB access token for a person, refreshing YNAB's two-hour
// token with the stored refresh token under a row lock (SELECT … FOR UPDATE), so instances never
// race to spend YNAB's single-use refresh tokens; the rotated token is stored, sealed, in the
// same transaction. When YNAB refuses the refresh token, the error matches
// [ErrSignInRequired], the YNAB grant is forgotten and the person's avenir grants are revoked,
// so their apps get a 401 and take them through sign-in again.
//
// # Storage
//
// Everything lives in PostgreSQL (pgx), in the schema "auth", versioned by auth.schema_migrations
// and migrated at start under an advisory lock ([Migrate]). A Server holds no state of its own:
// any number of instances share one database. Queries that concern a person are keyed by the
// person.
//
// # Wiring (cmd/avenir)
//
//	cfg, err := auth.ConfigFromEnv(os.LookupEnv)         // AVENIR_MCP_PUBLIC_URL, _YNAB_CLIENT_ID, …
//	pool, err := pgxpool.New(ctx, os.Getenv("AVENIR_MCP_DATABASE_URL"))
//	srv, err := auth.New(ctx, pool, cfg)                 // migrates
//	mux := http.NewServeMux()
//	srv.Mount(mux)                                       // /.well-known/…, /oauth/…
//	mux.Handle("/mcp", srv.Middleware(mcpHandler))       // 401 challenge or the Caller in ctx
//	// in a tool handler:
//	caller, _ := auth.CallerFrom(ctx)                    // caller.Person.ID scopes the journal
//	tok, err := caller.YNAB.Token(ctx)                   // or &auth.Transport{Source: caller.YNAB, Budget: srv.Budget()}
//	// now and then: srv.Sweep(ctx); for /readyz: srv.Ready(ctx)
//
// The operator's YNAB OAuth application must list AVENIR_MCP_PUBLIC_URL + "/oauth/ynab/callback"
// as its redirect URI.
//
// A browser-driven test or person goes: the client's authorization URL → avenir's consent page
// (a form: POST /oauth/consent with its hidden request field and decision=allow, and the
// Origin header of avenir's page) → YNAB's consent, in the same browser, which now holds the
// sign-in's cookie → /oauth/ynab/callback → the client's redirect URI with code, state and iss.
//
// A person sees the apps they gave access, and revokes any, at /account, after signing in with
// YNAB there (a session of half an hour; YNAB's tokens from that sign-in are not kept).
//
// Registration is open, as the MCP spec expects; a registered client can do nothing without a
// person's consent. It takes at most 4 KiB, and registration, authorization, the token endpoint
// and YNAB's callback are rate-limited per client address and overall ([RateLimits], counted in
// PostgreSQL). Sweep removes expired sign-ins, codes, tokens and sessions, and clients never
// given a grant within a day of registering.
//
// # YNAB's rate limit
//
// [Budget] counts each person's YNAB requests over a sliding hour (200 by default, YNAB's own
// limit per token) in PostgreSQL, so the count holds across instances; [Transport] takes from
// it before each request.
package auth
