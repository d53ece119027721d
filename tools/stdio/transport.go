// Package stdio is avenir's MCP transport on stdin and stdout: newline-delimited JSON-RPC in
// front of the go-sdk that answers a bad line instead of ending the session. It exists only to
// work around the SDK's own stdio transport (see [Transport]). It imports the SDK and, of
// avenir's, only the strict JSON reader it shares with tools — never tools itself — so that it
// can go in one piece once the SDK's transport serves. cmd/avenir wires it: the tools learn
// through [Transport.AfterAnswer] when the answer to a call was written.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/tools/internal/clientjson"
)

// Transport is avenir's MCP transport: newline-delimited JSON-RPC on a reader and a writer
// (stdin and stdout), in front of the SDK. It exists because the SDK's stdio transport ends the
// session on the first line it cannot read and, at the end of its input, cancels every call in
// flight and refuses to write their answers (go-sdk v1.8.0 mcp/transport.go ioConn.Read,
// internal/jsonrpc2/conn.go readIncoming). Transport instead
//
//   - answers every line that is not one valid JSON-RPC message with the error JSON-RPC 2.0
//     gives it (-32700 parse error, -32600 invalid request, -32602 invalid params), with the
//     request's id where it can be read and null where not, and goes on reading;
//   - bounds a line's length and its nesting, answering a line past either with an error;
//   - refuses a message that repeats a key anywhere, rather than reading the last one;
//   - keeps Go's insides out of every error it passes on (see [clientError]);
//   - at the end of its input, or when [Transport.Shutdown] is called, stops taking calls but
//     lets the calls in flight finish and writes their answers while the writer takes them;
//     only after [Transport.Close] does the SDK see the end of the input.
//
// A write to the client that fails (the client closed its end) is logged once and counts as
// the end of the session; it does not cancel the calls in flight, so that a confirmed write
// still reaches its journaled outcome. A handler can learn that its answer was written
// ([Transport.AfterAnswer]), so the journal can tell a retry from a new call.
type Transport struct {
	r       io.Reader
	w       io.Writer
	log     *slog.Logger
	maxLine int

	wmu    sync.Mutex // one line at a time on w
	broken bool       // w failed; nothing more is written (guarded by wmu)

	incoming  chan jsonrpc.Message
	ended     chan struct{} // closed at the end of the input, or when the writer broke
	endOnce   sync.Once
	closed    chan struct{} // closed by Close: Read returns io.EOF
	closeOnce sync.Once
	started   sync.Once

	mu       sync.Mutex
	stopping bool                        // calls are no longer taken
	inputEnd bool                        // the reader is at its end: no answer to our requests can come
	inFlight map[jsonrpc.ID]*call        // calls passed to the SDK and not answered yet
	byExtra  map[*mcp.RequestExtra]*call // the same calls, by the Extra their request carries
	outgoing map[jsonrpc.ID]bool         // our requests to the client that await its answer
	writing  int                         // answers being written
	idle     chan struct{}               // closed when, while stopping, no call is in flight or being answered
}

// call is a client's call passed to the SDK and not answered yet.
type call struct {
	extra *mcp.RequestExtra // what its request carries to the handler, to know it by
	after []func()          // what to run once its answer is written ([Transport.AfterAnswer])
}

// Options tune a [Transport]; the zero value is the production setting.
type Options struct {
	MaxLine int // the longest line read, in bytes; default [DefaultMaxLine]
	Logger  *slog.Logger
}

// DefaultMaxLine is the longest line a [Transport] reads: the SDK's own limit (16 MiB), so
// nothing a client could send before is refused now — it is only answered instead of ending the
// session.
const DefaultMaxLine = 16 << 20

// New returns the transport over r and w. It reads r only once the server connects.
func New(r io.Reader, w io.Writer, o Options) *Transport {
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Transport{
		r: r, w: w, log: o.Logger, maxLine: o.MaxLine,
		incoming: make(chan jsonrpc.Message),
		ended:    make(chan struct{}),
		closed:   make(chan struct{}),
		inFlight: map[jsonrpc.ID]*call{},
		byExtra:  map[*mcp.RequestExtra]*call{},
		outgoing: map[jsonrpc.ID]bool{},
	}
}

// Connect implements [mcp.Transport]: the Transport is its own connection.
func (s *Transport) Connect(context.Context) (mcp.Connection, error) {
	s.started.Do(func() { go s.readLoop() })
	return s, nil
}

