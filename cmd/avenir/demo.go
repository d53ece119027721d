package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

const demoUsage = `Usage: avenir demo

Starts 'avenir serve --sandbox' as a child process, connects to it as an MCP client would, and
prints what a person would see of a short session with an assistant. It uses a throw-away
sandbox and journal, so it changes nothing of yours and needs no YNAB account.
`

func runDemo(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("avenir demo", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() { fmt.Fprint(e.stderr, demoUsage) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return usagef("demo: %v", err)
	}
	if fs.NArg() > 0 {
		return usagef("demo takes no arguments")
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the avenir binary to start: %w", err)
	}
	dir, err := os.MkdirTemp("", "avenir-demo-")
	if err != nil {
		return fmt.Errorf("making a place for the demo's sandbox: %w", err)
	}
	defer os.RemoveAll(dir)

	// The sample's bank statement, as the person would have downloaded it: the server reads
	// statements only from the folders AVENIR_MCP_STATEMENT_DIRS names.
	downloads := filepath.Join(dir, "Downloads")
	statementFile, err := writeDemoStatement(downloads, time.Now())
	if err != nil {
		return err
	}

	// connect starts 'avenir serve --sandbox' on the demo's own state: each session after the
	// first finds the sandbox and the journal as the one before left them.
	connect := func(caps *mcp.ClientCapabilities) (*mcp.ClientSession, error) {
		cmd := exec.CommandContext(ctx, self, "serve", "--sandbox", "--log-level", "warn")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_STATE_HOME=" + dir,
			"AVENIR_MCP_STATEMENT_DIRS=" + downloads}
		cmd.Stderr = e.stderr
		client := mcp.NewClient(&mcp.Implementation{Name: "avenir-demo", Version: version}, &mcp.ClientOptions{Capabilities: caps})
		session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			return nil, fmt.Errorf("starting 'avenir serve --sandbox': %w", err)
		}
		return session, nil
	}
	session, err := connect(nil)
	if err != nil {
		return err
	}
	d := &demo{ctx: ctx, s: session, w: e.stdout, statement: statementFile}
	err = d.run()
	session.Close()
	if err != nil {
		return err
	}
	// The same plan in a host that draws MCP Apps and cannot elicit (Claude Desktop, claude.ai,
	// ChatGPT): the person confirms on a card.
	apps := &mcp.ClientCapabilities{}
	apps.AddExtension(confirm.AppExtension, map[string]any{"mimeTypes": []string{confirm.AppMIMEType}})
	if d.s, err = connect(apps); err != nil {
		return err
	}
	defer d.s.Close()
	if err := d.card(); err != nil {
		return err
	}
	d.say("\nThe demo changed nothing of yours: its sandbox and journal were temporary.")
	return nil
}

// demo prints a session the way a person would follow it: what the assistant asks, and what
// avenir answers.
type demo struct {
	ctx       context.Context
	s         *mcp.ClientSession
	w         io.Writer
	statement string // the sample's bank statement file, in a folder the server may read
}

// demoStatement is the sample statement the demo imports: ING's CSV download, the file most
// Dutch households would have.
const demoStatement = "betaalrekening-ing.csv"

// writeDemoStatement writes the sandbox's sample statement for Betaalrekening as of now into
// dir and returns its path.
func writeDemoStatement(dir string, now time.Time) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("making the demo's Downloads folder: %w", err)
	}
	for _, s := range sandbox.SampleStatements(now) {
		if s.Name != demoStatement {
			continue
		}
		path := filepath.Join(dir, s.Name)
		if err := os.WriteFile(path, s.Data, 0o600); err != nil {
			return "", fmt.Errorf("writing the demo's statement: %w", err)
		}
		return path, nil
	}
	return "", fmt.Errorf("the sandbox has no sample statement %s", demoStatement)
}

func (d *demo) say(format string, args ...any) { fmt.Fprintf(d.w, format+"\n", args...) }

func (d *demo) step(title string) {
	d.say("\n── %s %s", title, strings.Repeat("─", max(0, 70-len(title))))
}

