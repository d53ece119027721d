package sandbox

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FaultSyntax describes the rules ParseFault reads, for command help and error messages.
const FaultSyntax = `METHOD PATH [key=value]...
  METHOD         GET, POST, PUT, PATCH, DELETE, or * for any method
  PATH           a path under /v1: {name} or * is any one segment
                 (/plans/{plan_id}/payees), a final / is everything
                 below (/plans/), and * alone is any path; /plans
                 and the old /budgets are the same paths
  status=N       answer status N (400-599) with YNAB's error body
  error=ID       answer YNAB's error ID (401, 403.1, 404.2, 429, 503...)
  retry-after=D  with status or error: a Retry-After header
  delay=D        wait D first (500ms, 2s, 1m; a bare number is seconds)
  drop=before    close the connection without an answer, doing nothing
  drop=after     do the request (a write is saved), then close the
                 connection without an answer
  contains=TEXT  only paths that contain TEXT
  times=N        the next N matching requests get it (default 1)
  skip=M         after M matching requests went through (default 0)`

// ParseFault reads a fault rule as people write it on the command line, like
// "POST /plans/*/transactions status=503 times=2" (see FaultSyntax). The rule is checked as
// the control endpoint checks one: a rule that is wrong or does nothing is an error.
func ParseFault(rule string) (Fault, error) {
	fields := strings.Fields(rule)
	if len(fields) < 2 {
		return Fault{}, errors.New("a rule starts with a method and a path, like \"POST /plans/*/transactions status=503\"")
	}
	f := Fault{Method: fields[0], Path: fields[1], Count: 1}
	for _, kv := range fields[2:] {
		key, value, ok := strings.Cut(kv, "=")
		if !ok || value == "" {
			return Fault{}, fmt.Errorf("%q is not key=value (keys: status, error, retry-after, delay, drop, contains, times, skip)", kv)
		}
		var err error
		switch key {
		case "status":
			f.Status, err = wholeNumber(key, value)
		case "error":
			f.ErrorID = value
		case "retry-after", "retry_after":
			f.RetryAfter, err = duration(key, value)
		case "delay":
			f.Delay, err = duration(key, value)
		case "drop":
			f.Drop, f.DropAfter, err = dropWhen(value)
		case "contains":
			f.PathContains = value
		case "times":
			f.Count, err = wholeNumber(key, value)
			if err == nil && f.Count == 0 {
				err = errors.New("times must be 1 or more")
			}
		case "skip":
			f.Skip, err = wholeNumber(key, value)
		default:
			err = fmt.Errorf("unknown key %q (keys: status, error, retry-after, delay, drop, contains, times, skip)", key)
		}
		if err != nil {
			return Fault{}, err
		}
	}
	return f.normalized()
}

// normalized checks a fault written by a person and puts it in the form the sandbox matches.
func (f Fault) normalized() (Fault, error) {
	switch m := strings.ToUpper(f.Method); m {
	case "", "*", "ANY":
		f.Method = ""
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead:
		f.Method = m
	default:
		return Fault{}, fmt.Errorf("method must be GET, POST, PUT, PATCH, DELETE or *, not %q", f.Method)
	}
	switch {
	case f.Path == "*" || f.Path == "":
		f.Path = ""
	case !strings.HasPrefix(f.Path, "/"):
		return Fault{}, fmt.Errorf("path must start with / (like /plans/{plan_id}/transactions) or be *, not %q", f.Path)
	case strings.ContainsAny(f.Path, "?#"):
		return Fault{}, fmt.Errorf("path %q must not have a query: a rule matches the path only", f.Path)
	}
	if _, known := ynabErrors[f.ErrorID]; f.ErrorID != "" && !known {
		return Fault{}, fmt.Errorf("error must be one of YNAB's error ids (%s), not %q", strings.Join(errorIDs(), ", "), f.ErrorID)
	}
	switch {
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		return Fault{}, fmt.Errorf("status must be an error status from 400 to 599, not %d", f.Status)
	case f.Status != 0 && f.ErrorID != "" && ynabErrors[f.ErrorID].status != f.Status:
		return Fault{}, fmt.Errorf("status %d and error %s disagree: YNAB answers %s with %d; give one of them", f.Status, f.ErrorID, f.ErrorID, ynabErrors[f.ErrorID].status)
	case f.Count < 0 || f.Skip < 0:
		return Fault{}, errors.New("times and skip must be whole numbers of 0 or more")
	case f.Delay < 0 || f.RetryAfter < 0:
		return Fault{}, errors.New("delay and retry-after must not be negative")
	case f.Drop && f.DropAfter:
		return Fault{}, errors.New("drop is before or after, not both")
	case (f.Drop || f.DropAfter) && (f.Status != 0 || f.ErrorID != ""):
		return Fault{}, errors.New("a dropped request gets no answer: give drop or status/error, not both")
	case f.RetryAfter > 0 && f.Status == 0 && f.ErrorID == "":
		return Fault{}, errors.New("retry-after goes with an error answer: add status= or error=")
	case f.Status == 0 && f.ErrorID == "" && f.Delay == 0 && !f.Drop && !f.DropAfter:
		return Fault{}, errors.New("the rule does nothing: give status=, error=, delay= or drop=")
	}
	if f.Count == 0 {
		f.Count = 1
	}
	return f, nil
}

