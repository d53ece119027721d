package tools

import (
	"context"
	"encoding/json"
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

// pending calls a confirmed tool on a card client and returns its pending result and token.
func (e *testEnv) pending(tool string, args map[string]any) (writeOut, string) {
	e.t.Helper()
	res := e.call(tool, args)
	if res.IsError {
		e.t.Fatalf("%s: %s", tool, text(res))
	}
	var out writeOut
	decode(e.t, res, &out)
	if out.Status != "confirmation_pending" {
		e.t.Fatalf("%s: status %q, want confirmation_pending: %s", tool, out.Status, text(res))
	}
	var card confirm.CardToken
	raw, err := json.Marshal(res.Meta[confirm.MetaKey])
	if err != nil {
		e.t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &card); err != nil || len(card.Token) != 22 || card.ExpiresInSeconds != 600 {
		e.t.Fatalf("%s: _meta %s; want a 22-character token valid 600 s", tool, raw)
	}
	// What the model reads holds nothing it could confirm with.
	if strings.Contains(text(res), card.Token) || out.Confirmation != "" {
		e.t.Fatalf("%s: the token or a code is where the model reads: %s", tool, text(res))
	}
	sc, err := json.Marshal(res.StructuredContent)
	if err != nil {
		e.t.Fatal(err)
	}
	if strings.Contains(string(sc), card.Token) || strings.Contains(string(sc), `"confirmation"`) {
		e.t.Fatalf("%s: the structured content carries a secret: %s", tool, sc)
	}
	return out, card.Token
}

func (e *testEnv) answer(token, answer string) *mcp.CallToolResult {
	e.t.Helper()
	return e.call("answer_confirmation", map[string]any{"token": token, "answer": answer})
}

func TestCardConfirmsOnlyWithTheToken(t *testing.T) {
	for _, kind := range []clientKind{modernApps, legacyApps} {
		t.Run(kind.name, func(t *testing.T) {
			e := newEnv(t, envOptions{kind: kind})
			out, token := e.pending("set_category_budget", budgetArgs)
			if out.Title != budgetPreview || out.Preview != budgetPreview || out.Tool != "set_category_budget" || out.PlanName == "" ||
				!strings.Contains(out.Message, "card") {
				t.Fatalf("pending result = %+v", out)
			}
			if e.writes() != 0 {
				t.Fatal("a pending card wrote")
			}
			// The pending result's values, passed back as a code, confirm nothing.
			for _, v := range []string{out.Title, out.Message, out.Tool} {
				e.fails("set_category_budget", withArg(budgetArgs, "confirmation", v), refusedSentence)
			}
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
	_, token := e.pending("move_money", map[string]any{"from_category": "Tennis", "to_category": "Restaurants", "amount": "30"})
	var out writeOut
	decode(t, e.answer(token, "decline"), &out)
	if out.Status != "declined" || !strings.Contains(out.Message, "Nothing was written.") {
		t.Fatalf("decline = %+v", out)
	}
	if e.writes() != 0 || len(e.operations(journal.Filter{})) != 0 {
		t.Fatal("a declined card wrote or journaled")
	}
	e.fails("answer_confirmation", map[string]any{"token": token, "answer": "accept"}, refusedSentence)
}

func TestCardRefusesBadAnswers(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernApps})
	_, token := e.pending("set_category_budget", budgetArgs)
	code := newEnv(t, envOptions{kind: noElicit})
	var withCode writeOut
	code.ok("set_category_budget", budgetArgs, &withCode)
	other := newEnv(t, envOptions{kind: modernApps})
	_, foreign := other.pending("set_category_budget", budgetArgs)
	for _, c := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"no token", map[string]any{"answer": "accept"}, "token"},
		{"no answer", map[string]any{"token": token}, "answer"},
		{"an answer that is neither", map[string]any{"token": token, "answer": "yes"}, `answer: "yes" is neither accept nor decline`},
		{"an unknown token", map[string]any{"token": "AAAAAAAAAAAAAAAAAAAAAA", "answer": "accept"}, refusedSentence},
		{"a code instead of a token", map[string]any{"token": withCode.Confirmation, "answer": "accept"}, refusedSentence},
		{"a token of another server process", map[string]any{"token": foreign, "answer": "accept"}, refusedSentence},
		{"a number", map[string]any{"token": 12345, "answer": "accept"}, refusedSentence},
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
	_, token := e.pending("set_category_budget", budgetArgs)
	mu.Lock()
	now = now.Add(601 * time.Second)
	mu.Unlock()
	e.fails("answer_confirmation", map[string]any{"token": token, "answer": "accept"}, refusedSentence)
	if e.writes() != 0 {
		t.Fatal("an expired token wrote")
	}
}

// The plan changed between the card and the click: "current" is another month by then.
func TestCardPlanChanged(t *testing.T) {
	e := newEnv(t, envOptions{kind: modernApps})
	_, token := e.pending("set_category_budget", budgetArgs)
	e.setNow(time.Date(2027, 1, 1, 0, 5, 0, 0, time.UTC))
	e.fails("answer_confirmation", map[string]any{"token": token, "answer": "accept"}, "The plan changed between the preview and the answer")
	if e.writes() != 0 || len(e.operations(journal.Filter{})) != 0 {
		t.Fatal("a stale card wrote")
	}
}

// Every confirmed tool names the card; answer_confirmation is app-only and listed only to a
// client that renders MCP Apps; the card is a resource of the MCP App type.
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
	plain := names(newEnv(t, envOptions{kind: noElicit}))
	if _, ok := plain["answer_confirmation"]; ok {
		t.Error("answer_confirmation is listed to a client without MCP Apps")
	}
	apps := names(newEnv(t, envOptions{kind: modernApps}))
	a, ok := apps["answer_confirmation"]
	if !ok {
		t.Fatal("answer_confirmation is not listed to a client with MCP Apps")
	}
	ui, _ := a.Meta["ui"].(map[string]any)
	if vis, _ := ui["visibility"].([]any); !slices.Equal(vis, []any{"app"}) {
		t.Errorf("answer_confirmation's visibility = %v, want [app]", ui["visibility"])
	}
	for name, tl := range apps {
		confirmed := strings.HasSuffix(tl.Description, confirm.ToolRule)
		ui, _ := tl.Meta["ui"].(map[string]any)
		if confirmed && ui["resourceUri"] != cardURI {
			t.Errorf("%s: a confirmed tool must name the card, has _meta %v", name, tl.Meta)
		}
		if !confirmed && name != "answer_confirmation" && ui["resourceUri"] == cardURI {
			t.Errorf("%s names the card but asks no confirmation", name)
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
		_, token := e.pending("set_category_budget", budgetArgs)
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
	_, token := e.pending("set_category_budget", budgetArgs)
	var done writeOut
	decode(t, e.answer(token, "accept"), &done)
	out, undoToken := e.pending("undo_operation", map[string]any{"operation_id": done.OperationID})
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
