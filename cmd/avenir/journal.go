package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/journal/bolt"
	"github.com/avenir-mcp/avenir/undo"
)

const journalUsage = `Usage:
  avenir journal list [flags]        what avenir wrote, newest first
  avenir journal show [--json] ID    one operation in full: preview, changes before and after, events
  avenir journal resolve [--json] ID applied|not-applied
                                     record what you found in YNAB for an import a crash cut off

Flags of list:
  --plan ID      only operations on this plan
  --tool NAME    only operations of this tool (set_category_budget, undo_operation, …)
  --status S     only prepared, applied, partial or failed operations
  --since WHEN   only operations since a date (2026-11-28) or for a while back (24h, 7d)
  --limit N      at most N operations (default 20)
  --json         one JSON object per operation, one a line

An import (import_transactions) that avenir stopped in the middle of stays prepared: what it
brought in cannot be told apart from what YNAB imported or you edited since, so avenir cannot
settle it by reading YNAB. Look in YNAB, then record what you found with resolve: applied (the
import happened) or not-applied. Every other prepared operation is settled by avenir itself,
when a server next starts, and resolve refuses it.

The journal is AVENIR_MCP_JOURNAL, else $XDG_STATE_HOME/avenir/journal.db. list and show never
change it; all three work while servers run.
`

// nothingYet is what a person sees before avenir has written anything.
const nothingYet = "nothing recorded yet"

// summaryWidth is where the table cuts a summary; show prints it whole.
const summaryWidth = 48

// resolvedBy is how the journal records who decided an outcome given with journal resolve.
const resolvedBy = "by the person, with avenir journal resolve"

// journalCmd is `avenir journal`. Its clock, time zone and the entropy of the ids it records
// are fields so that tests can fix them (nil entropy is crypto/rand).
type journalCmd struct {
	now     func() time.Time
	loc     *time.Location
	entropy io.Reader
}

func runJournal(ctx context.Context, args []string, e env) error {
	return journalCmd{now: time.Now, loc: time.Local}.run(ctx, args, e)
}

func (c journalCmd) run(ctx context.Context, args []string, e env) error {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, journalUsage)
		return usagef("journal: say list, show or resolve")
	}
	switch args[0] {
	case "list":
		return c.list(ctx, args[1:], e)
	case "show":
		return c.show(ctx, args[1:], e)
	case "resolve":
		return c.resolve(ctx, args[1:], e)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(e.stdout, journalUsage)
		return errHelp
	default:
		fmt.Fprint(e.stderr, journalUsage)
		return usagef("journal: unknown command %q", args[0])
	}
}

func (c journalCmd) list(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("journal list", flag.ContinueOnError)
	plan := fs.String("plan", "", "")
	tool := fs.String("tool", "", "")
	status := fs.String("status", "", "")
	since := fs.String("since", "", "")
	limit := fs.Int("limit", journal.DefaultLimit, "")
	asJSON := fs.Bool("json", false, "")
	rest, err := parseFlags(fs, args, e)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("journal list: unexpected %q", rest[0])
	}
	f := journal.Filter{PlanID: *plan, Tool: *tool, Status: journal.Status(*status), Limit: *limit}
	switch f.Status {
	case "", journal.StatusPrepared, journal.StatusApplied, journal.StatusPartial, journal.StatusFailed:
	default:
		return usagef("journal list: --status %q is not prepared, applied, partial or failed", *status)
	}
	if *limit < 1 {
		return usagef("journal list: --limit must be 1 or more")
	}
	if *since != "" {
		if f.Since, err = c.parseSince(*since); err != nil {
			return err
		}
	}

	// In --json mode stdout holds JSON only; a remark goes to stderr.
	remarks := e.stdout
	if *asJSON {
		remarks = e.stderr
	}
	j, err := bolt.OpenExisting(journalPath(e.getenv), bolt.Options{})
	if errors.Is(err, bolt.ErrNoJournal) {
		fmt.Fprintln(remarks, nothingYet)
		return nil
	}
	if err != nil {
		return err
	}
	ops, err := j.List(ctx, f)
	if err != nil {
		return err
	}
	if len(ops) == 0 {
		if *plan == "" && *tool == "" && *status == "" && *since == "" {
			fmt.Fprintln(remarks, nothingYet)
		} else {
			fmt.Fprintln(remarks, "no operation matches")
		}
		return nil
	}
	if *asJSON {
		return writeJSON(e.stdout, ops...)
	}
	return c.writeTable(e.stdout, ops)
}

