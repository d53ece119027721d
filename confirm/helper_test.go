package confirm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The protocol versions a client may speak: "" asks for the latest (2026-07-28).
const (
	v2026 = ""
	v1125 = "2025-11-25"
	v0618 = "2025-06-18"
)

var allVersions = []string{v2026, v1125, v0618}

// Tools of the toy server: the same handler under two names, so that a state or
// a code issued by one can be tried on the other.
const (
	toolBudget = "set_budget"
	toolGoal   = "set_goal"
)

// fakeClock is a monotonic clock that moves only when a test says so.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *fakeClock { return &fakeClock{now: time.Now()} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// plan is the toy plan behind the toy tools: category names resolve to ids, and
// every write is recorded.
type plan struct {
	mu     sync.Mutex
	ids    map[string]string
	writes []string // "tool category_id amount", one per write
}

func (p *plan) resolve(name string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	id, ok := p.ids[name]
	return id, ok
}

func (p *plan) rename(name, id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ids[name] = id
}

func (p *plan) write(tool, id string, amount int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.writes = append(p.writes, fmt.Sprintf("%s %s %d", tool, id, amount))
}

func (p *plan) Writes() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.writes...)
}

type setArgs struct {
	Category     string `json:"category"`
	Amount       int64  `json:"amount"`
	Confirmation string `json:"confirmation,omitempty"`
}

// outcome is the toy tool's result: a confirm.Reply, or "applied" and the mode.
type outcome struct {
	Status           string `json:"status"`
	Preview          string `json:"preview,omitempty"`
	Confirmation     string `json:"confirmation,omitempty"`
	ExpiresInSeconds int    `json:"expires_in_seconds,omitempty"`
	Message          string `json:"message,omitempty"`
	Mode             string `json:"mode,omitempty"`
}

func preview(args setArgs) string {
	return fmt.Sprintf("Budget %s: %d?", args.Category, args.Amount)
}

// harness is a server with the toy tools behind one Asker, as a real server has.
type harness struct {
	clock *fakeClock
	plan  *plan
	asker *confirm.Asker
	srv   *mcp.Server
}

func newHarness(t *testing.T, opts confirm.Options) *harness {
	t.Helper()
	h := &harness{
		clock: newClock(),
		plan:  &plan{ids: map[string]string{"Restaurants": "cat-rest", "Tennis": "cat-tennis"}},
	}
	if opts.Clock == nil {
		opts.Clock = h.clock.Now
	}
	asker, err := confirm.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.asker = asker
	h.srv = mcp.NewServer(&mcp.Implementation{Name: "avenir-test", Version: "0"}, nil)
	for _, name := range []string{toolBudget, toolGoal} {
		mcp.AddTool(h.srv, &mcp.Tool{Name: name, Description: confirm.AgentRule}, h.handler(name))
	}
	return h
}

// handler is a confirmed tool as the tools package writes one: it resolves the
// change from fresh data at every call, asks, and writes only on Proceed.
func (h *harness) handler(tool string) mcp.ToolHandlerFor[setArgs, outcome] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in setArgs) (*mcp.CallToolResult, outcome, error) {
		id, ok := h.plan.resolve(in.Category)
		if !ok {
			return nil, outcome{}, fmt.Errorf("no category is named %q", in.Category)
		}
		args := in
		args.Confirmation = ""
		d, err := h.asker.Ask(ctx, req, confirm.Question{
			Tool:         tool,
			PlanID:       "plan-1",
			Subject:      map[string]any{"category_id": id, "amount": in.Amount},
			Preview:      preview(in),
			Args:         args,
			Confirmation: in.Confirmation,
		})
		switch {
		case err != nil:
			return nil, outcome{}, err
		case d.Input != nil:
			return d.Input, outcome{}, nil
		case d.Reply != nil:
			r := d.Reply
			return nil, outcome{Status: r.Status, Preview: r.Preview, Confirmation: r.Confirmation,
				ExpiresInSeconds: r.ExpiresInSeconds, Message: r.Message}, nil
		case d.Proceed:
			h.plan.write(tool, id, in.Amount)
			return nil, outcome{Status: "applied", Mode: string(d.Mode)}, nil
		default:
			return nil, outcome{}, errors.New("Ask decided nothing")
		}
	}
}

