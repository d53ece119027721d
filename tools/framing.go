package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio is avenir's MCP transport: newline-delimited JSON-RPC on a reader and a writer (stdin
// and stdout), in front of the SDK. It exists because the SDK's stdio transport ends the session
// on the first line it cannot read and, at the end of its input, cancels every call in flight
// and refuses to write their answers (go-sdk v1.8.0 mcp/transport.go ioConn.Read,
// internal/jsonrpc2/conn.go readIncoming). Stdio instead
//
//   - answers every line that is not one valid JSON-RPC message with the error JSON-RPC 2.0
//     gives it (-32700 parse error, -32600 invalid request, -32602 invalid params), with the
//     request's id where it can be read and null where not, and goes on reading;
//   - bounds a line's length and its nesting, answering a line past either with an error;
//   - refuses a message that repeats a key anywhere, rather than reading the last one;
//   - keeps Go's insides out of every error it passes on (see [clientError]);
//   - at the end of its input, or when [Stdio.Shutdown] is called, stops taking calls but lets
//     the calls in flight finish and writes their answers while the writer takes them; only
//     after [Stdio.Close] does the SDK see the end of the input.
//
// A write to the client that fails (the client closed its end) is logged once and counts as
// the end of the session; it does not cancel the calls in flight, so that a confirmed write
// still reaches its journaled outcome. A write's answer that was written is reported
// ([StdioOptions].Answered), so the journal can tell a retry from a new call.
type Stdio struct {
	r        io.Reader
	w        io.Writer
	log      *slog.Logger
	maxLine  int
	answered func(operationID string)

	wmu    sync.Mutex // one line at a time on w
	broken bool       // w failed; nothing more is written (guarded by wmu)

	incoming  chan jsonrpc.Message
	ended     chan struct{} // closed at the end of the input, or when the writer broke
	endOnce   sync.Once
	closed    chan struct{} // closed by Close: Read returns io.EOF
	closeOnce sync.Once
	started   sync.Once

	mu       sync.Mutex
	stopping bool                // calls are no longer taken
	inputEnd bool                // the reader is at its end: no answer to our requests can come
	inFlight map[jsonrpc.ID]bool // calls passed to the SDK and not answered yet
	outgoing map[jsonrpc.ID]bool // our requests to the client that await its answer
	writing  int                 // answers being written
	idle     chan struct{}       // closed when, while stopping, no call is in flight or being answered
}

// StdioOptions tune a [Stdio]; the zero value is the production setting.
type StdioOptions struct {
	MaxLine int // the longest line read, in bytes; default [DefaultMaxLine]
	Logger  *slog.Logger
	// Answered, if set, is called with the operation_id of a write's result once the answer
	// carrying it is written: the journal then knows the client heard the outcome ([Answered]).
	Answered func(operationID string)
}

// DefaultMaxLine is the longest line [Stdio] reads: the SDK's own limit (16 MiB), so nothing a
// client could send before is refused now — it is only answered instead of ending the session.
const DefaultMaxLine = 16 << 20

// NewStdio returns the transport over r and w. It reads r only once the server connects.
func NewStdio(r io.Reader, w io.Writer, o StdioOptions) *Stdio {
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Stdio{
		r: r, w: w, log: o.Logger, maxLine: o.MaxLine, answered: o.Answered,
		incoming: make(chan jsonrpc.Message),
		ended:    make(chan struct{}),
		closed:   make(chan struct{}),
		inFlight: map[jsonrpc.ID]bool{},
		outgoing: map[jsonrpc.ID]bool{},
	}
}

// Connect implements [mcp.Transport]: the Stdio is its own connection.
func (s *Stdio) Connect(context.Context) (mcp.Connection, error) {
	s.started.Do(func() { go s.readLoop() })
	return s, nil
}

// Ended is closed when the client closed its input, or the writer broke: the session is over
// but for the calls in flight.
func (s *Stdio) Ended() <-chan struct{} { return s.ended }

func (s *Stdio) end() { s.endOnce.Do(func() { close(s.ended) }) }

