package tools

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/journal"
)

// The card (confirmation.md §2.4), through the go-sdk client of each kind: a host that renders
// MCP Apps and cannot elicit gets a pending result whose token only the card sees, and only an
// answer with that token writes.

const refusedSentence = "This confirmation code is unknown, expired, already used, or was issued for different changes."

// pending calls a confirmed tool on a card client and returns its pending result and the card's
// handle, after checking that nothing the model reads holds a secret: the handle is in the
// structured content and the text's last line, and it confirms nothing by itself.
func (e *testEnv) pending(tool string, args map[string]any) (writeOut, string) {
	e.t.Helper()
	res := e.call(tool, args)
	if res.IsError {
		e.t.Fatalf("%s: %s", tool, text(res))
	}
	var out writeOut
	decode(e.t, res, &out)
	if out.Status != "confirmation_pending" || out.Card == nil || len(out.Card.Handle) != 22 || out.Card.Version != 2 {
		e.t.Fatalf("%s: want confirmation_pending with a 22-character handle, version 2: %s", tool, text(res))
	}
	lines := strings.Split(text(res), "\n")
	if last := lines[len(lines)-1]; last != "Card: "+out.Card.Handle+" (v2)" {
		e.t.Fatalf("%s: the text's last line is %q, want the handle", tool, last)
	}
	for k := range res.Meta { // the SDK's serverInfo only: _meta carries no secret, and no handle either
		if k != "io.modelcontextprotocol/serverInfo" {
			e.t.Fatalf("%s: _meta %v in a pending result", tool, res.Meta)
		}
	}
	if out.Confirmation != "" {
		e.t.Fatalf("%s: a code, or _meta, in a pending result: %s, _meta %v", tool, text(res), res.Meta)
	}
	return out, out.Card.Handle
}

// open calls open_confirmation as the card does once drawn, and returns what it gave.
func (e *testEnv) open(handle string) confirm.CardView {
	e.t.Helper()
	var v confirm.CardView
	e.ok("open_confirmation", map[string]any{"handle": handle}, &v)
	if v.Version != 2 {
		e.t.Fatalf("open_confirmation: version %d, want 2", v.Version)
	}
	if (v.State == confirm.CardPending) != (len(v.Token) == 22) {
		e.t.Fatalf("open_confirmation: state %q with token %q; a token exactly while pending", v.State, v.Token)
	}
	return v
}

// cardToken asks on a card and opens it, as a host that draws the card does.
func (e *testEnv) cardToken(tool string, args map[string]any) (writeOut, string) {
	e.t.Helper()
	out, handle := e.pending(tool, args)
	return out, e.open(handle).Token
}

func (e *testEnv) answer(token, answer string) *mcp.CallToolResult {
	e.t.Helper()
	return e.call("answer_confirmation", map[string]any{"token": token, "answer": answer, "version": 2})
}

