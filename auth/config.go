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
)

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
	RefreshTokenTTL time.Duration // default DefaultRefreshTokenTTL; sliding: each refresh starts it again
	CodeTTL         time.Duration // default DefaultCodeTTL
	SignInTTL       time.Duration // default DefaultSignInTTL

	// ClientMetadata bounds the fetch of Client ID Metadata Documents.
	ClientMetadata FetchOptions

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
// AVENIR_MCP_SECRET_KEY (required), AVENIR_MCP_YNAB_OAUTH_URL and AVENIR_MCP_YNAB_URL
// (optional). An error names each variable that is missing or wrong and what it must be; it
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
	for name, v := range map[string]*string{"YNAB OAuth URL (AVENIR_MCP_YNAB_OAUTH_URL)": &c.YNABOAuthURL, "YNAB API URL (AVENIR_MCP_YNAB_URL)": &c.YNABAPIURL} {
		u, perr := url.Parse(*v)
		if perr != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return c, "", fmt.Errorf("the %s %q must be an http(s) URL", name, *v)
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
	def(&c.CodeTTL, DefaultCodeTTL)
	def(&c.SignInTTL, DefaultSignInTTL)
	def(&c.ClientMetadata.Timeout, 5*time.Second)
	if c.ClientMetadata.MaxBytes <= 0 {
		c.ClientMetadata.MaxBytes = 5 << 10
	}
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
