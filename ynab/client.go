// Package ynab is avenir's client for YNAB's API v1: typed requests and answers, errors a person
// can act on, bounded retries for reads, and a delta cache of each plan so that a repeated read
// costs one small request. Nothing else in avenir speaks HTTP to YNAB.
package ynab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultBaseURL is YNAB's API.
const DefaultBaseURL = "https://api.ynab.com/v1"

// Options configure a Client. Only Token is required.
type Options struct {
	BaseURL    string       // default DefaultBaseURL
	Token      string       // the access token; sent only in the Authorization header
	HTTPClient *http.Client // default: a client with a 30 s timeout
	Logger     *slog.Logger // default: discard
	// Retries is how many times a read is tried again after a 5xx or a broken connection
	// (default 3); writes are never retried blindly.
	Retries int
	// Backoff is the wait before retry n (1, 2, …); default 250 ms doubling, at most 4 s.
	Backoff func(n int) time.Duration
	// MaxAge is the freshness window: how long a read may reuse what was fetched before asking
	// YNAB for the changes since (default DefaultFreshness; negative: always ask; at most
	// MaxFreshness is meant, see ParseFreshness).
	MaxAge time.Duration
	Now    func() time.Time
}

// Client talks to YNAB. It is safe for concurrent use.
type Client struct {
	base    string
	token   string
	http    *http.Client
	log     *slog.Logger
	retries int
	backoff func(int) time.Duration
	maxAge  time.Duration
	now     func() time.Time

	mu    sync.Mutex
	plans map[string]*planCache // by plan id
	alias map[string]string     // "last-used" or a plan name → plan id, once resolved
}

// New returns a client for opts.
func New(opts Options) *Client {
	c := &Client{
		base:    strings.TrimRight(opts.BaseURL, "/"),
		token:   opts.Token,
		http:    opts.HTTPClient,
		log:     opts.Logger,
		retries: opts.Retries,
		backoff: opts.Backoff,
		maxAge:  opts.MaxAge,
		now:     opts.Now,
		plans:   map[string]*planCache{},
		alias:   map[string]string{},
	}
	if c.base == "" {
		c.base = DefaultBaseURL
	}
	if c.http == nil {
		c.http = &http.Client{Timeout: 30 * time.Second}
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	// The person's token must never follow a redirect to another host: Go's client drops the
	// Authorization header it was given on such a hop, but a transport that sets the token on
	// each request (hosted mode's auth.Transport) would send it there. YNAB's API does not
	// redirect; a redirect off its origin is answered as the 3xx it is, and nothing is sent.
	hc := *c.http
	hc.CheckRedirect = c.checkRedirect
	c.http = &hc
	if c.retries == 0 {
		c.retries = 3
	}
	if c.backoff == nil {
		c.backoff = func(n int) time.Duration { return min(250*time.Millisecond<<(n-1), 4*time.Second) }
	}
	if c.maxAge == 0 {
		c.maxAge = DefaultFreshness
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

// checkRedirect follows a redirect only within the base URL's origin (scheme and host).
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	base, err := url.Parse(c.base)
	if err != nil || !strings.EqualFold(req.URL.Scheme, base.Scheme) || !strings.EqualFold(req.URL.Host, base.Host) {
		c.log.Warn("YNAB's API answered with a redirect to another host; not followed, so the token is not sent there",
			"to_host", req.URL.Host)
		return http.ErrUseLastResponse
	}
	if len(via) >= 5 {
		return errors.New("more than 5 redirects")
	}
	return nil
}

// CheckBaseURL checks a YNAB API base URL (AVENIR_MCP_YNAB_URL): https, or plain http only on a
// loopback host — a sandbox on this machine. Anything else would send the person's token in
// the clear. name is the setting, for the message.
func CheckBaseURL(name, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("%s %q must be an https URL", name, raw)
	}
	if u.User != nil {
		return fmt.Errorf("%s must not carry a user name or password", name)
	}
	if u.Scheme == "http" {
		h := u.Hostname()
		ip := net.ParseIP(h)
		if !strings.EqualFold(h, "localhost") && (ip == nil || !ip.IsLoopback()) {
			return fmt.Errorf("%s %q: plain http is allowed only on a loopback host (localhost, 127.0.0.1, ::1), for a sandbox on this machine; use https", name, raw)
		}
	}
	return nil
}

// BaseURL is the API base the client talks to.
func (c *Client) BaseURL() string { return c.base }

// get reads path into the data member of YNAB's answer, retrying temporary failures.
func (c *Client) get(ctx context.Context, path string, q url.Values, out any) error {
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var err error
	for attempt := 0; ; attempt++ {
		err = c.do(ctx, http.MethodGet, path, nil, out)
		if !retryable(err) || attempt >= c.retries {
			return err
		}
		wait := c.backoff(attempt + 1)
		c.log.Warn("ynab read failed; retrying", "path", stripQuery(path), "attempt", attempt+1, "wait", wait, "err", err)
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(wait):
		}
	}
}

