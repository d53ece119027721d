package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/avenir-mcp/avenir/ynab"
)

// Options configure a Sandbox. The zero value serves the sample from memory, accepts any bearer
// token and never limits the rate.
type Options struct {
	// Now is the sandbox's today: the sample's dates are relative to it, and its UTC month is
	// the "current" month. Default time.Now.
	Now func() time.Time
	// StatePath is loaded if it exists, and every change is saved to it atomically. "" keeps
	// the state in memory only.
	StatePath string
	// RateLimit is the number of requests allowed per rolling hour before YNAB's 429; 0 means
	// unlimited.
	RateLimit int
	// Token, if set, is the only bearer token accepted. If empty, any bearer token is; a request
	// without an Authorization header is refused either way, as YNAB does. With OAuthClients,
	// Token is the personal access token of the sandbox's own user, and without it only the
	// OAuth access tokens the sandbox issued are accepted.
	Token string
	// OAuthClients are the OAuth applications registered with the sandbox. With one or more, the
	// sandbox also plays YNAB's OAuth (see oauth.go): /oauth/authorize signs people in under any
	// login name, each with their own copy of the sample, and /oauth/token issues access tokens
	// that reach only their user's plans and expire after 2 hours. None: one user, as before.
	OAuthClients []OAuthClient
	// Logger, if set, gets one line per request: method, path (never the query), status and
	// duration. Never the token.
	Logger *slog.Logger
	// Sample is the plan a fresh sandbox starts from and Reset restores: StandardSample or
	// LargeSample; the zero value, the one the state file holds, else the standard one. A
	// state file holding another sample than the one set is refused.
	Sample Sample
	// ExportCost is what one transaction costs the full plan export (GET /plans/{plan_id}),
	// and ExportLimit (default 30s, YNAB's) what it may cost before YNAB's 503; 0 = free.
	ExportCost, ExportLimit time.Duration
}

// Sandbox is a YNAB API emulator serving a sample plan (see the package doc). It is safe for
// concurrent use.
type Sandbox struct {
	opts Options

	mu    sync.Mutex // guards w, users, oauth and views
	w     *world
	users map[string]*world // login name → that user's copy of the sample (users.go)
	oauth *oauthState
	views map[string]*view // plan id (unique across users) → view; nil when stale

	clients map[string]OAuthClient // the registered OAuth applications, by client id

	reqMu  sync.Mutex // guards counts, faults and window
	counts Counts
	faults []*Fault
	window []time.Time // when the requests of the last hour were served

	export exportCost // the export's cost, as set by Options or the control endpoint
}

// Counts are the requests a Sandbox received since the last ResetCounts.
type Counts struct {
	Total, Reads, Writes int
	// ByRoute counts per route, keyed like "PATCH /plans/{plan_id}/transactions"; a request
	// for a path the API does not have is keyed by its method and path.
	ByRoute map[string]int
}

// Fault is an answer the sandbox gives instead of (or besides) the real one, for testing how a
// client copes with a failing YNAB.
type Fault struct {
	Method       string        // "" = any method
	Path         string        // a path pattern under /v1 (see ParseFault); "" = any path
	PathContains string        // "" = any path (matched against the path, /v1 included)
	Skip         int           // let this many matching requests through untouched first
	Count        int           // how many requests get the fault; 0 means 1
	Status       int           // answer this status with YNAB's error body (e.g. 401, 429, 500, 503)
	ErrorID      string        // a YNAB error id ("403.1", "403.3", …): sets the status and the name
	RetryAfter   time.Duration // with Status or ErrorID: a Retry-After header, in seconds rounded up
	Delay        time.Duration // wait this long first, the body read; if the client goes away meanwhile, handle nothing
	Drop         bool          // close the connection without an answer, before handling
	DropAfter    bool          // handle the request (a write is applied and saved), then close without an answer
}