// parseSince reads a date (midnight, local time) or a duration back from now; "7d" is 7 days.
func (c journalCmd) parseSince(s string) (time.Time, error) {
	if t, err := time.ParseInLocation(time.DateOnly, s, c.loc); err == nil {
		return t, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 {
			return c.now().AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return c.now().Add(-d), nil
	}
	return time.Time{}, usagef("journal list: --since %q is neither a date (2026-11-28) nor a duration (24h, 7d)", s)
}

func (c journalCmd) writeTable(w io.Writer, ops []journal.Operation) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTIME\tPLAN\tTOOL\tSUMMARY\tSTATUS\tVIA\tUNDO")
	for _, op := range ops {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", op.ID, op.Time.In(c.loc).Format(time.DateTime),
			short(op.PlanID, 8), op.Tool, cut(op.Summary, summaryWidth), statusText(op), op.ConfirmedVia, undoState(op))
	}
	return tw.Flush()
}

// statusText is an operation's status as the table shows it: "(resolved)" marks an outcome a
// person decided with journal resolve.
func statusText(op journal.Operation) string {
	if op.ResolvedBy != "" {
		return string(op.Status) + " (resolved)"
	}
	return string(op.Status)
}

// short is the start of an id, enough to tell plans apart in a table.
func short(id string, n int) string {
	if len(id) <= n {
		return id
	}
	return id[:n]
}

// cut shortens s to n characters, marking the cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// undoState shows an operation's undo links ("undo of X", "undone by Y") and, when it has
// not been undone, whether it can be: "can undo", or "cannot undo".
func undoState(op journal.Operation) string {
	var links []string
	if op.UndoOf != "" {
		links = append(links, "undo of "+op.UndoOf)
	}
	switch {
	case op.UndoneBy != "":
		links = append(links, "undone by "+op.UndoneBy)
	case undo.Refusal(op) == nil:
		links = append(links, "can undo")
	default:
		links = append(links, "cannot undo")
	}
	return strings.Join(links, ", ")
}

func (c journalCmd) show(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("journal show", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "")
	ids, err := parseFlags(fs, args, e)
	if err != nil {
		return err
	}
	if len(ids) != 1 {
		return usagef("journal show: give one operation id (see 'avenir journal list')")
	}
	path := journalPath(e.getenv)
	j, err := bolt.OpenExisting(path, bolt.Options{})
	if errors.Is(err, bolt.ErrNoJournal) {
		return fmt.Errorf("operation %s: %s (there is no journal at %s)", ids[0], nothingYet, path)
	}
	if err != nil {
		return err
	}
	op, err := j.Get(ctx, ids[0])
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, op)
	}
	return c.writeOperation(e.stdout, op)
}

// resolve is `avenir journal resolve ID applied|not-applied`: the person's decision about an
// operation recovery cannot settle, recorded in the journal (which refuses every other one).
func (c journalCmd) resolve(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("journal resolve", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "")
	rest, err := parseFlags(fs, args, e)
	if err != nil {
		return err
	}
	if len(rest) != 2 {
		return usagef("journal resolve: give an operation id and what you found in YNAB: applied or not-applied")
	}
	id, decision := rest[0], rest[1]
	var applied bool
	switch decision {
	case "applied":
		applied = true
	case "not-applied":
	default:
		return usagef("journal resolve: %q is neither applied (YNAB has what the operation did) nor not-applied (YNAB does not)", decision)
	}
	path := journalPath(e.getenv)
	j, err := bolt.OpenExistingWritable(path, bolt.Options{Now: c.now, Entropy: c.entropy})
	if errors.Is(err, bolt.ErrNoJournal) {
		return fmt.Errorf("operation %s: %s (there is no journal at %s)", id, nothingYet, path)
	}
	if err != nil {
		return err
	}
	op, err := j.ResolveByHand(ctx, id, applied, resolvedBy)
	if err != nil {
		return fmt.Errorf("journal resolve: %w", err)
	}
	if *asJSON {
		return writeJSON(e.stdout, op)
	}
	_, err = fmt.Fprintf(e.stdout, "Recorded: operation %s (%s, %s) is %s, as you decided. 'avenir journal show %s' shows it.\n",
		op.ID, op.Tool, op.Time.In(c.loc).Format(time.DateTime), op.Status, op.ID)
	return err
}