func TestCardConfirmsOnlyWithTheToken(t *testing.T) {
	for _, kind := range []clientKind{modernApps, legacyApps} {
		t.Run(kind.name, func(t *testing.T) {
			e := newEnv(t, envOptions{kind: kind})
			out, handle := e.pending("set_category_budget", budgetArgs)
			if out.Title != budgetPreview || out.Preview != budgetPreview || out.Tool != "set_category_budget" || out.PlanName == "" ||
				!strings.Contains(out.Message, "card") {
				t.Fatalf("pending result = %+v", out)
			}
			if e.writes() != 0 {
				t.Fatal("a pending card wrote")
			}
			// The pending result's values, passed back as a code or as a card's token, confirm nothing.
			for _, v := range []string{out.Title, out.Message, out.Tool, handle} {
				e.fails("set_category_budget", withArg(budgetArgs, "confirmation", v), refusedSentence)
				e.fails("answer_confirmation", map[string]any{"token": v, "answer": "accept", "version": 2}, refusedSentence)
			}
			view := e.open(handle)
			if view.State != confirm.CardPending || view.Tool != "set_category_budget" || view.Preview.FirstLine != budgetPreview {
				t.Fatalf("open_confirmation = %+v", view)
			}
			token := view.Token
			res := e.answer(token, "accept")
			var done writeOut
			decode(t, res, &done)
			if done.Status != "applied" || done.OperationID == "" || done.Undoable == nil || !*done.Undoable {
				t.Fatalf("answer = %s; want applied and undoable", text(res))
			}
			if len(done.Changes) != 1 || done.Changes[0].Outcome != journal.OutcomeApplied {
				t.Fatalf("answer's changes = %+v; want each with its outcome", done.Changes)
			}
			if got := e.restaurantsAssigned(); got != 150000 {
				t.Fatalf("Restaurants has %d assigned, want 150000", got)
			}
			op := e.onlyOperation()
			if op.ConfirmedVia != string(confirm.ModeApp) || op.Status != journal.StatusApplied || op.Preview != budgetPreview {
				t.Fatalf("journal = %+v; want applied, confirmed by app", op)
			}
			// A second click on Confirm (or a replay) writes nothing more.
			writes := e.writes()
			if r := e.answer(token, "accept"); !r.IsError || !strings.Contains(text(r), refusedSentence) {
				t.Fatalf("a second answer: %s", text(r))
			}
			if e.writes() != writes || len(e.operations(journal.Filter{})) != 1 {
				t.Fatal("a second answer wrote")
			}
		})
	}
}

func TestCardDeclineWritesNothing(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernApps})
	_, token := e.cardToken("move_money", map[string]any{"from_category": "Tennis", "to_category": "Restaurants", "amount": "30"})
	var out writeOut
	decode(t, e.answer(token, "decline"), &out)
	if out.Status != "declined" || !strings.Contains(out.Message, "Nothing was written.") {
		t.Fatalf("decline = %+v", out)
	}
	if e.writes() != 0 || len(e.operations(journal.Filter{})) != 0 {
		t.Fatal("a declined card wrote or journaled")
	}
	e.fails("answer_confirmation", map[string]any{"token": token, "answer": "accept", "version": 2}, refusedSentence)
}

func TestCardRefusesBadAnswers(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernApps})
	_, token := e.cardToken("set_category_budget", budgetArgs)
	code := newEnv(t, envOptions{kind: noElicit})
	var withCode writeOut
	code.ok("set_category_budget", budgetArgs, &withCode)
	other := newEnv(t, envOptions{kind: modernApps})
	_, foreign := other.cardToken("set_category_budget", budgetArgs)
	for _, c := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"no token", map[string]any{"answer": "accept", "version": 2}, "token"},
		{"no answer", map[string]any{"token": token, "version": 2}, "answer"},
		{"an answer that is neither", map[string]any{"token": token, "answer": "yes", "version": 2}, `answer: "yes" is neither accept nor decline`},
		{"an unknown token", map[string]any{"token": "AAAAAAAAAAAAAAAAAAAAAA", "answer": "accept", "version": 2}, refusedSentence},
		{"a code instead of a token", map[string]any{"token": withCode.Confirmation, "answer": "accept", "version": 2}, refusedSentence},
		{"a token of another server process", map[string]any{"token": foreign, "answer": "accept", "version": 2}, refusedSentence},
		{"a number", map[string]any{"token": 12345, "answer": "accept", "version": 2}, refusedSentence},
	} {
		if msg := e.fails("answer_confirmation", c.args, c.want); strings.Contains(msg, token) {
			t.Errorf("%s: the error shows the token: %s", c.name, msg)
		}
	}
	if e.writes() != 0 {
		t.Fatal("a bad answer wrote")
	}
	// The token survived the answers that were not understood, and still works once.
	var out writeOut
	decode(t, e.answer(token, "accept"), &out)
	if out.Status != "applied" {
		t.Fatalf("the token after bad answers: %+v", out)
	}
}

