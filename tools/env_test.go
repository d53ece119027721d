package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/journal/bolt"
	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

// The test double for every tool test: the real sandbox over HTTP on loopback, the real YNAB
// client, a real journal in a temp dir, the real confirm.Asker, and the go-sdk client over
// in-memory transports, as one of the kinds of client people use.

// sandboxToday is the sandbox's and the server's today in tests.
var sandboxToday = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

// testToken must never show in a log, an error or the journal.
const testToken = "tok_SECRET_9f8e7d6c5b4a"

type clientKind struct {
	name     string
	protocol string // "" for 2026-07-28
	answer   string // "" no elicitation; else "accept", "reject" (accept with value false), "decline", "cancel"
	apps     bool   // the client renders MCP Apps (declares io.modelcontextprotocol/ui)
}

var (
	modernYes    = clientKind{name: "2026-07-28 with elicitation", protocol: "", answer: "accept"}
	modernNone   = clientKind{name: "2026-07-28 without elicitation", protocol: ""}
	legacy1125   = clientKind{name: "2025-11-25 with elicitation", protocol: "2025-11-25", answer: "accept"}
	legacy0618   = clientKind{name: "2025-06-18 with elicitation", protocol: "2025-06-18", answer: "accept"}
	noElicit     = clientKind{name: "2025-06-18 without elicitation", protocol: "2025-06-18"}
	headless     = clientKind{name: "headless (dismisses every question)", protocol: "2025-11-25", answer: "cancel"}
	modernCancel = clientKind{name: "2026-07-28 that dismisses", protocol: "", answer: "cancel"}
	modernApps   = clientKind{name: "2026-07-28 with MCP Apps, without elicitation", protocol: "", apps: true}
	legacyApps   = clientKind{name: "2025-06-18 with MCP Apps, without elicitation", protocol: "2025-06-18", apps: true}
	appsElicit   = clientKind{name: "2025-11-25 with MCP Apps and elicitation", protocol: "2025-11-25", answer: "accept", apps: true}
)

type testEnv struct {
	t           testing.TB
	sb          *sandbox.Sandbox
	url         string
	client      *ynab.Client
	journal     *bolt.Journal
	journalPath string
	session     *mcp.ClientSession
	server      *mcp.Server // the server session connects to; connect another client to it
	log         *lockedWriter
	asked       []string // the messages of the questions the client was asked
	mu          sync.Mutex
	// duringQuestion, if set, runs while the client is being asked, before it answers: what
	// someone does in YNAB while the person reads the question.
	duringQuestion func()
	now            atomic.Pointer[time.Time] // the server's clock
}

// setNow moves the server's clock (months like "current" follow it).
func (e *testEnv) setNow(t time.Time) { e.now.Store(&t) }

// questions returns the messages of the questions the client was asked so far.
func (e *testEnv) questions() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.asked)
}

type envOptions struct {
	kind                clientKind
	noMRTRDriver        bool // the client returns input_required results instead of answering them itself
	readOnly            bool
	requireElicitation  bool
	clock               func() time.Time // confirm's clock
	maxAge              time.Duration    // the YNAB client's cache age (0: its default of 5 s)
	token               string
	answeredByTransport bool                                                            // as on stdio, with no answer ever written: no write counts as answered unless a test says so
	afterAnswer         func(mcp.Request, func()) bool                                  // Deps.AfterAnswer, when not answeredByTransport
	sample              sandbox.Sample                                                  // the sandbox's plan; the zero value is the standard sample
	statementDirs       []string                                                        // Deps.StatementDirs
	onCall              func(tool, status string, ynabRequests int, took time.Duration) // Deps.OnCall
}

