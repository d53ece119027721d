package confirm_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var restaurants = setArgs{Category: "Restaurants", Amount: 150000}

// wantConfirmForm checks the one question: a form with one boolean, not required,
// whose message is the preview.
func wantConfirmForm(t *testing.T, p *mcp.ElicitParams, wantMessage string) {
	t.Helper()
	if p.Mode != "" && p.Mode != "form" {
		t.Errorf("mode %q, want form", p.Mode)
	}
	if p.Message != wantMessage {
		t.Errorf("message %q, want the preview %q", p.Message, wantMessage)
	}
	raw, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || len(schema.Properties) != 1 || schema.Required != nil {
		t.Fatalf("schema %s, want an object with one property and nothing required", raw)
	}
	var value map[string]any
	if err := json.Unmarshal(schema.Properties["value"], &value); err != nil {
		t.Fatalf("schema %s: no property value: %v", raw, err)
	}
	if value["type"] != "boolean" || value["default"] != false || value["title"] == "" {
		t.Errorf("value %v, want a titled boolean defaulting to false", value)
	}
}

func TestMRTRFirstCall(t *testing.T) {
	for _, version := range []string{v2026, "2026-07-28"} {
		t.Run("version "+version, func(t *testing.T) {
			h := newHarness(t, confirm.Options{})
			cs := h.connect(t, version, manual(&user{}))
			res := firstLeg(t, cs, toolBudget, restaurants)
			if len(res.InputRequests) != 1 {
				t.Fatalf("%d input requests, want exactly one", len(res.InputRequests))
			}
			form, ok := res.InputRequests["confirm"].(*mcp.ElicitParams)
			if !ok {
				t.Fatalf("input requests %v, want an elicitation under confirm", res.InputRequests)
			}
			wantConfirmForm(t, form, preview(restaurants))
			if strings.Contains(res.RequestState, "cat-rest") || strings.Contains(res.RequestState, "Restaurants") {
				t.Errorf("request state %q shows the change in plain text", res.RequestState)
			}
			h.wantWrites(t, 0)
		})
	}
}

func TestMRTRAnswers(t *testing.T) {
	tests := []struct {
		name   string
		answer *mcp.ElicitResult
		want   string
	}{
		{"accepted with the box ticked", accept(true), "applied"},
		{"accepted with the box unticked", accept(false), "declined"},
		{"accepted without the box", &mcp.ElicitResult{Action: "accept"}, "declined"},
		{"accepted with a string for the box", accept("true"), "declined"},
		{"accepted with a number for the box", accept(1), "declined"},
		{"declined", declineAnswer, "declined"},
		{"an action nobody knows", &mcp.ElicitResult{Action: "maybe", Content: map[string]any{"value": true}}, "declined"},
		{"cancelled", cancelAnswer, "confirmation_required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, confirm.Options{})
			cs := h.connect(t, v2026, manual(&user{}))
			first := firstLeg(t, cs, toolBudget, restaurants)
			out := decode(t)(answerLeg(t, cs, toolBudget, restaurants, first.RequestState, tt.answer))
			if out.Status != tt.want {
				t.Fatalf("status %q (%s), want %q", out.Status, out.Message, tt.want)
			}
			switch out.Status {
			case "applied":
				h.wantWrites(t, 1)
				if out.Mode != string(confirm.ModeMRTR) {
					t.Errorf("mode %q, want mrtr", out.Mode)
				}
			case "declined":
				h.wantWrites(t, 0)
				if !strings.Contains(out.Message, "Nothing was written.") {
					t.Errorf("message %q does not say that nothing was written", out.Message)
				}
			case "confirmation_required":
				h.wantWrites(t, 0)
				if out.Confirmation == "" || out.Preview != preview(restaurants) {
					t.Errorf("fallback %+v, want a code and the preview", out)
				}
			}
		})
	}
	t.Run("no answer asks again", func(t *testing.T) {
		h := newHarness(t, confirm.Options{})
		cs := h.connect(t, v2026, manual(&user{}))
		first := firstLeg(t, cs, toolBudget, restaurants)
		again, err := answerLeg(t, cs, toolBudget, restaurants, first.RequestState, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !again.NeedsInput() || again.RequestState == "" || again.RequestState == first.RequestState {
			t.Fatalf("result %+v, want the question again with a new state", again)
		}
		out := decode(t)(answerLeg(t, cs, toolBudget, restaurants, again.RequestState, accept(true)))
		if out.Status != "applied" {
			t.Fatalf("status %q after answering the repeated question, want applied", out.Status)
		}
		h.wantWrites(t, 1)
	})
	t.Run("the SDK's own driver", func(t *testing.T) {
		h := newHarness(t, confirm.Options{})
		u := &user{}
		u.set(accept(true))
		cs := h.connect(t, v2026, answering(u))
		if out := decode(t)(call(t, cs, params(toolBudget, restaurants))); out.Status != "applied" || out.Mode != "mrtr" {
			t.Fatalf("outcome %+v, want applied by mrtr", out)
		}
		h.wantWrites(t, 1)
	})
}