// New returns a sandbox with the state saved at opts.StatePath if that file exists, else the
// sample plan dated by opts.Now.
func New(opts Options) (*Sandbox, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	clients, err := checkClients(opts.OAuthClients)
	if err != nil {
		return nil, err
	}
	s := &Sandbox{opts: opts, views: map[string]*view{}, counts: Counts{ByRoute: map[string]int{}},
		clients: clients, users: map[string]*world{}, oauth: newOAuthState()}
	sf, err := load(opts.StatePath)
	if err != nil {
		return nil, err
	}
	var w *world
	if sf != nil {
		w, s.oauth = sf.World, sf.OAuth.filled()
		if sf.Users != nil {
			s.users = sf.Users
		}
	}
	if err := opts.Sample.check(w, opts.StatePath); err != nil {
		return nil, err
	}
	if w == nil {
		w = opts.Sample.build(opts.Now())
	}
	s.w = w
	return s, nil
}

// Reset restores the sample, dated by Now, and saves it; every OAuth user's copy too (they stay
// signed in). Server knowledge keeps counting up and whatever the API created is served as
// deleted in delta requests, so a client's cache follows.
func (s *Sandbox) Reset() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	smp, now := s.resetSample(), s.opts.Now()
	if err := s.resetUsers(smp, now); err != nil {
		return err
	}
	s.w = succeedWorld(smp.build(now), s.w)
	clear(s.views)
	return s.save()
}

// Export returns the plan as GET /plans/{plan_id} gives it in full (planID may be "last-used",
// the sandbox's own user's, or the id of an OAuth user's plan).
func (s *Sandbox) Export(planID string) (ynab.PlanDetail, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.w.resolvePlan(planID)
	if p == nil {
		p = s.findUserPlan(planID)
	}
	if p == nil {
		return ynab.PlanDetail{}, fmt.Errorf("sandbox: no plan %q", planID)
	}
	return export(p, s.view(p), -1), nil
}

// Counts returns the requests received since the last ResetCounts, faulted ones included.
func (s *Sandbox) Counts() Counts {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	c := s.counts
	c.ByRoute = make(map[string]int, len(s.counts.ByRoute))
	for k, n := range s.counts.ByRoute {
		c.ByRoute[k] = n
	}
	return c
}

// ResetCounts starts counting requests from zero.
func (s *Sandbox) ResetCounts() {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	s.counts = Counts{ByRoute: map[string]int{}}
}

// InjectFault queues a fault: after f.Skip matching requests have passed, the next f.Count
// requests matching f.Method and f.PathContains get it. Faults are matched in the order they
// were queued; a fault still skipping lets a request through to the faults queued after it.
func (s *Sandbox) InjectFault(f Fault) {
	if f.Count <= 0 {
		f.Count = 1
	}
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	s.faults = append(s.faults, &f)
}

// takeFault consumes one use of the first queued fault that matches the request.
func (s *Sandbox) takeFault(r *http.Request) *Fault {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	for i, f := range s.faults {
		if f.matches(r) {
			if f.Skip > 0 {
				f.Skip--
				continue
			}
			if f.Count--; f.Count == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
			return f
		}
	}
	return nil
}

func (s *Sandbox) count(method, key string) {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	s.counts.Total++
	if method == http.MethodGet || method == http.MethodHead {
		s.counts.Reads++
	} else {
		s.counts.Writes++
	}
	s.counts.ByRoute[key]++
}

// admit applies the rate limit: it records a request in the rolling hour unless the limit is
// reached, and returns the X-Rate-Limit header value ("" when there is no limit). A refused
// request is not recorded, so a client that waits gets its budget back.
func (s *Sandbox) admit() (header string, ok bool) {
	if s.opts.RateLimit <= 0 {
		return "", true
	}
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	now := s.opts.Now()
	kept := s.window[:0]
	for _, t := range s.window {
		if now.Sub(t) < time.Hour {
			kept = append(kept, t)
		}
	}
	s.window = kept
	if len(s.window) >= s.opts.RateLimit {
		return fmt.Sprintf("%d/%d", len(s.window), s.opts.RateLimit), false
	}
	s.window = append(s.window, now)
	return fmt.Sprintf("%d/%d", len(s.window), s.opts.RateLimit), true
}

// ServeHTTP serves YNAB's API under /v1.
func (s *Sandbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.serveControl(w, r) || s.serveOAuth(w, r) {
		return
	}
	started := time.Now()
	m := match(r.Method, r.URL.Path)
	s.count(r.Method, m.key)
	f := s.takeFault(r)
	if f != nil && f.Delay > 0 && (!receiveBody(r) || !sleep(r.Context(), f.Delay)) {
		s.logRequest(r, "abandoned", started)
		return
	}
	if f != nil && f.Drop {
		s.drop(r, started)
	}
	var res response
	if f != nil && (f.Status != 0 || f.ErrorID != "") {
		res = faultResponse(f)
	} else {
		res = s.answer(r, m)
	}
	if f != nil && f.DropAfter {
		s.drop(r, started)
	}
	res.write(w)
	s.logRequest(r, strconv.Itoa(res.status), started)
}

