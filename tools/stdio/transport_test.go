package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/tools/internal/clientjson"
)

// The transport on its own: a small MCP server behind a Transport, spoken to line by line as a
// client process would.

// rawSession is a Transport serving a test server, with the client's ends of stdin and stdout.
type rawSession struct {
	t       *testing.T
	stdio   *Transport
	stdin   *io.PipeWriter
	out     *recorder
	session *mcp.ServerSession
	answers chan map[string]json.RawMessage
	waiting chan struct{} // a "wait" call has started
	release chan struct{} // closing it lets every "wait" call finish
	writes  chan writeCall
	after   chan afterAnswer
	mu      sync.Mutex
	ctxErrs []error // what each "wait" call's context said when it finished
}

// writeCall is a "write" call as its handler saw it.
type writeCall struct {
	req  *mcp.CallToolRequest
	took bool // AfterAnswer took the function to run
}

// afterAnswer is a function given to AfterAnswer, run.
type afterAnswer struct {
	op      string // the "write" call's op argument
	written bool   // the answer naming op was written to stdout when it ran
}

type rawOptions struct {
	maxLine int
	stdout  io.Writer // default: a pipe read into answers
}

// recorder keeps every line written to w without an error, so a test can tell what had been
// written at a given moment.
type recorder struct {
	w     io.Writer
	mu    sync.Mutex
	lines [][]byte
}

func (r *recorder) Write(p []byte) (int, error) {
	n, err := r.w.Write(p)
	if err == nil {
		r.mu.Lock()
		r.lines = append(r.lines, bytes.Clone(p))
		r.mu.Unlock()
	}
	return n, err
}

// holds reports whether a line written so far contains s.
func (r *recorder) holds(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.lines {
		if bytes.Contains(l, []byte(s)) {
			return true
		}
	}
	return false
}