// Ended is closed when the client closed its input, or the writer broke: the session is over
// but for the calls in flight.
func (s *Transport) Ended() <-chan struct{} { return s.ended }

func (s *Transport) end() { s.endOnce.Do(func() { close(s.ended) }) }

// AfterAnswer arranges for fn to run once the answer to req, a call this transport read, has
// been written to the client, and reports true. It reports false, and fn never runs, when req
// did not come through this transport or is already answered. fn does not run either when the
// answer could not be written (the client stopped reading). It runs on the goroutine writing the
// answer, before [Transport.Shutdown] counts the answer as out, so it should be quick.
//
// The transport knows req by its Extra: every call it passes to the SDK carries an
// [mcp.RequestExtra] of its own in jsonrpc.Request.Extra, which the SDK hands to the handler as
// the request's Extra (go-sdk v1.8.0 mcp/shared.go handleReceive, and mcp/mrtr.go keeps it for
// the rounds of a multi-round-trip call). Nothing in the answer is read for it.
func (s *Transport) AfterAnswer(req mcp.Request, fn func()) bool {
	extra := req.GetExtra()
	if extra == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.byExtra[extra]
	if c == nil {
		return false
	}
	c.after = append(c.after, fn)
	return true
}

// Shutdown stops taking calls — a new call is answered that avenir is closing — and waits until
// every call in flight has been answered, or until timeout. It returns how many were still in
// flight. Answers to avenir's own requests (a form the client shows) are still read.
func (s *Transport) Shutdown(timeout time.Duration) int {
	idle := s.stopTaking()
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

// stopTaking makes every new call refused, and returns a channel closed once no call is in
// flight or being answered.
func (s *Transport) stopTaking() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopping = true
	if s.idle == nil {
		s.idle = make(chan struct{})
		s.checkIdle()
	}
	return s.idle
}

// checkIdle closes idle once shutting down and nothing is in flight. s.mu is held.
func (s *Transport) checkIdle() {
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
func (s *Transport) Read(ctx context.Context) (jsonrpc.Message, error) {
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
// a client first ([clientError]). Once the answer to a call is written, what the handler asked
// to run then ([Transport.AfterAnswer]) runs.
func (s *Transport) Write(ctx context.Context, msg jsonrpc.Message) error {
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
	var after []func()
	if answer {
		// The id is free again as soon as the client can read the answer, so it leaves inFlight
		// before the write; writing keeps a shutdown waiting until the answer is out.
		s.mu.Lock()
		if c := s.inFlight[resp.ID]; c != nil {
			after = c.after
			delete(s.byExtra, c.extra)
		}
		delete(s.inFlight, resp.ID)
		s.writing++
		s.mu.Unlock()
	}
	written := s.writeLine(data)
	if answer {
		if written {
			for _, fn := range after {
				fn()
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
// (see [Transport]); it is not reported to the SDK, which would cancel every call in flight.
func (s *Transport) writeLine(data []byte) (written bool) {
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

// Close implements [mcp.Connection]: after it, Read reports the end of the input.
func (s *Transport) Close() error {
	s.closeOnce.Do(func() { close(s.closed) })
	return nil
}

// SessionID implements [mcp.Connection]: stdio has no session id.
func (s *Transport) SessionID() string { return "" }

// deliver hands m to the SDK, unless the connection is closed.
func (s *Transport) deliver(m jsonrpc.Message) {
	select {
	case s.incoming <- m:
	case <-s.closed:
	}
}

// noAnswer tells the SDK that its request id will get no answer: the client's input has ended.
func (s *Transport) noAnswer(id jsonrpc.ID) {
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
func (s *Transport) readLoop() {
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
func (s *Transport) handleLine(line []byte) {
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
		stopping, dup := s.stopping, s.inFlight[m.ID] != nil
		if !stopping && !dup {
			c := &call{extra: &mcp.RequestExtra{}}
			m.Extra = c.extra
			s.inFlight[m.ID] = c
			s.byExtra[c.extra] = c
		}
		s.mu.Unlock()
		switch {
		case stopping:
			s.reply(rpcError{id: idJSON(m.ID), code: -32004, msg: "avenir is shutting down: the call was not run; start avenir again and repeat it"})
		case dup:
			s.reply(rpcError{code: jsonrpc.CodeInvalidRequest, msg: fmt.Sprintf(
				"invalid request: id %s is already used by a call still in progress; give every call its own id", clientjson.Bound(string(idJSON(m.ID)), clientjson.MaxQuoted))})
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

// reply writes an error answer.
func (s *Transport) reply(e rpcError) {
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