// Shutdown stops taking calls — a new call is answered that avenir is closing — and waits until
// every call in flight has been answered, or until timeout. It returns how many were still in
// flight. Answers to avenir's own requests (a form the client shows) are still read.
func (s *Stdio) Shutdown(timeout time.Duration) int {
	s.mu.Lock()
	s.stopping = true
	if s.idle == nil {
		s.idle = make(chan struct{})
		s.checkIdle()
	}
	idle := s.idle
	s.mu.Unlock()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.inFlight) + s.writing
}

// checkIdle closes idle once shutting down and nothing is in flight. s.mu is held.
func (s *Stdio) checkIdle() {
	if s.idle == nil || len(s.inFlight) > 0 || s.writing > 0 {
		return
	}
	select {
	case <-s.idle:
	default:
		close(s.idle)
	}
}

// Read implements [mcp.Connection]: the next message for the SDK. It reports io.EOF only after
// Close, never merely at the end of the input, since the SDK would then cancel the calls in
// flight and refuse to write their answers.
func (s *Stdio) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-s.closed:
		return nil, io.EOF
	default:
	}
	select {
	case m := <-s.incoming:
		return m, nil
	case <-s.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements [mcp.Connection]: one message, one line. An error's message is made fit for
// a client first ([clientError]).
func (s *Stdio) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error != nil {
		r := *resp
		r.Error = clientError(resp.Error, s.log)
		msg = &r
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message for the client: %w", err)
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
		s.mu.Lock()
		s.outgoing[req.ID] = true
		lost := s.inputEnd
		s.mu.Unlock()
		if lost {
			go s.noAnswer(req.ID)
		}
	}
	resp, answer := msg.(*jsonrpc.Response)
	if answer {
		// The id is free again as soon as the client can read the answer, so it leaves inFlight
		// before the write; writing keeps a shutdown waiting until the answer is out.
		s.mu.Lock()
		delete(s.inFlight, resp.ID)
		s.writing++
		s.mu.Unlock()
	}
	written := s.writeLine(data)
	if answer {
		if written && s.answered != nil {
			if id := resultOperation(resp.Result); id != "" {
				s.answered(id)
			}
		}
		s.mu.Lock()
		s.writing--
		s.checkIdle()
		s.mu.Unlock()
	}
	return nil
}

// writeLine writes data and a newline. A failed write is logged once and ends the session
// (see [Stdio]); it is not reported to the SDK, which would cancel every call in flight.
func (s *Stdio) writeLine(data []byte) (written bool) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.broken {
		return false
	}
	if _, err := s.w.Write(append(data, '\n')); err != nil {
		s.broken = true
		s.log.Warn("the client no longer reads avenir's answers; finishing the calls in flight", "err", err)
		s.end()
		return false
	}
	return true
}

// resultOperation is the operation_id of a tool result's structured content, or "".
func resultOperation(result json.RawMessage) string {
	if !bytes.Contains(result, []byte(`"operation_id"`)) {
		return ""
	}
	var r struct {
		StructuredContent struct {
			OperationID string `json:"operation_id"`
		} `json:"structuredContent"`
	}
	if json.Unmarshal(result, &r) != nil {
		return ""
	}
	return r.StructuredContent.OperationID
}

// Close implements [mcp.Connection]: after it, Read reports the end of the input.
func (s *Stdio) Close() error {
	s.closeOnce.Do(func() { close(s.closed) })
	return nil
}

// SessionID implements [mcp.Connection]: stdio has no session id.
func (s *Stdio) SessionID() string { return "" }

// deliver hands m to the SDK, unless the connection is closed.
func (s *Stdio) deliver(m jsonrpc.Message) {
	select {
	case s.incoming <- m:
	case <-s.closed:
	}
}

// noAnswer tells the SDK that its request id will get no answer: the client's input has ended.
func (s *Stdio) noAnswer(id jsonrpc.ID) {
	s.mu.Lock()
	waiting := s.outgoing[id]
	delete(s.outgoing, id)
	s.mu.Unlock()
	if waiting {
		s.deliver(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: "the client closed its input before answering"}})
	}
}