func newRawSession(t *testing.T, o rawOptions) *rawSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &rawSession{t: t, stdin: inW, answers: make(chan map[string]json.RawMessage, 100),
		waiting: make(chan struct{}, 100), release: make(chan struct{}),
		writes: make(chan writeCall, 10), after: make(chan afterAnswer, 10)}
	var stdout io.Writer = outW
	if o.stdout != nil {
		stdout = o.stdout
	}
	r.out = &recorder{w: stdout}
	r.stdio = New(inR, r.out, Options{MaxLine: o.maxLine})
	srv := mcp.NewServer(&mcp.Implementation{Name: "framing-test", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r.waiting <- struct{}{}
			select {
			case <-r.release:
			case <-ctx.Done():
			}
			r.mu.Lock()
			r.ctxErrs = append(r.ctxErrs, ctx.Err())
			r.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	// write asks to hear when its answer, which names its op argument, is written.
	srv.AddTool(&mcp.Tool{Name: "write", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct {
				Op string `json:"op"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, fmt.Errorf("the test's write call: %w", err)
			}
			took := r.stdio.AfterAnswer(req, func() { r.after <- afterAnswer{args.Op, r.out.holds(args.Op)} })
			r.writes <- writeCall{req, took}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "applied " + args.Op}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r.waiting <- struct{}{}
			_, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "sure?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}})
			text := "answered"
			if err != nil {
				text = "no answer: " + err.Error()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	ss, err := srv.Connect(context.Background(), r.stdio, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.session = ss
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("avenir wrote a line that is not a JSON object: %q", sc.Text())
				continue
			}
			r.answers <- m
		}
		if err := sc.Err(); err != nil {
			t.Errorf("reading avenir's stdout: %v", err)
		}
	}()
	t.Cleanup(func() {
		select {
		case <-r.release:
		default:
			close(r.release)
		}
		for _, c := range []io.Closer{inW, r.stdio, outW, ss} {
			if err := c.Close(); err != nil {
				t.Errorf("closing %T: %v", c, err)
			}
		}
		<-readerDone
	})
	return r
}

func (r *rawSession) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.stdin, line+"\n"); err != nil {
		r.t.Fatalf("writing to avenir: %v", err)
	}
}

// next returns the next line avenir wrote.
func (r *rawSession) next() map[string]json.RawMessage {
	r.t.Helper()
	select {
	case m := <-r.answers:
		return m
	case <-time.After(2 * time.Minute): // a 16 MiB line is slow to read under the race detector
		r.t.Fatal("no answer within 2 minutes")
		return nil
	}
}

// mustJSON shows a line avenir wrote, in a failure.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v (not encodable: %v)", v, err)
	}
	return string(b)
}

// pingWorks checks that the session still answers, and that the next line avenir writes is the
// ping's answer: whatever it was to write for the lines sent before is written already, since
// the transport writes its own answer to a line before it reads the next.
func (r *rawSession) pingWorks(id int) {
	r.t.Helper()
	r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	m := r.next()
	if string(m["id"]) != fmt.Sprint(id) || m["result"] == nil {
		r.t.Fatalf("ping %d: got %s, want its result", id, mustJSON(m))
	}
}

const initialize1125 = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25",` +
	`"capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"raw","version":"1"}}}`

func (r *rawSession) initialize() {
	r.t.Helper()
	r.send(initialize1125)
	if m := r.next(); m["result"] == nil {
		r.t.Fatalf("initialize: %s", mustJSON(m))
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// shutdown calls Shutdown and checks that no call was left in flight.
func (r *rawSession) shutdown(timeout time.Duration) {
	r.t.Helper()
	if left := r.stdio.Shutdown(timeout); left != 0 {
		r.t.Fatalf("Shutdown left %d calls in flight", left)
	}
}

func TestStdioAnswersEveryMalformedLine(t *testing.T) {
	const maxLine = 4096
	tests := []struct {
		name   string
		line   string
		code   int
		id     string // the id answered, as JSON
		inText string // in the message
	}{
		{"not JSON", "hello", -32700, "null", "parse error"},
		{"a bare number", "42", -32600, "null", "not a number"},
		{"a string", `"ping"`, -32600, "null", "not a string"},
		{"null", "null", -32600, "null", "not null"},
		{"an empty batch", "[]", -32600, "null", "batches"},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600, "null", "one message per line"},
		{"no jsonrpc", `{"id":1,"method":"ping"}`, -32600, "1", `"jsonrpc" must be "2.0"`},
		{"a wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, -32600, "1", `"2.0"`},
		{"a numeric jsonrpc", `{"jsonrpc":2.0,"id":1,"method":"ping"}`, -32600, "1", `"2.0"`},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null", "not an object"},
		{"a null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null", "string or a whole number"},
		{"a fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null", "whole number"},
		{"an id past 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600, "null", "9007199254740991"},
		{"a numeric method", `{"jsonrpc":"2.0","id":7,"method":5}`, -32600, "7", `"method"`},
		{"an empty method", `{"jsonrpc":"2.0","id":"x","method":""}`, -32600, `"x"`, `"method"`},
		{"a request with a result", `{"jsonrpc":"2.0","id":7,"method":"ping","result":{}}`, -32600, "7", `no "result"`},
		{"two messages on one line", `{"jsonrpc":"2.0","id":8,"method":"ping"}{"jsonrpc":"2.0","id":9,"method":"ping"}`, -32700, "8", "one message per line"},
		{"NUL bytes", "\x00\x00", -32700, "null", "0x00"},
		{"a NUL inside a string", `{"jsonrpc":"2.0","id":1,"method":"pi` + "\x00" + `ng"}`, -32700, "null", "control character"},
		{"bytes that are not UTF-8", `{"jsonrpc":"2.0","id":1,"method":"p` + "\xff" + `"}`, -32700, "null", "not UTF-8"},
		{"a truncated line", `{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{`, -32700, "null", "ends"},
		{"nesting over 1,000 levels", `{"jsonrpc":"2.0","id":11,"method":"ping","params":{"a":` + strings.Repeat("[", 1200) + strings.Repeat("]", 1200) + "}}",
			-32602, "11", "deeper than 64"},
		{"nesting in the envelope", strings.Repeat("[", 100) + strings.Repeat("]", 100), -32600, "null", ""},
		{"a line over the limit", `{"jsonrpc":"2.0","id":12,"method":"ping","params":{"a":"` + strings.Repeat("x", maxLine) + `"}}`,
			-32600, "12", "longer than 4096 bytes"},
		{"a line over the limit, its id a string", `{"id":"big","jsonrpc":"2.0","method":"ping","params":{"a":"` + strings.Repeat("x", maxLine) + `"}}`,
			-32600, `"big"`, "longer than 4096 bytes"},
		{"a line over the limit, its id at the end", `{"jsonrpc":"2.0","method":"ping","params":{"a":"` + strings.Repeat("x", maxLine) + `"},"id":19}`,
			-32600, "null", "longer than 4096 bytes"},
		{"a key twice in params", `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"wait","name":"ask"}}`, -32602, "13", `"params.name" is given twice`},
		{"an id twice", `{"jsonrpc":"2.0","id":14,"id":15,"method":"ping"}`, -32600, "14", `"id" is given twice`},
		{"params that are an array", `{"jsonrpc":"2.0","id":16,"method":"tools/list","params":[]}`, -32602, "16", "must be an object, not an array"},
		{"a numeric tool name", `{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":5}}`, -32602, "17", "params.name must be a string, not a number"},
		{"a string as _meta", `{"jsonrpc":"2.0","id":18,"method":"tools/list","params":{"_meta":"x"}}`, -32602, "18", "params._meta must be an object"},
		{"an unknown tool with a huge name", `{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"` + strings.Repeat("n", 3000) + `"}}`,
			-32602, "19", "…"},
		{"an unknown method", `{"jsonrpc":"2.0","id":20,"method":"` + strings.Repeat("m", 500) + `"}`, -32601, "20", "…"},
	}
	r := newRawSession(t, rawOptions{maxLine: maxLine})
	r.initialize()
	for i, tt := range tests {
		r.send(tt.line)
		m := r.next()
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(m["error"], &e); err != nil || m["result"] != nil {
			t.Fatalf("%s: got %s, want an error", tt.name, mustJSON(m))
		}
		if e.Code != tt.code || string(m["id"]) != tt.id || !strings.Contains(e.Message, tt.inText) {
			t.Errorf("%s: got id %s, %d %q; want id %s, %d with %q", tt.name, m["id"], e.Code, e.Message, tt.id, tt.code, tt.inText)
		}
		if len(e.Message) > 300 || clientjson.ShowsGoInternals(e.Message) {
			t.Errorf("%s: the message is long or shows Go: %q", tt.name, e.Message)
		}
		r.pingWorks(1000 + i)
	}
}

func TestStdioReadsALineOf16MiB(t *testing.T) {
	r := newRawSession(t, rawOptions{})
	big := strings.Repeat("x", DefaultMaxLine)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"big":"` + big[:DefaultMaxLine-100] + `"}}}`)
	if m := r.next(); m["result"] == nil {
		t.Fatalf("a line just under 16 MiB: %s", mustJSON(m)[:200])
	}
	r.send(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"big":"` + big + `"}}}`)
	if m := r.next(); !strings.Contains(string(m["error"]), "-32600") {
		t.Fatalf("a line over 16 MiB: %s", mustJSON(m))
	}
	r.pingWorks(3)
}

// Lines that cannot be answered get no answer: the next line avenir writes after each is the
// answer to the ping that follows it.
func TestStdioIgnoresWhatCannotBeAnswered(t *testing.T) {
	r := newRawSession(t, rawOptions{})
	for i, line := range []string{
		"", "   ", "\r",
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":[]}`, // a bad notification
		`{"jsonrpc":"2.0","method":5}`,                                       // no id: nothing to answer
		`{"jsonrpc":"2.0","id":99,"result":{}}`,                              // an answer to no request
		`{"jsonrpc":"2.0","id":98,"error":{"code":"x"}}`,                     // a malformed answer to no request
		`{"jsonrpc":"2.0"}`,
	} {
		r.send(line)
		r.pingWorks(i + 1)
	}
}

func TestStdioRefusesAnIDInUse(t *testing.T) {
	r := newRawSession(t, rawOptions{})
	r.initialize()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait"}}`)
	<-r.waiting
	r.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if m := r.next(); string(m["id"]) != "null" || !strings.Contains(string(m["error"]), "already used") {
		t.Fatalf("a second call with id 1: %s", mustJSON(m))
	}
	close(r.release)
	if m := r.next(); string(m["id"]) != "1" || m["result"] == nil {
		t.Fatalf("the first call: %s", mustJSON(m))
	}
	r.pingWorks(1) // free again once answered
}

// At the end of the input, the calls in flight run to their end and are answered, and a
// shutdown waits for them.
func TestStdioFinishesCallsAfterEndOfInput(t *testing.T) {
	r := newRawSession(t, rawOptions{})
	r.initialize()
	for i := range 3 {
		r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"wait"}}`, i))
		<-r.waiting
	}
	if err := r.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.stdio.Ended():
	case <-time.After(5 * time.Second):
		t.Fatal("Ended not closed at the end of the input")
	}
	idle := r.stdio.stopTaking() // what Shutdown waits for
	select {
	case <-idle:
		t.Fatal("the transport is idle at the end of the input while 3 calls are in flight")
	default:
	}
	done := make(chan int)
	go func() { done <- r.stdio.Shutdown(10 * time.Second) }()
	close(r.release)
	for range 3 {
		if m := r.next(); m["result"] == nil {
			t.Fatalf("a call in flight at the end of the input: %s", mustJSON(m))
		}
	}
	if left := <-done; left != 0 {
		t.Fatalf("Shutdown left %d calls in flight", left)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, err := range r.ctxErrs {
		if err != nil {
			t.Fatalf("a call's context ended before the call: %v", err)
		}
	}
}

// Asked to stop, the transport refuses new calls, finishes the ones in flight, and then lets
// the session end.
func TestStdioShutdown(t *testing.T) {
	r := newRawSession(t, rawOptions{})
	r.initialize()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait"}}`)
	<-r.waiting
	idle := r.stdio.stopTaking() // as Shutdown does first
	done := make(chan int)
	go func() { done <- r.stdio.Shutdown(10 * time.Second) }()
	r.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if m := r.next(); string(m["id"]) != "2" || !strings.Contains(string(m["error"]), "shutting down") {
		t.Fatalf("a call after Shutdown: %s", mustJSON(m))
	}
	select {
	case <-idle:
		t.Fatal("the transport is idle while a call is in flight")
	default:
	}
	close(r.release)
	if m := r.next(); string(m["id"]) != "1" || m["result"] == nil {
		t.Fatalf("the call in flight: %s", mustJSON(m))
	}
	if left := <-done; left != 0 {
		t.Fatalf("Shutdown left %d calls", left)
	}
	if err := r.stdio.Close(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error)
	go func() { ended <- r.session.Wait() }()
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("the session ended with %v after Close", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the session did not end after Close")
	}
}

func TestStdioShutdownIsBounded(t *testing.T) {
	r := newRawSession(t, rawOptions{})
	r.initialize()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait"}}`)
	<-r.waiting
	if left := r.stdio.Shutdown(30 * time.Millisecond); left != 1 {
		t.Fatalf("Shutdown with a call that does not end = %d, want 1", left)
	}
}

// failingWriter accepts n writes, then fails every one.
type failingWriter struct {
	mu sync.Mutex
	n  int
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == 0 {
		return 0, errors.New("broken pipe")
	}
	w.n--
	return len(p), nil
}

// A client that stops reading ends the session, but the calls in flight are not cancelled.
func TestStdioBrokenWriterEndsTheSessionWithoutCancelling(t *testing.T) {
	r := newRawSession(t, rawOptions{stdout: &failingWriter{n: 1}}) // the initialize answer, then nothing
	r.send(initialize1125)
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait"}}`)
	<-r.waiting
	r.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`) // its answer cannot be written
	select {
	case <-r.stdio.Ended():
	case <-time.After(5 * time.Second):
		t.Fatal("a broken writer did not end the session")
	}
	close(r.release)
	r.shutdown(5 * time.Second)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.ctxErrs) != 1 || r.ctxErrs[0] != nil {
		t.Fatalf("the call in flight saw its context end: %v", r.ctxErrs)
	}
}

// What a handler gives AfterAnswer runs once its answer was written to stdout, and only then:
// not for an answer that could not be written, not for a request the transport did not read,
// not for a call already answered.
func TestStdioAfterAnswerRunsOnceTheAnswerIsWritten(t *testing.T) {
	foreign := []mcp.Request{&mcp.CallToolRequest{}, &mcp.CallToolRequest{Extra: &mcp.RequestExtra{}}}
	for _, broken := range []bool{false, true} {
		t.Run(fmt.Sprintf("broken %v", broken), func(t *testing.T) {
			o := rawOptions{}
			if broken {
				o.stdout = &failingWriter{n: 1} // the initialize answer, then nothing
			}
			r := newRawSession(t, o)
			r.send(initialize1125)
			if !broken {
				r.next()
			}
			r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			r.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":{"op":"01OP"}}}`)
			w := <-r.writes
			if !w.took {
				t.Fatal("AfterAnswer did not take a function for a call in flight")
			}
			if !broken {
				if m := r.next(); string(m["id"]) != "2" || !strings.Contains(string(m["result"]), "applied 01OP") {
					t.Fatalf("the write's answer: %s", mustJSON(m))
				}
				select {
				case a := <-r.after:
					if a.op != "01OP" || !a.written {
						t.Fatalf("AfterAnswer ran %+v; want 01OP, once its answer was written", a)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("what the write gave AfterAnswer did not run once its answer was written")
				}
			}
			for _, req := range foreign {
				if r.stdio.AfterAnswer(req, func() { t.Error("ran for a request the transport did not read") }) {
					t.Errorf("AfterAnswer took a function for %+v, which the transport did not read", req)
				}
			}
			if err := r.stdin.Close(); err != nil {
				t.Fatal(err)
			}
			<-r.stdio.Ended()
			r.shutdown(5 * time.Second) // waits for the answers being written, and what runs after them
			if r.stdio.AfterAnswer(w.req, func() { t.Error("ran for a call already answered") }) {
				t.Error("AfterAnswer took a function for a call already answered")
			}
			select {
			case a := <-r.after:
				t.Fatalf("AfterAnswer ran %+v as well", a)
			default:
			}
		})
	}
}