// drop closes the connection without an answer, the way net/http lets a handler abort.
func (s *Sandbox) drop(r *http.Request, started time.Time) {
	s.logRequest(r, "dropped", started)
	panic(http.ErrAbortHandler)
}

func (s *Sandbox) logRequest(r *http.Request, status string, started time.Time) {
	if s.opts.Logger != nil {
		s.opts.Logger.Info("sandbox request", "method", r.Method, "path", r.URL.Path,
			"status", status, "duration", time.Since(started))
	}
}

// receiveBody reads r's body ahead (as much as a route would read) and puts it back for the
// route, and reports whether it arrived whole. net/http watches the connection for a client
// that went away, and ends r's context, only once the handler has read the body to its end
// (net/http's server.go starts its background read there): without this, a delayed PATCH,
// POST or PUT whose client was gone would be applied when the delay ran out.
func receiveBody(r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	r.Body = io.NopCloser(bytes.NewReader(body))
	return err == nil
}

// sleep waits for d, and reports false if ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// answer authorises, rate-limits and routes a request.
func (s *Sandbox) answer(r *http.Request, m matched) response {
	who, ok := s.identify(r)
	if !ok {
		return errorResponse(ynabError("401", "Unauthorized: the access token is missing, invalid, revoked or expired."))
	}
	if who.readOnly && writes(r.Method) {
		return errorResponse(ynabError("403.3", "This access token was granted the read-only scope: it can read the plans, not change them."))
	}
	limit, ok := s.admit()
	res := s.route(r, m, ok, who.user)
	if limit != "" && ok { // YNAB sends no X-Rate-Limit with its 429
		res.header = append(res.header, [2]string{"X-Rate-Limit", limit})
	}
	return res
}

func (s *Sandbox) route(r *http.Request, m matched, admitted bool, user string) response {
	switch {
	case !admitted:
		return errorResponse(ynabError("429", "Too many requests: the rate limit of this access token is reached. Try again later."))
	case m.route == nil && len(m.allowed) > 0:
		res := errorResponse(&apiError{Status: http.StatusMethodNotAllowed, ID: "405", Name: "method_not_allowed",
			Detail: fmt.Sprintf("%s is not allowed on %s; allowed: %s", r.Method, r.URL.Path, strings.Join(m.allowed, ", "))})
		res.header = append(res.header, [2]string{"Allow", strings.Join(m.allowed, ", ")})
		return res
	case m.route == nil:
		return errorResponse(ynabError("404.1", fmt.Sprintf("There is no %s %s in YNAB's API.", r.Method, r.URL.Path)))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w, err := s.worldOf(user)
	if err != nil {
		return errorResponse(internalError(err))
	}
	c := &call{s: s, r: r, params: m.params, w: w}
	if id, ok := m.params["plan_id"]; ok {
		if c.p = w.resolvePlan(id); c.p == nil {
			return errorResponse(notFound("plan", id))
		}
		c.v, c.f = s.view(c.p), formatter{c.p.CurrencyFormat}
	}
	if ae := c.exportTimeout(m); ae != nil {
		return errorResponse(ae)
	}
	var before []byte
	if m.route.write && c.p != nil {
		var err error
		if before, err = snapshot(c.p); err != nil {
			return errorResponse(internalError(err))
		}
	}
	status, data, err := m.route.handle(c)
	if err != nil {
		if before != nil {
			err = errors.Join(err, s.restore(c.w, c.p, before))
		}
		var ae *apiError
		if !errors.As(err, &ae) {
			ae = internalError(err)
		}
		return errorResponse(ae)
	}
	if m.budgets {
		data = withLegacyKeys(data)
	}
	return response{status: status, body: map[string]any{"data": data}}
}

func (s *Sandbox) authorised(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return false
	}
	return s.opts.Token == "" || strings.TrimSpace(token) == s.opts.Token
}