// readLoop reads lines until the input ends, answering the bad ones and passing on the rest.
func (s *Stdio) readLoop() {
	br := bufio.NewReaderSize(s.r, 64<<10)
	for {
		line, tooLong, err := readLine(br, s.maxLine)
		if tooLong {
			s.reply(rpcError{id: leadingID(line), code: jsonrpc.CodeInvalidRequest, msg: fmt.Sprintf(
				"invalid request: the line is longer than %d bytes, the most avenir reads; nothing in it was read", s.maxLine)})
		} else if len(line) > 0 {
			s.handleLine(line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.log.Warn("reading the client's messages failed; finishing the calls in flight", "err", err)
			}
			break
		}
	}
	s.mu.Lock()
	s.inputEnd = true
	var waiting []jsonrpc.ID
	for id := range s.outgoing {
		waiting = append(waiting, id)
	}
	s.mu.Unlock()
	s.end()
	for _, id := range waiting {
		s.noAnswer(id)
	}
}

// readLine reads one line without its end ("\n" or "\r\n"). A line longer than max is skipped
// to its end and reported as tooLong, with its first bytes in line (up to headBytes) so that
// its id can still be answered. err is io.EOF (or the read error) at the end of the input, with
// the last line, if it had no newline, in line.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 { // room for "\r\n"
				tooLong = true
				line = append(line, chunk...)
				line = line[:min(len(line), headBytes)]
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return line, true, err
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > max {
			return nil, true, err
		}
		return line, false, err
	}
}

// headBytes is how much of a line too long to read avenir keeps, to find the request's id.
const headBytes = 4 << 10

// leadingID is the id of a request whose line was too long to read, when the line starts with it
// (after "jsonrpc", as clients write them): a client waiting for that id then gets its error
// rather than nothing. An id further in cannot be found, and the error has a null id.
func leadingID(head []byte) json.RawMessage {
	m := leadingIDPattern.FindSubmatch(head)
	if m == nil {
		return nil
	}
	return json.RawMessage(m[1])
}

var leadingIDPattern = regexp.MustCompile(`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?(?:0|[1-9][0-9]{0,17})|"(?:[^"\\\x00-\x1f]|\\.){0,256}")\s*[,}]`)

// handleLine answers or passes on one line.
func (s *Stdio) handleLine(line []byte) {
	msg, bad := readMessage(line)
	if msg == nil && bad == nil {
		return // a blank line
	}
	if bad != nil {
		if bad.drop {
			s.log.Warn("ignored a malformed message from the client that cannot be answered", "reason", bad.msg)
			return
		}
		s.reply(*bad)
		return
	}
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if !m.ID.IsValid() { // a notification
			s.mu.Lock()
			stopping := s.stopping
			s.mu.Unlock()
			if !stopping {
				s.deliver(m)
			}
			return
		}
		s.mu.Lock()
		stopping, dup := s.stopping, s.inFlight[m.ID]
		if !stopping && !dup {
			s.inFlight[m.ID] = true
		}
		s.mu.Unlock()
		switch {
		case stopping:
			s.reply(rpcError{id: idJSON(m.ID), code: -32004, msg: "avenir is shutting down: the call was not run; start avenir again and repeat it"})
		case dup:
			s.reply(rpcError{code: jsonrpc.CodeInvalidRequest, msg: fmt.Sprintf(
				"invalid request: id %s is already used by a call still in progress; give every call its own id", bound(string(idJSON(m.ID)), maxQuoted))})
		default:
			s.deliver(m)
		}
	case *jsonrpc.Response:
		s.mu.Lock()
		waiting := s.outgoing[m.ID]
		delete(s.outgoing, m.ID)
		s.mu.Unlock()
		if waiting {
			s.deliver(m)
		} else {
			s.log.Warn("ignored an answer from the client to no request of avenir's", "id", string(idJSON(m.ID)))
		}
	}
}

// rpcError is an error answer the transport writes itself.
type rpcError struct {
	id   json.RawMessage // the request's id as sent; nil is null
	code int64
	msg  string
	drop bool // the message cannot be answered (it is a notification or an answer): only log it
}

// reply writes an error answer.
func (s *Stdio) reply(e rpcError) {
	id := e.id
	if id == nil {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: e.code, Message: e.msg}})
	if err != nil { // cannot happen: the id was read as valid JSON
		s.log.Error("encoding an error answer", "err", err)
		return
	}
	s.writeLine(data)
}