// retryable: a read may be retried after YNAB failed (5xx) or the connection broke. A 429 is
// never retried: hammering would only keep the limit reached.
func retryable(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Status >= 500
	}
	var ne *NetError
	return errors.As(err, &ne) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// send makes a write request once. A write is never retried here: whether a lost answer means
// "not written" is for the caller to find out (and journal).
func (c *Client) send(ctx context.Context, method, path string, body, out any) error {
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			return fmt.Errorf("encoding the %s %s body: %w", method, path, err)
		}
	}
	return c.do(ctx, method, path, b, out)
}

func (c *Client) do(ctx context.Context, method, path string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return fmt.Errorf("building the request %s %s: %w", method, stripQuery(path), err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	count(ctx)
	start := c.now()
	resp, err := c.http.Do(req)
	if err != nil {
		c.log.Debug("ynab request", "method", method, "path", stripQuery(path), "err", err)
		return &NetError{Method: method, Path: stripQuery(path), Err: unwrapURLError(err)}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	c.log.Debug("ynab request", "method", method, "path", stripQuery(path), "status", resp.StatusCode,
		"bytes", len(raw), "duration", c.now().Sub(start), "rate_limit", resp.Header.Get("X-Rate-Limit"))
	if err != nil {
		return &NetError{Method: method, Path: stripQuery(path), Err: err}
	}
	c.watchRateLimit(resp.Header.Get("X-Rate-Limit"))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return apiError(resp, raw, method, stripQuery(path))
	}
	if out == nil {
		return nil
	}
	// One pass straight into out: a plan's export is tens of MB, and a copy of its data member
	// would be as large again.
	env := struct {
		Data *into `json:"data"`
	}{Data: &into{out: out}}
	if err := json.Unmarshal(raw, &env); err != nil || !env.Data.seen {
		if err == nil {
			err = errors.New("it has no data")
		}
		return fmt.Errorf("YNAB's answer to %s %s is not the JSON avenir expects: %w", method, stripQuery(path), err)
	}
	return nil
}

// into decodes a JSON value into out, and records that there was one.
type into struct {
	out  any
	seen bool
}

func (i *into) UnmarshalJSON(b []byte) error {
	i.seen = !bytes.Equal(b, []byte("null"))
	return json.Unmarshal(b, i.out)
}

// watchRateLimit warns in the log when YNAB's X-Rate-Limit header ("used/limit") says that
// nine tenths of the hour's requests are spent: the person then knows why writes may soon be
// refused, before they are.
func (c *Client) watchRateLimit(header string) {
	used, limit, ok := strings.Cut(header, "/")
	if !ok {
		return
	}
	u, err1 := strconv.Atoi(strings.TrimSpace(used))
	l, err2 := strconv.Atoi(strings.TrimSpace(limit))
	if err1 != nil || err2 != nil || l <= 0 || u*10 < l*9 {
		return
	}
	c.log.Warn("YNAB's hourly request limit is nearly reached", "used", u, "limit", l)
}

func apiError(resp *http.Response, raw []byte, method, path string) *APIError {
	e := &APIError{Status: resp.StatusCode, Method: method, Path: path}
	var body ErrorBody
	if json.Unmarshal(raw, &body) == nil {
		e.ID, e.Name, e.Detail = body.Error.ID, body.Error.Name, body.Error.Detail
	}
	if e.ID == "" {
		e.ID = strconv.Itoa(resp.StatusCode)
	}
	if s := resp.Header.Get("Retry-After"); s != "" {
		if secs, err := strconv.Atoi(s); err == nil && secs > 0 {
			e.RetryAfter = time.Duration(secs) * time.Second
		}
	}
	return e
}

// unwrapURLError drops *url.Error's "Get \"URL\":" prefix: the URL is in NetError already.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func stripQuery(path string) string {
	if i := strings.IndexByte(path, '?'); i >= 0 {
		return path[:i]
	}
	return path
}

func planPath(planID string, rest ...string) string {
	p := "/plans/" + url.PathEscape(planID)
	for _, r := range rest {
		p += "/" + url.PathEscape(r)
	}
	return p
}
