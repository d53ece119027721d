package tools

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/journal"
)

// The security invariant of the card (confirmation.md §2.4.5), with adversarial models through
// the go-sdk client: in a host that keeps app-only tools from the model and draws every card,
// nothing the model reads and no sequence of calls to the tools it is offered, with any string
// it has seen, at any time, confirms a change; nor can a model of another client of the same
// person, offered every tool, confirm a change pending on the first client's card.

// adversary is a model: it remembers every string it has read, and calls every tool it is
// offered with each of them.
type adversary struct {
	t       *testing.T
	session *mcp.ClientSession
	offered []*mcp.Tool
	seen    map[string]bool
	// written are the strings read from the results of writes that did not fail (pending results): the
	// ones that could hold what confirms. Each round tries all of them, and as many of the
	// others as keep it to maxTries (a read's rows add hundreds of names that confirm nothing).
	written map[string]bool
	// after, if set, sees every result first, as the host does (it draws the card).
	after func(*mcp.CallToolResult)
}

// maxTries bounds the strings one round tries, for a test that runs in seconds.
const maxTries = 24

// read remembers every string in v: content, structured content, _meta alike.
func (m *adversary) read(v any, fromWrite bool) {
	b, err := json.Marshal(v)
	if err != nil {
		m.t.Fatal(err)
	}
	var x any
	if json.Unmarshal(b, &x) != nil {
		return
	}
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			if x != "" && len(x) < 4000 {
				m.seen[x] = true
				if fromWrite {
					m.written[x] = true
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				m.seen[k] = true
				walk(e)
			}
		}
	}
	walk(x)
}

func (m *adversary) call(name string, args map[string]any) {
	res, err := m.session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return // a protocol error tells it nothing it may use
	}
	if m.after != nil {
		m.after(res)
	}
	i := slices.IndexFunc(m.offered, func(t *mcp.Tool) bool { return t.Name == name })
	m.read(res, !res.IsError && (i < 0 || m.offered[i].Annotations == nil || !m.offered[i].Annotations.ReadOnlyHint))
}

// unconfirmed are the writes that ask nothing by design (spec/tools.md): calling them writes,
// and proves nothing about confirmation, so the adversaries leave them out.
var unconfirmed = []string{"approve_transactions", "import_transactions"}

// round calls each offered tool with each string seen so far: in every string argument at once,
// and, for a tool with base arguments, as its confirmation too.
func (m *adversary) round(base map[string]map[string]any) {
	for name, args := range base { // the change asked again, as a model that waits and retries
		m.call(name, args)
	}
	var strs, rest []string
	for s := range m.seen {
		if m.written[s] {
			strs = append(strs, s)
		} else {
			rest = append(rest, s)
		}
	}
	sort.Strings(strs)
	sort.Strings(rest)
	for _, s := range rest {
		if len(strs) >= maxTries {
			break
		}
		strs = append(strs, s)
	}
	for _, tool := range m.offered {
		if slices.Contains(unconfirmed, tool.Name) {
			continue
		}
		var props map[string]any
		if in, ok := tool.InputSchema.(map[string]any); ok {
			props, _ = in["properties"].(map[string]any)
		}
		for _, s := range strs {
			args := map[string]any{}
			for name, p := range props {
				if p, ok := p.(map[string]any); ok && (p["type"] == "string" || p["type"] == nil) {
					args[name] = s
				}
			}
			if _, ok := props["version"]; ok {
				args["version"] = confirm.CardVersion
			}
			m.call(tool.Name, args)
			if b, ok := base[tool.Name]; ok {
				m.call(tool.Name, withArg(b, "confirmation", s))
			}
		}
	}
}

func offeredTools(t *testing.T, cs *mcp.ClientSession, toModel bool) []*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if toModel {
		res.Tools = slices.DeleteFunc(res.Tools, appOnly) // the host keeps them from its model
	}
	return res.Tools
}

