package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/hosted"
)

// Streamable HTTP for clients that connect to a URL rather than start a process. It listens on
// loopback unless told otherwise, and guards every request three ways: the Host header must
// name this machine (a web page that rebinds its own domain to 127.0.0.1 cannot reach it, see
// modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices), a browser's
// Origin must be this server's own, and the request must carry the bearer secret given at
// start (printed on a terminal, else in a file only its owner can read). The secret is what keeps other local users and programs out; the first two keep out
// web pages.
//
// The MCP endpoint itself is hosted.MCPHandler, the one avenir hosted serves too: 2026-07-28
// and later statelessly, older protocols with a session.

// httpFlags are serve's HTTP options.
type httpFlags struct {
	addr        string
	allowRemote bool
	hosted      bool   // avenir hosted: many people, signed in with YNAB (package hosted; wired in hosted.go)
	metricsAddr string // with hosted: where /metrics and /readyz listen ("off" or "": nowhere)
}

func addHTTPFlags(fs *flag.FlagSet) *httpFlags {
	h := &httpFlags{}
	fs.StringVar(&h.addr, "http", "", "serve MCP over Streamable HTTP at this address (127.0.0.1:PORT) instead of stdio")
	fs.BoolVar(&h.allowRemote, "http-allow-remote", false, "let --http listen on an address other machines can reach")
	fs.BoolVar(&h.hosted, "hosted", false, "with --http: serve many people, signed in with YNAB, on PostgreSQL (see the README)")
	fs.StringVar(&h.metricsAddr, "metrics-addr", defaultMetricsAddr, "with --hosted: where /metrics and /readyz listen, apart from the public address (off: nowhere)")
	return h
}

// check refuses an address other machines can reach, unless allowed: the bearer secret is the
// only lock on it then, and it travels in plain HTTP.
func (h *httpFlags) check() error {
	if h.hosted {
		// Hosted avenir is meant to be reached from elsewhere; OAuth guards it, not the address.
		if h.addr == "" {
			return usagef("serve: --hosted goes with --http ADDRESS (like :8080)")
		}
		if _, _, err := net.SplitHostPort(h.addr); err != nil {
			return usagef("serve: --http %q: give an address and port, like :8080 or 0.0.0.0:8080", h.addr)
		}
		if h.metricsAddr != "off" && h.metricsAddr != "" {
			if _, _, err := net.SplitHostPort(h.metricsAddr); err != nil {
				return usagef("serve: --metrics-addr %q: give an address and port, like 127.0.0.1:9464, or off", h.metricsAddr)
			}
		}
		return nil
	}
	if h.addr == "" {
		if h.allowRemote {
			return usagef("serve: --http-allow-remote goes with --http ADDRESS")
		}
		return nil
	}
	host, _, err := net.SplitHostPort(h.addr)
	if err != nil {
		return usagef("serve: --http %q: give an address and port, like 127.0.0.1:8765", h.addr)
	}
	if !h.allowRemote && !loopbackHost(host) {
		return usagef("serve: --http %q is reachable from other machines; use 127.0.0.1:PORT, or add --http-allow-remote if you mean it (the bearer secret is then the only lock, over plain HTTP)", h.addr)
	}
	return nil
}

// defaultMetricsAddr is where avenir hosted's metrics and readiness listen unless told: loopback
// (Prometheus's port for exporters of this kind), so that nothing of them reaches the Internet
// by default.
const defaultMetricsAddr = "127.0.0.1:9464"

// httpSecretBytes is the random part of a generated bearer secret: 256 bits.
const httpSecretBytes = 32

