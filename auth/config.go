package auth

import (
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults of [Config].
const (
	DefaultYNABOAuthURL    = "https://app.ynab.com/oauth"
	DefaultYNABAPIURL      = "https://api.ynab.com/v1"
	DefaultAccessTokenTTL  = time.Hour
	DefaultRefreshTokenTTL = 30 * 24 * time.Hour
	// DefaultCodeTTL is short: a code travels from avenir to the client's redirect URI and is
	// exchanged at once (OAuth 2.1 §4.1.2 asks for a short lifetime; 10 minutes at most).
	DefaultCodeTTL = 2 * time.Minute
	// DefaultSignInTTL is how long a person has between opening the consent page and coming
	// back from YNAB's sign-in.
	DefaultSignInTTL = 15 * time.Minute
	// DefaultRequestBudget is YNAB's own limit: 200 requests an hour per access token.
	DefaultRequestBudget = 200
	// DefaultGrantLifetime is how long one sign-in lasts at most, however often its refresh
	// token is used: then the person signs in again.
	DefaultGrantLifetime = 90 * 24 * time.Hour
)

// RateLimit bounds one group of endpoints: at most PerAddress requests from one client address
// (an IPv6 address counts by its /64) and Overall from everyone, in each Window. The counts
// live in PostgreSQL, so they hold across instances. Zero fields take the defaults of
// [DefaultRateLimits]; a negative one turns that bound off.
type RateLimit struct {
	PerAddress, Overall int
	Window              time.Duration
}

// RateLimits are the bounds of the endpoints anyone may call.
type RateLimits struct {
	Register  RateLimit // POST /oauth/register
	Authorize RateLimit // GET /oauth/authorize, POST /oauth/consent, POST /account/signin
	Token     RateLimit // POST /oauth/token, POST /oauth/revoke
	Callback  RateLimit // GET /oauth/ynab/callback
}

// DefaultRateLimits are generous for people and their apps (a sign-in is one authorization,
// one consent, one callback and one token request; an app refreshes once an hour), and small
// enough that the open endpoints cannot be used to fill the database: at most 1,000
// registrations of at most 4 KiB an hour from everyone together.
var DefaultRateLimits = RateLimits{
	Register:  RateLimit{PerAddress: 30, Overall: 1000, Window: time.Hour},
	Authorize: RateLimit{PerAddress: 60, Overall: 3000, Window: time.Minute},
	Token:     RateLimit{PerAddress: 120, Overall: 6000, Window: time.Minute},
	Callback:  RateLimit{PerAddress: 30, Overall: 1500, Window: time.Minute},
}

// MCPPath is where avenir serves MCP. The protected resource is both the origin and the origin
// followed by MCPPath.
const MCPPath = "/mcp"

// Config configures a [Server]. cmd/avenir fills it, from the environment through
// [ConfigFromEnv] or by hand; every field but the first five has a default.
type Config struct {
	// PublicURL is the origin clients reach avenir at (AVENIR_MCP_PUBLIC_URL): https://host[:port],
	// or http:// on a loopback host for tests. It is avenir's OAuth issuer and its protected
	// resource (with and without MCPPath). A path, query or fragment is refused.
	PublicURL string
	// YNABClientID and YNABClientSecret are the operator's YNAB OAuth application
	// (AVENIR_MCP_YNAB_CLIENT_ID, AVENIR_MCP_YNAB_CLIENT_SECRET). The application's redirect
	// URI must be PublicURL + "/oauth/ynab/callback".
	YNABClientID     string
	YNABClientSecret string
	// SecretKey is the 32-byte AES-256 key that seals each person's YNAB tokens at rest
	// (AVENIR_MCP_SECRET_KEY, base64; see [ParseSecretKey]). Losing it loses every stored YNAB
	// sign-in: people then sign in again, nothing else is lost.
	SecretKey []byte

	// YNABOAuthURL is YNAB's OAuth base (AVENIR_MCP_YNAB_OAUTH_URL); avenir uses its /authorize
	// and /token. Default DefaultYNABOAuthURL.
	YNABOAuthURL string
	// YNABAPIURL is YNAB's API base (AVENIR_MCP_YNAB_URL), for GET /user at sign-in. Default
	// DefaultYNABAPIURL.
	YNABAPIURL string
	// YNABHTTPClient talks to YNAB's token endpoint and API. Default: a client with a 30 s
	// timeout.
	YNABHTTPClient *http.Client

	// Lifetimes of avenir's own credentials.
	AccessTokenTTL  time.Duration // default DefaultAccessTokenTTL
	RefreshTokenTTL time.Duration // default DefaultRefreshTokenTTL; each refresh starts it again, within GrantLifetime
	GrantLifetime   time.Duration // default DefaultGrantLifetime: a sign-in's absolute lifetime
	CodeTTL         time.Duration // default DefaultCodeTTL
	SignInTTL       time.Duration // default DefaultSignInTTL

	// ClientMetadata bounds the fetch of Client ID Metadata Documents.
	ClientMetadata FetchOptions

	// RateLimits bound the endpoints anyone may call. Default [DefaultRateLimits].
	RateLimits RateLimits
	// ClientIPHeader names the header a reverse proxy in front sets to the client's address
	// (AVENIR_MCP_CLIENT_IP_HEADER: X-Forwarded-For, whose last entry is taken, X-Real-IP, …).
	// Empty: the connection's peer address, right when avenir faces the Internet itself. Set it
	// only behind a proxy that overwrites the header: a client can send it too.
	ClientIPHeader string
	// ReadOnly asks YNAB for its read-only scope (AVENIR_MCP_READ_ONLY=1): a deployment that
	// offers no write tool holds no write access either.
	ReadOnly bool

	// RequestBudget is how many YNAB requests one person may make in any hour, counted by
	// [Budget]. Default DefaultRequestBudget.
	RequestBudget int

	Logger *slog.Logger     // default: discard
	Now    func() time.Time // default time.Now; tests move the clock
}

// FetchOptions bound how avenir fetches a client's metadata document: the URL a client gives as
// its client_id, which anyone can choose, so the fetch must not become a way to make avenir
// reach inside its own network (the CIMD draft's §8.6 on server-side request forgery).
type FetchOptions struct {
	Timeout  time.Duration // the whole fetch; default 5 s
	MaxBytes int64         // the largest document read; default 5 KiB, as the draft suggests
	// AllowPrivateAddresses lets the fetch reach loopback, private and link-local addresses. For
	// tests only: a deployment leaves it false.
	AllowPrivateAddresses bool
	// TLSConfig is for tests (a test server's certificate); default: the system's roots.
	TLSConfig *tls.Config
}

// ConfigFromEnv reads the hosted mode's settings through lookup (os.LookupEnv in cmd/avenir):
// AVENIR_MCP_PUBLIC_URL, AVENIR_MCP_YNAB_CLIENT_ID, AVENIR_MCP_YNAB_CLIENT_SECRET,
// AVENIR_MCP_SECRET_KEY (required), AVENIR_MCP_YNAB_OAUTH_URL, AVENIR_MCP_YNAB_URL,
// AVENIR_MCP_READ_ONLY and AVENIR_MCP_CLIENT_IP_HEADER (optional). An error names each variable that is missing or wrong and what it must be; it
// never repeats a secret's value.
func ConfigFromEnv(lookup func(string) (string, bool)) (Config, error) {
	get := func(name string) string {
		v, _ := lookup(name)
		return strings.TrimSpace(v)
	}
	var errs []error
	required := func(name string) string {
		v := get(name)
		if v == "" {
			errs = append(errs, fmt.Errorf("%s is not set", name))
		}
		return v
	}
	cfg := Config{
		PublicURL:        required("AVENIR_MCP_PUBLIC_URL"),
		YNABClientID:     required("AVENIR_MCP_YNAB_CLIENT_ID"),
		YNABClientSecret: required("AVENIR_MCP_YNAB_CLIENT_SECRET"),
		YNABOAuthURL:     get("AVENIR_MCP_YNAB_OAUTH_URL"),
		YNABAPIURL:       get("AVENIR_MCP_YNAB_URL"),
		ReadOnly:         get("AVENIR_MCP_READ_ONLY") == "1",
		ClientIPHeader:   http.CanonicalHeaderKey(get("AVENIR_MCP_CLIENT_IP_HEADER")),
	}
	for name, v := range map[string]string{"AVENIR_MCP_YNAB_OAUTH_URL": cfg.YNABOAuthURL, "AVENIR_MCP_YNAB_URL": cfg.YNABAPIURL} {
		if v != "" {
			if err := CheckYNABURL(name, v); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if key := required("AVENIR_MCP_SECRET_KEY"); key != "" {
		k, err := ParseSecretKey(key)
		if err != nil {
			errs = append(errs, fmt.Errorf("AVENIR_MCP_SECRET_KEY: %w", err))
		}
		cfg.SecretKey = k
	}
	if len(errs) > 0 {
		return Config{}, fmt.Errorf("hosted mode: %w", errors.Join(errs...))
	}
	return cfg, nil
}

// ParseSecretKey decodes AVENIR_MCP_SECRET_KEY: 32 bytes in standard or URL-safe base64, padded
// or not (`openssl rand -base64 32` makes one).
func ParseSecretKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil {
			if len(k) != 32 {
				return nil, fmt.Errorf("the key must be 32 bytes (AES-256) in base64; this one decodes to %d bytes (make one with: openssl rand -base64 32)", len(k))
			}
			return k, nil
		}
	}
	return nil, errors.New("the key must be 32 bytes in base64 (make one with: openssl rand -base64 32); it is not base64")
}

// withDefaults checks cfg and fills its defaults; origin is the canonical PublicURL.
func (cfg Config) withDefaults() (c Config, origin string, err error) {
	c = cfg
	if origin, err = canonicalOrigin(c.PublicURL); err != nil {
		return c, "", fmt.Errorf("the public URL (AVENIR_MCP_PUBLIC_URL) %q: %w", c.PublicURL, err)
	}
	if c.YNABClientID == "" || c.YNABClientSecret == "" {
		return c, "", errors.New("the YNAB OAuth application's client id and secret (AVENIR_MCP_YNAB_CLIENT_ID, AVENIR_MCP_YNAB_CLIENT_SECRET) are required")
	}
	if len(c.SecretKey) != 32 {
		return c, "", fmt.Errorf("the secret key (AVENIR_MCP_SECRET_KEY) must be 32 bytes; it is %d", len(c.SecretKey))
	}
	if c.YNABOAuthURL == "" {
		c.YNABOAuthURL = DefaultYNABOAuthURL
	}
	if c.YNABAPIURL == "" {
		c.YNABAPIURL = DefaultYNABAPIURL
	}
	for name, v := range map[string]*string{"AVENIR_MCP_YNAB_OAUTH_URL": &c.YNABOAuthURL, "AVENIR_MCP_YNAB_URL": &c.YNABAPIURL} {
		if err := CheckYNABURL(name, *v); err != nil {
			return c, "", err
		}
		*v = strings.TrimRight(*v, "/")
	}
	if c.YNABHTTPClient == nil {
		c.YNABHTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.AccessTokenTTL, DefaultAccessTokenTTL)
	def(&c.RefreshTokenTTL, DefaultRefreshTokenTTL)
	def(&c.GrantLifetime, DefaultGrantLifetime)
	def(&c.CodeTTL, DefaultCodeTTL)
	def(&c.SignInTTL, DefaultSignInTTL)
	def(&c.ClientMetadata.Timeout, 5*time.Second)
	if c.ClientMetadata.MaxBytes <= 0 {
		c.ClientMetadata.MaxBytes = 5 << 10
	}
	rl := func(l *RateLimit, d RateLimit) {
		if l.PerAddress == 0 {
			l.PerAddress = d.PerAddress
		}
		if l.Overall == 0 {
			l.Overall = d.Overall
		}
		if l.Window <= 0 {
			l.Window = d.Window
		}
	}
	rl(&c.RateLimits.Register, DefaultRateLimits.Register)
	rl(&c.RateLimits.Authorize, DefaultRateLimits.Authorize)
	rl(&c.RateLimits.Token, DefaultRateLimits.Token)
	rl(&c.RateLimits.Callback, DefaultRateLimits.Callback)
	if c.RequestBudget <= 0 {
		c.RequestBudget = DefaultRequestBudget
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c, origin, nil
}

// CheckYNABURL checks a YNAB URL setting (name is the variable, for the message): https, or
// plain http only on a loopback host — a sandbox on this machine. Anything else would send the
// operator's client secret and people's YNAB tokens in the clear.
func CheckYNABURL(name, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("%s %q must be an https URL", name, raw)
	}
	if u.User != nil {
		return fmt.Errorf("%s must not carry a user name or password", name)
	}
	if u.Scheme == "http" && !isLoopbackHost(u.Hostname()) {
		return fmt.Errorf("%s %q: plain http is allowed only on a loopback host (localhost, 127.0.0.1, ::1), for a sandbox on this machine; use https", name, raw)
	}
	return nil
}

// canonicalOrigin checks a public URL and returns it as scheme://host[:port], lower-cased,
// without a trailing slash.
func canonicalOrigin(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", errors.New("it is not a URL")
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	switch {
	case host == "":
		return "", errors.New("it must be an absolute URL such as https://avenir.example.com")
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/"):
		return "", errors.New("it must be an origin only (https://host[:port]), without a path, query, fragment or user")
	case scheme == "https":
	case scheme == "http" && isLoopbackHost(u.Hostname()):
	case scheme == "http":
		return "", errors.New("plain http is allowed only on a loopback host (localhost, 127.0.0.1, ::1); use https")
	default:
		return "", errors.New("the scheme must be https")
	}
	return scheme + "://" + host, nil
}

// isLoopbackHost: localhost or a loopback IP literal. Names other than localhost are not
// resolved: what they point at can change.
func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
