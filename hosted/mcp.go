package hosted

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StatelessFrom is the first protocol version served without a session. The go-sdk serves
// protocol 2026-07-28 over HTTP only statelessly, while older clients need a session for the
// server's own elicitation/create requests; so requests that announce 2026-07-28 or later
// (Mcp-Protocol-Version) go to a stateless handler and the rest to a stateful one, both in front
// of the same servers.
const StatelessFrom = "2026-07-28"

// sessionTimeout is how long an older protocol's session lives without a request.
const sessionTimeout = 30 * time.Minute

// MCPOptions are what MCPHandler's two go-sdk handlers are given.
type MCPOptions struct {
	Logger *slog.Logger
	// DisableLocalhostProtection turns the go-sdk's DNS-rebinding guard off, for a server that
	// guards the Host header itself (serve --http with --http-allow-remote) or that sits behind
	// a load balancer, where the Host header is the public one and the peer may be a proxy on
	// loopback.
	DisableLocalhostProtection bool
}

// MCPHandler is avenir's one MCP endpoint over Streamable HTTP, for `serve --http` (one server
// for everyone) and `serve --hosted` (a server per person): 2026-07-28 and later statelessly,
// older protocols with a session (which a load balancer must keep on one instance: see the
// README). getServer returns the server for a request, or nil to refuse it.
func MCPHandler(getServer func(*http.Request) *mcp.Server, opts MCPOptions) http.Handler {
	stateful := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Logger: opts.Logger, SessionTimeout: sessionTimeout, DisableLocalhostProtection: opts.DisableLocalhostProtection})
	stateless := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Logger: opts.Logger, Stateless: true, DisableLocalhostProtection: opts.DisableLocalhostProtection})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("Mcp-Protocol-Version"); v >= StatelessFrom {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
}

// ServeUntil serves srv on ln until ctx ends, then lets the requests in flight finish within
// drain and closes what is still open after it (a GET stream that waits for news never ends by
// itself). `serve --http` and Serve stop the same way.
func ServeUntil(ctx context.Context, srv *http.Server, ln net.Listener, drain time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, stop := context.WithTimeout(context.Background(), drain)
	defer stop()
	if err := srv.Shutdown(shutdown); err != nil {
		_ = srv.Close()
	}
	return nil
}