// String is the fault as a rule ParseFault reads back, with the uses it has left.
func (f Fault) String() string {
	parts := []string{cmp.Or(f.Method, "*"), cmp.Or(f.Path, "*")}
	add := func(key, value string) { parts = append(parts, key+"="+value) }
	if f.Status != 0 {
		add("status", strconv.Itoa(f.Status))
	}
	if f.ErrorID != "" {
		add("error", f.ErrorID)
	}
	if f.RetryAfter > 0 {
		add("retry-after", f.RetryAfter.String())
	}
	if f.Delay > 0 {
		add("delay", f.Delay.String())
	}
	if f.Drop {
		add("drop", "before")
	}
	if f.DropAfter {
		add("drop", "after")
	}
	if f.PathContains != "" {
		add("contains", f.PathContains)
	}
	add("times", strconv.Itoa(max(f.Count, 1)))
	if f.Skip > 0 {
		add("skip", strconv.Itoa(f.Skip))
	}
	return strings.Join(parts, " ")
}

// faultJSON is a fault as the control endpoint reads and lists it: the keys of FaultSyntax.
type faultJSON struct {
	Method       string          `json:"method,omitempty"`
	Path         string          `json:"path,omitempty"`
	PathContains string          `json:"contains,omitempty"`
	Status       int             `json:"status,omitempty"`
	Error        string          `json:"error,omitempty"`
	RetryAfter   json.RawMessage `json:"retry_after,omitempty"` // seconds, or a string like "1m"
	Delay        json.RawMessage `json:"delay,omitempty"`
	Drop         string          `json:"drop,omitempty"`
	Times        int             `json:"times,omitempty"`
	Skip         int             `json:"skip,omitempty"`
}

// MarshalJSON writes the fault with the keys of FaultSyntax; times is the uses it has left.
func (f Fault) MarshalJSON() ([]byte, error) {
	j := faultJSON{Method: cmp.Or(f.Method, "*"), Path: cmp.Or(f.Path, "*"), PathContains: f.PathContains,
		Status: f.Status, Error: f.ErrorID, Times: max(f.Count, 1), Skip: f.Skip}
	if f.RetryAfter > 0 {
		j.RetryAfter = strconv.AppendQuote(nil, f.RetryAfter.String())
	}
	if f.Delay > 0 {
		j.Delay = strconv.AppendQuote(nil, f.Delay.String())
	}
	if f.Drop {
		j.Drop = "before"
	}
	if f.DropAfter {
		j.Drop = "after"
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads a fault written with the keys of FaultSyntax, and checks it like ParseFault.
func (f *Fault) UnmarshalJSON(b []byte) error {
	var j faultJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return jsonProblem(err, faultKeys)
	}
	g := Fault{Method: j.Method, Path: j.Path, PathContains: j.PathContains, Status: j.Status, ErrorID: j.Error,
		Count: j.Times, Skip: j.Skip}
	var err error
	if g.RetryAfter, err = jsonDuration("retry_after", j.RetryAfter); err != nil {
		return err
	}
	if g.Delay, err = jsonDuration("delay", j.Delay); err != nil {
		return err
	}
	if j.Drop != "" {
		if g.Drop, g.DropAfter, err = dropWhen(j.Drop); err != nil {
			return err
		}
	}
	g, err = g.normalized()
	if err != nil {
		return err
	}
	*f = g
	return nil
}

// faultKeys are the keys of a rule in JSON.
const faultKeys = "method, path, status, error, retry_after, delay, drop, contains, times, skip"

// jsonProblem says what is wrong with a JSON object with the given keys, without Go's vocabulary.
func jsonProblem(err error, keys string) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te) && te.Field != "":
		return fmt.Errorf("%s must be a JSON %s", te.Field, jsonKind(te.Type.Kind().String()))
	case errors.As(err, &se):
		return fmt.Errorf("the rule is not valid JSON (at byte %d)", se.Offset)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("unknown key %s (keys: %s)", strings.TrimPrefix(err.Error(), "json: unknown field "), keys)
	}
	return fmt.Errorf("the rule is not valid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
}

