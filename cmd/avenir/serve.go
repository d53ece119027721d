package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/hosted"
	"github.com/avenir-mcp/avenir/journal/bolt"
	"github.com/avenir-mcp/avenir/tools"
	"github.com/avenir-mcp/avenir/tools/stdio"
	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

const serveUsage = `Usage: avenir serve [--sandbox [--sample NAME]] [--log-level LEVEL] [--http 127.0.0.1:PORT [--hosted]]

Runs the avenir MCP server on stdin/stdout for an MCP client (Claude Desktop, Claude Code,
VS Code, …). The client starts it; you do not run it by hand.

  --sandbox          use the built-in YNAB emulator and its sample plan instead of YNAB
  --sample NAME      with --sandbox: standard (default), large or large:N (see avenir sandbox --help)
  --log-level LEVEL  debug, info, warn or error (default info); logs go to stderr
  --http ADDRESS     serve MCP over Streamable HTTP at http://ADDRESS/mcp instead of stdio, for
                     clients that connect to a URL (loopback only); every request needs the
                     bearer secret given at start (printed on a terminal, else in a file
                     it names), or AVENIR_MCP_HTTP_SECRET
  --http-allow-remote  let --http listen on an address other machines can reach
  --hosted           with --http: avenir hosted, for many people who sign in with YNAB; its
                     settings are AVENIR_MCP_DATABASE_URL, AVENIR_MCP_PUBLIC_URL,
                     AVENIR_MCP_YNAB_CLIENT_ID, AVENIR_MCP_YNAB_CLIENT_SECRET and
                     AVENIR_MCP_SECRET_KEY (see the README, "avenir hosted"); optional
                     AVENIR_MCP_ALLOWED_ORIGINS and AVENIR_MCP_CLIENT_IP_HEADER
  --metrics-addr ADDRESS  with --hosted: where /metrics and /readyz listen, apart from the
                     public address (default 127.0.0.1:9464; off for nowhere)

Environment:
  YNAB_ACCESS_TOKEN               your YNAB personal access token; else YNAB_ACCESS_TOKEN_FILE,
                                  a file holding it; else the one 'avenir token set' kept
  AVENIR_MCP_PLAN                 the default plan (id or name); else YNAB's last-used plan
  AVENIR_MCP_READ_ONLY=1          offer no write tool at all
  AVENIR_MCP_REQUIRE_ELICITATION=1  only the user's own answer in the client may confirm a write
  AVENIR_MCP_CONFIRM=code         confirm by code even where the client declares elicitation
                                  (for clients whose questions never show)
  AVENIR_MCP_JOURNAL              the journal file (default $XDG_STATE_HOME/avenir/journal.db)
  AVENIR_MCP_YNAB_URL             YNAB's API base URL (default https://api.ynab.com/v1)
  AVENIR_MCP_FRESHNESS            seconds a read may reuse what was read (0 to 60, default 30)
`

const terminalHint = `avenir serve speaks MCP on stdin/stdout: it is meant to be started by an MCP client
(Claude Desktop, Claude Code, VS Code, …), not typed at. Add it to your client's configuration
(see README.md), or run 'avenir demo' to watch a session. Waiting for MCP messages on stdin; Ctrl-C stops.`