// view returns the plan's view for today, recomputing it when the plan changed or the day did.
// A change of served figures that time alone brings (a new month) counts as a change of the
// server's knowledge, so delta requests stay exact; it is saved with the next write.
func (s *Sandbox) view(p *plan) *view {
	today := dateOf(s.opts.Now())
	if v := s.views[p.ID]; v != nil && v.today == today {
		return v
	}
	v := p.derive(today)
	switch {
	case len(p.Marks) == 0:
		p.remark(v, p.Knowledge) // a new plan: everything in it is as of its knowledge
	case p.remark(v, p.Knowledge+1):
		p.Knowledge++
	}
	p.FirstMonth, p.LastMonth = v.months[0], v.months[len(v.months)-1]
	s.views[p.ID] = v
	return v
}

// commit records a write: the knowledge goes up, the derived figures are recomputed, every
// entity whose served form changed is marked, and the state is saved.
func (s *Sandbox) commit(p *plan) (int64, error) {
	p.Knowledge++
	p.LastModifiedOn = timestamp(s.opts.Now())
	v := p.derive(dateOf(s.opts.Now()))
	p.remark(v, p.Knowledge)
	p.FirstMonth, p.LastMonth = v.months[0], v.months[len(v.months)-1]
	s.views[p.ID] = v
	if err := s.save(); err != nil {
		return 0, err
	}
	return p.Knowledge, nil
}

// snapshot encodes a plan before a write, so that a refused write can be undone. The marks are
// left out, being large and written only when a write commits (see restore).
func snapshot(p *plan) ([]byte, error) {
	marks := p.Marks
	p.Marks = nil
	defer func() { p.Marks = marks }()
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("snapshot the plan: %w", err)
	}
	return b, nil
}

// restore puts back a plan as it was before a write that failed, so a refused request changes
// nothing. Marks made by a commit that then failed to save are dropped: the next read marks
// those entities again, at a knowledge no client has seen.
func (s *Sandbox) restore(w *world, failed *plan, before []byte) error {
	p := &plan{}
	if err := json.Unmarshal(before, p); err != nil {
		return fmt.Errorf("restore the plan after a failed write: %w", err)
	}
	p.Marks = failed.Marks
	maps.DeleteFunc(p.Marks, func(_ string, m mark) bool { return m.Knowledge > p.Knowledge })
	for i, old := range w.Plans {
		if old.ID == p.ID {
			w.Plans[i] = p
		}
	}
	delete(s.views, p.ID)
	return nil
}

func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func (w *world) findPlan(id string) *plan {
	for _, p := range w.Plans {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// resolvePlan finds a plan by id or by the alias "last-used".
func (w *world) resolvePlan(id string) *plan {
	if id == "last-used" {
		id = w.LastUsed
	}
	return w.findPlan(id)
}

// Server is a sandbox listening on a TCP address.
type Server struct {
	// URL is the API's base URL, like "http://127.0.0.1:8765/v1".
	URL string

	sb     *Sandbox
	http   *http.Server
	served chan error
}

// Listen serves the sandbox on addr (e.g. "127.0.0.1:0" for a free loopback port) until Close.
func (s *Sandbox) Listen(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("sandbox: listen on %s: %w", addr, err)
	}
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	if s.opts.Logger != nil {
		hs.ErrorLog = slog.NewLogLogger(s.opts.Logger.Handler(), slog.LevelWarn)
	}
	srv := &Server{URL: "http://" + ln.Addr().String() + "/v1", sb: s, http: hs, served: make(chan error, 1)}
	go func() { srv.served <- hs.Serve(ln) }()
	return srv, nil
}

// Close stops the server, letting requests in flight finish for a few seconds, then saves the
// sandbox's state.
func (srv *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var err error
	if srv.http.Shutdown(ctx) != nil {
		// Past the grace period, what is still open is cut: a request still running, or a
		// connection a client opened and has sent nothing on yet (net/http waits 5 s for those),
		// which is no fault of the sandbox.
		srv.http.Close()
	}
	if served := <-srv.served; !errors.Is(served, http.ErrServerClosed) {
		err = errors.Join(err, served)
	}
	srv.sb.mu.Lock()
	defer srv.sb.mu.Unlock()
	return errors.Join(err, srv.sb.save())
}
