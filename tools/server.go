package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/tools/internal/clientjson"
	"github.com/avenir-mcp/avenir/ynab"
)

// ServerName is the serverInfo name clients see.
const ServerName = "avenir-mcp"

// Deps is what the tools need from the outside; cmd/avenir builds it.
type Deps struct {
	YNAB        *ynab.Client
	Confirm     *confirm.Asker // asks the person before every confirmed write
	Journal     journal.Store  // records every write, write-ahead: the local bbolt journal, or hosted, PostgreSQL
	DefaultPlan string         // AVENIR_MCP_PLAN: a plan id or name; "" means YNAB's last-used plan
	ReadOnly    bool           // AVENIR_MCP_READ_ONLY: offer no write tool at all
	Now         func() time.Time
	Logger      *slog.Logger
	Version     string
	// AfterAnswer, from a transport that can tell when an answer is out (tools/stdio's
	// Transport.AfterAnswer), arranges for fn to run once the answer to req is written to the
	// client, and reports true. An applied write counts as answered ([journal.Store.Answered])
	// only then: killed between journaling it and writing its answer, avenir leaves it
	// unanswered, and the client's identical retry is recognised. Nil, or false, means the answer
	// counts as given when the handler returns (over HTTP).
	AfterAnswer func(req mcp.Request, fn func()) bool
	// StatementDirs are the folders import_statement may read files from
	// (AVENIR_MCP_STATEMENT_DIRS; the person's Downloads folder by default). None: no file.
	StatementDirs []string
	// OnCall, if set, is told of every tool call as it ends, for metrics (hosted avenir's
	// /metrics): the tool (a card's answer counts as the tool it confirms), its status — a
	// write's status field (applied, declined, confirmation_required, confirmation_pending),
	// input_required for a question put to the client, error for a failed call, ok for any
	// other — the YNAB requests it made and how long it took. It must not block.
	OnCall func(tool, status string, ynabRequests int, took time.Duration)
}

// handlers carries the dependencies of every tool handler.
type handlers struct {
	Deps
	log *slog.Logger

	mu        sync.Mutex
	planNames map[string]string // lower-case plan name → id, from GET /plans, once per process

	calls map[string]mcp.ToolHandler // every tool's handler by name: a card's answer runs its call again
}

// NewServer returns the MCP server with every tool (only the read tools in read-only mode) and
// the guide.
func NewServer(d Deps) *mcp.Server {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	h := &handlers{Deps: d, log: d.Logger, calls: map[string]mcp.ToolHandler{}}
	// The server declares the MCP Apps extension: its confirmed tools name a card, and hosts
	// that render MCP Apps draw it. Logging stays declared as the SDK's default has it.
	//lint:ignore SA1019 deprecated as of 2026-07-28 but still in the older protocols avenir serves
	caps := &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}}
	caps.AddExtension(confirm.AppExtension, nil)
	srv := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "avenir", Version: d.Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: d.Logger, Capabilities: caps})

	srv.AddReceivingMiddleware(countRequests, listedToApps)
	for _, e := range allTools {
		if d.ReadOnly && !e.readsOnly() {
			continue
		}
		e.add(srv, h)
	}
	if !d.ReadOnly { // the card's own tools: only writes ask on a card
		addTool(srv, h, openConfirmationTool, h.openConfirmation)
		h.addAnswerConfirmation(srv)
	}
	addGuide(srv)
	addPrompts(srv, d.ReadOnly)
	addViews(srv)
	return srv
}

const instructions = "avenir reads and changes a YNAB plan. Read the resource avenir-mcp://guide " +
	"before the first write: every write is previewed and confirmed by the user, journaled, and can be undone. " +
	"Where a write is asked on a card (confirmation_pending), wait for the user's answer there; if no card appears, " +
	"call again with the same arguments, not sooner than 10 seconds later."

// readOnly annotates the read tools. No tool is "open world": each works on the person's own
// plan (or journal), a closed set of things.
var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}

func ptr[T any](v T) *T { return &v }

// planArg is the plan_id argument every tool takes.
type planArg struct {
	PlanID string `json:"plan_id,omitempty"`
}

// confirmArg is the confirmation argument every confirmed tool takes (§2.3 of the confirmation
// spec): a plain string, so that any value that is not a live code gets the spec's sentence,
// never a schema error. The avenir:"code" tag makes args.go read any JSON value there as text.
type confirmArg struct {
	Confirmation string `json:"confirmation,omitempty" avenir:"code"`
}

// takeCode returns the code and leaves the argument blank.
func (c *confirmArg) takeCode() string {
	code := c.Confirmation
	c.Confirmation = ""
	return code
}

