package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// client is an OAuth client as avenir knows it.
type client struct {
	ID           string
	Kind         string // "registered" (RFC 7591) or "metadata_document"
	SecretHash   []byte // nil for public clients
	AuthMethod   string // none, client_secret_post, client_secret_basic
	Name         string
	URI          string
	RedirectURIs []string
	GrantTypes   []string
	FreshUntil   *time.Time // metadata documents: when to read the document again
}

const (
	kindRegistered = "registered"
	kindDocument   = "metadata_document"
)

func (c *client) public() bool { return c.AuthMethod == "none" }

func (c *client) allows(grantType string) bool { return slices.Contains(c.GrantTypes, grantType) }

// Limits on what a client may register: enough for any real client, small enough that the
// registration endpoint, which anyone may call, cannot be used to fill the database.
const (
	maxRegistrationBytes = 4 << 10 // ten redirect URIs of 300 characters and a name fit
	maxRedirectURIs      = 10
	maxURILength         = 2000
	maxNameLength        = 200
)

// oauthError is an error answer of the token, registration or revocation endpoint (RFC 6749
// §5.2, RFC 7591 §3.2.2, RFC 7009 §2.2.1), or of an authorization request redirected back to
// the client (RFC 6749 §4.1.2.1). Description says, in words a developer can act on, what was
// wrong; it never holds a secret.
type oauthError struct {
	Code        string `json:"error"`
	Description string `json:"error_description,omitempty"`
	status      int
}

func (e *oauthError) Error() string { return e.Code + ": " + e.Description }

func oerr(status int, code, format string, args ...any) *oauthError {
	return &oauthError{Code: code, Description: fmt.Sprintf(format, args...), status: status}
}

// checkRedirectURI: the MCP authorization spec (2026-07-28, Security Considerations,
// "Communication Security") lets a redirect URI be https or localhost only; RFC 6749 §3.1.2
// forbids a fragment. Loopback http is for native clients that listen on this computer
// (RFC 8252 §7.3).
func checkRedirectURI(raw string) error {
	if len(raw) > maxURILength {
		return fmt.Errorf("redirect URI longer than %d characters", maxURILength)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return fmt.Errorf("redirect URI %q is not an absolute URL", raw)
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return fmt.Errorf("redirect URI %q has a fragment, which OAuth forbids", raw)
	}
	if u.User != nil {
		return fmt.Errorf("redirect URI %q carries a user name or password", raw)
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopbackHost(u.Hostname()):
		return nil
	default:
		return fmt.Errorf("redirect URI %q must use https (or http on localhost, 127.0.0.1 or [::1])", raw)
	}
}

// redirectMatches compares a requested redirect URI to a registered one exactly (OAuth 2.1
// §2.3.1), except that on a loopback IP or localhost the port may differ: a native client
// listens on whatever port is free when it runs (RFC 8252 §7.3).
func redirectMatches(registered, requested string) bool {
	if registered == requested {
		return true
	}
	r, err1 := url.Parse(registered)
	q, err2 := url.Parse(requested)
	if err1 != nil || err2 != nil || r.Scheme != "http" || q.Scheme != "http" || !isLoopbackHost(r.Hostname()) {
		return false
	}
	return r.Hostname() == q.Hostname() && r.EscapedPath() == q.EscapedPath() && r.RawQuery == q.RawQuery &&
		q.User == nil && q.Fragment == ""
}

// registrationRequest is the part of RFC 7591 §2 client metadata avenir uses; other fields are
// accepted and ignored.
type registrationRequest struct {
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	ClientName              string   `json:"client_name"`
	ClientURI               string   `json:"client_uri"`
	Scope                   string   `json:"scope"`
}

type registrationResponse struct {
	ClientID                string   `json:"client_id"`
	ClientSecret            string   `json:"client_secret,omitempty"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	ClientSecretExpiresAt   *int64   `json:"client_secret_expires_at,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	ClientName              string   `json:"client_name,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
}

