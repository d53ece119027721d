package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/journal/bolt"
	"github.com/avenir-mcp/avenir/ynab"
)

// `avenir doctor` checks a setup the way `serve` would use it — the settings, the token and
// whether YNAB accepts it, the plan, the journal — and says what to fix. It costs two YNAB
// requests (GET /user, GET /plans) and changes nothing: the journal is opened read-only.

const doctorUsage = `Usage: avenir doctor

Checks that avenir serve would work here, with this environment: the settings, the YNAB
token (and that YNAB accepts it: one request), the plan (AVENIR_MCP_PLAN: one request), and
the journal. It says what to fix, and exits with 1 when something is wrong. It changes
nothing.
`

// checkStatus is one check's outcome.
type checkStatus int

const (
	checkOK checkStatus = iota
	checkWarn
	checkFail
	checkSkipped
)

func (s checkStatus) String() string {
	return [...]string{"ok", "warn", "FAIL", "skip"}[s]
}

// check is one line of the report: what was checked, what was found, what to do.
type check struct {
	name   string
	status checkStatus
	found  string
	fix    string
}

func runDoctor(ctx context.Context, args []string, e env) error {
	if len(args) > 0 {
		if a := args[0]; a == "-h" || a == "-help" || a == "--help" {
			fmt.Fprint(e.stdout, doctorUsage)
			return errHelp
		}
		return usagef("doctor takes no arguments, got %q", strings.Join(args, " "))
	}
	checks := diagnose(ctx, e)
	failed, warned := 0, 0
	for _, c := range checks {
		fmt.Fprintf(e.stdout, "%-4s  %-13s %s\n", c.status, c.name, c.found)
		if c.fix != "" {
			fmt.Fprintf(e.stdout, "      %-13s → %s\n", "", c.fix)
		}
		switch c.status {
		case checkFail:
			failed++
		case checkWarn:
			warned++
		}
	}
	switch {
	case failed > 0:
		return fmt.Errorf("doctor: %d problem(s) to fix before avenir serve can work here", failed)
	case warned > 0:
		fmt.Fprintf(e.stdout, "\navenir serve can work here; %d thing(s) above are worth a look.\n", warned)
	default:
		fmt.Fprintln(e.stdout, "\nAll good: avenir serve can work here.")
	}
	return nil
}

// diagnose runs every check in the order a problem matters: without a token there is no
// point asking YNAB anything.
func diagnose(ctx context.Context, e env) []check {
	var checks []check
	add := func(c check) { checks = append(checks, c) }

	add(checkSettings(e.getenv))
	baseURL, urlCheck := checkYNABURL(e.getenv)
	add(urlCheck)

	token, tokenCheck := checkToken(e)
	add(tokenCheck)

	if token == "" || urlCheck.status == checkFail {
		add(check{name: "YNAB", status: checkSkipped, found: "not asked: fix the lines above first"})
		add(check{name: "plan", status: checkSkipped, found: "not asked: fix the lines above first"})
	} else {
		client := ynab.New(ynab.Options{BaseURL: baseURL, Token: token, Retries: 1,
			Backoff: func(int) time.Duration { return time.Second }})
		ynabCheck := checkYNAB(ctx, client)
		add(ynabCheck)
		if ynabCheck.status == checkFail {
			add(check{name: "plan", status: checkSkipped, found: "not asked: YNAB did not accept the token"})
		} else {
			add(checkPlan(ctx, client, e.getenv("AVENIR_MCP_PLAN")))
		}
	}
	add(checkJournal(journalPath(e.getenv)))
	return checks
}

