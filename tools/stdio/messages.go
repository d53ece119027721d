package stdio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/tools/internal/clientjson"
)

// What a line must be to pass to the SDK, and the error that answers it when it is not; and the
// errors the SDK writes, made fit for a client.

// rpcError is an error answer the transport writes itself.
type rpcError struct {
	id   json.RawMessage // the request's id as sent; nil is null
	code int64
	msg  string
	drop bool // the message cannot be answered (it is a notification or an answer): only log it
}

// maxSafeID is the largest whole number every JSON reader holds exactly (2^53-1): a larger
// numeric id could come back as another number.
const maxSafeID = 1<<53 - 1

// readMessage reads one line as a JSON-RPC 2.0 message as MCP uses them: one object with
// "jsonrpc": "2.0"; a request has a string "method", a string or whole-number "id" (none for a
// notification) and object "params"; an answer has an "id" and a "result" or an "error". What is
// not such a message comes back as the error to answer it with.
func readMessage(line []byte) (jsonrpc.Message, *rpcError) {
	sc := clientjson.NewScanner(line)
	if sc.AtEnd() {
		return nil, nil // a blank line: nothing to read or answer
	}
	if first := sc.Peek(); first != '{' {
		if err := clientjson.Check(line); err != nil {
			return nil, parseError(err, nil)
		}
		if first == '[' {
			return nil, &rpcError{code: jsonrpc.CodeInvalidRequest,
				msg: "invalid request: batches (a JSON array of messages) are not supported; send one message per line"}
		}
		return nil, &rpcError{code: jsonrpc.CodeInvalidRequest,
			msg: fmt.Sprintf("invalid request: a message is a JSON object, not %s", clientjson.KindAt(first))}
	}
	members := map[string][]byte{}
	var id json.RawMessage // as soon as a valid id is read, errors answer it
	err := sc.Object(0, "", func(key string, depth int, path string) error {
		sc.SkipSpace()
		start := sc.Pos()
		if err := sc.SkipValue(depth, path); err != nil {
			return err
		}
		members[key] = sc.Since(start)
		if key == "id" && validID(members[key]) == nil {
			id = members[key]
		}
		return nil
	})
	if err != nil {
		return nil, parseError(err, id)
	}
	if !sc.AtEnd() {
		return nil, &rpcError{id: id, code: jsonrpc.CodeParseError, msg: fmt.Sprintf(
			"parse error: more text after the message, at byte %d: send one message per line", sc.Pos()+1)}
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
	return fmt.Errorf("%s, not %s", want, clientjson.KindAt(raw[0]))
}

// parseError is the answer to a line the scanner refused: a syntax error is a parse error;
// a repeated key or too deep nesting is an invalid request, or invalid params inside "params".
func parseError(err error, id json.RawMessage) *rpcError {
	var je *clientjson.Error
	if !errors.As(err, &je) || je.Kind == clientjson.Syntax {
		return &rpcError{code: jsonrpc.CodeParseError, msg: "parse error: " + err.Error()}
	}
	code := int64(jsonrpc.CodeInvalidRequest)
	prefix := "invalid request: "
	if strings.HasPrefix(je.Path, "params.") || strings.HasPrefix(je.Path, "params[") {
		code, prefix = jsonrpc.CodeInvalidParams, "invalid params: "
	}
	msg := err.Error()
	if je.Kind == clientjson.Duplicate {
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
	"logging/setLevel":                 reflect.TypeFor[mcp.SetLoggingLevelParams](), //lint:ignore SA1019 a method clients of older protocols still call
	"notifications/initialized":        reflect.TypeFor[mcp.InitializedParams](),
	"notifications/cancelled":          reflect.TypeFor[mcp.CancelledParams](),
	"notifications/roots/list_changed": reflect.TypeFor[mcp.RootsListChangedParams](), //lint:ignore SA1019 a notification clients of older protocols still send
	"notifications/progress":           reflect.TypeFor[mcp.ProgressNotificationParams](),
}

// checkParams checks a request's params: an object, whose members have the JSON types the
// method takes.
func checkParams(method string, params []byte) *rpcError {
	bad := func(format string, args ...any) *rpcError {
		return &rpcError{code: jsonrpc.CodeInvalidParams, msg: "invalid params: " + fmt.Sprintf(format, args...)}
	}
	if params[0] != '{' {
		return bad(`"params" must be an object, not %s`, clientjson.KindAt(params[0]))
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
		return bad("the params of %s do not match what the method takes (see the MCP specification)", clientjson.Quoted(method))
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
	if clientjson.ShowsGoInternals(out.Message) {
		log.Debug("replaced an error message that showed Go's insides", "code", out.Code, "message", out.Message)
		out.Message = codeMeaning(out.Code)
	}
	out.Message = clientjson.Bound(boundQuotes(out.Message), maxErrorText)
	return &out
}

// quotedText matches a double-quoted string in a message, as %q writes it.
var quotedText = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// boundQuotes cuts every quoted string in msg that is longer than MaxQuoted characters, as
// [clientjson.Quoted] would have: a client's input comes back recognisable, not whole.
func boundQuotes(msg string) string {
	return quotedText.ReplaceAllStringFunc(msg, func(q string) string {
		inner := q[1 : len(q)-1]
		if len([]rune(inner)) <= clientjson.MaxQuoted {
			return q
		}
		return `"` + clientjson.Bound(inner, clientjson.MaxQuoted) + `"`
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