// strongest arguments: a valid change for each write a model would ask for, so that what it
// passes as confirmation is tried on a live pending change.
var adversaryBase = map[string]map[string]any{
	"set_category_budget": budgetArgs,
	"move_money":          {"from_category": "Tennis", "to_category": "Restaurants", "amount": "30"},
}

func TestCardAdversarialModel(t *testing.T) {
	if testing.Short() {
		t.Skip("calls every tool with every string, repeatedly")
	}
	for _, kind := range []clientKind{modernApps, legacyApps} {
		t.Run(kind.name, func(t *testing.T) {
			clock := newFakeClock()
			e := newEnv(t, envOptions{kind: kind, clock: clock.Now})
			// The host draws every card it is handed: the card opens its handle (the token stays in
			// the card; the model never reads the answer of an app-only call).
			drawn := 0
			host := func(res *mcp.CallToolResult) {
				var out writeOut
				if b, err := json.Marshal(res.StructuredContent); err == nil && json.Unmarshal(b, &out) == nil && out.Card != nil {
					v, err := e.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "open_confirmation",
						Arguments: map[string]any{"handle": out.Card.Handle}})
					if err != nil || v.IsError {
						t.Fatalf("the host could not open the card: %v %v", err, v)
					}
					drawn++
				}
			}
			model := &adversary{t: t, session: e.session, offered: offeredTools(t, e.session, true), seen: map[string]bool{}, written: map[string]bool{}, after: host}
			for name, args := range adversaryBase {
				model.call(name, args)
			}
			for _, wait := range []time.Duration{0, 11 * time.Second, 601 * time.Second} {
				clock.advance(wait)
				model.round(adversaryBase)
			}
			if drawn == 0 {
				t.Fatal("no card was drawn: the test tried nothing")
			}
			if ops := e.operations(journal.Filter{}); e.writes() != 0 || len(ops) != 0 {
				t.Fatalf("the model wrote: %d writes, journal %s", e.writes(), opsSaid(ops))
			}
			t.Logf("%d strings seen, %d cards drawn, nothing written", len(model.seen), drawn)
		})
	}
}

// A second client of the same person (no MCP Apps, so offered every tool, app-only ones
// included) cannot answer the first client's card: it has never seen what identifies it.
func TestCardAnotherClientCannotAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("calls every tool with every string, repeatedly")
	}
	clock := newFakeClock()
	e := newEnv(t, envOptions{kind: modernApps, clock: clock.Now})
	_, handle := e.pending("set_category_budget", budgetArgs)
	if v := e.open(handle); v.State != confirm.CardPending { // the first client's host draws it
		t.Fatalf("the card: %+v", v)
	}
	other := e.connect(e.server, noElicit, false)
	model := &adversary{t: t, session: other, offered: offeredTools(t, other, false), seen: map[string]bool{}, written: map[string]bool{}}
	if !slices.ContainsFunc(model.offered, appOnly) {
		t.Fatal("the other client is not offered the app-only tools: the test would prove less")
	}
	for _, tool := range []string{"list_plans", "list_categories", "list_operations"} {
		model.call(tool, map[string]any{})
	}
	for _, wait := range []time.Duration{0, 11 * time.Second} {
		clock.advance(wait)
		model.round(nil)
	}
	if model.seen[handle] {
		t.Fatal("the other client read the first client's handle")
	}
	if ops := e.operations(journal.Filter{}); e.writes() != 0 || len(ops) != 0 {
		t.Fatalf("the other client wrote: %d writes, journal %s", e.writes(), opsSaid(ops))
	}
	// The card still answers for its own client.
	if v := e.open(handle); v.State != confirm.CardPending {
		t.Fatalf("the first client's card after the other's attempts: %+v", v)
	}
	t.Logf("%d strings seen, nothing written", len(model.seen))
}

// opsSaid names each operation by its tool and how it was confirmed.
func opsSaid(ops []journal.Operation) string {
	var out []string
	for _, op := range ops {
		out = append(out, op.Tool+" confirmed by "+op.ConfirmedVia)
	}
	return strings.Join(out, "; ")
}