func TestCardExpires(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	e := newEnv(t, envOptions{kind: modernApps, clock: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
	_, token := e.cardToken("set_category_budget", budgetArgs)
	mu.Lock()
	now = now.Add(601 * time.Second)
	mu.Unlock()
	e.fails("answer_confirmation", map[string]any{"token": token, "answer": "accept", "version": 2}, refusedSentence)
	if e.writes() != 0 {
		t.Fatal("an expired token wrote")
	}
}

// The plan changed between the card and the click: "current" is another month by then.
func TestCardPlanChanged(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernApps})
	_, token := e.cardToken("set_category_budget", budgetArgs)
	e.setNow(time.Date(2027, 1, 1, 0, 5, 0, 0, time.UTC))
	e.fails("answer_confirmation", map[string]any{"token": token, "answer": "accept", "version": 2}, "The plan changed between the preview and the answer")
	if e.writes() != 0 || len(e.operations(journal.Filter{})) != 0 {
		t.Fatal("a stale card wrote")
	}
}

// Every confirmed tool names the card; the card's own tools are app-only (with ChatGPT's keys
// beside the extension's) and listed to every client whatever it declared (claude.ai lists on a
// session with empty capabilities: modelcontextprotocol/ext-apps#671); every tool a view calls
// names app in its visibility.
func TestCardOnTheSurface(t *testing.T) {
	names := func(e *testEnv) map[string]*mcp.Tool {
		res, err := e.session.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]*mcp.Tool{}
		for _, tl := range res.Tools {
			m[tl.Name] = tl
		}
		return m
	}
	visibility := func(tl *mcp.Tool) []any {
		ui, _ := tl.Meta["ui"].(map[string]any)
		vis, _ := ui["visibility"].([]any)
		return vis
	}
	for _, kind := range []clientKind{noElicit, modernNone, modernApps} {
		tools := names(newEnv(t, envOptions{kind: kind}))
		for _, name := range []string{"answer_confirmation", "open_confirmation"} {
			a, ok := tools[name]
			if !ok {
				t.Fatalf("%s: %s is not listed", kind.name, name)
			}
			if vis := visibility(a); !slices.Equal(vis, []any{"app"}) {
				t.Errorf("%s's visibility = %v, want [app]", name, vis)
			}
			if a.Meta["openai/visibility"] != "private" || a.Meta["openai/widgetAccessible"] != true {
				t.Errorf("%s: _meta %v, want openai/visibility private and openai/widgetAccessible", name, a.Meta)
			}
		}
		for _, name := range []string{"undo_operation", "list_operations"} {
			if vis := visibility(tools[name]); !slices.Equal(vis, []any{"model", "app"}) {
				t.Errorf("%s's visibility = %v, want [model app]: the journal view calls it", name, vis)
			}
		}
		for name, tl := range tools {
			confirmed := strings.HasSuffix(tl.Description, confirm.ToolRule)
			ui, _ := tl.Meta["ui"].(map[string]any)
			if confirmed && ui["resourceUri"] != cardURI {
				t.Errorf("%s: a confirmed tool must name the card, has _meta %v", name, tl.Meta)
			}
			if !confirmed && !appOnly(tl) && name != "answer_confirmation" && name != "open_confirmation" && ui["resourceUri"] == cardURI {
				t.Errorf("%s names the card but asks no confirmation", name)
			}
		}
	}
}