// checkSettings reads the AVENIR_MCP_* switches as serve does, and flags values serve would
// silently ignore ("true" where it reads "1").
func checkSettings(getenv func(string) string) check {
	c := check{name: "settings"}
	opts, err := confirmOptions(getenv)
	if err != nil {
		c.status, c.found = checkFail, err.Error()
		return c
	}
	var notes, ignored []string
	switch {
	case opts.AlwaysCode:
		notes = append(notes, "writes confirmed by code (AVENIR_MCP_CONFIRM=code)")
	case opts.RequireElicitation:
		notes = append(notes, "writes confirmed only by your answer in the client")
	default:
		notes = append(notes, "writes confirmed by your answer in the client, else by code")
	}
	if getenv("AVENIR_MCP_READ_ONLY") == "1" {
		notes = append(notes, "read-only")
	}
	for _, v := range []string{"AVENIR_MCP_READ_ONLY", "AVENIR_MCP_REQUIRE_ELICITATION"} {
		if val := getenv(v); val != "" && val != "1" {
			ignored = append(ignored, fmt.Sprintf("%s=%q", v, val))
		}
	}
	c.found = strings.Join(notes, "; ")
	if len(ignored) > 0 {
		c.status = checkWarn
		c.found += "; " + strings.Join(ignored, ", ") + " has no effect"
		c.fix = "set it to 1 to turn it on, or unset it"
	}
	return c
}

// checkYNABURL checks AVENIR_MCP_YNAB_URL: an http(s) URL, and https unless it stays on this
// machine (the token travels in its requests).
func checkYNABURL(getenv func(string) string) (string, check) {
	raw := getenv("AVENIR_MCP_YNAB_URL")
	if raw == "" {
		return ynab.DefaultBaseURL, check{name: "YNAB URL", found: ynab.DefaultBaseURL}
	}
	c := check{name: "YNAB URL", found: raw + " (AVENIR_MCP_YNAB_URL)"}
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		c.status, c.fix = checkFail, "AVENIR_MCP_YNAB_URL must be an http or https URL, like https://api.ynab.com/v1; or unset it"
	case u.Scheme == "http" && !loopbackHost(u.Hostname()):
		c.status, c.fix = checkFail, "plain http would send your token unencrypted to another machine: use https"
	}
	return raw, c
}

func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkToken finds the token as serve would, and checks that a file holding it is readable
// by its owner only.
func checkToken(e env) (string, check) {
	c := check{name: "token"}
	token, from, err := resolveToken(e)
	if err != nil {
		c.status = checkFail
		if errors.Is(err, errNoToken) {
			c.found = "none: not in YNAB_ACCESS_TOKEN, YNAB_ACCESS_TOKEN_FILE, avenir's token file or the keychain"
			if e.keychain != nil {
				switch _, kerr := e.keychain.Get(); {
				case errors.Is(kerr, errNoKeychain):
					c.found += fmt.Sprintf(" (%v)", kerr)
				case kerr != nil && !errors.Is(kerr, errNoSecret):
					c.found += fmt.Sprintf(" (%s could not be read: %v)", e.keychain.Name(), kerr)
				}
			}
			c.fix = "make one at https://app.ynab.com/settings/developer, then run: avenir token set"
		} else {
			c.found = err.Error()
			c.fix = "fix or unset YNAB_ACCESS_TOKEN_FILE, or run: avenir token set"
		}
		return "", c
	}
	c.found = "in " + from.Desc
	if from.Kind == "file" || from.Kind == "env-file" {
		if fi, err := os.Stat(from.Desc); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
			c.status = checkWarn
			c.found += fmt.Sprintf(", which others can read (mode %04o)", fi.Mode().Perm())
			c.fix = "chmod 600 " + from.Desc
		}
	}
	return token, c
}

// checkYNAB asks YNAB who the token belongs to: one request, GET /user.
func checkYNAB(ctx context.Context, client *ynab.Client) check {
	c := check{name: "YNAB"}
	_, err := client.GetUser(ctx)
	var ae *ynab.APIError
	switch {
	case err == nil:
		c.found = "accepts the token (" + client.BaseURL() + ")"
	case errors.As(err, &ae) && ae.Status == 401:
		c.status = checkFail
		c.found = "refused the token: it is invalid, expired or revoked"
		c.fix = "make a new one at https://app.ynab.com/settings/developer, then run: avenir token set"
	case errors.As(err, &ae) && ae.Status == 429:
		c.status = checkWarn
		c.found = err.Error()
		c.fix = "the token works, but avenir cannot read your plan until the hour's limit resets"
	case errors.As(err, &ae):
		c.status = checkFail
		c.found = err.Error()
	default:
		c.status = checkFail
		c.found = "could not reach YNAB at " + client.BaseURL() + ": " + err.Error()
		c.fix = "check the network (and AVENIR_MCP_YNAB_URL, if you set it)"
	}
	return c
}

