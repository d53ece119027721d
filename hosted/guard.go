package hosted

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Defaults of the HTTP server's timeouts, sized for MCP: a request's body is small and sent at
// once, so 30 s for it is generous; a response may stream for as long as a tool call waits (a
// confirmation, YNAB), so there is no write timeout and no whole-request read timeout (either
// would cut a stream mid-call); a keep-alive connection with nothing in flight is closed after
// two minutes.
const (
	DefaultHeaderTimeout = 10 * time.Second
	DefaultBodyTimeout   = 30 * time.Second
	DefaultIdleTimeout   = 120 * time.Second
)

// originGuard refuses, with 403, a request whose Origin header names a web origin other than
// avenir's public one or those the operator allows (the Streamable HTTP transport's "Security
// Warning": servers MUST validate Origin, against DNS rebinding and pages that drive a browser
// at the endpoint). A request without Origin — every native and server-side MCP client — passes.
func originGuard(public string, allowed []string, log *slog.Logger, next http.Handler) http.Handler {
	ok := map[string]bool{strings.ToLower(public): true}
	for _, a := range allowed {
		ok[strings.ToLower(strings.TrimRight(a, "/"))] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !ok[strings.ToLower(o)] {
			log.Warn("refused a request to /mcp from a foreign origin", "origin", o, "status", http.StatusForbidden)
			http.Error(w, "this origin may not use avenir's MCP endpoint", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bodyDeadline gives a request d to deliver its body: a body that never arrives (or trickles)
// ends with a read error instead of holding the connection forever. Once the body has been read
// to its end the deadline is lifted, so a response that streams for long is not cut.
func bodyDeadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(d)); err != nil {
			next.ServeHTTP(w, r)
			return
		}
		r.Body = &liftOnEOF{ReadCloser: r.Body, lift: func() { rc.SetReadDeadline(time.Time{}) }}
		next.ServeHTTP(w, r)
	})
}

type liftOnEOF struct {
	io.ReadCloser
	lift   func()
	lifted bool
}

func (b *liftOnEOF) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.lifted {
		b.lifted = true
		b.lift()
	}
	return n, err
}
