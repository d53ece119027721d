package auth

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// rateLimiter counts requests in fixed windows in PostgreSQL (auth.rate_counters), per endpoint
// group, per client address and overall, so that a limit holds however many instances share
// the database. A request refused by its address's limit does not count against the overall
// one: one noisy address cannot use up everyone's share.
type rateLimiter struct {
	pool   *pgxpool.Pool
	now    func() time.Time
	header string // the proxy's client-address header, or ""
	log    *slog.Logger
}

// limited wraps h with the limit l of the endpoint group named endpoint.
func (s *Server) limited(endpoint string, l RateLimit, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if wait, ok := s.limits.take(r.Context(), endpoint, s.limits.clientKey(r), l); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds()+0.999)))
			w.Header().Set("Cache-Control", "no-store")
			s.log.Warn("rate limit reached", "endpoint", endpoint, "path", r.URL.Path)
			if strings.HasPrefix(r.URL.Path, "/oauth/authorize") || strings.HasPrefix(r.URL.Path, "/oauth/consent") ||
				strings.HasPrefix(r.URL.Path, "/oauth/ynab/") || strings.HasPrefix(r.URL.Path, "/account") {
				s.renderError(w, http.StatusTooManyRequests, "Too many sign-ins just now", "avenir is receiving more sign-ins than it accepts at once. Wait a minute and start again from your app.", "", "")
				return
			}
			writeOAuthError(w, oerr(http.StatusTooManyRequests, "slow_down", "too many requests; try again in %d seconds", int(wait.Seconds()+0.999)))
			return
		}
		h(w, r)
	}
}

// take counts one request against l for key and overall. It returns false, and how long until
// the window ends, when either bound is reached. A database that cannot count lets the request
// through: the endpoint then needs the database anyway, and fails on its own.
func (rl *rateLimiter) take(ctx context.Context, endpoint, key string, l RateLimit) (time.Duration, bool) {
	now := rl.now()
	start := now.Truncate(l.Window)
	wait := start.Add(l.Window).Sub(now)
	count := func(key string, limit int) bool {
		if limit < 0 {
			return true
		}
		var n int
		err := rl.pool.QueryRow(ctx, `INSERT INTO auth.rate_counters (endpoint, key, window_start, n) VALUES ($1, $2, $3, 1)
			ON CONFLICT (endpoint, key, window_start) DO UPDATE SET n = auth.rate_counters.n + 1 RETURNING n`,
			endpoint, key, start).Scan(&n)
		if err != nil {
			rl.log.Error("counting a request for the rate limit", "endpoint", endpoint, "err", err)
			return true
		}
		return n <= limit
	}
	if !count(key, l.PerAddress) || !count("*", l.Overall) {
		return max(wait, time.Second), false
	}
	return 0, true
}

// clientKey is the client's address as the rate limit counts it: an IPv4 address, or an IPv6
// address's /64 (one subscriber commonly holds a whole /64). Behind a proxy it is read from the
// configured header (for X-Forwarded-For, its last entry: the one the proxy itself added).
func (rl *rateLimiter) clientKey(r *http.Request) string {
	raw := ""
	if rl.header != "" {
		if v := r.Header.Values(rl.header); len(v) > 0 {
			parts := strings.Split(v[len(v)-1], ",")
			raw = strings.TrimSpace(parts[len(parts)-1])
		}
	}
	if raw == "" {
		raw = r.RemoteAddr
		if host, _, err := net.SplitHostPort(raw); err == nil {
			raw = host
		}
	}
	ip, err := netip.ParseAddr(strings.Trim(raw, "[]"))
	if err != nil {
		return "?" // an address nobody can parse: all such requests share one count
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}
