package hosted

import (
	"io"
	"log/slog"
	"regexp"
	"strings"
)

// Logger is avenir hosted's log: JSON lines on w (stderr), for a log collector. Tool errors
// are worded for the person and may name amounts of their money, so every number in an error
// attribute is masked; ids and dates (digits joined to letters or hyphens) stay.
func Logger(w io.Writer, lvl slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lvl, ReplaceAttr: maskMoneyAttr}))
}

// number is a run of digits with decimal or thousands separators.
var number = regexp.MustCompile(`\d+(?:[.,]\d+)*`)

// maskMoney replaces every number in s that stands on its own by "#": a tool's error is worded
// for the person and may name amounts of their money, which a log must not keep. A number
// joined to an id's characters (a letter, '_', ':' or '/', or a hyphen between letters or
// digits) stays, as in ids, dates and times, and so does an HTTP status code ([isStatusCode]).
func maskMoney(s string) string {
	idChar := func(b byte) bool {
		return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_' || b == ':' || b == '/'
	}
	alnum := func(b byte) bool { return idChar(b) || b >= '0' && b <= '9' }
	var out strings.Builder
	last := 0
	for _, loc := range number.FindAllStringIndex(s, -1) {
		i, j := loc[0], loc[1]
		before := i > 0 && (idChar(s[i-1]) || s[i-1] == '-' && i > 1 && alnum(s[i-2]))
		after := j < len(s) && (idChar(s[j]) || s[j] == '-' && j+1 < len(s) && alnum(s[j+1]))
		if before || after || isStatusCode(s, i, j) {
			continue
		}
		out.WriteString(s[last:i])
		out.WriteByte('#')
		last = j
	}
	out.WriteString(s[last:])
	return out.String()
}

// statusWords are what precede an HTTP status code in avenir's and YNAB's error messages ("YNAB
// answered HTTP 503 …", "GET /user answered 401 Unauthorized", "status 429").
var statusWords = []string{"http ", "http/1.1 ", "http/2 ", "answered ", "status ", "status=", "status: ", "code "}

// isStatusCode: the number s[i:j] is an HTTP status code (three digits, 100 to 599) right after
// one of statusWords. It is kept: an operator reading the log must tell a 429 from a 503, and a
// status is no amount of anyone's money.
func isStatusCode(s string, i, j int) bool {
	if j-i != 3 || s[i] < '1' || s[i] > '5' {
		return false
	}
	before := strings.ToLower(s[max(0, i-10):i])
	for _, w := range statusWords {
		if strings.HasSuffix(before, w) {
			return true
		}
	}
	return false
}

// maskMoneyAttr is the hosted log's ReplaceAttr: errors (the keys "error" and "err") lose
// their numbers.
func maskMoneyAttr(_ []string, a slog.Attr) slog.Attr {
	if a.Key != "error" && a.Key != "err" {
		return a
	}
	v := a.Value.Resolve()
	var s string
	switch v.Kind() {
	case slog.KindString:
		s = v.String()
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			s = err.Error()
		} else {
			return a
		}
	default:
		return a
	}
	return slog.String(a.Key, maskMoney(s))
}
