package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/avenir-mcp/avenir/ynab"
)

// apiError is an answer in YNAB's error body, {"error":{"id","name","detail"}}.
type apiError struct {
	Status int
	ID     string
	Name   string
	Detail string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.ID, e.Detail) }

// ynabErrors are YNAB's documented error ids, with their status and name.
var ynabErrors = map[string]struct {
	status int
	name   string
}{
	"400":   {400, "bad_request"},
	"401":   {401, "not_authorized"},
	"403.1": {403, "subscription_lapsed"},
	"403.2": {403, "trial_expired"},
	"403.3": {403, "unauthorized_scope"},
	"403.4": {403, "data_limit_reached"},
	"404.1": {404, "not_found"},
	"404.2": {404, "resource_not_found"},
	"409":   {409, "conflict"},
	"429":   {429, "too_many_requests"},
	"500":   {500, "internal_server_error"},
	"503":   {503, "service_unavailable"},
}

// defaultIDs is the YNAB error id a bare status stands for.
var defaultIDs = map[int]string{400: "400", 401: "401", 403: "403.1", 404: "404.2", 409: "409", 429: "429", 500: "500", 503: "503"}

// ynabError builds the error YNAB answers with the given id.
func ynabError(id, detail string) *apiError {
	e := ynabErrors[id]
	return &apiError{Status: e.status, ID: id, Name: e.name, Detail: detail}
}

func badRequest(format string, args ...any) *apiError {
	return ynabError("400", fmt.Sprintf(format, args...))
}

// notFound is YNAB's 404.2 for an id in the path that names nothing.
func notFound(kind, id string) *apiError {
	return ynabError("404.2", fmt.Sprintf("No %s with id %q was found in this plan.", kind, id))
}

// errNotServed is a sandbox bug: an entity a write just saved is missing from the view.
var errNotServed = errors.New("the saved entity is not in the plan's view")

func internalError(err error) *apiError {
	return ynabError("500", "The sandbox failed: "+err.Error())
}

// faultError is the error an injected fault answers with.
func faultError(f *Fault) *apiError {
	id := f.ErrorID
	if id == "" {
		id = defaultIDs[f.Status]
	}
	if e, ok := ynabErrors[id]; ok {
		return &apiError{Status: e.status, ID: id, Name: e.name, Detail: "Injected fault: " + http.StatusText(e.status)}
	}
	status := f.Status
	if status == 0 {
		status = http.StatusInternalServerError
	}
	text := http.StatusText(status)
	return &apiError{Status: status, ID: strconv.Itoa(status), Name: strings.ToLower(strings.ReplaceAll(text, " ", "_")),
		Detail: "Injected fault: " + text}
}

// response is an answer ready to be written.
type response struct {
	status int
	body   any
	header [][2]string
}

func errorResponse(e *apiError) response {
	return response{status: e.Status, body: ynab.ErrorBody{Error: ynab.ErrorDetail{ID: e.ID, Name: e.Name, Detail: e.Detail}}}
}

func (res response) write(w http.ResponseWriter) {
	b, err := json.Marshal(res.body)
	if err != nil {
		res = errorResponse(internalError(fmt.Errorf("encode the answer: %w", err)))
		b, _ = json.Marshal(res.body)
	}
	for _, h := range res.header {
		w.Header().Set(h[0], h[1])
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(res.status)
	w.Write(append(b, '\n'))
}
