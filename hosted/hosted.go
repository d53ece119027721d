// Package hosted is avenir hosted's server: `avenir serve --http ADDR --hosted` serves many
// people from one process, and any number of such processes on one PostgreSQL serve the same
// people (design.md, "Hosted: many people, several machines"). What a Server puts together:
//
//   - auth: avenir's OAuth 2.1 authorization server, where people sign in with YNAB; its
//     middleware guards /mcp and puts the caller (a person) in each request's context.
//   - per person, cached: one *mcp.Server whose YNAB client reaches YNAB with that person's
//     token (auth.Transport: it refreshes YNAB's token and keeps the person's request budget),
//     whose journal is that person's (journal/pg's For), and whose confirmations are that
//     person's (confirm/pg's For: codes, cards' tokens and states' nonces in PostgreSQL, so any
//     instance redeems what another issued).
//   - one MCP endpoint (MCPHandler, which `serve --http` uses too; a foreign Origin gets 403)
//     and /healthz (the process answers) on the public listener, with timeouts sized for MCP's
//     streams ([Server.HTTPServer]); /readyz (the database answers and its schemas are this
//     avenir's) and /metrics (Prometheus) on a listener of their own ([Server.OpsHandler]).
//
// A Server keeps nothing of its own that another instance needs: people, sign-ins,
// confirmations and journals live in PostgreSQL. It reads no environment: cmd/avenir does, and
// gives it the pool and a Config.
package hosted

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/auth"
	"github.com/avenir-mcp/avenir/confirm"
	confirmpg "github.com/avenir-mcp/avenir/confirm/pg"
	journalpg "github.com/avenir-mcp/avenir/journal/pg"
	"github.com/avenir-mcp/avenir/tools"
	"github.com/avenir-mcp/avenir/ynab"
)

// Config is what a Server is built with.
type Config struct {
	Auth      auth.Config
	YNABURL   string        // YNAB's API base, for the tools' client (Auth has its own copy for GET /user)
	Freshness time.Duration // how old a read may be (ynab.Options.MaxAge)
	ReadOnly  bool
	Confirm   confirm.Options // RequireElicitation or AlwaysCode; Store, Key and Logger are the Server's
	// SweepEvery is how often expired sign-ins, codes and tokens are removed, and idle people's
	// servers dropped from the cache (default 5 minutes).
	SweepEvery time.Duration
	// IdleAfter is how long a person's server stays cached without a request (default an hour).
	IdleAfter time.Duration
	// YNABTransport carries every request to YNAB (its API and its OAuth token endpoint);
	// default http.DefaultTransport.
	YNABTransport http.RoundTripper
	// DrainTimeout bounds how long Serve, asked to stop, waits for the calls in flight.
	DrainTimeout time.Duration
	// AllowedOrigins are web origins besides AVENIR_MCP_PUBLIC_URL's whose pages may call /mcp
	// from a browser (AVENIR_MCP_ALLOWED_ORIGINS); any other Origin is refused with 403.
	AllowedOrigins []string
	// BodyTimeout is how long a request has to deliver its body (default DefaultBodyTimeout);
	// IdleTimeout how long a keep-alive connection may wait for its next request (default
	// DefaultIdleTimeout).
	BodyTimeout, IdleTimeout time.Duration
	Version                  string // avenir's, as the tools and the start line say it
	Logger                   *slog.Logger
}

// PoolSize is the database pool a Server wants unless the operator sets pool_max_conns: a
// write holds a connection for its plan's lock from the fresh read to the journaled outcome
// while its other queries take more, so the pool must be well larger than the writes an
// instance runs at once (pgx's default, four on a small machine, deadlocks four people writing
// together until the lock's wait runs out).
const PoolSize = 64

// Server is one avenir hosted instance.
type Server struct {
	cfg      Config
	log      *slog.Logger
	auth     *auth.Server
	confirms *confirmpg.Confirmations
	key      []byte // seals confirmation states; the same on every instance
	journals *journalpg.Journals
	metrics  *metrics
	ynabRT   http.RoundTripper // to YNAB, counted and timed

	mu     sync.Mutex
	people map[int64]*personServer
}

// personServer is one person's MCP server, cached while they use it.
type personServer struct {
	server *mcp.Server
	used   time.Time
}