// checkMetadata validates what registration and metadata documents share, filling RFC 7591's
// defaults. defaultAuth is the default token_endpoint_auth_method (RFC 7591 says
// client_secret_basic; a metadata document has no secret to share, so none).
func checkMetadata(m *registrationRequest, defaultAuth string) *oauthError {
	if len(m.RedirectURIs) == 0 {
		return oerr(400, "invalid_redirect_uri", "redirect_uris is required: at least one https (or loopback http) URI")
	}
	if len(m.RedirectURIs) > maxRedirectURIs {
		return oerr(400, "invalid_redirect_uri", "redirect_uris has %d entries; at most %d are accepted", len(m.RedirectURIs), maxRedirectURIs)
	}
	for _, u := range m.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return oerr(400, "invalid_redirect_uri", "%v", err)
		}
	}
	if m.TokenEndpointAuthMethod == "" {
		m.TokenEndpointAuthMethod = defaultAuth
	}
	switch m.TokenEndpointAuthMethod {
	case "none", "client_secret_post", "client_secret_basic":
	default:
		return oerr(400, "invalid_client_metadata", "token_endpoint_auth_method %q is not supported; use none, client_secret_post or client_secret_basic", m.TokenEndpointAuthMethod)
	}
	if len(m.GrantTypes) == 0 {
		m.GrantTypes = []string{"authorization_code"}
	}
	for _, g := range m.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return oerr(400, "invalid_client_metadata", "grant_types may hold authorization_code and refresh_token only; %q is not supported", g)
		}
	}
	if !slices.Contains(m.GrantTypes, "authorization_code") {
		return oerr(400, "invalid_client_metadata", "grant_types must include authorization_code: it is the only way to sign in")
	}
	slices.Sort(m.GrantTypes)
	m.GrantTypes = slices.Compact(m.GrantTypes)
	if len(m.ResponseTypes) == 0 {
		m.ResponseTypes = []string{"code"}
	}
	for _, rt := range m.ResponseTypes {
		if rt != "code" {
			return oerr(400, "invalid_client_metadata", "response_types may hold only code; %q is not supported", rt)
		}
	}
	if utf8.RuneCountInString(m.ClientName) > maxNameLength || !utf8.ValidString(m.ClientName) {
		return oerr(400, "invalid_client_metadata", "client_name must be text of at most %d characters", maxNameLength)
	}
	if r, bad := deceptiveRune(m.ClientName); bad {
		return oerr(400, "invalid_client_metadata", "client_name holds the invisible or control character U+%04X; the consent page shows the name to people, so it must be plain visible text", r)
	}
	if m.ClientURI != "" {
		if u, err := url.Parse(m.ClientURI); err != nil || u.Scheme != "https" || u.Host == "" || len(m.ClientURI) > maxURILength {
			return oerr(400, "invalid_client_metadata", "client_uri must be an https URL")
		}
	}
	return nil
}

// deceptiveRune finds a character that would make a name on the consent page read other than
// it is: control characters, format characters (bidi overrides and isolates, zero-width space
// and joiners, the BOM, soft hyphen), line and paragraph separators, private-use and
// surrogate code points, and the other default-ignorable ones (Hangul fillers and the like).
func deceptiveRune(name string) (rune, bool) {
	for _, r := range name {
		if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co, unicode.Cs,
			unicode.Bidi_Control, unicode.Join_Control, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) ||
			r == utf8.RuneError {
			return r, true
		}
	}
	return 0, false
}

