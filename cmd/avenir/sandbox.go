package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

const sandboxUsage = `Usage:
  avenir sandbox serve [--addr 127.0.0.1:8765] [--state FILE] [--token TOKEN] [--rate-limit N] [--allow-remote]
  avenir sandbox reset [--state FILE]

serve runs the YNAB API emulator with its sample plan on its own, for any YNAB client: it prints
its base URL (like http://127.0.0.1:8765/v1), logs each request on stderr, and saves its state
when stopped (Ctrl-C). reset restores the sample plan in the state file; stop a running sandbox
on the same file first, or it writes its own state back.

Flags:
  --addr ADDR        where to listen (default 127.0.0.1:8765; port 0 picks a free one)
  --allow-remote     allow an address other than loopback: the sandbox has no real security
  --state FILE       the state file (default: the one 'avenir serve --sandbox' uses,
                     $XDG_STATE_HOME/avenir/sandbox.json)
  --token TOKEN      accept only this bearer token (default: any)
  --rate-limit N     answer 429 after N requests in an hour, as YNAB does (default 0: no limit)
`

func runSandbox(ctx context.Context, args []string, e env) error {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, sandboxUsage)
		return usagef("sandbox: say serve or reset")
	}
	switch args[0] {
	case "serve":
		return sandboxServe(ctx, args[1:], e)
	case "reset":
		return sandboxReset(args[1:], e)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(e.stdout, sandboxUsage)
		return errHelp
	default:
		fmt.Fprint(e.stderr, sandboxUsage)
		return usagef("sandbox: unknown command %q", args[0])
	}
}

func sandboxServe(ctx context.Context, args []string, e env) error {
	fs := sandboxFlags("sandbox serve", e)
	addr := fs.String("addr", "127.0.0.1:8765", "where to listen")
	state := fs.String("state", sandboxStatePath(e.getenv), "the state file")
	token := fs.String("token", "", "accept only this bearer token")
	rateLimit := fs.Int("rate-limit", 0, "requests allowed per hour")
	allowRemote := fs.Bool("allow-remote", false, "allow a non-loopback address")
	if err := parseSandboxFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *rateLimit < 0:
		return usagef("sandbox serve: --rate-limit must be 0 (no limit) or more, not %d", *rateLimit)
	case !*allowRemote && !isLoopback(*addr):
		return usagef("sandbox serve: %s is not a loopback address; the sandbox accepts any token, so it listens "+
			"only on this machine (like 127.0.0.1:8765) unless you add --allow-remote", *addr)
	}
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	sb, err := sandbox.New(sandbox.Options{StatePath: *state, Token: *token, RateLimit: *rateLimit, Logger: log})
	if err != nil {
		return err
	}
	srv, err := sb.Listen(*addr)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, srv.URL)
	log.Info("sandbox serving the YNAB API", "url", srv.URL, "state", *state)
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		return fmt.Errorf("sandbox: stopping: %w", err)
	}
	log.Info("sandbox stopped, state saved", "state", *state)
	return nil
}

func sandboxReset(args []string, e env) error {
	fs := sandboxFlags("sandbox reset", e)
	state := fs.String("state", sandboxStatePath(e.getenv), "the state file")
	if err := parseSandboxFlags(fs, args); err != nil {
		return err
	}
	sb, err := sandbox.New(sandbox.Options{StatePath: *state})
	if err != nil {
		return err
	}
	if err := sb.Reset(); err != nil {
		return fmt.Errorf("sandbox reset: %w", err)
	}
	fmt.Fprintf(e.stdout, "The sandbox's sample plan is restored in %s.\n", *state)
	return nil
}

func sandboxFlags(name string, e env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), sandboxUsage) }
	return fs
}

// parseSandboxFlags parses a subcommand's flags: --help is errHelp, a bad flag or a stray
// argument is a usage error.
func parseSandboxFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return errHelp
	case err != nil:
		return usagef("%s: %v", fs.Name(), err)
	case fs.NArg() > 0:
		return usagef("%s takes no arguments, got %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// isLoopback reports whether addr (host:port) listens on this machine only.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