// New builds an instance on pool (the caller's, closed by the caller when the Server is done),
// bringing every schema up to date.
func New(ctx context.Context, pool *pgxpool.Pool, cfg Config) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.SweepEvery <= 0 {
		cfg.SweepEvery = 5 * time.Minute
	}
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = 45 * time.Second
	}
	if cfg.IdleAfter <= 0 {
		cfg.IdleAfter = time.Hour
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	s := &Server{cfg: cfg, log: cfg.Logger, people: map[int64]*personServer{}}
	s.metrics = newMetrics()
	base := cfg.YNABTransport
	if base == nil {
		base = http.DefaultTransport
	}
	s.ynabRT = s.metrics.instrument(base)
	cfg.Auth.Logger = s.log
	cfg.Auth.YNABHTTPClient = &http.Client{Transport: s.ynabRT, Timeout: 30 * time.Second}
	var err error
	if s.auth, err = auth.New(ctx, pool, cfg.Auth); err != nil {
		return nil, fmt.Errorf("serve --hosted: %w", err)
	}
	if s.confirms, err = confirmpg.Open(ctx, pool); err != nil {
		return nil, fmt.Errorf("serve --hosted: %w", err)
	}
	if s.key, err = confirm.DeriveKey(cfg.Auth.SecretKey); err != nil {
		return nil, fmt.Errorf("serve --hosted: AVENIR_MCP_SECRET_KEY: %w", err)
	}
	if s.journals, err = journalpg.OpenJournal(ctx, pool); err != nil {
		return nil, fmt.Errorf("serve --hosted: the journal: %w", err)
	}
	if _, err := confirm.New(s.confirmOptions(0)); err != nil { // the settings are checked once, at start
		return nil, fmt.Errorf("serve --hosted: %w", err)
	}
	s.metrics.writeTools = writeToolNames(cfg.Version)
	return s, nil
}

// confirmOptions are a person's Asker's: the shared store, seen through the person's own key
// space (confirm/pg's For), and the key every instance seals with.
func (s *Server) confirmOptions(person int64) confirm.Options {
	o := s.cfg.Confirm
	o.Store = s.confirms.For(person)
	o.Key = s.key
	o.Logger = s.log
	return o
}

// Issuer is the public URL people and their apps reach this instance at.
func (s *Server) Issuer() string { return s.auth.Issuer() }

// Handler is the instance's public HTTP surface: auth's endpoints, /mcp behind a check of the
// browser's Origin and auth's middleware, and /healthz; each request has BodyTimeout to send
// its body. Readiness and metrics are on [Server.OpsHandler], for a listener of their own
// that the Internet does not reach.
func (s *Server) Handler() http.Handler {
	getServer := func(r *http.Request) *mcp.Server {
		c, ok := auth.CallerFrom(r.Context())
		if !ok {
			return nil // the middleware lets no request through without a caller
		}
		srv, err := s.serverFor(r.Context(), c)
		if err != nil {
			s.log.Error("building a person's MCP server", "person", c.Person.ID, "err", err)
			return nil
		}
		return srv
	}
	// Behind a load balancer the Host header is the public one and the peer may be a proxy on
	// loopback: the SDK's DNS-rebinding guard would refuse every request, and the bearer token
	// already keeps web pages out.
	mcpHandler := MCPHandler(getServer, MCPOptions{Logger: s.log, DisableLocalhostProtection: true})
	mux := http.NewServeMux()
	s.auth.Mount(mux)
	mux.Handle(auth.MCPPath, originGuard(s.auth.Issuer(), s.cfg.AllowedOrigins, s.log, s.auth.Middleware(mcpHandler)))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	return bodyDeadline(s.cfg.BodyTimeout, mux)
}

// OpsHandler is what the operator's monitoring reads: /metrics (Prometheus), /readyz and
// /healthz. It belongs on a listener of its own (`--metrics-addr`, loopback by default): the
// metrics tell how many people use avenir and how its calls fare, and /readyz costs a database
// round trip per request.
func (s *Server) OpsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", s.serveReady)
	mux.Handle("GET /metrics", s.metrics.handler())
	return mux
}

// HTTPServer is the public listener's server, with timeouts sized for MCP: the request's
// headers within DefaultHeaderTimeout, its body within BodyTimeout (Handler enforces it per
// request), a keep-alive connection idle at most IdleTimeout. There is no write timeout and no
// whole-request read timeout: a response streams for as long as its tool call runs (a
// confirmation, YNAB), and either would cut it.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: DefaultHeaderTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// ServeOps answers OpsHandler on ln until ctx ends.
func (s *Server) ServeOps(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s.OpsHandler(), ReadHeaderTimeout: DefaultHeaderTimeout, ReadTimeout: DefaultBodyTimeout,
		WriteTimeout: DefaultBodyTimeout, IdleTimeout: s.cfg.IdleTimeout, ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	s.log.Info("avenir hosted serving metrics and readiness", "listen", ln.Addr().String(), "paths", "/metrics /readyz /healthz")
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve --hosted: the metrics listener: %w", err)
	}
	return nil
}

// readier is a store that can say whether its schema is in place, for /readyz.
type readier interface {
	Ready(ctx context.Context) error
}