func TestMRTRRefusesBadState(t *testing.T) {
	other := setArgs{Category: "Restaurants", Amount: 999}
	tests := []struct {
		name string
		// retry returns the state to send, the tool and the arguments, given the first leg's state.
		retry func(t *testing.T, h *harness, state string) (string, string, setArgs)
	}{
		{"modified body", func(t *testing.T, h *harness, s string) (string, string, setArgs) {
			return flip(s, 3), toolBudget, restaurants
		}},
		{"modified seal", func(t *testing.T, h *harness, s string) (string, string, setArgs) {
			return flip(s, len(s)-2), toolBudget, restaurants
		}},
		{"truncated", func(t *testing.T, h *harness, s string) (string, string, setArgs) {
			return s[:len(s)-5], toolBudget, restaurants
		}},
		{"seal cut off", func(t *testing.T, h *harness, s string) (string, string, setArgs) {
			body, _, _ := strings.Cut(s, ".")
			return body, toolBudget, restaurants
		}},
		{"made up", func(t *testing.T, h *harness, s string) (string, string, setArgs) {
			return "state:x", toolBudget, restaurants
		}},
		{"expired", func(t *testing.T, h *harness, s string) (string, string, setArgs) {
			h.clock.Advance(600 * time.Second)
			return s, toolBudget, restaurants
		}},
		{"another tool's", func(t *testing.T, h *harness, s string) (string, string, setArgs) {
			return s, toolGoal, restaurants
		}},
		{"other arguments'", func(t *testing.T, h *harness, s string) (string, string, setArgs) {
			return s, toolBudget, other
		}},
		{"another server's", func(t *testing.T, h *harness, s string) (string, string, setArgs) {
			restarted := newHarness(t, confirm.Options{Clock: h.clock.Now})
			return firstLeg(t, restarted.connect(t, v2026, manual(&user{})), toolBudget, restaurants).RequestState, toolBudget, restaurants
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, confirm.Options{})
			cs := h.connect(t, v2026, manual(&user{}))
			first := firstLeg(t, cs, toolBudget, restaurants)
			state, tool, args := tt.retry(t, h, first.RequestState)
			_, err := answerLeg(t, cs, tool, args, state, accept(true))
			wantRPCError(t, err, jsonrpc.CodeInvalidParams)
			h.wantWrites(t, 0)
		})
	}
	t.Run("just before it expires", func(t *testing.T) {
		h := newHarness(t, confirm.Options{})
		cs := h.connect(t, v2026, manual(&user{}))
		first := firstLeg(t, cs, toolBudget, restaurants)
		h.clock.Advance(599 * time.Second)
		if out := decode(t)(answerLeg(t, cs, toolBudget, restaurants, first.RequestState, accept(true))); out.Status != "applied" {
			t.Fatalf("status %q, want applied", out.Status)
		}
	})
	t.Run("replayed", func(t *testing.T) {
		h := newHarness(t, confirm.Options{})
		cs := h.connect(t, v2026, manual(&user{}))
		first := firstLeg(t, cs, toolBudget, restaurants)
		if out := decode(t)(answerLeg(t, cs, toolBudget, restaurants, first.RequestState, accept(true))); out.Status != "applied" {
			t.Fatalf("status %q, want applied", out.Status)
		}
		_, err := answerLeg(t, cs, toolBudget, restaurants, first.RequestState, accept(true))
		wantRPCError(t, err, jsonrpc.CodeInvalidParams)
		h.wantWrites(t, 1)
	})
	t.Run("replayed after a decline", func(t *testing.T) {
		h := newHarness(t, confirm.Options{})
		cs := h.connect(t, v2026, manual(&user{}))
		first := firstLeg(t, cs, toolBudget, restaurants)
		decode(t)(answerLeg(t, cs, toolBudget, restaurants, first.RequestState, declineAnswer))
		_, err := answerLeg(t, cs, toolBudget, restaurants, first.RequestState, accept(true))
		wantRPCError(t, err, jsonrpc.CodeInvalidParams)
		h.wantWrites(t, 0)
	})
}

