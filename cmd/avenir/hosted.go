package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/avenir-mcp/avenir/auth"
	"github.com/avenir-mcp/avenir/hosted"
	"github.com/avenir-mcp/avenir/ynab"
)

// avenir hosted's wiring: `avenir serve --http ADDR --hosted` reads its settings from the
// environment, connects to the database, and starts package hosted's server on them.

// hostedConfig is the hosted mode's configuration, from the environment.
type hostedConfig struct {
	hosted.Config
	databaseURL string
}

// hostedConfigFromEnv reads the hosted mode's settings: AVENIR_MCP_DATABASE_URL and those of
// auth.ConfigFromEnv (AVENIR_MCP_PUBLIC_URL, AVENIR_MCP_YNAB_CLIENT_ID,
// AVENIR_MCP_YNAB_CLIENT_SECRET, AVENIR_MCP_SECRET_KEY, AVENIR_MCP_YNAB_OAUTH_URL,
// AVENIR_MCP_YNAB_URL), and the local mode's AVENIR_MCP_READ_ONLY, AVENIR_MCP_FRESHNESS,
// AVENIR_MCP_REQUIRE_ELICITATION and AVENIR_MCP_CONFIRM, and AVENIR_MCP_ALLOWED_ORIGINS (web
// origins besides the public one whose pages may call /mcp). The error names every variable that is
// missing or wrong, and never repeats a secret.
func hostedConfigFromEnv(getenv func(string) string) (hostedConfig, error) {
	var errs []error
	lookup := func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	}
	cfg := hostedConfig{Config: hosted.Config{Version: version, DrainTimeout: drainTimeout}}
	var err error
	if cfg.Auth, err = auth.ConfigFromEnv(lookup); err != nil {
		if inner := errors.Unwrap(err); inner != nil {
			err = inner // auth's "hosted mode: " prefix; serve --hosted says it once below
		}
		errs = append(errs, err)
	}
	cfg.databaseURL = strings.TrimSpace(getenv("AVENIR_MCP_DATABASE_URL"))
	if cfg.databaseURL == "" {
		errs = append(errs, errors.New("AVENIR_MCP_DATABASE_URL is not set (the PostgreSQL database every instance shares, like postgres://avenir:PASSWORD@db:5432/avenir)"))
	} else if _, perr := pgxpool.ParseConfig(cfg.databaseURL); perr != nil {
		// pgx's message never repeats the password.
		errs = append(errs, fmt.Errorf("AVENIR_MCP_DATABASE_URL is not a PostgreSQL connection string (postgres://user:password@host:5432/database): %v", perr))
	}
	cfg.YNABURL = strings.TrimSpace(getenv("AVENIR_MCP_YNAB_URL"))
	if cfg.YNABURL == "" {
		cfg.YNABURL = ynab.DefaultBaseURL
	}
	if cfg.Freshness, err = ynab.ParseFreshness(getenv("AVENIR_MCP_FRESHNESS")); err != nil {
		errs = append(errs, err)
	}
	cfg.ReadOnly = getenv("AVENIR_MCP_READ_ONLY") == "1"
	for _, o := range strings.FieldsFunc(getenv("AVENIR_MCP_ALLOWED_ORIGINS"), func(r rune) bool { return r == ',' || r == ' ' }) {
		u, perr := url.Parse(o)
		if perr != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			errs = append(errs, fmt.Errorf("AVENIR_MCP_ALLOWED_ORIGINS: %q is not an origin (scheme://host[:port], like https://app.example.com)", o))
			continue
		}
		cfg.AllowedOrigins = append(cfg.AllowedOrigins, u.Scheme+"://"+u.Host)
	}
	if cfg.Confirm, err = confirmOptions(getenv); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return hostedConfig{}, hostedSettingsError{errors.Join(errs...)}
	}
	return cfg, nil
}

// hostedSettingsError lists what is wrong with the hosted mode's settings, one per line.
type hostedSettingsError struct{ err error }

func (e hostedSettingsError) Error() string {
	return "serve --hosted: fix these settings (see the README, \"avenir hosted\"):\n  " +
		strings.ReplaceAll(e.err.Error(), "\n", "\n  ")
}

func (e hostedSettingsError) Unwrap() error { return e.err }

// hostedPool connects to the database, with hosted.PoolSize connections unless
// AVENIR_MCP_DATABASE_URL sets pool_max_conns.
func hostedPool(ctx context.Context, url string) (*pgxpool.Pool, error) {
	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("serve --hosted: AVENIR_MCP_DATABASE_URL: %v", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		pcfg.MaxConns = hosted.PoolSize
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("serve --hosted: connecting to AVENIR_MCP_DATABASE_URL: %v", err)
	}
	return pool, nil
}

// serveHosted runs the hosted mode at addr until ctx ends.
// metricsAddr is where /metrics and /readyz listen ("off" or "": nowhere).
func serveHosted(ctx context.Context, addr, metricsAddr string, e env, log *slog.Logger) error {
	cfg, err := hostedConfigFromEnv(e.getenv)
	if err != nil {
		return err
	}
	cfg.Logger = log
	pool, err := hostedPool(ctx, cfg.databaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	start, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	h, err := hosted.New(start, pool, cfg.Config)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve --hosted: %w", err)
	}
	if metricsAddr != "off" && metricsAddr != "" {
		mln, err := net.Listen("tcp", metricsAddr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("serve --hosted: --metrics-addr: %w", err)
		}
		go func() {
			if err := h.ServeOps(ctx, mln); err != nil {
				log.Error("the metrics listener stopped", "err", err)
			}
		}()
	}
	return h.Serve(ctx, ln)
}