func (c journalCmd) writeOperation(w io.Writer, op journal.Operation) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Operation %s\n\n", op.ID)
	tw := tabwriter.NewWriter(&b, 0, 0, 1, ' ', 0)
	field := func(name, value string) {
		if value != "" {
			fmt.Fprintf(tw, "%s:\t%s\n", name, value)
		}
	}
	field("Time", c.timestamp(op.Time))
	field("Plan", op.PlanID)
	field("Tool", op.Tool)
	field("Summary", op.Summary)
	field("Status", string(op.Status))
	field("Error", op.Error)
	field("Note", op.Note)
	field("Confirmed via", op.ConfirmedVia)
	field("Client", strings.TrimSpace(op.Client.Name+" "+op.Client.Version))
	if op.Status != journal.StatusPrepared {
		field("YNAB requests", strconv.Itoa(op.Requests))
	}
	field("Created in YNAB", strings.Join(op.CreatedIDs, ", "))
	if op.ServerKnowledge != 0 {
		field("Server knowledge", strconv.FormatInt(op.ServerKnowledge, 10))
	}
	field("Undo of", op.UndoOf)
	field("Undone by", op.UndoneBy)
	if err := undo.Refusal(op); err != nil && op.UndoneBy == "" {
		field("Undo", "not possible: "+err.Error())
	} else if err == nil {
		field("Undo", "possible: avenir's undo_operation tool takes it back")
	}
	field("Fingerprint", op.Fingerprint)
	field("Subject", string(op.Subject))
	tw.Flush()

	if op.Preview != "" {
		fmt.Fprintf(&b, "\nPreview:\n%s\n", indent(op.Preview, "  "))
	}
	fmt.Fprintf(&b, "\nChanges (%d):\n", len(op.Changes))
	for _, ch := range op.Changes {
		writeChange(&b, ch)
	}
	fmt.Fprintf(&b, "\nEvents:\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, ev := range op.Events {
		fmt.Fprintf(tw, "  %s\t%s\t%s", c.timestamp(ev.Time), ev.Type, ev.ID)
		if d := eventDetail(ev); d != "" {
			fmt.Fprintf(tw, "\t%s", d)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	_, err := io.WriteString(w, b.String())
	return err
}

func (c journalCmd) timestamp(t time.Time) string {
	return t.In(c.loc).Format("2006-01-02 15:04:05 MST")
}

func writeChange(b *strings.Builder, ch journal.Change) {
	name := strings.Join(strings.Fields(ch.Kind+" "+ch.ID+" "+ch.Month), " ")
	if ch.ID == "" {
		name += " (new)"
	}
	if ch.Label != "" {
		name += ": " + ch.Label
	}
	outcome := strings.ReplaceAll(ch.Outcome, "_", " ")
	if ch.EnteredBy != "" {
		outcome += ", entered by " + ch.EnteredBy
	}
	fmt.Fprintf(b, "  %s\n    before:  %s\n    after:   %s\n    in YNAB: %s\n", name, state(ch.Before, "(nothing: created)"), state(ch.After, "(nothing: deleted)"), outcome)
}

func state(raw json.RawMessage, none string) string {
	if len(raw) == 0 {
		return none
	}
	return string(raw)
}

// eventDetail is what an event adds to the operation, in one line. A prepared event holds the
// draft, which the rest of show already prints.
func eventDetail(ev journal.Event) string {
	if ev.Type == "prepared" {
		return ""
	}
	return string(ev.Data)
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

// writeJSON writes each operation as one line of JSON, with whether it can be undone (and why
// not) beside what the journal recorded.
func writeJSON(w io.Writer, ops ...journal.Operation) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	type undoable struct {
		CanUndo bool   `json:"can_undo"`
		WhyNot  string `json:"why_not,omitempty"`
	}
	for _, op := range ops {
		line := struct {
			journal.Operation
			Undo undoable `json:"undo"`
		}{Operation: op, Undo: undoable{CanUndo: true}}
		if err := undo.Refusal(op); err != nil {
			line.Undo = undoable{WhyNot: err.Error()}
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return nil
}

// parseFlags parses fs from args, flags and arguments in any order, and returns the arguments.
func parseFlags(fs *flag.FlagSet, args []string, e env) ([]string, error) {
	fs.SetOutput(io.Discard)
	var rest []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, journalUsage)
			return nil, errHelp
		}
		if err != nil {
			return nil, usagef("%s: %v", fs.Name(), err)
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