// Where the client also elicits, elicitation comes first; AVENIR_MCP_CONFIRM=code still forces
// codes; with AVENIR_MCP_REQUIRE_ELICITATION=1 a card's answer is the person's own.
func TestCardAmongTheWaysToAsk(t *testing.T) {
	t.Run("elicitation first", func(t *testing.T) {
		e := newEnv(t, envOptions{kind: appsElicit})
		var out writeOut
		e.ok("set_category_budget", budgetArgs, &out)
		if out.Status != "applied" || e.onlyOperation().ConfirmedVia != string(confirm.ModeElicit) {
			t.Fatalf("result %+v; want applied through elicitation", out)
		}
	})
	t.Run("require elicitation", func(t *testing.T) {
		e := newEnv(t, envOptions{kind: modernApps, requireElicitation: true})
		_, token := e.cardToken("set_category_budget", budgetArgs)
		var out writeOut
		decode(t, e.answer(token, "accept"), &out)
		if out.Status != "applied" || e.onlyOperation().ConfirmedVia != string(confirm.ModeApp) {
			t.Fatalf("result %+v; want applied by the card", out)
		}
	})
	t.Run("neither", func(t *testing.T) {
		e := newEnv(t, envOptions{kind: noElicit})
		var out writeOut
		e.ok("set_category_budget", budgetArgs, &out)
		if out.Status != "confirmation_required" || out.Confirmation == "" {
			t.Fatalf("result %+v; want a code", out)
		}
	})
}

// An undo asked on the card is confirmed on the card too, and journaled as app.
func TestCardUndo(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernApps})
	_, token := e.cardToken("set_category_budget", budgetArgs)
	var done writeOut
	decode(t, e.answer(token, "accept"), &done)
	out, undoToken := e.cardToken("undo_operation", map[string]any{"operation_id": done.OperationID})
	if !strings.HasPrefix(out.Title, "Undo: budget Restaurants") {
		t.Fatalf("undo card title %q", out.Title)
	}
	var undone writeOut
	decode(t, e.answer(undoToken, "accept"), &undone)
	if undone.Status != "applied" || e.restaurantsAssigned() != 120000 {
		t.Fatalf("undo through the card: %+v, Restaurants %d", undone, e.restaurantsAssigned())
	}
	ops := e.operations(journal.Filter{})
	if len(ops) != 2 || ops[0].ConfirmedVia != string(confirm.ModeApp) || ops[0].UndoOf != done.OperationID {
		t.Fatalf("journal = %+v", ops)
	}
}

// The views are resources of the MCP App type, listed only to a client that draws them, each
// self-contained: no origin in its HTML to fetch from.
func TestViewsAsResources(t *testing.T) {
	ctx := context.Background()
	plain := newEnv(t, envOptions{kind: noElicit})
	res, err := plain.session.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Resources {
		if strings.HasPrefix(r.URI, "ui://") {
			t.Errorf("%s is listed to a client without MCP Apps", r.URI)
		}
	}
	apps := newEnv(t, envOptions{kind: modernApps})
	res, err = apps.session.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		if strings.HasPrefix(r.URI, "ui://") {
			uris = append(uris, r.URI)
			if r.MIMEType != confirm.AppMIMEType {
				t.Errorf("%s: MIME type %q", r.URI, r.MIMEType)
			}
		}
	}
	slices.Sort(uris)
	if want := []string{"ui://avenir/confirm.html", "ui://avenir/journal.html", "ui://avenir/spending.html"}; !slices.Equal(uris, want) {
		t.Fatalf("views listed = %v, want %v", uris, want)
	}
	for _, uri := range uris {
		read, err := apps.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(read.Contents) != 1 {
			t.Fatalf("%s: %v", uri, err)
		}
		c := read.Contents[0]
		if c.MIMEType != confirm.AppMIMEType || !strings.Contains(c.Text, "<html") {
			t.Errorf("%s: %s, %d bytes", uri, c.MIMEType, len(c.Text))
		}
		for _, remote := range []string{`src="http`, `href="http`, "<script src=", "@import url(http"} {
			if strings.Contains(c.Text, remote) {
				t.Errorf("%s loads from elsewhere (%s)", uri, remote)
			}
		}
	}
}

func newFakeClock() *fakeClock { return &fakeClock{now: sandboxToday} }