// serveHTTP serves server over Streamable HTTP at h.addr until ctx ends. The endpoint goes to
// stderr (stdout stays unused: in stdio mode nothing but MCP may go there), and so does a
// generated bearer secret when stderr is a terminal, a person reading it. Otherwise stderr is
// a log (a process manager's, a service's journal) that keeps the secret for whoever reads it
// later: the secret goes to a file only its owner can read, and stderr names the file.
func serveHTTP(ctx context.Context, server *mcp.Server, h *httpFlags, e env, log *slog.Logger) error {
	secret := strings.TrimSpace(e.getenv("AVENIR_MCP_HTTP_SECRET"))
	fixed := secret != ""
	switch {
	case !fixed:
		b := make([]byte, httpSecretBytes)
		if _, err := io.ReadFull(rand.Reader, b); err != nil {
			return fmt.Errorf("drawing the HTTP bearer secret: %w", err)
		}
		secret = base64.RawURLEncoding.EncodeToString(b)
	case len(secret) < 32:
		return errors.New("AVENIR_MCP_HTTP_SECRET is too short to guard the server: use at least 32 random characters, or unset it for a new secret at every start")
	}
	ln, err := net.Listen("tcp", h.addr)
	if err != nil {
		return fmt.Errorf("serve --http: %w", err)
	}
	endpoint := "http://" + ln.Addr().String() + "/mcp"
	srv := &http.Server{
		Handler:           newHTTPHandler(server, ln.Addr().(*net.TCPAddr), h.allowRemote, secret, log),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	fmt.Fprintf(e.stderr, "avenir serving MCP over Streamable HTTP at %s\n", endpoint)
	secretFile := ""
	switch {
	case fixed:
		// The person chose it and has it: no copy anywhere.
		fmt.Fprintln(e.stderr, "Every request needs the header:  Authorization: Bearer SECRET, with the secret in AVENIR_MCP_HTTP_SECRET")
	case isTerminal(e.stderr):
		fmt.Fprintf(e.stderr, "Every request needs the header:  Authorization: Bearer %s\n", secret)
	default:
		secretFile = httpSecretPath(e.getenv, ln.Addr().(*net.TCPAddr).Port)
		if err := writeSecretFile(secretFile, secret); err != nil {
			ln.Close()
			return fmt.Errorf("serve --http: keeping the bearer secret: %w", err)
		}
		defer os.Remove(secretFile) // the secret dies with the server
		fmt.Fprintf(e.stderr, "Every request needs the header:  Authorization: Bearer SECRET, with the secret in %s (readable by you only)\n", secretFile)
	}
	attrs := []any{"version", version, "endpoint", endpoint, "remote", h.allowRemote}
	if secretFile != "" {
		attrs = append(attrs, "secret_file", secretFile)
	}
	log.Info("avenir serving MCP over HTTP", attrs...)

	if err := hosted.ServeUntil(ctx, srv, ln, 5*time.Second); err != nil {
		return fmt.Errorf("serve --http: %w", err)
	}
	return nil
}

// httpSecretPath is where serve --http keeps a generated secret when stderr is no terminal:
// one file per port in the state directory, so that two servers do not take each other's, and
// a restart on the same port replaces the secret that died with the last one.
func httpSecretPath(getenv func(string) string, port int) string {
	return filepath.Join(stateDir(getenv), fmt.Sprintf("http-%d.secret", port))
}

// newHTTPHandler is the guarded MCP endpoint at /mcp for a server listening on addr.
func newHTTPHandler(server *mcp.Server, addr *net.TCPAddr, allowRemote bool, secret string, log *slog.Logger) http.Handler {
	// The guard below checks Host itself; the SDK's own check would refuse a remote address's
	// Host when --http-allow-remote is given.
	mux := http.NewServeMux()
	mux.Handle("/mcp", hosted.MCPHandler(func(*http.Request) *mcp.Server { return server },
		hosted.MCPOptions{Logger: log, DisableLocalhostProtection: allowRemote}))
	return &httpGuard{next: mux, port: addr.Port, allowRemote: allowRemote, secret: []byte(secret), log: log}
}

// httpGuard lets a request through only with a Host naming this machine (unless remote access
// was allowed), no foreign Origin, and the bearer secret.
type httpGuard struct {
	next        http.Handler
	port        int
	allowRemote bool
	secret      []byte
	log         *slog.Logger
}

func (g *httpGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.allowRemote && !g.localHost(r.Host) {
		g.refuse(w, r, http.StatusForbidden, "this server answers only requests addressed to this machine (Host 127.0.0.1, localhost or [::1])")
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !g.ownOrigin(o, r.Host) {
		g.refuse(w, r, http.StatusForbidden, "requests from web pages are not served")
		return
	}
	auth := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), g.secret) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="avenir"`)
		g.refuse(w, r, http.StatusUnauthorized, "send the bearer secret avenir gave at start (on its terminal, or in the file it named): Authorization: Bearer SECRET")
		return
	}
	g.next.ServeHTTP(w, r)
}

func (g *httpGuard) refuse(w http.ResponseWriter, r *http.Request, status int, why string) {
	g.log.Warn("refused an HTTP request", "status", status, "remote", r.RemoteAddr, "host", r.Host, "origin", r.Header.Get("Origin"), "why", why)
	http.Error(w, why, status)
}

// localHost reports whether a Host header names this machine at this server's port.
func (g *httpGuard) localHost(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	return port == fmt.Sprint(g.port) && loopbackHost(strings.Trim(host, "[]"))
}

// ownOrigin reports whether a browser's Origin is this server itself.
func (g *httpGuard) ownOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" {
		return false
	}
	if g.allowRemote {
		return u.Host == host
	}
	return g.localHost(u.Host)
}
