package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// sandboxUsage is the help of `avenir sandbox`; the fault rules' syntax is the sandbox's own.
var sandboxUsage = `Usage:
  avenir sandbox serve [--addr 127.0.0.1:8765] [--state FILE] [--sample NAME] [--token TOKEN]
                       [--rate-limit N] [--fault RULE]... [--export-cost D] [--allow-remote]
                       [--oauth-client ID:SECRET[:REDIRECT_URI]]...
  avenir sandbox reset [--state FILE] [--sample NAME]
  avenir sandbox statements DIR

serve runs the YNAB API emulator with its sample plan on its own, for any YNAB client: it prints
its base URL (like http://127.0.0.1:8765/v1), logs each request on stderr, and saves its state
when stopped (Ctrl-C). reset restores the sample plan in the state file; stop a running sandbox
on the same file first, or it writes its own state back. statements writes the sample's bank
statements for its Betaalrekening into DIR (made if need be), dated by today as the sample is:
ING's CSV, OFX, CAMT.053 and MT940, for import_statement to try (put DIR in
AVENIR_MCP_STATEMENT_DIRS, or write them into your Downloads folder).

Flags:
  --addr ADDR        where to listen (default 127.0.0.1:8765; port 0 picks a free one)
  --allow-remote     allow an address other than loopback: the sandbox has no real security
  --state FILE       the state file (default: the one 'avenir serve --sandbox' uses,
                     $XDG_STATE_HOME/avenir/sandbox.json; sandbox-large.json beside it for
                     a large sample)
  --sample NAME      the plan a new state starts from and reset restores: standard (the
                     default), large (a family's plan with 50000 transactions over 14 years)
                     or large:N (N transactions, 1000 to 200000, history about N/300 months).
                     serve refuses a state file that holds another sample: reset it first
  --token TOKEN      accept only this bearer token (default: any); with --oauth-client, the
                     personal access token of the sandbox's own user (default: none)
  --rate-limit N     answer 429 after N requests in an hour, as YNAB does (default 0: no limit)
  --fault RULE       answer some requests with an error, a delay or a dropped connection,
                     to test a client's error handling; repeat it for more rules (below)
  --export-cost D    what each transaction costs the full plan export GET /plans/{plan_id}
                     (like 1ms): past YNAB's 30 seconds it answers YNAB's 503 at once, as YNAB
                     does for a large plan, while deltas and the other endpoints still answer
                     (default 0: free)
  --oauth-client ID:SECRET[:REDIRECT_URI]
                     register an OAuth application, and play YNAB's OAuth (below); repeat it
                     for more applications, or with the same ID:SECRET for more redirect URIs
                     (without one, any http or https redirect URI is accepted)

Fault rules, for --fault and the control endpoint:
  ` + strings.ReplaceAll(sandbox.FaultSyntax, "\n", "\n  ") + `
  Rules are tried in the order given: one that matches and still has skips left
  counts the request as skipped and lets the next rules try it; the first that
  matches without skips answers it and uses one of its times. For example:
    --fault 'POST /plans/*/transactions status=503 times=2'
    --fault 'GET /plans/{plan_id}/ status=429 retry-after=60 skip=3'
    --fault 'PATCH * drop=after'

The control endpoint, beside /v1 on the same address, steers a running sandbox. It answers
only this machine, with the sandbox's token (any bearer token when started without --token),
and its requests are not counted, rate-limited or faulted:
  GET|POST|DELETE  /_sandbox/faults       list, add or clear the fault rules; POST takes a
                   JSON rule ({"method":"POST","path":"/plans/*/transactions","status":503,
                   "times":2}; keys as above, retry_after and delay in seconds or like "2s"),
                   a JSON array of them, or rules as text, one a line
  GET|DELETE       /_sandbox/counts       the YNAB requests received by route, or start again
  GET|PUT          /_sandbox/export_cost  {"per_transaction":"1ms","limit":"30s"}
  POST             /_sandbox/oauth/expire expire every live OAuth access token at once
  POST             /_sandbox/oauth/revoke revoke every OAuth token, or one user's with
                   {"user":"NAME"}

YNAB's OAuth, with --oauth-client: /oauth/authorize (beside /v1) shows a consent page where any
login name signs in as a user of its own, who starts with their own copy of the sample plans;
/oauth/token takes the authorization_code and refresh_token grants (refresh tokens rotate).
Access tokens last 2 hours and reach only their user's plans; scope=read-only ones cannot
write. Users and their tokens (hashed) are kept in the state file.
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
	case "statements":
		return sandboxStatements(args[1:], e)
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
	state := fs.String("state", "", "the state file")
	sampleName := fs.String("sample", "", "standard, large or large:N")
	token := fs.String("token", "", "accept only this bearer token")
	rateLimit := fs.Int("rate-limit", 0, "requests allowed per hour")
	allowRemote := fs.Bool("allow-remote", false, "allow a non-loopback address")
	exportCost := fs.Duration("export-cost", 0, "what one transaction costs the full plan export")
	var clients []sandbox.OAuthClient
	fs.Func("oauth-client", "an OAuth application, ID:SECRET[:REDIRECT_URI]; repeat for more", func(v string) error {
		var err error
		clients, err = addOAuthClient(clients, v)
		return err
	})
	var faults []sandbox.Fault
	fs.Func("fault", "a fault rule; repeat for more", func(rule string) error {
		f, err := sandbox.ParseFault(rule)
		if err == nil {
			faults = append(faults, f)
		}
		return err
	})
	if err := parseSandboxFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *rateLimit < 0:
		return usagef("sandbox serve: --rate-limit must be 0 (no limit) or more, not %d", *rateLimit)
	case *exportCost < 0:
		return usagef("sandbox serve: --export-cost must be 0 (free) or more, like 1ms, not %s", *exportCost)
	case !*allowRemote && !isLoopback(*addr) && len(clients) > 0:
		return usagef("sandbox serve: %s is not a loopback address; the sandbox's OAuth signs in anyone under any name, "+
			"so it listens only on this machine (like 127.0.0.1:8765) unless you add --allow-remote", *addr)
	case !*allowRemote && !isLoopback(*addr):
		return usagef("sandbox serve: %s is not a loopback address; the sandbox accepts any token, so it listens "+
			"only on this machine (like 127.0.0.1:8765) unless you add --allow-remote", *addr)
	}
	smp, path, err := sandboxSample("sandbox serve", *sampleName, *state, e.getenv)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	sb, err := sandbox.New(sandbox.Options{StatePath: path, Token: *token, RateLimit: *rateLimit, Logger: log,
		Sample: smp, ExportCost: *exportCost, OAuthClients: clients})
	if err != nil {
		return err
	}
	for _, f := range faults {
		sb.InjectFault(f)
		log.Info("sandbox fault queued", "rule", f.String())
	}
	srv, err := sb.Listen(*addr)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, srv.URL)
	log.Info("sandbox serving the YNAB API", "url", srv.URL, "state", path, "sample", sb.Sample().String())
	if len(clients) > 0 {
		ids := make([]string, len(clients))
		for i, c := range clients {
			ids[i] = c.ID // never the secret
		}
		log.Info("sandbox playing YNAB's OAuth", "authorize", srv.AuthorizeURL(), "token", srv.TokenURL(),
			"clients", strings.Join(ids, ","))
	}
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		return fmt.Errorf("sandbox: stopping: %w", err)
	}
	log.Info("sandbox stopped, state saved", "state", path)
	return nil
}

func sandboxReset(args []string, e env) error {
	fs := sandboxFlags("sandbox reset", e)
	state := fs.String("state", "", "the state file")
	sampleName := fs.String("sample", "", "standard, large or large:N")
	if err := parseSandboxFlags(fs, args); err != nil {
		return err
	}
	smp, path, err := sandboxSample("sandbox reset", *sampleName, *state, e.getenv)
	if err != nil {
		return err
	}
	sb, err := sandbox.New(sandbox.Options{StatePath: path}) // whatever it holds: reset replaces it
	if err != nil {
		return err
	}
	if *sampleName != "" {
		err = sb.ResetTo(smp)
	} else {
		err = sb.Reset()
	}
	if err != nil {
		return fmt.Errorf("sandbox reset: %w", err)
	}
	fmt.Fprintf(e.stdout, "The sandbox's %s sample plan is restored in %s.\n", sb.Sample(), path)
	return nil
}

// sandboxStatements writes the sample's statements into the folder args names.
func sandboxStatements(args []string, e env) error {
	fs := sandboxFlags("sandbox statements", e)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return usagef("sandbox statements: %v", err)
	}
	if fs.NArg() != 1 {
		return usagef("sandbox statements: give the folder to write them into, and nothing else")
	}
	dir := fs.Arg(0)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("sandbox statements: %w", err)
	}
	for _, s := range sandbox.SampleStatements(time.Now()) {
		path := filepath.Join(dir, s.Name)
		if err := os.WriteFile(path, s.Data, 0o644); err != nil {
			return fmt.Errorf("sandbox statements: %w", err)
		}
		fmt.Fprintf(e.stdout, "%s (%s)\n", path, s.Format)
	}
	return nil
}

// addOAuthClient reads an --oauth-client value, ID:SECRET[:REDIRECT_URI], into the applications
// given so far: the same ID and SECRET again adds a redirect URI to that application.
func addOAuthClient(clients []sandbox.OAuthClient, v string) ([]sandbox.OAuthClient, error) {
	id, rest, ok := strings.Cut(v, ":")
	secret, uri, _ := strings.Cut(rest, ":")
	if !ok || id == "" || secret == "" {
		return nil, errors.New("it must be ID:SECRET or ID:SECRET:REDIRECT_URI, with a client id and a secret that have no ':'")
	}
	for i, c := range clients {
		if c.ID != id {
			continue
		}
		if c.Secret != secret {
			return nil, fmt.Errorf("the OAuth client %q is given twice with different secrets", id)
		}
		if uri == "" || len(c.RedirectURIs) == 0 {
			return nil, fmt.Errorf("the OAuth client %q is given twice: repeat it only to add redirect URIs, each time with one", id)
		}
		clients[i].RedirectURIs = append(c.RedirectURIs, uri)
		return clients, nil
	}
	c := sandbox.OAuthClient{ID: id, Secret: secret}
	if uri != "" {
		c.RedirectURIs = []string{uri}
	}
	return append(clients, c), nil
}

// sandboxSample reads --sample ("" leaves it to the state file) and picks the state file: the
// one given, else the default one for the sample, so that trying the large sample does not
// replace the plan 'avenir serve --sandbox' works on.
func sandboxSample(cmd, name, state string, getenv func(string) string) (sandbox.Sample, string, error) {
	var smp sandbox.Sample
	if name != "" {
		var err error
		if smp, err = sandbox.ParseSample(name); err != nil {
			return smp, "", usagef("%s: --sample: %v", cmd, err)
		}
	}
	if state == "" {
		state = sandboxStatePath(getenv)
		if strings.HasPrefix(smp.String(), "large") {
			state = filepath.Join(filepath.Dir(state), "sandbox-large.json")
		}
	}
	return smp, state, nil
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