// jsonDuration reads a duration given in JSON as a number of seconds or a string like "2s".
func jsonDuration(key string, raw json.RawMessage) (time.Duration, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		var secs float64
		if json.Unmarshal(raw, &secs) != nil || secs < 0 {
			return 0, fmt.Errorf("%s must be a number of seconds or a string like \"500ms\" or \"2s\"", key)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	return duration(key, s)
}

// duration reads whole seconds ("30") or a Go duration ("1m30s", "500ms").
func duration(key, value string) (time.Duration, error) {
	if n, err := strconv.Atoi(value); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(value)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s must be seconds (30) or a duration like 500ms, 2s or 1m, not %q", key, value)
	}
	return d, nil
}

func wholeNumber(key, value string) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s must be a whole number of 0 or more, not %q", key, value)
	}
	return n, nil
}

func dropWhen(value string) (before, after bool, err error) {
	switch value {
	case "before":
		return true, false, nil
	case "after":
		return false, true, nil
	}
	return false, false, fmt.Errorf("drop must be before or after, not %q", value)
}

func errorIDs() []string {
	ids := make([]string, 0, len(ynabErrors))
	for id := range ynabErrors {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// matches reports whether a request is one the fault is for.
func (f *Fault) matches(r *http.Request) bool {
	return (f.Method == "" || strings.EqualFold(f.Method, r.Method)) &&
		strings.Contains(r.URL.Path, f.PathContains) && pathMatches(f.Path, r.URL.Path)
}

// pathMatches matches a request path against a fault's pattern (see FaultSyntax), both taken
// under /v1, and with /budgets read as /plans: YNAB serves both, and so a rule covers both.
func pathMatches(pattern, path string) bool {
	if pattern == "" {
		return true
	}
	pattern, path = underAPI(pattern), underAPI(path)
	prefix := strings.HasSuffix(pattern, "/")
	want, got := segments(strings.TrimSuffix(pattern, "/")), segments(path)
	if len(got) < len(want) || (!prefix && len(got) != len(want)) {
		return false
	}
	for i, w := range want {
		wildcard := w == "*" || (strings.HasPrefix(w, "{") && strings.HasSuffix(w, "}"))
		if (wildcard && got[i] == "") || (!wildcard && w != got[i]) {
			return false
		}
	}
	return true
}

func underAPI(path string) string {
	if path == apiPrefix {
		path = "/"
	} else if rest, ok := strings.CutPrefix(path, apiPrefix+"/"); ok {
		path = "/" + rest
	}
	if tail, ok := strings.CutPrefix(path, budgetsSegment); ok && (tail == "" || tail[0] == '/') {
		path = plansSegment + tail
	}
	return path
}

func segments(path string) []string {
	path = strings.TrimPrefix(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

// faultResponse is the error answer of a fault, with its Retry-After header.
func faultResponse(f *Fault) response {
	res := errorResponse(faultError(f))
	if f.RetryAfter > 0 {
		secs := (f.RetryAfter + time.Second - 1) / time.Second
		res.header = append(res.header, [2]string{"Retry-After", strconv.FormatInt(int64(secs), 10)})
	}
	return res
}

// Faults returns the queued faults in the order they match, each with the uses it has left.
func (s *Sandbox) Faults() []Fault {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	fs := make([]Fault, len(s.faults))
	for i, f := range s.faults {
		fs[i] = *f
	}
	return fs
}

// ClearFaults removes every queued fault and returns how many there were.
func (s *Sandbox) ClearFaults() int {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	n := len(s.faults)
	s.faults = nil
	return n
}