// splitCode splits a confirmed tool's arguments into what a code or a sealed state is bound to
// — the arguments without `confirmation`, so that the call that passes the code digests the same
// arguments as the call that got it — and the code itself. Every confirmed tool goes through it.
func splitCode[T any, P interface {
	*T
	takeCode() string
}](in T) (args T, code string) {
	code = P(&in).takeCode()
	return in, code
}

// result is embedded in every tool's output: the plan it concerns and what the call cost.
type result struct {
	PlanID       string `json:"plan_id,omitempty" jsonschema:"the YNAB plan id the result is about"`
	YNABRequests int    `json:"ynab_requests" jsonschema:"how many YNAB API requests this call cost (YNAB allows 200 an hour)"`
}

func (r *result) setRequests(n int) { r.YNABRequests = n }

type costed interface{ setRequests(int) }

// outputTypes are the Go types whose output schema is written by hand rather than inferred.
var outputTypes = map[reflect.Type]*jsonschema.Schema{
	// A journaled change's fields, passed through as recorded.
	reflect.TypeFor[recordedFields](): {Types: []string{"object", "null"}},
}

// addTool registers a typed handler. avenir reads the arguments itself (args.go): the input
// schema is written from In, and a call's arguments are read against the same description, so
// every error names the argument in the schema's words. The output schema is inferred from Out,
// and every result is checked against it before it is sent, as the SDK's own typed tools are.
// The handler is wrapped: YNAB requests are counted into the result and the log, a panic
// becomes a tool error, and the call is logged on stderr.
func addTool[In, Out any](srv *mcp.Server, h *handlers, t mcp.Tool, fn mcp.ToolHandlerFor[In, Out]) {
	at, err := argTypeFor(reflect.TypeFor[In]())
	if err != nil || at.kind != argStruct {
		panic(fmt.Sprintf("tool %s: arguments: %v", t.Name, err)) // a programming error, found by every test
	}
	t.InputSchema = at.schema("")
	out, err := jsonschema.For[Out](&jsonschema.ForOptions{TypeSchemas: outputTypes})
	if err != nil {
		panic(fmt.Sprintf("tool %s: output schema: %v", t.Name, err))
	}
	t.OutputSchema = out
	resolved, err := out.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: output schema: %v", t.Name, err))
	}
	handler := func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		counter := ynab.CounterFrom(ctx) // countRequests made it
		if counter == nil {
			ctx, counter = ynab.WithCounter(ctx)
		}
		start := h.Now()
		var o Out
		defer func() {
			if p := recover(); p != nil {
				h.log.Error("tool panicked", "tool", t.Name, "panic", p, "stack", string(debug.Stack()))
				failure := fmt.Errorf("avenir hit an internal error in %s; nothing more was written. The server log has the details", t.Name)
				res, err = failedCall(h.log, failure, because(reasonError, "", failure), &o, resolved), nil
			}
			attrs := []any{"tool", t.Name, "ynab_requests", counter.N(), "duration", h.Now().Sub(start)}
			if res != nil && res.IsError && len(res.Content) > 0 {
				if tc, ok := res.Content[0].(*mcp.TextContent); ok {
					attrs = append(attrs, "error", tc.Text)
				}
			} else if err != nil {
				attrs = append(attrs, "error", err)
			}
			h.log.Info("tool call", attrs...)
			if h.OnCall != nil {
				h.OnCall(t.Name, callStatus(res, err, &o), counter.N(), h.Now().Sub(start))
			}
		}()
		var in In
		if err := decodeArgs(req.Params.Arguments, at, &in, t.Name); err != nil {
			return failedCall(h.log, err, because(reasonInvalidArgument, "", err), &o, resolved), nil
		}
		res, o, err = fn(ctx, req, in)
		if c, ok := any(&o).(costed); ok {
			c.setRequests(counter.N())
		}
		var wire *jsonrpc.Error
		switch {
		case errors.As(err, &wire):
			return nil, wire // e.g. a tampered request state: invalid params, as the protocol says
		case err != nil:
			return failedCall(h.log, err, err, &o, resolved), nil
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		if res.InputRequests != nil {
			return res, nil // a question for the client; content and inputRequests exclude each other
		}
		res, err = withOutput(res, o, resolved, t.Name, h.log)
		if tr, ok := any(&o).(interface{ textTrailer() string }); ok && res != nil && !res.IsError {
			withTrailer(res, tr.textTrailer())
		}
		if a, ok := any(&o).(interface{ answeredOp() string }); ok && res.StructuredContent != nil {
			h.afterAnswer(req, a.answeredOp())
		}
		return res, err
	}
	h.calls[t.Name] = handler
	srv.AddTool(&t, handler)
}

// callStatus is a finished call's status for [Deps].OnCall; out is the handler's output.
func callStatus(res *mcp.CallToolResult, err error, out any) string {
	switch {
	case err != nil || res == nil || res.IsError:
		return "error"
	case res.InputRequests != nil:
		return "input_required"
	}
	if w, ok := out.(interface{ writeStatus() string }); ok && w.writeStatus() != "" {
		return w.writeStatus()
	}
	return "ok"
}