func newEnv(t testing.TB, o envOptions) *testEnv {
	t.Helper()
	e := &testEnv{t: t, log: &lockedWriter{w: &bytes.Buffer{}}}
	e.setNow(sandboxToday)
	sb, srv := sandboxtest.New(t, sandbox.Options{Now: func() time.Time { return sandboxToday }, Sample: o.sample})
	e.sb, e.url = sb, srv.URL
	logger := slog.New(slog.NewTextHandler(e.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if o.token == "" {
		o.token = testToken
	}
	e.client = ynab.New(ynab.Options{BaseURL: srv.URL, Token: o.token, Logger: logger, MaxAge: o.maxAge,
		Backoff: func(int) time.Duration { return time.Millisecond }})
	e.journalPath = filepath.Join(t.TempDir(), "journal.db")
	j, err := bolt.Open(e.journalPath, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.journal = j
	asker, err := confirm.New(confirm.Options{RequireElicitation: o.requireElicitation, Clock: o.clock})
	if err != nil {
		t.Fatal(err)
	}
	deps := Deps{YNAB: e.client, Confirm: asker, Journal: j, ReadOnly: o.readOnly,
		Now: func() time.Time { return *e.now.Load() }, Logger: logger, Version: "test", AfterAnswer: o.afterAnswer, StatementDirs: o.statementDirs,
		OnCall: o.onCall}
	if o.answeredByTransport {
		deps.AfterAnswer = func(mcp.Request, func()) bool { return true } // the answer never goes out
	}
	e.server = NewServer(deps)
	e.session = e.connect(e.server, o.kind, o.noMRTRDriver)
	return e
}

func (e *testEnv) connect(server *mcp.Server, kind clientKind, noDriver bool) *mcp.ClientSession {
	e.t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { ss.Close() })
	opts := &mcp.ClientOptions{}
	if noDriver {
		opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	}
	if kind.apps {
		caps := &mcp.ClientCapabilities{}
		caps.AddExtension(confirm.AppExtension, map[string]any{"mimeTypes": []string{confirm.AppMIMEType}})
		opts.Capabilities = caps
	}
	if kind.answer != "" {
		opts.ElicitationHandler = func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			e.mu.Lock()
			e.asked = append(e.asked, r.Params.Message)
			during := e.duringQuestion
			e.mu.Unlock()
			if during != nil {
				during()
			}
			switch kind.answer {
			case "accept":
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"value": true}}, nil
			case "reject":
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"value": false}}, nil
			default:
				return &mcp.ElicitResult{Action: kind.answer}, nil
			}
		}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "avenir-test", Version: "1.0"}, opts).
		Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: kind.protocol})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its result; a protocol error fails the test.
func (e *testEnv) call(name string, args map[string]any) *mcp.CallToolResult {
	e.t.Helper()
	res, err := e.session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		e.t.Fatalf("%s(%v): %v", name, args, err)
	}
	return res
}

// ok calls a tool that must succeed and decodes its structured result into out.
func (e *testEnv) ok(name string, args map[string]any, out any) {
	e.t.Helper()
	res := e.call(name, args)
	if res.IsError {
		e.t.Fatalf("%s(%v) failed: %s", name, args, text(res))
	}
	decode(e.t, res, out)
}

// fails calls a tool that must fail with a tool error containing want.
func (e *testEnv) fails(name string, args map[string]any, want string) string {
	e.t.Helper()
	res := e.call(name, args)
	if !res.IsError {
		e.t.Fatalf("%s(%v) succeeded, want an error containing %q: %s", name, args, want, text(res))
	}
	if !strings.Contains(text(res), want) {
		e.t.Fatalf("%s(%v) error = %q, want it to contain %q", name, args, text(res), want)
	}
	return text(res)
}

// preview makes the first call of a confirmed write on a client that is not asked (a code
// comes back): it must be confirmation_required with a code, having written nothing. The
// sandbox's counts are reset first, so what the call cost can be read after it.
func (e *testEnv) preview(tool string, args map[string]any) writeOut {
	e.t.Helper()
	e.sb.ResetCounts()
	var out writeOut
	e.ok(tool, args, &out)
	if out.Status != "confirmation_required" || out.Confirmation == "" || e.writes() != 0 {
		e.t.Fatalf("%s first call = %+v with %d writes; want confirmation_required, nothing written", tool, out, e.writes())
	}
	return out
}