// Each open gives a fresh token and voids the one before; an answered card, mounted again,
// shows its outcome and no token.
func TestCardOpenedAgain(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernApps})
	_, handle := e.pending("set_category_budget", budgetArgs)
	first := e.open(handle).Token
	second := e.open(handle)
	if second.State != confirm.CardPending || second.Token == first {
		t.Fatalf("the second open = %+v; want pending with a new token", second)
	}
	e.fails("answer_confirmation", map[string]any{"token": first, "answer": "accept", "version": 2}, refusedSentence)
	var done writeOut
	decode(t, e.answer(second.Token, "accept"), &done)
	if done.Status != "applied" {
		t.Fatalf("answer = %+v", done)
	}
	again := e.open(handle)
	if again.State != confirm.CardAnswered || again.Outcome == nil || again.Outcome.Status != "applied" ||
		again.Outcome.OperationID != done.OperationID || again.Preview.FirstLine != budgetPreview {
		t.Fatalf("the card mounted again = %+v; want answered with the write's outcome", again)
	}
	if e.writes() != 1 {
		t.Fatalf("%d writes, want 1", e.writes())
	}
	// A declined card, mounted again, says so too.
	_, handle = e.pending("move_money", map[string]any{"from_category": "Tennis", "to_category": "Restaurants", "amount": "5"})
	var declined writeOut
	decode(t, e.answer(e.open(handle).Token, "decline"), &declined)
	if v := e.open(handle); v.State != confirm.CardAnswered || v.Outcome == nil || v.Outcome.Status != "declined" {
		t.Fatalf("the declined card mounted again = %+v", v)
	}
}

// A card of another exchange version (a host's cached view across an upgrade) confirms nothing
// and is told why; a handle avenir does not know is "unknown card", whatever it is.
func TestCardOutdatedAndUnknown(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernApps})
	for _, version := range []any{nil, 1, 3, "2x"} {
		_, token := e.cardToken("set_category_budget", budgetArgs)
		args := map[string]any{"token": token, "answer": "accept"}
		if version != nil {
			args["version"] = version
		}
		e.fails("answer_confirmation", args, "another version of avenir")
		// The token went with that answer: it counts once, whatever its answer was.
		e.fails("answer_confirmation", withArg(args, "version", 2), refusedSentence)
	}
	for _, h := range []any{"AAAAAAAAAAAAAAAAAAAAAA", "", "short", 42, strings.Repeat("x", 500)} {
		e.fails("open_confirmation", map[string]any{"handle": h}, "unknown card")
	}
	if e.writes() != 0 {
		t.Fatal("an outdated card wrote")
	}
}

// A card that is not drawn (confirmation.md §2.4.6), on confirm's clock: the same change asked
// again sooner than 10 s is pending on a new card, the old one superseded; asked 10 s or more
// after the first pending answer with no card opened, it is §3's cancel — a code, journaled code
// once passed back, or under AVENIR_MCP_REQUIRE_ELICITATION=1 an error that says why. Both
// protocol eras: capabilities declared in the request (2026-07-28) and at initialize.
func TestCardNotDrawn(t *testing.T) {
	for _, kind := range []clientKind{modernApps, legacyApps} {
		for _, require := range []bool{false, true} {
			name := kind.name
			if require {
				name += ", REQUIRE_ELICITATION"
			}
			t.Run(name, func(t *testing.T) {
				clock := newFakeClock()
				e := newEnv(t, envOptions{kind: kind, clock: clock.Now, requireElicitation: require})
				_, first := e.pending("set_category_budget", budgetArgs)
				clock.advance(5 * time.Second)
				_, second := e.pending("set_category_budget", budgetArgs)
				if second == first {
					t.Fatal("the repeat got the same handle")
				}
				if v := e.open(first); v.State != confirm.CardSuperseded {
					t.Fatalf("the first card after a repeat = %+v; want superseded", v)
				}
				clock.advance(5 * time.Second) // 10 s after the first pending answer
				res := e.call("set_category_budget", budgetArgs)
				if v := e.open(second); v.State != confirm.CardSuperseded {
					t.Fatalf("the second card after the fallback = %+v; want superseded", v)
				}
				if require {
					if !res.IsError || !strings.Contains(text(res), "did not show it") {
						t.Fatalf("under REQUIRE_ELICITATION: %s; want an error saying the card was not shown", text(res))
					}
					if e.writes() != 0 {
						t.Fatal("wrote without the person's answer")
					}
					return
				}
				var out writeOut
				decode(t, res, &out)
				if out.Status != "confirmation_required" || out.Confirmation == "" || out.Card != nil {
					t.Fatalf("the repeat after 10 s: %s; want a code", text(res))
				}
				var done writeOut
				e.ok("set_category_budget", withArg(budgetArgs, "confirmation", out.Confirmation), &done)
				if done.Status != "applied" || e.onlyOperation().ConfirmedVia != string(confirm.ModeCode) {
					t.Fatalf("the code: %+v; want applied, journaled code", done)
				}
			})
		}
	}
}