// A question avenir asks the client fails at once when the client's input ends, rather than
// waiting for an answer that cannot come.
func TestStdioQuestionFailsAtEndOfInput(t *testing.T) {
	r := newRawSession(t, rawOptions{})
	r.initialize()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`)
	<-r.waiting
	if m := r.next(); !strings.Contains(string(m["method"]), "elicitation/create") {
		t.Fatalf("want the question, got %s", mustJSON(m))
	}
	if err := r.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	m := r.next()
	if string(m["id"]) != "1" || !strings.Contains(string(m["result"]), "no answer") {
		t.Fatalf("the call whose question cannot be answered: %s", mustJSON(m))
	}
	r.shutdown(5 * time.Second)
}

// A malformed answer to avenir's question fails the question (closed: nothing is decided on it).
func TestStdioMalformedAnswerFailsTheQuestion(t *testing.T) {
	r := newRawSession(t, rawOptions{})
	r.initialize()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`)
	<-r.waiting
	q := r.next()
	r.send(`{"jsonrpc":"2.0","id":` + string(q["id"]) + `,"result":{"action":"accept"},"error":{"code":1,"message":"x"}}`)
	if m := r.next(); string(m["id"]) != "1" || !strings.Contains(string(m["result"]), "malformed") {
		t.Fatalf("after a malformed answer: %s", mustJSON(m))
	}
}