// handleRegister is dynamic client registration (RFC 7591). It is open: anyone may register a
// client, as the MCP spec expects; what a client may then do is bounded by the person's consent
// and by its redirect URIs.
func (s *Server) handleRegister(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	var m registrationRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRegistrationBytes))
	if err != nil {
		writeOAuthError(w, oerr(400, "invalid_client_metadata", "the registration request must be a JSON object of at most %d bytes", maxRegistrationBytes))
		return
	}
	if err := json.Unmarshal(body, &m); err != nil {
		writeOAuthError(w, oerr(400, "invalid_client_metadata", "the registration request is not valid JSON client metadata: %v", jsonProblem(err)))
		return
	}
	if oe := checkMetadata(&m, "client_secret_basic"); oe != nil {
		writeOAuthError(w, oe)
		return
	}
	now := s.now()
	id, _ := s.newSecret()
	c := &client{
		ID: id, Kind: kindRegistered, AuthMethod: m.TokenEndpointAuthMethod, Name: m.ClientName,
		URI: m.ClientURI, RedirectURIs: m.RedirectURIs, GrantTypes: m.GrantTypes,
	}
	resp := registrationResponse{
		ClientID: id, ClientIDIssuedAt: now.Unix(), RedirectURIs: m.RedirectURIs,
		TokenEndpointAuthMethod: m.TokenEndpointAuthMethod, GrantTypes: m.GrantTypes,
		ResponseTypes: m.ResponseTypes, ClientName: m.ClientName, ClientURI: m.ClientURI,
	}
	if !c.public() {
		var secret string
		secret, c.SecretHash = s.newSecret()
		resp.ClientSecret = secret
		never := int64(0)
		resp.ClientSecretExpiresAt = &never
	}
	_, err = s.pool.Exec(r.Context(), `INSERT INTO auth.clients
		(client_id, kind, secret_hash, auth_method, name, client_uri, redirect_uris, grant_types, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		c.ID, c.Kind, c.SecretHash, c.AuthMethod, c.Name, c.URI, c.RedirectURIs, c.GrantTypes, now)
	if err != nil {
		s.log.Error("registering a client", "err", err)
		writeOAuthError(w, oerr(500, "server_error", "the client could not be stored; try again"))
		return
	}
	s.log.Info("client registered", "client_id", c.ID, "client_name", c.Name, "auth_method", c.AuthMethod)
	writeJSON(w, http.StatusCreated, resp)
}

// jsonProblem describes a JSON decoding error without Go's type names.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q has the wrong type", te.Field)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	}
	return "malformed JSON"
}

// isDocumentClientID: a client_id that is an https URL names a Client ID Metadata Document.
func isDocumentClientID(id string) bool { return strings.HasPrefix(id, "https://") }

// lookupClient finds a client by id. A metadata-document client is read again when its cached
// copy is stale and refresh is set (at authorization); the token endpoint uses the copy it has.
func (s *Server) lookupClient(ctx context.Context, id string, refresh bool) (*client, error) {
	c, err := s.storedClient(ctx, id)
	if err != nil && !errors.Is(err, errNotFound) {
		return nil, err
	}
	if !isDocumentClientID(id) {
		return c, err
	}
	if c != nil && (!refresh || (c.FreshUntil != nil && s.now().Before(*c.FreshUntil))) {
		return c, nil
	}
	if !refresh {
		return nil, errNotFound
	}
	doc, maxAge, err := s.fetchClientDocument(ctx, id)
	if err != nil {
		return nil, err
	}
	now := s.now()
	fresh := now.Add(maxAge)
	doc.FreshUntil = &fresh
	_, err = s.pool.Exec(ctx, `INSERT INTO auth.clients
		(client_id, kind, secret_hash, auth_method, name, client_uri, redirect_uris, grant_types, created_at, fresh_until)
		VALUES ($1, 'metadata_document', NULL, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (client_id) DO UPDATE SET auth_method = excluded.auth_method, name = excluded.name,
			client_uri = excluded.client_uri, redirect_uris = excluded.redirect_uris,
			grant_types = excluded.grant_types, fresh_until = excluded.fresh_until
		WHERE auth.clients.kind = 'metadata_document'`,
		doc.ID, doc.AuthMethod, doc.Name, doc.URI, doc.RedirectURIs, doc.GrantTypes, now, fresh)
	if err != nil {
		return nil, fmt.Errorf("caching the client's metadata document: %w", err)
	}
	return doc, nil
}

func (s *Server) storedClient(ctx context.Context, id string) (*client, error) {
	c := &client{}
	err := s.pool.QueryRow(ctx, `SELECT client_id, kind, secret_hash, auth_method, name, client_uri,
		redirect_uris, grant_types, fresh_until FROM auth.clients WHERE client_id = $1`, id).
		Scan(&c.ID, &c.Kind, &c.SecretHash, &c.AuthMethod, &c.Name, &c.URI, &c.RedirectURIs, &c.GrantTypes, &c.FreshUntil)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading client %q: %w", id, err)
	}
	return c, nil
}

// documentError is why a client's metadata document was refused; the authorization page shows
// it to the person (and so to the client's developer).
type documentError struct{ msg string }

func (e *documentError) Error() string { return e.msg }

func docErr(format string, args ...any) error { return &documentError{fmt.Sprintf(format, args...)} }

// checkDocumentURL: the CIMD draft (§3) and the MCP spec ask for an https URL with a path; a
// fragment, credentials or dot segments would make "equals the URL exactly" ambiguous.
func checkDocumentURL(id string) (*url.URL, error) {
	u, err := url.Parse(id)
	switch {
	case err != nil || u.Scheme != "https" || u.Host == "":
		return nil, docErr("client_id %q is neither a registered client nor an https URL of a client metadata document", id)
	case u.Path == "" || u.Path == "/":
		return nil, docErr("client_id %q must name a document: an https URL with a path", id)
	case u.Fragment != "" || u.User != nil || strings.Contains(id, "#"):
		return nil, docErr("client_id %q must not carry a fragment or credentials", id)
	case slices.ContainsFunc(strings.Split(u.Path, "/"), func(seg string) bool { return seg == "." || seg == ".." }):
		return nil, docErr("client_id %q must not hold . or .. path segments", id)
	case len(id) > maxURILength:
		return nil, docErr("client_id is longer than %d characters", maxURILength)
	}
	return u, nil
}

// metadataDocument is the part of a Client ID Metadata Document avenir reads.
type metadataDocument struct {
	ClientID string `json:"client_id"`
	registrationRequest
}

// fetchClientDocument fetches and validates a client's metadata document, returning how long
// the copy may be kept: its Cache-Control max-age, between a minute and a day; an hour when it
// says nothing; not at all with no-store or no-cache (it is read again at each authorization).
func (s *Server) fetchClientDocument(ctx context.Context, id string) (*client, time.Duration, error) {
	u, err := checkDocumentURL(id)
	if err != nil {
		return nil, 0, err
	}
	opts := s.cfg.ClientMetadata
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, 0, docErr("client_id %q cannot be fetched: %v", id, err)
	}
	req.Header.Set("Accept", "application/json")
	// Why a fetch failed goes to the log, for the operator; the page says only that it failed.
	// Telling refused from timed out from not-TLS, or showing what the remote server answered,
	// would make the authorization page a port scanner and a way to put anyone's words on it.
	notFetched := func(why string, err error) error {
		s.log.Info("client metadata document not fetched", "client_id", id, "why", why, "err", err)
		return docErr("the client metadata document %s could not be fetched", id)
	}
	resp, err := s.fetcher.Do(req)
	if err != nil {
		var be *blockedAddressError
		if errors.As(err, &be) {
			return nil, 0, notFetched("refused before connecting: "+be.why, nil)
		}
		return nil, 0, notFetched("the fetch failed", errors.New(fetchProblem(err)))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, notFetched("the server answered "+strconv.Itoa(resp.StatusCode), nil)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, opts.MaxBytes+1))
	if err != nil {
		return nil, 0, notFetched("reading the answer failed", errors.New(fetchProblem(err)))
	}
	if int64(len(body)) > opts.MaxBytes {
		return nil, 0, docErr("the client metadata document %s is larger than %d bytes", id, opts.MaxBytes)
	}
	var doc metadataDocument
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, 0, docErr("the client metadata document %s is not a JSON object of client metadata: %s", id, jsonProblem(err))
	}
	if doc.ClientID != id {
		return nil, 0, docErr("the client metadata document at %s names another client_id; it must be the document's own URL exactly", id)
	}
	if strings.TrimSpace(doc.ClientName) == "" {
		return nil, 0, docErr("the client metadata document %s has no client_name", id)
	}
	if oe := checkMetadata(&doc.registrationRequest, "none"); oe != nil {
		return nil, 0, docErr("the client metadata document %s: %s", id, oe.Description)
	}
	if doc.TokenEndpointAuthMethod != "none" {
		return nil, 0, docErr("the client metadata document %s asks for token_endpoint_auth_method %q; a client known by its document has no secret here, so it must be none", id, doc.TokenEndpointAuthMethod)
	}
	c := &client{
		ID: id, Kind: kindDocument, AuthMethod: "none", Name: doc.ClientName, URI: doc.ClientURI,
		RedirectURIs: doc.RedirectURIs, GrantTypes: doc.GrantTypes,
	}
	return c, cacheAge(resp.Header.Get("Cache-Control")), nil
}

func cacheAge(cc string) time.Duration {
	age := time.Hour
	for _, d := range strings.Split(cc, ",") {
		d = strings.ToLower(strings.TrimSpace(d))
		if d == "no-store" || d == "no-cache" {
			return 0
		}
		if v, ok := strings.CutPrefix(d, "max-age="); ok {
			if n, err := strconv.Atoi(v); err == nil {
				age = time.Duration(n) * time.Second
			}
		}
	}
	return min(max(age, time.Minute), 24*time.Hour)
}

// fetchProblem names a fetch failure without the whole chain of Go's wrapping.
func fetchProblem(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "it took too long"
	}
	return err.Error()
}

// blockedAddressError: the document's host resolved to an address avenir will not reach.
type blockedAddressError struct{ why string }

func (e *blockedAddressError) Error() string { return "blocked address (" + e.why + ")" }

// newFetcher makes the HTTP client for metadata documents: bounded in time and size, no
// redirects (the document's URL is the client's identity), no proxy, and a dialer that checks
// the address it actually connects to — after DNS resolution, so a name that resolves to a
// private address, or changes to one between two lookups, is refused as well.
func newFetcher(opts FetchOptions) *http.Client {
	dialer := &net.Dialer{Timeout: opts.Timeout}
	if !opts.AllowPrivateAddresses {
		dialer.Control = func(network, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			ip, err := netip.ParseAddr(host)
			if err != nil {
				return &blockedAddressError{"unparseable"}
			}
			if why := privateAddress(ip); why != "" {
				return &blockedAddressError{why}
			}
			return nil
		}
	}
	return &http.Client{
		Timeout: opts.Timeout,
		Transport: &http.Transport{
			Proxy:                  nil,
			DialContext:            dialer.DialContext,
			TLSClientConfig:        opts.TLSConfig,
			TLSHandshakeTimeout:    opts.Timeout,
			ResponseHeaderTimeout:  opts.Timeout,
			MaxResponseHeaderBytes: 16 << 10,
			DisableKeepAlives:      true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errors.New("it redirects; a client metadata document must be served at its client_id URL itself")
		},
	}
}

// specialPurpose are the IANA special-purpose address registries' blocks (IPv4 and IPv6,
// https://www.iana.org/assignments/iana-ipv4-special-registry and iana-ipv6-special-registry),
// with multicast, the reserved 240/4 and the deprecated site-local and IPv4-compatible IPv6
// blocks. None is a place a client's public metadata document can live; several reach into
// avenir's own network by translation (NAT64, 6to4, Teredo, IPv4-compatible and -mapped
// addresses carry an IPv4 address inside), so each is refused before a connection is made.
var specialPurpose = func() []struct {
	p   netip.Prefix
	why string
} {
	var out []struct {
		p   netip.Prefix
		why string
	}
	for _, b := range []struct{ cidr, why string }{
		{"0.0.0.0/8", "this-network"}, {"10.0.0.0/8", "private"}, {"100.64.0.0/10", "shared (CGNAT)"},
		{"127.0.0.0/8", "loopback"}, {"169.254.0.0/16", "link-local"}, {"172.16.0.0/12", "private"},
		{"192.0.0.0/24", "IETF protocol assignments"}, {"192.0.2.0/24", "documentation"},
		{"192.31.196.0/24", "AS112"}, {"192.52.193.0/24", "AMT"}, {"192.88.99.0/24", "6to4 relay anycast"},
		{"192.168.0.0/16", "private"}, {"192.175.48.0/24", "direct delegation AS112"},
		{"198.18.0.0/15", "benchmarking"}, {"198.51.100.0/24", "documentation"}, {"203.0.113.0/24", "documentation"},
		{"224.0.0.0/4", "multicast"}, {"255.255.255.255/32", "broadcast"}, {"240.0.0.0/4", "reserved"},
		{"::/128", "unspecified"}, {"::1/128", "loopback"}, {"::/96", "IPv4-compatible"},
		{"::ffff:0:0/96", "IPv4-mapped"}, {"::ffff:0:0:0/96", "IPv4-translated"},
		{"64:ff9b::/96", "NAT64"}, {"64:ff9b:1::/48", "local NAT64"}, {"100::/64", "discard-only"},
		{"100:0:0:1::/64", "dummy prefix"}, {"2001::/23", "IETF protocol assignments (Teredo, benchmarking, ORCHID)"},
		{"2001:db8::/32", "documentation"}, {"2002::/16", "6to4"}, {"2620:4f:8000::/48", "direct delegation AS112"},
		{"3fff::/20", "documentation"}, {"5f00::/16", "segment routing"}, {"fc00::/7", "unique-local"},
		{"fe80::/10", "link-local"}, {"fec0::/10", "site-local"}, {"ff00::/8", "multicast"},
	} {
		out = append(out, struct {
			p   netip.Prefix
			why string
		}{netip.MustParsePrefix(b.cidr), b.why})
	}
	return out
}()

// privateAddress says why ip is not a public unicast address avenir may fetch from, or "" when
// it is. IPv6 outside 2000::/3, the global unicast space, is refused too.
func privateAddress(ip netip.Addr) string {
	if ip.Is4In6() {
		if why := privateAddress(ip.Unmap()); why != "" {
			return why
		}
		return "IPv4-mapped"
	}
	for _, b := range specialPurpose {
		if b.p.Contains(ip) {
			return b.why
		}
	}
	if ip.Is6() && !netip.MustParsePrefix("2000::/3").Contains(ip) {
		return "unassigned IPv6"
	}
	if !ip.IsGlobalUnicast() {
		return "non-unicast"
	}
	return ""
}
