package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/auth"
	"github.com/avenir-mcp/avenir/confirm"
	confirmpg "github.com/avenir-mcp/avenir/confirm/pg"
	"github.com/avenir-mcp/avenir/journal"
	journalpg "github.com/avenir-mcp/avenir/journal/pg"
	"github.com/avenir-mcp/avenir/tools"
	"github.com/avenir-mcp/avenir/ynab"
)

// avenir hosted: `avenir serve --http ADDR --hosted` serves many people from one process, and
// any number of such processes on one PostgreSQL serve the same people (design.md, "Hosted:
// many people, several machines"). What it wires together:
//
//   - auth: avenir's OAuth 2.1 authorization server, where people sign in with YNAB; its
//     middleware guards /mcp and puts the caller (a person) in each request's context.
//   - per person, cached: one *mcp.Server whose YNAB client reaches YNAB with that person's
//     token (auth.Transport: it refreshes YNAB's token and keeps the person's request budget),
//     whose journal is that person's, and whose confirmations are that person's (codes, cards'
//     tokens and states' nonces in PostgreSQL, so any instance redeems what another issued).
//   - /healthz (the process answers), /readyz (the database answers and its schemas are this
//     avenir's), /metrics (Prometheus).
//
// Nothing of the local mode changes.

// hostedConfig is the hosted mode's configuration, from the environment.
type hostedConfig struct {
	auth        auth.Config
	databaseURL string
	ynabURL     string // YNAB's API base, for the tools' client (auth has its own copy for GET /user)
	freshness   time.Duration
	readOnly    bool
	confirm     confirm.Options // RequireElicitation or AlwaysCode; Store and Key are filled in
	// sweepEvery is how often expired sign-ins, codes and tokens are removed, and idle people's
	// servers dropped from the cache.
	sweepEvery time.Duration
	// idleAfter is how long a person's server stays cached without a request.
	idleAfter time.Duration
	// ynabTransport carries every request to YNAB (its API and its OAuth token endpoint);
	// default http.DefaultTransport. Tests leave it so.
	ynabTransport http.RoundTripper
}