// flip changes the character at i to another base64url character.
func flip(s string, i int) string {
	b := []byte(s)
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

func TestPlanChangedBetweenLegs(t *testing.T) {
	h := newHarness(t, confirm.Options{})
	cs := h.connect(t, v2026, manual(&user{}))
	first := firstLeg(t, cs, toolBudget, restaurants)
	h.plan.rename("Restaurants", "cat-other") // someone renamed categories meanwhile
	res, err := answerLeg(t, cs, toolBudget, restaurants, first.RequestState, accept(true))
	wantToolError(t, res, err, confirm.ErrPlanChanged)
	if !strings.Contains(toolText(res), "Nothing was written") {
		t.Errorf("%q does not say that nothing was written", toolText(res))
	}
	h.wantWrites(t, 0)

	h.plan.rename("Restaurants", "cat-rest") // and back: the answered state stays spent
	_, err = answerLeg(t, cs, toolBudget, restaurants, first.RequestState, accept(true))
	wantRPCError(t, err, jsonrpc.CodeInvalidParams)
	h.wantWrites(t, 0)
}

func TestLegacyElicitation(t *testing.T) {
	tests := []struct {
		name   string
		answer *mcp.ElicitResult
		want   string
	}{
		{"accepted with the box ticked", accept(true), "applied"},
		{"accepted with the box unticked", accept(false), "declined"},
		{"accepted without the box", &mcp.ElicitResult{Action: "accept"}, "declined"},
		{"declined", declineAnswer, "declined"},
		{"cancelled", cancelAnswer, "confirmation_required"},
	}
	for _, version := range []string{v1125, v0618} {
		for _, tt := range tests {
			t.Run(version+" "+tt.name, func(t *testing.T) {
				h := newHarness(t, confirm.Options{})
				u := &user{}
				u.set(tt.answer)
				// With the client's driver off, the result is what any legacy client sees.
				cs := h.connect(t, version, manual(u))
				out := decode(t)(call(t, cs, params(toolBudget, restaurants)))
				asked := u.asked()
				if len(asked) != 1 {
					t.Fatalf("the user was asked %d times, want once", len(asked))
				}
				wantConfirmForm(t, asked[0], preview(restaurants))
				if out.Status != tt.want {
					t.Fatalf("status %q (%s), want %q", out.Status, out.Message, tt.want)
				}
				if out.Status == "applied" {
					h.wantWrites(t, 1)
					if out.Mode != string(confirm.ModeElicit) {
						t.Errorf("mode %q, want elicit", out.Mode)
					}
				} else {
					h.wantWrites(t, 0)
				}
			})
		}
	}
}

var codeForm = regexp.MustCompile(`^[A-Za-z0-9_-]{11}$`)

// issue makes a first call from a client that cannot ask and returns its code.
func issue(t *testing.T, cs *mcp.ClientSession, tool string, args setArgs) string {
	t.Helper()
	out := decode(t)(call(t, cs, params(tool, args)))
	if out.Status != "confirmation_required" || !codeForm.MatchString(out.Confirmation) {
		t.Fatalf("outcome %+v, want confirmation_required with an 11-character code", out)
	}
	return out.Confirmation
}

func withCode(args setArgs, code string) setArgs {
	args.Confirmation = code
	return args
}

func TestCodes(t *testing.T) {
	for _, version := range allVersions {
		t.Run("version "+version, func(t *testing.T) {
			h := newHarness(t, confirm.Options{})
			cs := h.connect(t, version, noElicitation())
			out := decode(t)(call(t, cs, params(toolBudget, restaurants)))
			if out.Status != "confirmation_required" || out.Preview != preview(restaurants) ||
				out.ExpiresInSeconds != 600 || !codeForm.MatchString(out.Confirmation) {
				t.Fatalf("outcome %+v, want confirmation_required, the preview, an 11-character code, 600 s", out)
			}
			if !strings.Contains(out.Message, "Only if the user agrees") || !strings.Contains(out.Message, "same arguments") {
				t.Errorf("message %q does not tell the agent to ask the user first", out.Message)
			}
			h.wantWrites(t, 0)

			applied := decode(t)(call(t, cs, params(toolBudget, withCode(restaurants, out.Confirmation))))
			if applied.Status != "applied" || applied.Mode != string(confirm.ModeCode) {
				t.Fatalf("outcome %+v, want applied by code", applied)
			}
			h.wantWrites(t, 1)

			res, err := call(t, cs, params(toolBudget, withCode(restaurants, out.Confirmation)))
			wantToolError(t, res, err, confirm.ErrCodeRefused)
			h.wantWrites(t, 1)
		})
	}
}

func TestCodeRefused(t *testing.T) {
	tennis := setArgs{Category: "Tennis", Amount: 150000}
	tests := []struct {
		name string
		// use spends the code (possibly more than once) and returns the last call.
		use func(t *testing.T, h *harness, cs *mcp.ClientSession, code string) *mcp.CallToolParams
	}{
		{"other arguments", func(t *testing.T, h *harness, cs *mcp.ClientSession, code string) *mcp.CallToolParams {
			return params(toolBudget, withCode(tennis, code))
		}},
		{"another tool", func(t *testing.T, h *harness, cs *mcp.ClientSession, code string) *mcp.CallToolParams {
			return params(toolGoal, withCode(restaurants, code))
		}},
		{"unknown", func(t *testing.T, h *harness, cs *mcp.ClientSession, code string) *mcp.CallToolParams {
			return params(toolBudget, withCode(restaurants, "AAAAAAAAAAA"))
		}},
		{"not a code at all", func(t *testing.T, h *harness, cs *mcp.ClientSession, code string) *mcp.CallToolParams {
			return params(toolBudget, withCode(restaurants, "yes, go ahead"))
		}},
		{"expired", func(t *testing.T, h *harness, cs *mcp.ClientSession, code string) *mcp.CallToolParams {
			h.clock.Advance(600 * time.Second)
			return params(toolBudget, withCode(restaurants, code))
		}},
		{"spent on the wrong arguments", func(t *testing.T, h *harness, cs *mcp.ClientSession, code string) *mcp.CallToolParams {
			res, err := call(t, cs, params(toolBudget, withCode(tennis, code)))
			wantToolError(t, res, err, confirm.ErrCodeRefused)
			return params(toolBudget, withCode(restaurants, code))
		}},
		{"after a restart", func(t *testing.T, h *harness, cs *mcp.ClientSession, code string) *mcp.CallToolParams {
			restarted := newHarness(t, confirm.Options{Clock: h.clock.Now})
			*h = *restarted
			return params(toolBudget, withCode(restaurants, code))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, confirm.Options{})
			cs := h.connect(t, v2026, noElicitation())
			code := issue(t, cs, toolBudget, restaurants)
			p := tt.use(t, h, cs, code)
			cs = h.connect(t, v2026, noElicitation()) // the harness may have restarted
			res, err := call(t, cs, p)
			wantToolError(t, res, err, confirm.ErrCodeRefused)
			h.wantWrites(t, 0)
		})
	}
	t.Run("just before it expires", func(t *testing.T) {
		h := newHarness(t, confirm.Options{})
		cs := h.connect(t, v2026, noElicitation())
		code := issue(t, cs, toolBudget, restaurants)
		h.clock.Advance(599 * time.Second)
		if out := decode(t)(call(t, cs, params(toolBudget, withCode(restaurants, code)))); out.Status != "applied" {
			t.Fatalf("status %q, want applied", out.Status)
		}
	})
}