func (h *harness) connect(t *testing.T, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := h.srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, opts).
		Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func (h *harness) wantWrites(t *testing.T, n int) {
	t.Helper()
	if got := h.plan.Writes(); len(got) != n {
		t.Fatalf("%d write(s) %q, want %d", len(got), got, n)
	}
}

// user answers every question with the answer of the moment and remembers them.
type user struct {
	mu        sync.Mutex
	answer    *mcp.ElicitResult
	questions []*mcp.ElicitParams
}

func (u *user) set(a *mcp.ElicitResult) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.answer = a
}

func (u *user) asked() []*mcp.ElicitParams {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]*mcp.ElicitParams(nil), u.questions...)
}

func (u *user) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.questions = append(u.questions, req.Params)
	// A copy: the SDK fills the form's defaults into the content it is given.
	return &mcp.ElicitResult{Action: u.answer.Action, Content: maps.Clone(u.answer.Content)}, nil
}

// Client options: one whose user answers (the SDK drives the round trip), one
// that sees the raw input-required results, and one without elicitation.
func answering(u *user) *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: u.handle}
}

func manual(u *user) *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: u.handle, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}
}

func noElicitation() *mcp.ClientOptions { return &mcp.ClientOptions{} }

func accept(ticked any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"value": ticked}}
}

var (
	declineAnswer = &mcp.ElicitResult{Action: "decline"}
	cancelAnswer  = &mcp.ElicitResult{Action: "cancel"}
)

func call(t *testing.T, cs *mcp.ClientSession, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	t.Helper()
	return cs.CallTool(context.Background(), p)
}

func params(tool string, args setArgs) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: tool, Arguments: args}
}

// decode returns a function that returns a call's outcome and fails the test
// unless the call succeeded, so that decode(t)(call(...)) reads as one step.
func decode(t *testing.T) func(*mcp.CallToolResult, error) outcome {
	return func(res *mcp.CallToolResult, err error) outcome {
		t.Helper()
		out, err := result(res, err)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
}

// result returns a tool's outcome, or why the call did not succeed. Unlike
// decode it may be used from any goroutine.
func result(res *mcp.CallToolResult, err error) (outcome, error) {
	switch {
	case err != nil:
		return outcome{}, fmt.Errorf("call failed: %w", err)
	case res.IsError:
		return outcome{}, fmt.Errorf("tool error: %s", toolText(res))
	case res.NeedsInput() || len(res.InputRequests) > 0:
		return outcome{}, fmt.Errorf("the result asks for input: %v", res.InputRequests)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return outcome{}, err
	}
	var out outcome
	err = json.Unmarshal(raw, &out)
	return out, err
}

func toolText(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return fmt.Sprintf("%v", res.Content[0])
}

// wantToolError checks that the call failed as a tool error with exactly want.
func wantToolError(t *testing.T, res *mcp.CallToolResult, err error, want error) {
	t.Helper()
	if err != nil {
		t.Fatalf("protocol error %v, want the tool error %q", err, want)
	}
	if !res.IsError || toolText(res) != want.Error() {
		t.Fatalf("result %q (isError %v), want the tool error %q", toolText(res), res.IsError, want)
	}
}

// wantRPCError checks that the call failed with a JSON-RPC error of that code.
func wantRPCError(t *testing.T, err error, code int64) *jsonrpc.Error {
	t.Helper()
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != code {
		t.Fatalf("error %v, want JSON-RPC code %d", err, code)
	}
	return we
}

// firstLeg makes the first call of a manual 2026 client and returns its state.
func firstLeg(t *testing.T, cs *mcp.ClientSession, tool string, args setArgs) *mcp.CallToolResult {
	t.Helper()
	res, err := call(t, cs, params(tool, args))
	if err != nil {
		t.Fatal(err)
	}
	if !res.NeedsInput() || res.RequestState == "" {
		t.Fatalf("first call did not ask for input: %+v", res)
	}
	return res
}

func answerLeg(t *testing.T, cs *mcp.ClientSession, tool string, args setArgs, state string, answer *mcp.ElicitResult) (*mcp.CallToolResult, error) {
	t.Helper()
	p := params(tool, args)
	p.RequestState = state
	if answer != nil {
		p.InputResponses = mcp.InputResponseMap{"confirm": answer}
	}
	return call(t, cs, p)
}