// serveReady answers 200 when the database answers and holds every schema at this avenir's
// version, else 503 saying which is not.
func (s *Server) serveReady(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	for _, c := range []struct {
		name string
		r    readier
	}{{"auth", s.auth}, {"confirmations", s.confirms}, {"journal", s.journals}} {
		if err := c.r.Ready(ctx); err != nil {
			s.log.Warn("not ready", "store", c.name, "err", err)
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "not ready: the %s store: the database is unreachable or its schema is not this avenir's\n", c.name)
			return
		}
	}
	fmt.Fprintln(w, "ready")
}

// serverFor returns the caller's MCP server, building it at their first request. Building it
// settles what a crash left prepared in their journal, by reading YNAB.
func (s *Server) serverFor(ctx context.Context, c *auth.Caller) (*mcp.Server, error) {
	person := c.Person.ID
	s.mu.Lock()
	if ps, ok := s.people[person]; ok {
		ps.used = time.Now()
		s.mu.Unlock()
		return ps.server, nil
	}
	s.mu.Unlock()

	log := s.log.With("person", person)
	client := ynab.New(ynab.Options{
		BaseURL: s.cfg.YNABURL,
		// No token here: auth.Transport sets the person's on each request.
		HTTPClient: &http.Client{Timeout: 30 * time.Second, Transport: &auth.Transport{
			Source: c.YNAB, Budget: s.auth.Budget(), Base: s.ynabRT}},
		Logger: log,
		MaxAge: s.cfg.Freshness,
	})
	asker, err := confirm.New(s.confirmOptions(person))
	if err != nil {
		return nil, err
	}
	deps := tools.Deps{
		YNAB:     client,
		Confirm:  asker,
		Journal:  s.journals.For(person),
		ReadOnly: s.cfg.ReadOnly,
		Logger:   log,
		Version:  s.cfg.Version,
		OnCall:   s.metrics.onCall,
		// No StatementDirs: a hosted server reads no file of its own disk for anyone.
	}
	server := tools.NewServer(deps)

	s.mu.Lock()
	if ps, ok := s.people[person]; ok { // built by a concurrent first request
		ps.used = time.Now()
		s.mu.Unlock()
		return ps.server, nil
	}
	s.people[person] = &personServer{server: server, used: time.Now()}
	s.metrics.people.Set(float64(len(s.people)))
	s.mu.Unlock()
	tools.Settle(context.WithoutCancel(ctx), deps)
	return server, nil
}

// RecoverUnsettled settles what a crash of any instance left prepared in anyone's journal, by
// reading that person's YNAB: through the server a request of theirs would build (whose first
// build settles their journal), with their YNAB tokens from auth. A person whose YNAB cannot be
// read now stays prepared until their next request, which tries again. Serve runs it at start.
func (s *Server) RecoverUnsettled(ctx context.Context) {
	people, err := s.journals.Unsettled(ctx)
	if err != nil {
		s.log.Warn("journal: could not look for unfinished operations", "err", err)
		return
	}
	for _, p := range people {
		if _, err := s.serverFor(ctx, &auth.Caller{Person: auth.Person{ID: p}, YNAB: s.auth.TokenSource(p)}); err != nil {
			s.log.Warn("journal: could not settle a person's unfinished operations", "person", p, "err", err)
		}
	}
}

// sweep removes expired sign-ins, codes and tokens and drops the servers of people idle for
// IdleAfter (their next request builds a new one; a session still open keeps its own).
func (s *Server) sweep(ctx context.Context) {
	if err := s.auth.Sweep(ctx); err != nil {
		s.log.Warn("sweeping expired sign-ins and tokens", "err", err)
	}
	if _, err := s.confirms.Sweep(ctx, time.Now()); err != nil {
		s.log.Warn("sweeping expired confirmations", "err", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, ps := range s.people {
		if time.Since(ps.used) > s.cfg.IdleAfter {
			delete(s.people, id)
		}
	}
	s.metrics.people.Set(float64(len(s.people)))
}

// sweepLoop sweeps every SweepEvery until ctx ends.
func (s *Server) sweepLoop(ctx context.Context) {
	t := time.NewTicker(s.cfg.SweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.sweep(ctx)
		}
	}
}

// Serve answers on ln until ctx ends: it settles what crashes left unfinished (in the
// background), sweeps every SweepEvery, and when ctx ends lets the calls in flight finish
// within DrainTimeout.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	go s.RecoverUnsettled(ctx)
	srv := s.HTTPServer()
	go s.sweepLoop(ctx)
	s.log.Info("avenir hosted serving MCP", "version", s.cfg.Version, "listen", ln.Addr().String(),
		"endpoint", s.auth.Issuer()+auth.MCPPath, "read_only", s.cfg.ReadOnly)
	go func() {
		<-ctx.Done()
		s.log.Info("stopping: letting the calls in flight finish", "within", s.cfg.DrainTimeout)
	}()
	if err := ServeUntil(ctx, srv, ln, s.cfg.DrainTimeout); err != nil {
		return fmt.Errorf("serve --hosted: %w", err)
	}
	return nil
}
