package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/tools"
	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

const serveUsage = `Usage: avenir serve [--sandbox] [--log-level LEVEL] [--http 127.0.0.1:PORT]

Runs the avenir MCP server on stdin/stdout for an MCP client (Claude Desktop, Claude Code,
VS Code, …). The client starts it; you do not run it by hand.

  --sandbox          use the built-in YNAB emulator and its sample plan instead of YNAB
  --log-level LEVEL  debug, info, warn or error (default info); logs go to stderr
  --http ADDRESS     serve MCP over Streamable HTTP at http://ADDRESS/mcp instead of stdio, for
                     clients that connect to a URL (loopback only); every request needs the
                     bearer secret printed at start, or AVENIR_MCP_HTTP_SECRET
  --http-allow-remote  let --http listen on an address other machines can reach

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
`

const terminalHint = `avenir serve speaks MCP on stdin/stdout: it is meant to be started by an MCP client
(Claude Desktop, Claude Code, VS Code, …), not typed at. Add it to your client's configuration
(see README.md), or run 'avenir demo' to watch a session. Waiting for MCP messages on stdin; Ctrl-C stops.`

func runServe(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("avenir serve", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() { fmt.Fprint(e.stderr, serveUsage) }
	useSandbox := fs.Bool("sandbox", false, "use the built-in YNAB emulator")
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
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: lvl}))

	var token string
	baseURL := e.getenv("AVENIR_MCP_YNAB_URL")
	if *useSandbox {
		sb, err := sandbox.New(sandbox.Options{StatePath: sandboxStatePath(e.getenv)})
		if err != nil {
			return fmt.Errorf("starting the sandbox: %w", err)
		}
		srv, err := sb.Listen("127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("starting the sandbox: %w", err)
		}
		defer srv.Close()
		baseURL, token = srv.URL, "sandbox"
		log.Info("sandbox YNAB emulator running", "url", srv.URL, "state", sandboxStatePath(e.getenv))
	} else {
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

	jpath := journalPath(e.getenv)
	j, err := journal.Open(jpath, journal.Options{})
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
		YNAB:        ynab.New(ynab.Options{BaseURL: baseURL, Token: token, Logger: log}),
		Confirm:     asker,
		Journal:     j,
		DefaultPlan: e.getenv("AVENIR_MCP_PLAN"),
		ReadOnly:    e.getenv("AVENIR_MCP_READ_ONLY") == "1",
		Logger:      log,
		Version:     version,
	}
	recoverJournal(ctx, j, deps, log)
	server := tools.NewServer(deps)
	if httpOpts.addr != "" {
		return serveHTTP(ctx, server, httpOpts, e, log)
	}
	log.Info("avenir serving MCP on stdio", "version", version, "ynab", deps.YNAB.BaseURL(), "journal", jpath, "read_only", deps.ReadOnly)
	err = server.Run(ctx, &mcp.IOTransport{Reader: readCloser(e.stdin), Writer: writeCloser(e.stdout)})
	if err != nil && ctx.Err() == nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		return fmt.Errorf("serving MCP: %w", err)
	}
	return nil
}

// isTerminal reports whether r is a terminal (a person typing, not an MCP client).
func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// readCloser and writeCloser adapt the env's streams for mcp.IOTransport; closing them is the
// process's business, not the transport's.
func readCloser(r io.Reader) io.ReadCloser { return io.NopCloser(r) }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func writeCloser(w io.Writer) io.WriteCloser { return nopWriteCloser{w} }

// recoverJournal resolves the operations a crash left prepared, by asking YNAB whether their
// changes are there. One it cannot decide now (YNAB unreachable) stays prepared for next time;
// the server starts either way.
func recoverJournal(ctx context.Context, j *journal.Journal, d tools.Deps, log *slog.Logger) {
	pending, err := j.Pending()
	if err != nil || len(pending) == 0 {
		if err != nil {
			log.Warn("journal: could not look for unfinished operations", "err", err)
		}
		return
	}
	resolved, err := j.Recover(ctx, tools.NewRecovery(d))
	for _, op := range resolved {
		log.Info("journal: resolved an operation a crash left unfinished", "operation", op.ID, "tool", op.Tool, "status", op.Status)
	}
	if err != nil {
		log.Warn("journal: some unfinished operations could not be resolved yet; they stay prepared", "err", err)
	}
}