func runServe(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("avenir serve", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() { fmt.Fprint(e.stderr, serveUsage) }
	useSandbox := fs.Bool("sandbox", false, "use the built-in YNAB emulator")
	sampleName := fs.String("sample", "", "with --sandbox: standard, large or large:N")
	level := fs.String("log-level", "info", "debug, info, warn or error")
	httpOpts := addHTTPFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return usagef("serve: %v", err)
	}
	if fs.NArg() > 0 {
		return usagef("serve takes no arguments, got %q", fs.Args())
	}
	if err := httpOpts.check(); err != nil {
		return err
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		return usagef("serve: --log-level %q: use debug, info, warn or error", *level)
	}
	if httpOpts.hosted {
		if *useSandbox || *sampleName != "" {
			return usagef("serve: --hosted reaches YNAB (or a sandbox at AVENIR_MCP_YNAB_URL and AVENIR_MCP_YNAB_OAUTH_URL); --sandbox and --sample do not go with it")
		}
		return serveHosted(ctx, httpOpts.addr, httpOpts.metricsAddr, e, hosted.Logger(e.stderr, lvl))
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: lvl}))

	var token string
	baseURL := e.getenv("AVENIR_MCP_YNAB_URL")
	if *useSandbox {
		smp, state, err := sandboxSample("serve", *sampleName, "", e.getenv)
		if err != nil {
			return err
		}
		sb, err := sandbox.New(sandbox.Options{StatePath: state, Sample: smp})
		if err != nil {
			return fmt.Errorf("starting the sandbox: %w", err)
		}
		srv, err := sb.Listen("127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("starting the sandbox: %w", err)
		}
		defer srv.Close()
		baseURL, token = srv.URL, "sandbox"
		log.Info("sandbox YNAB emulator running", "url", srv.URL, "state", state)
	} else if *sampleName != "" {
		return usagef("serve: --sample goes with --sandbox")
	} else {
		if baseURL != "" {
			if err := ynab.CheckBaseURL("AVENIR_MCP_YNAB_URL", baseURL); err != nil {
				return usagef("serve: %v", err)
			}
		}
		var from tokenSource
		var err error
		if token, from, err = resolveToken(e); err != nil {
			return err
		}
		log.Info("YNAB token found", "in", from.Desc)
	}
	if isTerminal(e.stdin) && httpOpts.addr == "" {
		fmt.Fprintln(e.stderr, terminalHint)
	}

	freshness, err := ynab.ParseFreshness(e.getenv("AVENIR_MCP_FRESHNESS"))
	if err != nil {
		return usagef("serve: %v", err)
	}
	jpath := journalPath(e.getenv)
	j, err := bolt.Open(jpath, bolt.Options{})
	if err != nil {
		return err // it names the file and what is wrong with it
	}
	copts, err := confirmOptions(e.getenv)
	if err != nil {
		return err
	}
	asker, err := confirm.New(copts)
	if err != nil {
		return err
	}
	deps := tools.Deps{
		YNAB:        ynab.New(ynab.Options{BaseURL: baseURL, Token: token, Logger: log, MaxAge: freshness}),
		Confirm:     asker,
		Journal:     j,
		DefaultPlan: e.getenv("AVENIR_MCP_PLAN"),
		ReadOnly:    e.getenv("AVENIR_MCP_READ_ONLY") == "1",
		Logger:      log,
		Version:     version,

		StatementDirs: statementDirs(e.getenv),
	}
	tools.Settle(ctx, deps)
	if httpOpts.addr != "" {
		return serveHTTP(ctx, tools.NewServer(deps), httpOpts, e, log)
	}
	conn := stdio.New(e.stdin, e.stdout, stdio.Options{Logger: log})
	deps.AfterAnswer = conn.AfterAnswer // a write counts as answered once its answer is on stdout
	server := tools.NewServer(deps)
	log.Info("avenir serving MCP on stdio", "version", version, "ynab", deps.YNAB.BaseURL(), "journal", jpath, "read_only", deps.ReadOnly)
	return serveStdio(ctx, server, conn, log)
}

// drainTimeout bounds how long avenir, asked to stop, waits for the calls in flight: long
// enough for a write's YNAB requests (each has a 30 s timeout, and most take well under a
// second), short enough that a client that stops avenir is not kept waiting without end.
const drainTimeout = 45 * time.Second

// serveStdio runs server on conn, the transport on stdin and stdout, until the client closes
// stdin, the client stops reading stdout, or ctx ends (SIGTERM or SIGINT). Then it stops taking
// calls, lets the calls in flight finish (a confirmed write journals its outcome and is answered
// while stdout takes it), and returns nil: a stop is not a failure. Calls still running after
// drainTimeout are cancelled; a write cut off that way stays prepared in the journal and is
// resolved at the next start.
func serveStdio(ctx context.Context, server *mcp.Server, conn *stdio.Transport, log *slog.Logger) error {
	// A write to a closed stdout must fail (EPIPE) rather than kill the process with SIGPIPE
	// while a write is in flight.
	ignoreSIGPIPE()
	// The session's context is not ctx: a signal must not cancel the calls in flight.
	ss, err := server.Connect(context.WithoutCancel(ctx), conn, nil)
	if err != nil {
		return fmt.Errorf("serving MCP: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case <-ctx.Done():
		log.Info("stopping: asked to by a signal")
	case <-conn.Ended():
		log.Info("stopping: the client closed the connection")
	case err := <-done:
		return err
	}
	if left := conn.Shutdown(drainTimeout); left > 0 {
		log.Warn("stopping with calls still in flight; a write among them stays prepared in the journal until the next start resolves it",
			"calls", left, "waited", drainTimeout)
	}
	conn.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		log.Warn("a cancelled call did not end in time")
	}
	return nil
}

// ignoreSIGPIPE makes writes to a closed pipe fail with EPIPE instead of ending the process
// (os/signal: without Notify for SIGPIPE, a broken stdout kills a Go program).
func ignoreSIGPIPE() { signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) }

// isTerminal reports whether r is a terminal (a person typing, not an MCP client).
func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// statementDirs are the folders import_statement may read statement files from:
// AVENIR_MCP_STATEMENT_DIRS, a path list, or else the person's Downloads folder.
func statementDirs(getenv func(string) string) []string {
	if v := getenv("AVENIR_MCP_STATEMENT_DIRS"); strings.TrimSpace(v) != "" {
		var dirs []string
		for _, d := range filepath.SplitList(v) {
			if d = strings.TrimSpace(d); d != "" {
				dirs = append(dirs, d)
			}
		}
		return dirs
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return nil
		}
	}
	return []string{filepath.Join(home, "Downloads")}
}