// confirmByCode passes code back with the same arguments and returns the result, failed or not.
// The sandbox's counts are reset first, so what the confirming call cost can be read after it.
func (e *testEnv) confirmByCode(tool string, args map[string]any, code string) *mcp.CallToolResult {
	e.t.Helper()
	e.sb.ResetCounts()
	return e.call(tool, withArg(args, "confirmation", code))
}

// apply makes a write through whatever client e has — asked (the client answers), by code, or
// none for a tool that needs no confirmation — and it must be applied. It returns the preview
// the person saw ("" when none was shown) and the result, decoded also into each of more (a
// tool's own output type). The counts are reset before the call that applies.
func (e *testEnv) apply(tool string, args map[string]any, more ...any) (string, writeOut) {
	e.t.Helper()
	asked := len(e.questions())
	e.sb.ResetCounts()
	res := e.call(tool, args)
	var out writeOut
	if !res.IsError {
		decode(e.t, res, &out)
	}
	preview := ""
	switch {
	case out.Status == "confirmation_required":
		if e.writes() != 0 {
			e.t.Fatalf("%s wrote before it was confirmed", tool)
		}
		preview = out.Preview
		res = e.confirmByCode(tool, args, out.Confirmation)
		out = writeOut{}
		if !res.IsError {
			decode(e.t, res, &out)
		}
	case len(e.questions()) > asked:
		q := e.questions()
		preview = q[len(q)-1]
	}
	if res.IsError || out.Status != "applied" {
		e.t.Fatalf("%s(%v) = %s; want applied", tool, args, text(res))
	}
	for _, m := range more {
		decode(e.t, res, m)
	}
	return preview, out
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func decode(t testing.TB, res *mcp.CallToolResult, out any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}

// writes is how many write requests the sandbox has received since the last resetCounts.
// operations lists the journal's operations; a journal that cannot be read fails the test.
func (e *testEnv) operations(f journal.Filter) []journal.Operation {
	e.t.Helper()
	ops, err := e.journal.List(context.Background(), f)
	if err != nil {
		e.t.Fatalf("listing the journal: %v", err)
	}
	return ops
}

// operation reads one operation of the journal; one that cannot be read fails the test.
func (e *testEnv) operation(id string) journal.Operation {
	e.t.Helper()
	op, err := e.journal.Get(context.Background(), id)
	if err != nil {
		e.t.Fatalf("reading operation %s from the journal: %v", id, err)
	}
	return op
}

func (e *testEnv) writes() int { return e.sb.Counts().Writes }

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (e *testEnv) logText() string {
	e.log.mu.Lock()
	defer e.log.mu.Unlock()
	return e.log.w.String()
}

// restart returns an environment with a new server (new YNAB client, new Asker: every code
// forgotten) over the same sandbox and journal, connected as kind.
func (e *testEnv) restart(kind clientKind) *testEnv {
	e.t.Helper()
	e2 := &testEnv{t: e.t, sb: e.sb, url: e.url, journal: e.journal, log: e.log}
	e2.setNow(*e.now.Load())
	logger := slog.New(slog.NewTextHandler(e.log, nil))
	e2.client = ynab.New(ynab.Options{BaseURL: e.url, Token: testToken, Logger: logger})
	asker, err := confirm.New(confirm.Options{})
	if err != nil {
		e.t.Fatal(err)
	}
	server := NewServer(Deps{YNAB: e2.client, Confirm: asker, Journal: e.journal,
		Now: func() time.Time { return *e2.now.Load() }, Logger: logger, Version: "test"})
	e2.session = e2.connect(server, kind, false)
	return e2
}