// idJSON writes an id as JSON.
func idJSON(id jsonrpc.ID) json.RawMessage {
	b, err := json.Marshal(id.Raw())
	if err != nil {
		return nil
	}
	return b
}

// maxSafeID is the largest whole number every JSON reader holds exactly (2^53-1): a larger
// numeric id could come back as another number.
const maxSafeID = 1<<53 - 1

// readMessage reads one line as a JSON-RPC 2.0 message as MCP uses them: one object with
// "jsonrpc": "2.0"; a request has a string "method", a string or whole-number "id" (none for a
// notification) and object "params"; an answer has an "id" and a "result" or an "error". What is
// not such a message comes back as the error to answer it with.
func readMessage(line []byte) (jsonrpc.Message, *rpcError) {
	sc := newScanner(line)
	if sc.atEnd() {
		return nil, nil // a blank line: nothing to read or answer
	}
	if first := sc.peek(); first != '{' {
		if err := checkJSON(line); err != nil {
			return nil, parseError(err, nil)
		}
		if first == '[' {
			return nil, &rpcError{code: jsonrpc.CodeInvalidRequest,
				msg: "invalid request: batches (a JSON array of messages) are not supported; send one message per line"}
		}
		return nil, &rpcError{code: jsonrpc.CodeInvalidRequest,
			msg: fmt.Sprintf("invalid request: a message is a JSON object, not %s", jsonKindAt(first))}
	}
	members := map[string][]byte{}
	var id json.RawMessage // as soon as a valid id is read, errors answer it
	err := sc.object(0, "", func(key string, depth int, path string) error {
		sc.skipSpace()
		start := sc.pos
		if err := sc.skipValue(depth, path); err != nil {
			return err
		}
		members[key] = line[start:sc.pos]
		if key == "id" && validID(members[key]) == nil {
			id = members[key]
		}
		return nil
	})
	if err != nil {
		return nil, parseError(err, id)
	}
	if !sc.atEnd() {
		return nil, &rpcError{id: id, code: jsonrpc.CodeParseError, msg: fmt.Sprintf(
			"parse error: more text after the message, at byte %d: send one message per line", sc.pos+1)}
	}
	invalid := func(format string, args ...any) *rpcError {
		return &rpcError{id: id, code: jsonrpc.CodeInvalidRequest, msg: "invalid request: " + fmt.Sprintf(format, args...)}
	}
	if v, ok := members["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return nil, invalid(`"jsonrpc" must be "2.0"`)
	}
	rawID, hasID := members["id"]
	if hasID {
		if err := validID(rawID); err != nil {
			return nil, invalid("%s", err)
		}
	}
	method, isRequest := members["method"]
	if !isRequest {
		return readAnswer(line, members, rawID, hasID)
	}
	if method[0] != '"' || string(method) == `""` {
		bad := invalid(`"method" must be the method's name, a non-empty string`)
		bad.drop = !hasID
		return nil, bad
	}
	if _, ok := members["result"]; ok {
		return nil, invalid(`a request has no "result"`)
	}
	if _, ok := members["error"]; ok {
		return nil, invalid(`a request has no "error"`)
	}
	var name string
	_ = json.Unmarshal(method, &name) // checked by the scanner
	if params, ok := members["params"]; ok {
		if bad := checkParams(name, params); bad != nil {
			bad.id, bad.drop = id, !hasID
			return nil, bad
		}
	}
	msg, derr := jsonrpc.DecodeMessage(line)
	if derr != nil {
		bad := invalid("not a JSON-RPC request")
		bad.drop = !hasID
		return nil, bad
	}
	return msg, nil
}

