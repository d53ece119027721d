// Package tools is avenir's MCP surface: one file per tool, the guide resource, and the server
// that holds them. A tool resolves names to ids, reads the plan through the YNAB client's delta
// cache, and — for a write — builds a plan of changes, asks the person through confirm.Ask,
// journals it write-ahead and only then calls YNAB.
package tools

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/ynab"
)

// ServerName is the serverInfo name clients see.
const ServerName = "avenir-mcp"

// Deps is what the tools need from the outside; cmd/avenir builds it.
type Deps struct {
	YNAB        *ynab.Client
	Confirm     *confirm.Asker   // asks the person before every confirmed write
	Journal     *journal.Journal // records every write, write-ahead
	DefaultPlan string           // AVENIR_MCP_PLAN: a plan id or name; "" means YNAB's last-used plan
	ReadOnly    bool             // AVENIR_MCP_READ_ONLY: offer no write tool at all
	Now         func() time.Time
	Logger      *slog.Logger
	Version     string
}

// handlers carries the dependencies of every tool handler.
type handlers struct {
	Deps
	log *slog.Logger

	mu        sync.Mutex
	planNames map[string]string // lower-case plan name → id, from GET /plans, once per process
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
	h := &handlers{Deps: d, log: d.Logger}
	srv := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "avenir", Version: d.Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: d.Logger})

	addTool(srv, h, listPlansTool, h.listPlans)
	addTool(srv, h, planOverviewTool, h.planOverview)
	addTool(srv, h, listAccountsTool, h.listAccounts)
	addTool(srv, h, listCategoriesTool, h.listCategories)
	addTool(srv, h, listTransactionsTool, h.listTransactions)
	addTool(srv, h, listPayeesTool, h.listPayees)
	addTool(srv, h, listScheduledTool, h.listScheduled)
	addTool(srv, h, listOperationsTool, h.listOperations)
	addTool(srv, h, getOperationTool, h.getOperation)
	h.addAnalysis(srv)
	if !d.ReadOnly {
		h.addCategoryWrites(srv)
		h.addTransactionEdits(srv)
		h.addCreates(srv)
		addTool(srv, h, undoOperationTool, h.undoOperation)
	}
	addGuide(srv)
	return srv
}

const instructions = "avenir reads and changes a YNAB plan. Read the resource avenir-mcp://guide " +
	"before the first write: every write is previewed and confirmed by the user, journaled, and can be undone."

// readOnly annotates the read tools. No tool is "open world": each works on the person's own
// plan (or journal), a closed set of things.
var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}

func ptr[T any](v T) *T { return &v }

// planArg is the plan_id argument every tool takes.
type planArg struct {
	PlanID string `json:"plan_id,omitempty" jsonschema:"a plan id or name; default: the configured plan, else YNAB's last-used"`
}

// confirmArg is the confirmation argument every confirmed tool takes (§2.3 of the confirmation
// spec): a plain string, so that any value that is not a live code gets the spec's sentence,
// never a schema error.
type confirmArg struct {
	Confirmation string `json:"confirmation,omitempty" jsonschema:"only after the user agreed to the preview: the code from confirmation_required"`
}

// result is embedded in every tool's output: the plan it concerns and what the call cost.
type result struct {
	PlanID       string `json:"plan_id,omitempty" jsonschema:"the YNAB plan id the result is about"`
	YNABRequests int    `json:"ynab_requests" jsonschema:"how many YNAB API requests this call cost (YNAB allows 200 an hour)"`
}

func (r *result) setRequests(n int) { r.YNABRequests = n }

type costed interface{ setRequests(int) }

// schemaTypes are the Go types whose JSON schema is written by hand rather than inferred.
var schemaTypes = map[reflect.Type]*jsonschema.Schema{
	// An amount is a JSON number or a decimal string, never `true` (any): the TypeScript SDK
	// 1.x client rejects a whole tools/list that holds such a schema.
	reflect.TypeFor[Amount](): {Types: []string{"number", "string"}},
	// A journaled change's fields, passed through as recorded.
	reflect.TypeFor[object](): {Types: []string{"object", "null"}},
}

// addTool registers a typed handler with the schemas inferred from In and Out, and wraps it:
// YNAB requests are counted into the result and the log, a panic becomes a tool error, and the
// call is logged on stderr.
func addTool[In, Out any](srv *mcp.Server, h *handlers, t mcp.Tool, fn mcp.ToolHandlerFor[In, Out]) {
	in, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: schemaTypes})
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", t.Name, err)) // a programming error, found by every test
	}
	t.InputSchema = in
	out, err := jsonschema.For[Out](&jsonschema.ForOptions{TypeSchemas: schemaTypes})
	if err != nil {
		panic(fmt.Sprintf("tool %s: output schema: %v", t.Name, err))
	}
	t.OutputSchema = out
	mcp.AddTool(srv, &t, func(ctx context.Context, req *mcp.CallToolRequest, args In) (res *mcp.CallToolResult, o Out, err error) {
		ctx, counter := ynab.WithCounter(ctx)
		start := h.Now()
		defer func() {
			if p := recover(); p != nil {
				h.log.Error("tool panicked", "tool", t.Name, "panic", p, "stack", string(debug.Stack()))
				res, err = nil, fmt.Errorf("avenir hit an internal error in %s; nothing more was written. The server log has the details", t.Name)
			}
			if c, ok := any(&o).(costed); ok {
				c.setRequests(counter.N())
			}
			attrs := []any{"tool", t.Name, "ynab_requests", counter.N(), "duration", h.Now().Sub(start)}
			if err != nil {
				attrs = append(attrs, "error", err)
			}
			h.log.Info("tool call", attrs...)
		}()
		return fn(ctx, req, args)
	})
}