func TestHeadlessClientFallsBackToCode(t *testing.T) {
	for _, version := range allVersions {
		t.Run("version "+version, func(t *testing.T) {
			h := newHarness(t, confirm.Options{})
			u := &user{}
			u.set(cancelAnswer)
			cs := h.connect(t, version, answering(u))
			code := issue(t, cs, toolBudget, restaurants)
			if len(u.asked()) != 1 {
				t.Fatalf("the client was asked %d times, want once", len(u.asked()))
			}
			h.wantWrites(t, 0)
			if out := decode(t)(call(t, cs, params(toolBudget, withCode(restaurants, code)))); out.Status != "applied" {
				t.Fatalf("status %q with the fallback code, want applied", out.Status)
			}
			h.wantWrites(t, 1)
		})
	}
}

func TestRequireElicitation(t *testing.T) {
	strict := confirm.Options{RequireElicitation: true}
	for _, version := range allVersions {
		t.Run("version "+version+" the user says yes", func(t *testing.T) {
			h := newHarness(t, strict)
			u := &user{}
			u.set(accept(true))
			if out := decode(t)(call(t, h.connect(t, version, answering(u)), params(toolBudget, restaurants))); out.Status != "applied" {
				t.Fatalf("status %q, want applied", out.Status)
			}
			h.wantWrites(t, 1)
		})
		t.Run("version "+version+" the question is dismissed", func(t *testing.T) {
			h := newHarness(t, strict)
			u := &user{}
			u.set(cancelAnswer)
			out := decode(t)(call(t, h.connect(t, version, answering(u)), params(toolBudget, restaurants)))
			if out.Status != "declined" || out.Confirmation != "" || !strings.Contains(out.Message, "Nothing was written.") {
				t.Fatalf("outcome %+v, want declined without a code", out)
			}
			h.wantWrites(t, 0)
		})
		t.Run("version "+version+" a code is passed", func(t *testing.T) {
			h := newHarness(t, strict)
			u := &user{}
			u.set(accept(true))
			res, err := call(t, h.connect(t, version, answering(u)), params(toolBudget, withCode(restaurants, "AAAAAAAAAAA")))
			wantToolError(t, res, err, confirm.ErrCodesDisabled)
			if len(u.asked()) != 0 {
				t.Errorf("the user was asked although the call was refused")
			}
			h.wantWrites(t, 0)
		})
	}
	t.Run("2026-07-28 client that cannot ask", func(t *testing.T) {
		h := newHarness(t, strict)
		_, err := call(t, h.connect(t, v2026, noElicitation()), params(toolBudget, restaurants))
		we := wantRPCError(t, err, mcp.CodeMissingRequiredClientCapabilities)
		var data struct {
			Required map[string]json.RawMessage `json:"requiredCapabilities"`
		}
		if json.Unmarshal(we.Data, &data) != nil || data.Required["elicitation"] == nil {
			t.Errorf("data %s does not name elicitation", we.Data)
		}
		if !strings.Contains(we.Message, "Nothing was changed") {
			t.Errorf("message %q does not say that nothing changed", we.Message)
		}
		h.wantWrites(t, 0)
	})
	for _, version := range []string{v1125, v0618} {
		t.Run(version+" client that cannot ask", func(t *testing.T) {
			h := newHarness(t, strict)
			res, err := call(t, h.connect(t, version, noElicitation()), params(toolBudget, restaurants))
			wantToolError(t, res, err, confirm.ErrCannotAsk)
			h.wantWrites(t, 0)
		})
	}
}