// readAnswer reads a message without a method: the client's answer to a request of avenir's.
// It cannot be answered; a malformed one with a usable id becomes an error answer, so the
// request that waits for it fails (closed: nothing is written) rather than waiting on.
func readAnswer(line []byte, members map[string][]byte, rawID []byte, hasID bool) (jsonrpc.Message, *rpcError) {
	drop := func(reason string) (jsonrpc.Message, *rpcError) {
		return nil, &rpcError{drop: true, msg: reason}
	}
	if !hasID || string(rawID) == "null" {
		return drop(`a message with neither "method" nor "id"`)
	}
	var idv any
	dec := json.NewDecoder(bytes.NewReader(rawID))
	dec.UseNumber()
	_ = dec.Decode(&idv)
	if n, ok := idv.(json.Number); ok {
		i, _ := n.Int64() // validID checked it is a whole number
		idv = float64(i)
	}
	id, err := jsonrpc.MakeID(idv)
	if err != nil {
		return drop("an answer whose id cannot be read")
	}
	_, hasResult := members["result"]
	rawErr, hasError := members["error"]
	malformed := func(why string) (jsonrpc.Message, *rpcError) {
		return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: "the client's answer was malformed: " + why}}, nil
	}
	switch {
	case hasResult == hasError:
		return malformed(`an answer has exactly one of "result" and "error"`)
	case hasError:
		var e struct {
			Code    *json.Number `json:"code"`
			Message *string      `json:"message"`
		}
		if json.Unmarshal(rawErr, &e) != nil || e.Code == nil || e.Message == nil {
			return malformed(`"error" must be an object with a whole-number "code" and a string "message"`)
		}
		if _, err := e.Code.Int64(); err != nil {
			return malformed(`"error" must be an object with a whole-number "code" and a string "message"`)
		}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return malformed("it is not a JSON-RPC answer")
	}
	return msg, nil
}

// validID checks an id as MCP allows them: a string or a whole number (not null), and for a
// number one that every JSON reader holds exactly.
func validID(raw []byte) error {
	const want = `"id" must be a string or a whole number`
	switch {
	case len(raw) == 0:
		return errors.New(want)
	case raw[0] == '"':
		return nil
	case raw[0] == '-' || '0' <= raw[0] && raw[0] <= '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > maxSafeID || n < -maxSafeID {
			return fmt.Errorf("%s between -%d and %d", want, int64(maxSafeID), int64(maxSafeID))
		}
		return nil
	}
	return fmt.Errorf("%s, not %s", want, jsonKindAt(raw[0]))
}

// parseError is the answer to a line the scanner refused: a syntax error is a parse error;
// a repeated key or too deep nesting is an invalid request, or invalid params inside "params".
func parseError(err error, id json.RawMessage) *rpcError {
	var je *jsonError
	if !errors.As(err, &je) || je.kind == errSyntax {
		return &rpcError{code: jsonrpc.CodeParseError, msg: "parse error: " + err.Error()}
	}
	code := int64(jsonrpc.CodeInvalidRequest)
	prefix := "invalid request: "
	if strings.HasPrefix(je.path, "params.") || strings.HasPrefix(je.path, "params[") {
		code, prefix = jsonrpc.CodeInvalidParams, "invalid params: "
	}
	msg := err.Error()
	if je.kind == errDuplicate {
		msg += "; give each key once"
	}
	return &rpcError{id: id, code: code, msg: prefix + msg}
}

// paramTypes are the params of the methods a client may call, as the SDK reads them. Checking
// params against them first lets a mistake be answered in JSON's words ("params.name must be a
// string") rather than the SDK's, which name Go types and echo the whole params.
var paramTypes = map[string]reflect.Type{
	"initialize":                       reflect.TypeFor[mcp.InitializeParams](),
	"ping":                             reflect.TypeFor[mcp.PingParams](),
	"server/discover":                  reflect.TypeFor[mcp.DiscoverParams](),
	"tools/list":                       reflect.TypeFor[mcp.ListToolsParams](),
	"tools/call":                       reflect.TypeFor[mcp.CallToolParamsRaw](),
	"prompts/list":                     reflect.TypeFor[mcp.ListPromptsParams](),
	"prompts/get":                      reflect.TypeFor[mcp.GetPromptParams](),
	"resources/list":                   reflect.TypeFor[mcp.ListResourcesParams](),
	"resources/templates/list":         reflect.TypeFor[mcp.ListResourceTemplatesParams](),
	"resources/read":                   reflect.TypeFor[mcp.ReadResourceParams](),
	"resources/subscribe":              reflect.TypeFor[mcp.SubscribeParams](),
	"resources/unsubscribe":            reflect.TypeFor[mcp.UnsubscribeParams](),
	"subscriptions/listen":             reflect.TypeFor[mcp.SubscriptionsListenParams](),
	"completion/complete":              reflect.TypeFor[mcp.CompleteParams](),
	"logging/setLevel":                 reflect.TypeFor[mcp.SetLoggingLevelParams](),
	"notifications/initialized":        reflect.TypeFor[mcp.InitializedParams](),
	"notifications/cancelled":          reflect.TypeFor[mcp.CancelledParams](),
	"notifications/roots/list_changed": reflect.TypeFor[mcp.RootsListChangedParams](),
	"notifications/progress":           reflect.TypeFor[mcp.ProgressNotificationParams](),
}