// call calls a tool and decodes its structured result into out.
func (d *demo) call(name string, args map[string]any, out any) error {
	res, err := d.s.CallTool(d.ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if res.IsError {
		var msg []string
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				msg = append(msg, t.Text)
			}
		}
		return fmt.Errorf("%s: %s", name, strings.Join(msg, " "))
	}
	return decodeResult(res, out)
}

// decodeResult reads a result's structured content into out.
func decodeResult(res *mcp.CallToolResult, out any) error {
	if res.IsError {
		return errors.New("the call failed")
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

func (d *demo) run() error {
	init := d.s.InitializeResult()
	d.say("avenir demo: an assistant's session against the built-in sandbox (a sample Dutch household in EUR).")
	if init != nil && init.ServerInfo != nil {
		d.say("Connected to %s %s over stdio, MCP protocol %s.", init.ServerInfo.Name, init.ServerInfo.Version, init.ProtocolVersion)
	}

	d.step("Which plans are there?  (list_plans)")
	var plans struct {
		Plans []struct {
			ID, Name, Currency string
			Default            bool
		} `json:"plans"`
		YNABRequests int `json:"ynab_requests"`
	}
	if err := d.call("list_plans", nil, &plans); err != nil {
		return err
	}
	for _, p := range plans.Plans {
		mark := ""
		if p.Default {
			mark = "  ← default"
		}
		d.say("  %-24s %s%s", p.Name, p.Currency, mark)
	}

	d.step("How does this month look?  (get_plan_overview)")
	var ov struct {
		PlanName      string `json:"plan_name"`
		Month         string `json:"month"`
		ReadyToAssign string `json:"ready_to_assign"`
		Income        string `json:"income"`
		Assigned      string `json:"assigned"`
		Activity      string `json:"activity"`
		Overspent     []struct {
			Category  string `json:"category"`
			Available string `json:"available"`
		} `json:"overspent_categories"`
		Balances []struct {
			Account string `json:"account"`
			Balance string `json:"balance"`
		} `json:"budget_account_balances"`
		Uncategorized int `json:"uncategorized_transactions"`
		Unapproved    int `json:"unapproved_transactions"`
		YNABRequests  int `json:"ynab_requests"`
	}
	if err := d.call("get_plan_overview", map[string]any{"month": "current"}, &ov); err != nil {
		return err
	}
	d.say("  %s, %s", ov.PlanName, ov.Month[:7])
	d.say("  Ready to assign %s · income %s · assigned %s · activity %s", ov.ReadyToAssign, ov.Income, ov.Assigned, ov.Activity)
	for _, b := range ov.Balances {
		d.say("  %-24s %12s", b.Account, b.Balance)
	}
	for _, o := range ov.Overspent {
		d.say("  overspent: %s (%s)", o.Category, o.Available)
	}
	d.say("  %d transaction(s) need a category, %d await approval.  (%d YNAB request(s) for the first full sync)", ov.Uncategorized, ov.Unapproved, ov.YNABRequests)

	d.step("What still needs a category?  (list_transactions status=uncategorized)")
	var txs struct {
		Transactions []struct {
			ID, Date, Account, Payee, Amount, Memo string
		} `json:"transactions"`
		YNABRequests int `json:"ynab_requests"`
	}
	if err := d.call("list_transactions", map[string]any{"status": "uncategorized"}, &txs); err != nil {
		return err
	}
	for _, t := range txs.Transactions {
		d.say("  %s  %-16s %-22s %12s  %s", t.Date, t.Account, t.Payee, t.Amount, t.Memo)
	}
	d.say("  (%d YNAB request(s): the cache answered)", txs.YNABRequests)
	if len(txs.Transactions) < 2 {
		return fmt.Errorf("the sandbox has %d uncategorized transactions; the demo needs two", len(txs.Transactions))
	}

	d.step("Recategorise two of them  (apply_categories)")
	d.say("  This client cannot show the user a question, so avenir answers with a preview and a one-time code.")
	changes := []map[string]any{
		{"transaction_id": txs.Transactions[0].ID, "category": "Boodschappen"},
		{"transaction_id": txs.Transactions[1].ID, "category": "Uitjes"},
	}
	recat, err := d.confirmed("apply_categories", map[string]any{"changes": changes})
	if err != nil {
		return err
	}

	d.step("Assign money, and move some  (set_category_budget, move_money)")
	if _, err := d.confirmed("set_category_budget", map[string]any{"category": "Restaurants", "month": "current", "amount": "150.00"}); err != nil {
		return err
	}
	if _, err := d.confirmed("move_money", map[string]any{"from_category": "Tennis", "to_category": "Restaurants", "month": "current", "amount": "30"}); err != nil {
		return err
	}

	if err := d.importStatement(); err != nil {
		return err
	}

	d.step("What did the assistant do?  (list_operations — also: avenir journal list)")
	if err := d.journal(); err != nil {
		return err
	}

	d.step("Changed your mind? Undo the recategorisation  (undo_operation)")
	if _, err := d.confirmed("undo_operation", map[string]any{"operation_id": recat}); err != nil {
		return err
	}
	if err := d.journal(); err != nil {
		return err
	}
	return nil
}

// importStatement brings the bank's statement in: YNAB's linked import first (which brings
// yesterday's purchase, so the statement has a line YNAB holds already), then the statement
// file as one confirmed plan, its lines marked new, matched, already imported or ambiguous.
func (d *demo) importStatement() error {
	d.step("YNAB's own bank import first  (import_transactions)")
	var imp struct {
		Message      string `json:"message"`
		YNABRequests int    `json:"ynab_requests"`
	}
	if err := d.call("import_transactions", nil, &imp); err != nil {
		return err
	}
	d.say("  %s  (%d YNAB request(s); not confirmed first: it changes nothing that is there)", imp.Message, imp.YNABRequests)

	d.step("Bring in the bank's statement  (import_statement)")
	d.say("  The person downloaded %s; avenir reads it only because it is in a folder", filepath.Base(d.statement))
	d.say("  AVENIR_MCP_STATEMENT_DIRS names, and never quotes it in an error.")
	done, err := d.confirmedOut("import_statement", map[string]any{"account": "Betaalrekening", "file": d.statement})
	if err != nil {
		return err
	}
	d.say("  %s", done.Message)
	return nil
}

// card makes a confirmed write as a host that draws MCP Apps does: it draws the card from the
// pending result (shown here as text), the person clicks Confirm, and the card answers with the
// token that only it was given.
func (d *demo) card() error {
	d.step("In Claude Desktop, claude.ai or ChatGPT: the card  (MCP Apps)")
	d.say("  These hosts cannot ask a question of their own, but they draw avenir's card. The model")
	d.say("  gets no code: only the person's click on the card writes.")
	res, err := d.s.CallTool(d.ctx, &mcp.CallToolParams{Name: "set_category_budget",
		Arguments: map[string]any{"category": "Uitjes", "month": "current", "amount": "60"}})
	if err != nil {
		return fmt.Errorf("set_category_budget: %w", err)
	}
	var pending struct {
		Status, Message string
		PlanName        string `json:"plan_name"`
		Card            struct {
			Handle  string `json:"handle"`
			Version int    `json:"version"`
		} `json:"card"`
	}
	if res.IsError || decodeResult(res, &pending) != nil {
		return fmt.Errorf("set_category_budget: the card's first call failed")
	}
	if pending.Status != "confirmation_pending" || pending.Card.Handle == "" {
		return fmt.Errorf("set_category_budget: expected a card, got status %q", pending.Status)
	}
	d.say("  The model reads: %s", pending.Message)
	d.say("  It also reads the card's handle, %s: a name for the card, which confirms nothing.", pending.Card.Handle)
	d.say("  The host draws the card; the card calls open_confirmation (a tool only views may call)")
	d.say("  with the handle, and gets the change to show and a one-time token the model never sees:")
	var view struct {
		State   string `json:"state"`
		Token   string `json:"token"`
		Preview struct {
			FirstLine string                                  `json:"first_line"`
			Lines     []struct{ Label, Before, After string } `json:"lines"`
			Warnings  []string                                `json:"warnings"`
		} `json:"preview"`
	}
	if err := d.call("open_confirmation", map[string]any{"handle": pending.Card.Handle}, &view); err != nil {
		return err
	}
	if view.State != "pending" || view.Token == "" {
		return fmt.Errorf("open_confirmation: the card is %q, want pending with a token", view.State)
	}
	d.say("  ┌─ %s  (%s)", view.Preview.FirstLine, pending.PlanName)
	for _, c := range view.Preview.Lines {
		d.say("  │ %-28s %s → %s", c.Label, c.Before, c.After)
	}
	for _, n := range view.Preview.Warnings {
		d.say("  │ ⚠ %s", n)
	}
	d.say("  └─ [ Confirm ]  [ Decline ]")
	d.say("  The person clicks Confirm; the card calls answer_confirmation with its token.")
	token := view.Token
	var done struct {
		Status       string `json:"status"`
		OperationID  string `json:"operation_id"`
		Summary      string `json:"summary"`
		YNABRequests int    `json:"ynab_requests"`
	}
	if err := d.call("answer_confirmation", map[string]any{"token": token, "answer": "accept", "version": confirm.CardVersion}, &done); err != nil {
		return err
	}
	d.say("  → %s: %s (operation %s, %d YNAB request(s))", done.Status, done.Summary, done.OperationID, done.YNABRequests)
	d.say("  The journal records how it was confirmed: app.")
	return d.journal()
}

// confirmed makes a confirmed write the way a client without elicitation does: it shows the
// preview, "asks the user" (the demo's user agrees), and passes the code back.
func (d *demo) confirmed(tool string, args map[string]any) (string, error) {
	done, err := d.confirmedOut(tool, args)
	return done.OperationID, err
}

// confirmedOut is confirmed, returning the write's result.
func (d *demo) confirmedOut(tool string, args map[string]any) (demoDone, error) {
	var first struct {
		Status, Preview, Confirmation string
		ExpiresInSeconds              int `json:"expires_in_seconds"`
	}
	if err := d.call(tool, args, &first); err != nil {
		return demoDone{}, err
	}
	if first.Status != "confirmation_required" {
		return demoDone{}, fmt.Errorf("%s: expected a preview to confirm, got status %q", tool, first.Status)
	}
	for _, line := range strings.Split(first.Preview, "\n") {
		d.say("  │ %s", line)
	}
	d.say("  code %s (valid %d s) — the user agrees, so the assistant passes it back", first.Confirmation, first.ExpiresInSeconds)
	withCode := map[string]any{"confirmation": first.Confirmation}
	for k, v := range args {
		withCode[k] = v
	}
	var done demoDone
	if err := d.call(tool, withCode, &done); err != nil {
		return demoDone{}, err
	}
	if done.Status != "applied" {
		return done, fmt.Errorf("%s: expected the confirmed write applied, got status %q: %s", tool, done.Status, done.Message)
	}
	d.say("  → %s: %s (operation %s, %d YNAB request(s))", done.Status, done.Summary, done.OperationID, done.YNABRequests)
	return done, nil
}

// demoDone is what the demo reads of a confirmed write's result.
type demoDone struct {
	Status       string `json:"status"`
	OperationID  string `json:"operation_id"`
	Summary      string `json:"summary"`
	Message      string `json:"message"`
	YNABRequests int    `json:"ynab_requests"`
}

// journal prints the newest operations as list_operations gives them.
func (d *demo) journal() error {
	var ops struct {
		Operations []struct {
			ID, Tool, Summary, Status string
			ConfirmedVia              string `json:"confirmed_via"`
			Undo                      struct {
				CanUndo  bool   `json:"can_undo"`
				UndoOf   string `json:"undo_of"`
				UndoneBy string `json:"undone_by"`
			} `json:"undo"`
		} `json:"operations"`
	}
	if err := d.call("list_operations", map[string]any{"limit": 10}, &ops); err != nil {
		return err
	}
	for _, op := range ops.Operations {
		undo := ""
		switch {
		case op.Undo.UndoneBy != "":
			undo = "undone by " + op.Undo.UndoneBy[len(op.Undo.UndoneBy)-6:]
		case op.Undo.UndoOf != "":
			undo = "undoes " + op.Undo.UndoOf[len(op.Undo.UndoOf)-6:]
		}
		d.say("  …%s  %-8s %-6s %-60s %s", op.ID[len(op.ID)-6:], op.Status, op.ConfirmedVia, op.Summary, undo)
	}
	return nil
}