// failingReader gives n bytes of randomness, then fails.
type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.ErrUnexpectedEOF
	}
	k := min(len(p), r.n)
	r.n -= k
	return rand.Read(p[:k])
}

func TestFailsClosed(t *testing.T) {
	t.Run("no randomness for the key", func(t *testing.T) {
		if _, err := confirm.New(confirm.Options{Rand: &failingReader{}}); err == nil {
			t.Fatal("New succeeded without a key")
		}
	})
	for _, version := range allVersions {
		clients := map[string]*mcp.ClientOptions{"a code": noElicitation(), "a state": answering(&user{answer: accept(true)})}
		for what, opts := range clients {
			t.Run("version "+version+" no randomness for "+what, func(t *testing.T) {
				h := newHarness(t, confirm.Options{Rand: &failingReader{n: 32}}) // the key, then nothing
				res, err := call(t, h.connect(t, version, opts), params(toolBudget, restaurants))
				if err == nil && !res.IsError {
					t.Fatalf("result %+v, want a failure", res)
				}
				h.wantWrites(t, 0)
			})
		}
	}

	a, err := confirm.New(confirm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	good := confirm.Question{Tool: toolBudget, PlanID: "plan-1", Subject: map[string]any{"amount": 1}, Preview: "Budget?"}
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: toolBudget}}
	tests := []struct {
		name string
		req  *mcp.CallToolRequest
		edit func(*confirm.Question)
	}{
		{"no request", nil, func(*confirm.Question) {}},
		{"no params", &mcp.CallToolRequest{}, func(*confirm.Question) {}},
		{"no tool", req, func(q *confirm.Question) { q.Tool = "" }},
		{"no preview", req, func(q *confirm.Question) { q.Preview = "" }},
		{"no plan", req, func(q *confirm.Question) { q.PlanID = "" }},
		{"float in the subject", req, func(q *confirm.Question) { q.Subject = map[string]any{"amount": 0.5} }},
		{"arguments that are not JSON", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: toolBudget, RequestState: "x.y"}},
			func(q *confirm.Question) { q.Args = make(chan int) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := good
			tt.edit(&q)
			d, err := a.Ask(context.Background(), tt.req, q)
			if err == nil || !reflect.DeepEqual(d, confirm.Decision{}) {
				t.Fatalf("Ask = %+v, %v; want no decision and an error", d, err)
			}
		})
	}
	t.Run("cancelled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if d, err := a.Ask(ctx, req, good); err == nil || d.Proceed {
			t.Fatalf("Ask = %+v, %v; want an error", d, err)
		}
	})
}