func TestReadMessageKeepsValidMessages(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		` {"jsonrpc" : "2.0", "id" : "a", "method" : "tools/list", "params" : {}} `,
		`{"jsonrpc":"2.0","id":-9007199254740991,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":null}]}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"action":"accept"}}`,
		`{"jsonrpc":"2.0","id":"q","error":{"code":-1,"message":"no"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","extra":true}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\u00e9\ud83d\ude00"}}`,
	} {
		msg, bad := readMessage([]byte(line))
		if bad != nil || msg == nil {
			t.Errorf("readMessage(%s) = %v, %+v; want the message", line, msg, bad)
		}
	}
}

// Bad lines for the fuzzer's seeds: every malformed framing of the job.
var framingSeeds = []string{
	"hello", "42", `"x"`, "null", "[]", "[1,2]", "{}", `{"id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":{},"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"method":5}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	"\x00", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + "}}",
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"amount":1,"amount":2}}}`,
	`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":5}}`,
	`{"jsonrpc":"2.0","id":7,"result":{},"error":{}}`, "\"\\ud800\"", "{\"a\":\"\xc3\x28\"}",
}

func FuzzReadMessage(f *testing.F) {
	for _, s := range framingSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, bad := readMessage(line)
		if msg != nil && bad != nil {
			t.Fatalf("both a message and an error for %q", line)
		}
		if bad != nil {
			switch bad.code {
			case -32700, -32600, -32602:
			case 0:
				if !bad.drop {
					t.Fatalf("an answer without a code for %q: %+v", line, bad)
				}
			default:
				t.Fatalf("code %d for %q", bad.code, line)
			}
			if clientjson.ShowsGoInternals(bad.msg) || len(bad.msg) > 400 {
				t.Fatalf("message for %q shows Go or is long: %q", line, bad.msg)
			}
			if bad.id != nil && validID(bad.id) != nil {
				t.Fatalf("answered id %s is not a valid id (line %q)", bad.id, line)
			}
			return
		}
		if msg == nil {
			if strings.TrimSpace(string(line)) != "" {
				t.Fatalf("nothing and no error for %q", line)
			}
			return
		}
		// What passes is one valid JSON object, with no key twice.
		if !json.Valid(line) || clientjson.Check(line) != nil {
			t.Fatalf("passed on %q, which is not one strict JSON value", line)
		}
	})
}