// Once a card for the change was opened, the client draws cards: a repeat, however late, is
// pending on a new card, never a code.
func TestCardOnceOpenedNeverACode(t *testing.T) {
	clock := newFakeClock()
	e := newEnv(t, envOptions{kind: modernApps, clock: clock.Now})
	_, handle := e.pending("set_category_budget", budgetArgs)
	e.open(handle)
	for range 3 {
		clock.advance(30 * time.Second)
		next, h := e.pending("set_category_budget", budgetArgs)
		if next.Confirmation != "" || h == handle {
			t.Fatalf("a repeat after the card was opened: %+v", next)
		}
		if v := e.open(handle); v.State != confirm.CardSuperseded || v.Token != "" {
			t.Fatalf("the card before = %+v; want superseded", v)
		}
		handle = h
	}
	clock.advance(601 * time.Second) // unanswered past its lifetime
	if v := e.open(handle); v.State != confirm.CardExpired || v.Token != "" {
		t.Fatalf("a card past its lifetime = %+v; want expired", v)
	}
	if e.writes() != 0 {
		t.Fatal("wrote without an answer")
	}
}

// A card mounted again shows what its answer did: a write that landed in part stays partial
// (part of it is in YNAB, and the card offers to undo that part), a refused one is an error.
func TestCardOutcomeKeepsPartial(t *testing.T) {
	result := func(isError bool, structured map[string]any) *mcp.CallToolResult {
		return &mcp.CallToolResult{IsError: isError, StructuredContent: structured,
			Content: []mcp.Content{&mcp.TextContent{Text: "the message"}}}
	}
	for _, tt := range []struct {
		name       string
		res        *mcp.CallToolResult
		status     string
		reason, op string
	}{
		{"applied", result(false, map[string]any{"status": "applied", "operation_id": "01OP"}), "applied", "", "01OP"},
		{"partial", result(true, map[string]any{"status": "partial", "reason": "partial", "operation_id": "01OP"}), "partial", "partial", "01OP"},
		{"refused by YNAB", result(true, map[string]any{"status": "error", "reason": "ynab_refused", "operation_id": "01OP"}), "error", "ynab_refused", "01OP"},
		{"not settled", result(true, map[string]any{"status": "error", "reason": "not_settled", "operation_id": "01OP"}), "error", "not_settled", "01OP"},
		{"an error without structured content", result(true, nil), "error", "", ""},
		{"no result", nil, "error", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := outcomeOf(tt.res, nil)
			failed := tt.res == nil || tt.res.IsError
			if o.Status != tt.status || o.Reason != tt.reason || o.OperationID != tt.op || failed && o.Message == "" {
				t.Fatalf("outcome %+v; want status %s, reason %q, operation %q (and a message when it failed)", o, tt.status, tt.reason, tt.op)
			}
		})
	}
}