// hostedConfigFromEnv reads the hosted mode's settings: AVENIR_MCP_DATABASE_URL and those of
// auth.ConfigFromEnv (AVENIR_MCP_PUBLIC_URL, AVENIR_MCP_YNAB_CLIENT_ID,
// AVENIR_MCP_YNAB_CLIENT_SECRET, AVENIR_MCP_SECRET_KEY, AVENIR_MCP_YNAB_OAUTH_URL,
// AVENIR_MCP_YNAB_URL), and the local mode's AVENIR_MCP_READ_ONLY, AVENIR_MCP_FRESHNESS,
// AVENIR_MCP_REQUIRE_ELICITATION and AVENIR_MCP_CONFIRM. The error names every variable that is
// missing or wrong, and never repeats a secret.
func hostedConfigFromEnv(getenv func(string) string) (hostedConfig, error) {
	var errs []error
	lookup := func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	}
	cfg := hostedConfig{sweepEvery: 5 * time.Minute, idleAfter: time.Hour}
	var err error
	if cfg.auth, err = auth.ConfigFromEnv(lookup); err != nil {
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
	cfg.ynabURL = strings.TrimSpace(getenv("AVENIR_MCP_YNAB_URL"))
	if cfg.ynabURL == "" {
		cfg.ynabURL = ynab.DefaultBaseURL
	}
	if cfg.freshness, err = ynab.ParseFreshness(getenv("AVENIR_MCP_FRESHNESS")); err != nil {
		errs = append(errs, err)
	}
	cfg.readOnly = getenv("AVENIR_MCP_READ_ONLY") == "1"
	if cfg.confirm, err = confirmOptions(getenv); err != nil {
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

// hostedJournals gives each person their journal: pg.Journals, one PostgreSQL database, every
// query scoped to the person.
type hostedJournals interface {
	For(person int64) journal.Store
	Unsettled(ctx context.Context) ([]int64, error)
}

// readier is a store that can say whether its schema is in place, for /readyz.
type readier interface {
	Ready(ctx context.Context) error
}

// hosted is one avenir hosted instance. It keeps nothing of its own that another instance
// needs: people, sign-ins, confirmations and journals live in PostgreSQL.
type hosted struct {
	cfg      hostedConfig
	pool     *pgxpool.Pool
	auth     *auth.Server
	confirms *confirmpg.Confirmations
	key      []byte // seals confirmation states; the same on every instance
	journals hostedJournals
	metrics  *hostedMetrics
	log      *slog.Logger
	ynabRT   http.RoundTripper // to YNAB, counted and timed

	mu     sync.Mutex
	people map[int64]*personServer
}

// personServer is one person's MCP server, cached while they use it.
type personServer struct {
	server *mcp.Server
	used   time.Time
}

// newHosted builds an instance on pool (the caller's, closed by the caller after Close),
// bringing every schema up to date.
func newHosted(ctx context.Context, pool *pgxpool.Pool, cfg hostedConfig, log *slog.Logger) (*hosted, error) {
	h := &hosted{cfg: cfg, pool: pool, log: log, people: map[int64]*personServer{}}
	h.metrics = newHostedMetrics()
	base := cfg.ynabTransport
	if base == nil {
		base = http.DefaultTransport
	}
	h.ynabRT = h.metrics.instrument(base)
	cfg.auth.Logger = log
	cfg.auth.YNABHTTPClient = &http.Client{Transport: h.ynabRT, Timeout: 30 * time.Second}
	var err error
	if h.auth, err = auth.New(ctx, pool, cfg.auth); err != nil {
		return nil, fmt.Errorf("serve --hosted: %w", err)
	}
	if h.confirms, err = confirmpg.Open(ctx, pool); err != nil {
		return nil, fmt.Errorf("serve --hosted: %w", err)
	}
	if h.key, err = confirm.DeriveKey(cfg.auth.SecretKey); err != nil {
		return nil, fmt.Errorf("serve --hosted: AVENIR_MCP_SECRET_KEY: %w", err)
	}
	if h.journals, err = journalpg.OpenJournal(ctx, pool); err != nil {
		return nil, fmt.Errorf("serve --hosted: the journal: %w", err)
	}
	if _, err := confirm.New(h.confirmOptions(0)); err != nil { // the settings are checked once, at start
		return nil, fmt.Errorf("serve --hosted: %w", err)
	}
	h.metrics.writeTools = writeToolNames()
	return h, nil
}

// confirmOptions are a person's Asker's: the shared store, seen through the person's own key
// space (confirm/pg's For), and the key every instance seals with.
func (h *hosted) confirmOptions(person int64) confirm.Options {
	o := h.cfg.confirm
	o.Store = h.confirms.For(person)
	o.Key = h.key
	o.Logger = h.log
	return o
}

// Handler is the instance's HTTP surface: auth's endpoints, /mcp behind auth's middleware,
// /healthz, /readyz and /metrics.
func (h *hosted) Handler() http.Handler {
	getServer := func(r *http.Request) *mcp.Server {
		c, ok := auth.CallerFrom(r.Context())
		if !ok {
			return nil // the middleware lets no request through without a caller
		}
		s, err := h.serverFor(r.Context(), c)
		if err != nil {
			h.log.Error("building a person's MCP server", "person", c.Person.ID, "err", err)
			return nil
		}
		return s
	}
	// Behind a load balancer the Host header is the public one and the peer may be a proxy on
	// loopback: the SDK's DNS-rebinding guard would refuse every request, and the bearer token
	// already keeps web pages out. As in local mode, 2026-07-28 and later are served
	// statelessly and older protocols with a session (which a load balancer must keep on one
	// instance: see the README).
	stateful := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Logger: h.log, SessionTimeout: 30 * time.Minute, DisableLocalhostProtection: true})
	stateless := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Logger: h.log, Stateless: true, DisableLocalhostProtection: true})
	mcpHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("Mcp-Protocol-Version"); v >= "2026-07-28" {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
	mux := http.NewServeMux()
	h.auth.Mount(mux)
	mux.Handle(auth.MCPPath, h.auth.Middleware(mcpHandler))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", h.serveReady)
	mux.Handle("GET /metrics", h.metrics.handler())
	return mux
}

// serveReady answers 200 when the database answers and holds every schema at this avenir's
// version, else 503 saying which is not.
func (h *hosted) serveReady(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	checks := []struct {
		name string
		r    readier
	}{{"auth", h.auth}, {"confirmations", h.confirms}}
	if jr, ok := h.journals.(readier); ok {
		checks = append(checks, struct {
			name string
			r    readier
		}{"journal", jr})
	}
	for _, c := range checks {
		if err := c.r.Ready(ctx); err != nil {
			h.log.Warn("not ready", "store", c.name, "err", err)
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "not ready: the %s store: the database is unreachable or its schema is not this avenir's\n", c.name)
			return
		}
	}
	fmt.Fprintln(w, "ready")
}