// afterAnswer records that the outcome of operation id, which the result of req tells, reached
// the client ([journal.Store.Answered]): once the transport has written the answer where it
// can say so ([Deps].AfterAnswer), else now. "" is no operation.
func (h *handlers) afterAnswer(req mcp.Request, id string) {
	if id == "" {
		return
	}
	record := func() { h.answered(id) }
	if h.AfterAnswer == nil || !h.AfterAnswer(req, record) {
		record()
	}
}

// answered records that the outcome of operation id is told to the client. A failure to record
// it is logged: at worst an identical call is then taken for a retry.
func (h *handlers) answered(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	if err := h.Journal.Answered(ctx, id); err != nil {
		h.log.Warn("the journal did not record that a write was answered", "operation", id, "err", err)
	}
}

// maxToolError bounds the message of a failed call, as a safety net: the client's values in it
// are already cut (quoted), and a message is usually a sentence or two, but the outcome of a
// partial write names every change, so the bound is the result budget of spec/tools.md (~60 KB).
const maxToolError = 60_000

// toolError is the result of a call that failed: the message, marked as an error. A message that
// would show Go's insides (a bug: every error avenir makes is worded for people) is logged and
// replaced by one that points at the log.
func toolError(log *slog.Logger, err error) *mcp.CallToolResult {
	msg := err.Error()
	if clientjson.ShowsGoInternals(msg) {
		log.Error("a tool error showed Go's insides; the client gets a plain message", "message", msg)
		msg = "avenir could not handle this call and cannot say why in words; nothing more was written. The server log has the details"
	}
	res := &mcp.CallToolResult{}
	res.SetError(errors.New(bound(msg, maxToolError)))
	return res
}

// failedCall is the tool error of a call that failed with err. A write's result says, beside the
// message, its status and reason as data (reason.go), from why, which is err or err with its
// reason: structured content that fits the tool's output schema, as strict clients check it
// on error results too.
func failedCall(log *slog.Logger, err, why error, out any, schema *jsonschema.Resolved) *mcp.CallToolResult {
	res := toolError(log, err)
	f, ok := out.(failure)
	if !ok {
		return res
	}
	f.failed(reasonOf(why), operationOf(why))
	data, err := encodeValid(out, schema)
	if err != nil {
		log.Error("a failed write's reason does not fit its output schema; the error goes without it", "err", err)
		return res
	}
	res.StructuredContent = json.RawMessage(data)
	return res
}

// withOutput puts the tool's output into res as structured content and, when res has no
// content of its own, as JSON text too (MCP's advice for clients that read only text). An
// output that does not fit the tool's output schema is a bug: it is logged and refused, since
// strict clients would reject the whole result.
func withOutput(res *mcp.CallToolResult, o any, schema *jsonschema.Resolved, tool string, log *slog.Logger) (*mcp.CallToolResult, error) {
	data, err := encodeValid(o, schema)
	if err != nil {
		log.Error("a result cannot be sent: it does not encode or does not fit its output schema", "tool", tool, "err", err)
		return toolError(log, fmt.Errorf("avenir built a result for %s that it cannot send; nothing more was written. The server log has the details", tool)), nil
	}
	res.StructuredContent = json.RawMessage(data)
	if res.Content == nil {
		res.Content = []mcp.Content{&mcp.TextContent{Text: string(data)}}
	}
	return res, nil
}

// encodeValid encodes o as JSON and checks it against the tool's output schema, as it will be
// read: through JSON, so that what is checked is what the client gets.
func encodeValid(o any, schema *jsonschema.Resolved) ([]byte, error) {
	data, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if err := schema.Validate(v); err != nil {
		return nil, err
	}
	return data, nil
}

// withTrailer ends the result's last text content with line (nothing for "").
func withTrailer(res *mcp.CallToolResult, line string) {
	if line == "" {
		return
	}
	for i := len(res.Content) - 1; i >= 0; i-- {
		if tc, ok := res.Content[i].(*mcp.TextContent); ok {
			tc.Text += "\n" + line
			return
		}
	}
	res.Content = append(res.Content, &mcp.TextContent{Text: line})
}

// countRequests counts the YNAB requests of each tool call, and adds the count to an error
// result as a text block of its own after the message (which stays exactly as written): a
// successful result carries it as ynab_requests, and an error result says what it cost too.
func countRequests(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		ctx, counter := ynab.WithCounter(ctx)
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && err == nil && r.IsError {
			r.Content = append(r.Content, &mcp.TextContent{Text: fmt.Sprintf("ynab_requests: %d", counter.N())})
		}
		return res, err
	}
}