// checkPlan finds the plan tools use when they are given none, as serve does: AVENIR_MCP_PLAN
// as an id or a name (case-insensitive), else YNAB's last-used plan. One request, GET /plans.
func checkPlan(ctx context.Context, client *ynab.Client, ref string) check {
	c := check{name: "plan"}
	plans, err := client.GetPlans(ctx, false)
	if err != nil {
		c.status, c.found = checkFail, "could not list the plans: "+err.Error()
		return c
	}
	names := make([]string, len(plans.Plans))
	for i, p := range plans.Plans {
		names[i] = fmt.Sprintf("%q", p.Name)
	}
	ref = strings.TrimSpace(ref)
	if ref == "" || ref == "last-used" || ref == "default" {
		switch {
		case len(plans.Plans) == 0:
			c.status, c.found = checkFail, "this YNAB account has no plan"
			c.fix = "create a plan in YNAB first"
		case plans.DefaultPlan != nil:
			c.found = fmt.Sprintf("%q, YNAB's last-used plan (set AVENIR_MCP_PLAN to choose another)", plans.DefaultPlan.Name)
		default:
			c.found = fmt.Sprintf("YNAB's last-used plan, one of %s (set AVENIR_MCP_PLAN to choose)", strings.Join(names, ", "))
		}
		return c
	}
	for _, p := range plans.Plans {
		if strings.EqualFold(p.ID, ref) || strings.EqualFold(p.Name, ref) {
			c.found = fmt.Sprintf("%q (AVENIR_MCP_PLAN)", p.Name)
			return c
		}
	}
	c.status = checkFail
	c.found = fmt.Sprintf("AVENIR_MCP_PLAN=%q names no plan of this account", ref)
	c.fix = "set it to one of " + strings.Join(names, ", ") + " (or a plan id), or unset it for YNAB's last-used plan"
	return c
}

// checkJournal opens the journal read-only, as `avenir journal` does: a missing one is fine
// (serve creates it), one that is not a journal or is newer than this avenir stops serve.
func checkJournal(path string) check {
	c := check{name: "journal"}
	j, err := bolt.OpenExisting(path, bolt.Options{LockTimeout: 2 * time.Second})
	switch {
	case errors.Is(err, bolt.ErrNoJournal):
		c.found = path + ": not created yet; serve creates it at its first start"
		return c
	case errors.Is(err, bolt.ErrBusy):
		c.status, c.found = checkWarn, path+": in use by another avenir process right now; not checked"
		return c
	case err != nil:
		c.status, c.found = checkFail, err.Error()
		switch {
		case errors.Is(err, journal.ErrNewerSchema):
			c.fix = "a newer avenir wrote it: use that version, or point AVENIR_MCP_JOURNAL at another file"
		default:
			c.fix = "serve refuses to start on it and leaves it untouched: move it away, or point AVENIR_MCP_JOURNAL at another file"
		}
		return c
	}
	pending, err := j.Pending(context.Background())
	if err != nil {
		c.status, c.found = checkFail, err.Error()
		return c
	}
	c.found = fmt.Sprintf("%s: an avenir journal (schema %d), nothing left unfinished", path, bolt.SchemaVersion)
	if len(pending) > 0 {
		c.found = fmt.Sprintf("%s: an avenir journal (schema %d)", path, bolt.SchemaVersion)
		c.status = checkWarn
		c.found += fmt.Sprintf("; %d left unfinished by a crash", len(pending))
		c.fix = "serve settles them at its next start by reading YNAB; 'avenir journal list --status prepared' shows them"
	}
	return c
}