// serverFor returns the caller's MCP server, building it at their first request. Building it
// settles what a crash left prepared in their journal, by reading YNAB.
func (h *hosted) serverFor(ctx context.Context, c *auth.Caller) (*mcp.Server, error) {
	person := c.Person.ID
	h.mu.Lock()
	if ps, ok := h.people[person]; ok {
		ps.used = time.Now()
		h.mu.Unlock()
		return ps.server, nil
	}
	h.mu.Unlock()

	log := h.log.With("person", person)
	client := ynab.New(ynab.Options{
		BaseURL: h.cfg.ynabURL,
		// No token here: auth.Transport sets the person's on each request.
		HTTPClient: &http.Client{Timeout: 30 * time.Second, Transport: &auth.Transport{
			Source: c.YNAB, Budget: h.auth.Budget(), Base: h.ynabRT}},
		Logger: log,
		MaxAge: h.cfg.freshness,
	})
	asker, err := confirm.New(h.confirmOptions(person))
	if err != nil {
		return nil, err
	}
	deps := tools.Deps{
		YNAB:     client,
		Confirm:  asker,
		Journal:  h.journals.For(person),
		ReadOnly: h.cfg.readOnly,
		Logger:   log,
		Version:  version,
		OnCall:   h.metrics.onCall,
		// No StatementDirs: a hosted server reads no file of its own disk for anyone.
	}
	server := tools.NewServer(deps)

	h.mu.Lock()
	if ps, ok := h.people[person]; ok { // built by a concurrent first request
		ps.used = time.Now()
		h.mu.Unlock()
		return ps.server, nil
	}
	h.people[person] = &personServer{server: server, used: time.Now()}
	h.metrics.people.Set(float64(len(h.people)))
	h.mu.Unlock()
	recoverJournal(context.WithoutCancel(ctx), deps.Journal, deps, log)
	return server, nil
}

// recoverUnsettled settles, at start, what a crash of any instance left prepared in anyone's
// journal, by reading that person's YNAB: through the server a request of theirs would build
// (whose first build settles their journal), with their YNAB tokens from auth. A person whose
// YNAB cannot be read now stays prepared until their next request, which tries again.
func (h *hosted) recoverUnsettled(ctx context.Context) {
	people, err := h.journals.Unsettled(ctx)
	if err != nil {
		h.log.Warn("journal: could not look for unfinished operations", "err", err)
		return
	}
	for _, p := range people {
		if _, err := h.serverFor(ctx, &auth.Caller{Person: auth.Person{ID: p}, YNAB: h.auth.TokenSource(p)}); err != nil {
			h.log.Warn("journal: could not settle a person's unfinished operations", "person", p, "err", err)
		}
	}
}

// sweep removes expired sign-ins, codes and tokens and drops the servers of people idle for
// idleAfter (their next request builds a new one; a session still open keeps its own).
func (h *hosted) sweep(ctx context.Context) {
	if err := h.auth.Sweep(ctx); err != nil {
		h.log.Warn("sweeping expired sign-ins and tokens", "err", err)
	}
	if _, err := h.confirms.Sweep(ctx, time.Now()); err != nil {
		h.log.Warn("sweeping expired confirmations", "err", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, ps := range h.people {
		if time.Since(ps.used) > h.cfg.idleAfter {
			delete(h.people, id)
		}
	}
	h.metrics.people.Set(float64(len(h.people)))
}

// sweepLoop sweeps every cfg.sweepEvery until ctx ends.
func (h *hosted) sweepLoop(ctx context.Context) {
	t := time.NewTicker(h.cfg.sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			h.sweep(ctx)
		}
	}
}

// serveHosted runs the hosted mode at addr until ctx ends.
// hostedPoolSize is the database pool's size unless AVENIR_MCP_DATABASE_URL sets
// pool_max_conns: a write holds a connection for its plan's lock from the fresh read to the
// journaled outcome while its other queries take more, so the pool must be well larger than the
// writes an instance runs at once (pgx's default, four on a small machine, deadlocks four
// people writing together until the lock's wait runs out).
const hostedPoolSize = 64

// hostedPool connects to the database.
func hostedPool(ctx context.Context, url string) (*pgxpool.Pool, error) {
	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("serve --hosted: AVENIR_MCP_DATABASE_URL: %v", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		pcfg.MaxConns = hostedPoolSize
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("serve --hosted: connecting to AVENIR_MCP_DATABASE_URL: %v", err)
	}
	return pool, nil
}

func serveHosted(ctx context.Context, addr string, e env, log *slog.Logger) error {
	cfg, err := hostedConfigFromEnv(e.getenv)
	if err != nil {
		return err
	}
	pool, err := hostedPool(ctx, cfg.databaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	start, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	h, err := newHosted(start, pool, cfg, log)
	if err != nil {
		return err
	}
	go h.recoverUnsettled(ctx)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve --hosted: %w", err)
	}
	srv := &http.Server{
		Handler:           h.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	go h.sweepLoop(ctx)
	log.Info("avenir hosted serving MCP", "version", version, "listen", ln.Addr().String(),
		"endpoint", h.auth.Issuer()+auth.MCPPath, "read_only", cfg.readOnly)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve --hosted: %w", err)
	case <-ctx.Done():
	}
	log.Info("stopping: letting the calls in flight finish", "within", drainTimeout)
	shutdown, stop := context.WithTimeout(context.Background(), drainTimeout)
	defer stop()
	if err := srv.Shutdown(shutdown); err != nil {
		_ = srv.Close()
	}
	return nil
}

// hostedLogger is the hosted mode's log: JSON lines on stderr, for a log collector. Tool
// errors are worded for the person and may name amounts of their money, so every number in an
// error attribute is masked; ids and dates (digits joined to letters or hyphens) stay.
func hostedLogger(w io.Writer, lvl slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lvl, ReplaceAttr: maskMoneyAttr}))
}