// checkParams checks a request's params: an object, whose members have the JSON types the
// method takes.
func checkParams(method string, params []byte) *rpcError {
	bad := func(format string, args ...any) *rpcError {
		return &rpcError{code: jsonrpc.CodeInvalidParams, msg: "invalid params: " + fmt.Sprintf(format, args...)}
	}
	if params[0] != '{' {
		return bad(`"params" must be an object, not %s`, jsonKindAt(params[0]))
	}
	t, ok := paramTypes[method]
	if !ok {
		return nil // the SDK answers an unknown method
	}
	err := json.Unmarshal(params, reflect.New(t).Interface())
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te) && te.Field != "":
		return bad("params.%s must be %s, not %s", te.Field, jsonTypeOf(te.Type), article(te.Value))
	default:
		return bad("the params of %s do not match what the method takes (see the MCP specification)", quoted(method))
	}
}

// jsonTypeOf names the JSON type that a Go type is read from.
func jsonTypeOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "another type"
}

// article puts "a" or "an" before a JSON type name as encoding/json reports it ("number",
// "object", "array", "string", "bool", "number 1.5").
func article(v string) string {
	word, _, _ := strings.Cut(v, " ")
	switch word {
	case "object", "array":
		return "an " + word
	case "bool":
		return "a boolean"
	case "string", "number":
		return "a " + word
	}
	return "another type"
}

// maxErrorText bounds an error message passed to a client.
const maxErrorText = 1000

// clientError makes an error from the SDK fit for a client: no Go type or dump in it (such a
// message is replaced by what its code means, and logged in full), and at most maxErrorText
// characters long.
func clientError(err error, log *slog.Logger) *jsonrpc.Error {
	// As the SDK encodes an error: the code of the wire error it wraps, the whole message.
	out := jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	if we := (*jsonrpc.Error)(nil); errors.As(err, &we) {
		out.Code, out.Data = we.Code, we.Data
	}
	if goInternals.MatchString(out.Message) {
		log.Debug("replaced an error message that showed Go's insides", "code", out.Code, "message", out.Message)
		out.Message = codeMeaning(out.Code)
	}
	out.Message = bound(boundQuotes(out.Message), maxErrorText)
	return &out
}

// quotedText matches a double-quoted string in a message, as %q writes it.
var quotedText = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// boundQuotes cuts every quoted string in msg that is longer than maxQuoted characters, as
// [quoted] would have: a client's input comes back recognisable, not whole.
func boundQuotes(msg string) string {
	return quotedText.ReplaceAllStringFunc(msg, func(q string) string {
		inner := q[1 : len(q)-1]
		if len([]rune(inner)) <= maxQuoted {
			return q
		}
		return `"` + bound(inner, maxQuoted) + `"`
	})
}

// codeMeaning says what a JSON-RPC error code means, for a message that cannot be shown.
func codeMeaning(code int64) string {
	switch code {
	case jsonrpc.CodeParseError:
		return "parse error: the message is not valid JSON"
	case jsonrpc.CodeInvalidRequest:
		return "invalid request: the message is not a valid JSON-RPC request"
	case jsonrpc.CodeMethodNotFound:
		return "method not found"
	case jsonrpc.CodeInvalidParams:
		return "invalid params: the params do not match what the method takes (see the MCP specification)"
	default:
		return "avenir could not handle the request; the server log has the details"
	}
}
