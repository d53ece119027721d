package uitest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// These tests drive the built views (tools/ui/dist) in headless Chromium against
// test/fake-server.mjs, which keeps avenir's contract for the card and the pictures. avenir's
// own tests drive the same views against the real server.

func fake() []string {
	return []string{"node", filepath.Join(Dir(), "test", "fake-server.mjs")}
}

var move = map[string]any{"from_category": "Tennis", "to_category": "Restaurants", "month": "2026-12", "amount": "30.00"}

// ok fails the test unless the run's own checks held and the view ended in state.
func ok(t *testing.T, r Result, state string) {
	t.Helper()
	if !r.OK || r.FinalState != state {
		t.Fatalf("want ok and state %s; the run:\n%s", state, r)
	}
	if r.TokenInMessages || r.TokenInView || r.TokenInModelContent {
		t.Errorf("a token leaked: messages %v, view %v, model content %v", r.TokenInMessages, r.TokenInView, r.TokenInModelContent)
	}
}

func answers(r Result) []string {
	var out []string
	for _, c := range r.CallsTo("answer_confirmation") {
		out = append(out, fmt.Sprint(c.Arguments["answer"]))
	}
	return out
}

// resultOf is a call's structured content.
func resultOf(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var r struct {
		StructuredContent map[string]any `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r.StructuredContent
}

func TestCard(t *testing.T) {
	cases := []struct {
		name     string
		opts     Options
		state    string
		answers  []string
		messages []string // what each message to the conversation starts with
		check    func(t *testing.T, r Result)
	}{{
		name: "confirm", opts: Options{Tool: "move_money", Args: move, Scenario: "confirm"},
		state: "applied", answers: []string{"accept"},
		messages: []string{"I confirmed on the card: Moved 30.00 from Tennis to Restaurants for 2026-12-01 (operation "},
		check: func(t *testing.T, r Result) {
			if r.ResourceURI != "ui://avenir/confirm.html" || r.ResourceMIMEType != "text/html;profile=mcp-app" {
				t.Errorf("resource %s (%s)", r.ResourceURI, r.ResourceMIMEType)
			}
			if strings.Join(r.AppOnlyTools, ",") != "open_confirmation,answer_confirmation" {
				t.Errorf("app-only tools %v, want [open_confirmation answer_confirmation]", r.AppOnlyTools)
			}
			if opens := r.CallsTo("open_confirmation"); len(opens) != 1 {
				t.Errorf("the card opened its handle %d times, want once", len(opens))
			}
			for _, c := range r.CallsTo("answer_confirmation") {
				if c.Arguments["version"] != float64(2) {
					t.Errorf("answer_confirmation without version 2: %v", c.Arguments)
				}
			}
			id := fmt.Sprint(resultOf(t, r.CallsTo("answer_confirmation")[0].Result)["operation_id"])
			if !strings.Contains(r.Messages[0].Text, id) || !strings.Contains(r.ViewText, id) {
				t.Errorf("operation %s is not in the message %q or on the card", id, r.Messages[0].Text)
			}
			if !strings.Contains(r.ViewText, "Undo") {
				t.Error("an undoable write's outcome offers no Undo")
			}
		},
	}, {
		name: "confirm, 2026-07-28", opts: Options{Tool: "move_money", Args: move, Scenario: "confirm", Protocol: "2026-07-28"},
		state: "applied", answers: []string{"accept"}, messages: []string{"I confirmed on the card: Moved 30.00"},
		check: func(t *testing.T, r Result) {
			if r.Protocol != "2026-07-28" {
				t.Errorf("protocol %s", r.Protocol)
			}
		},
	}, {
		name: "undo, with a host that echoes results", opts: Options{Tool: "move_money", Args: move, Scenario: "undo", EchoResults: true},
		state: "applied", answers: []string{"accept", "accept"},
		messages: []string{"I confirmed on the card: Moved 30.00", "I confirmed on the card: Undid Moved 30.00"},
	}, {
		name:  "the plan changed, with a host that echoes results",
		opts:  Options{Tool: "move_money", Args: move, Scenario: "confirm", EchoResults: true, BeforeAnswer: &Call{Name: "fake_change_plan"}},
		state: "changed", answers: []string{"accept"},
		messages: []string{"I confirmed “Move 30.00 from Tennis to Restaurants for 2026-12-01?” on the card, but the plan changed"},
	}, {
		name: "decline", opts: Options{Tool: "move_money", Args: move, Scenario: "decline"},
		state: "declined", answers: []string{"decline"},
		messages: []string{"I declined on the card: “Move 30.00 from Tennis to Restaurants for 2026-12-01?”. Nothing was written."},
	}, {
		name: "double click sends one answer", opts: Options{Tool: "move_money", Args: move, Scenario: "double-click"},
		state: "applied", answers: []string{"accept"}, messages: []string{"I confirmed on the card: Moved 30.00"},
	}, {
		name: "undo on the card", opts: Options{Tool: "move_money", Args: move, Scenario: "undo"},
		state: "applied", answers: []string{"accept", "accept"},
		messages: []string{"I confirmed on the card: Moved 30.00", "I confirmed on the card: Undid Moved 30.00"},
		check: func(t *testing.T, r Result) {
			if len(r.CallsTo("undo_operation")) != 1 || r.TokensSeen != 2 {
				t.Errorf("undo_operation calls %d, tokens %d; want 1 and 2", len(r.CallsTo("undo_operation")), r.TokensSeen)
			}
		},
	}, {
		name: "the plan changed", opts: Options{Tool: "move_money", Args: move, Scenario: "confirm", BeforeAnswer: &Call{Name: "fake_change_plan"}},
		state: "changed", answers: []string{"accept"},
		messages: []string{"I confirmed “Move 30.00 from Tennis to Restaurants for 2026-12-01?” on the card, but the plan changed"},
	}, {
		name: "a used token is refused",
		opts: Options{Tool: "move_money", Args: move, Scenario: "confirm",
			BeforeAnswer: &Call{Name: "answer_confirmation", Arguments: map[string]any{"token": "$TOKEN", "answer": "decline", "version": 2}}},
		state: "refused", answers: []string{"accept"},
		messages: []string{"I answered on the card for “Move 30.00 from Tennis to Restaurants for 2026-12-01?”, but avenir refused"},
	}, {
		name: "partly applied",
		opts: Options{Tool: "move_money", Scenario: "confirm",
			Args: map[string]any{"from_category": "Tennis", "to_category": "Broken", "month": "2026-12", "amount": "30.00"}},
		state: "partial", answers: []string{"accept"},
		messages: []string{"I confirmed on the card, and avenir wrote only part of it: Only part of the change is in YNAB"},
		check: func(t *testing.T, r Result) {
			if !strings.Contains(r.ViewText, "Undo the part in YNAB") {
				t.Error("a partial outcome offers no undo of the part that landed")
			}
		},
	}, {
		name: "bad arguments: no Confirm",
		opts: Options{Tool: "move_money", Scenario: "show",
			Args: map[string]any{"from_category": "Tennis", "to_category": "Restaurants", "month": "2026-12", "amount": "abc"}},
		state: "error",
		check: func(t *testing.T, r Result) {
			if !strings.Contains(r.ViewText, "amount: “abc” is not an amount") || strings.Contains(r.ViewText, "Confirm") {
				t.Errorf("the card shows %q", r.ViewText)
			}
		},
	}, {
		name: "the token expires", opts: Options{Tool: "move_money", Args: move, Scenario: "expire", Env: []string{"FAKE_TOKEN_SECONDS=2"}},
		state: "expired",
	}, {
		name: "a code is never shown", opts: Options{Tool: "move_money", Args: move, Scenario: "show", Elicit: "accept"},
		state: "required",
		check: func(t *testing.T, r Result) {
			var res struct {
				StructuredContent struct {
					Status, Confirmation string
				} `json:"structuredContent"`
			}
			if err := json.Unmarshal(r.InitialResult, &res); err != nil {
				t.Fatal(err)
			}
			code := res.StructuredContent.Confirmation
			if res.StructuredContent.Status != "confirmation_required" || code == "" {
				t.Fatalf("the fake did not ask by code: %s", r.InitialResult)
			}
			if strings.Contains(r.ViewText, code) || strings.Contains(r.ViewText, "Confirm\n") {
				t.Errorf("the card shows the code or a Confirm button: %q", r.ViewText)
			}
		},
	}, {
		name:  "every line of a long change",
		opts:  Options{Tool: "apply_categories", Scenario: "show", Args: map[string]any{"changes": fortyChanges()}},
		state: "pending",
		check: func(t *testing.T, r Result) {
			if n := strings.Count(r.ViewText, "→ Everyday: Groceries"); n != 40 {
				t.Errorf("the card shows %d of 40 changes", n)
			}
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := c.opts
			o.Server = fake()
			r := Drive(t, o)
			ok(t, r, c.state)
			if got := answers(r); strings.Join(got, ",") != strings.Join(c.answers, ",") {
				t.Errorf("answers sent %v, want %v", got, c.answers)
			}
			if len(r.Messages) != len(c.messages) {
				t.Fatalf("%d messages to the conversation, want %d: %v", len(r.Messages), len(c.messages), r.Messages)
			}
			for i, m := range c.messages {
				if r.Messages[i].Role != "user" || !strings.HasPrefix(r.Messages[i].Text, m) {
					t.Errorf("message %d: %s %q, want user %q…", i, r.Messages[i].Role, r.Messages[i].Text, m)
				}
			}
			if c.check != nil {
				c.check(t, r)
			}
		})
	}
}

func fortyChanges() []map[string]string {
	var out []map[string]string
	for i := 1; i <= 40; i++ {
		out = append(out, map[string]string{"transaction_id": fmt.Sprintf("tx-%03d", i+1), "category": "Groceries"})
	}
	return out
}

func TestPictures(t *testing.T) {
	cases := []struct {
		name  string
		opts  Options
		state string
		want  []string
		check func(t *testing.T, r Result)
	}{{
		name: "spending", opts: Options{Tool: "spending_report", Scenario: "spending", Args: map[string]any{"top": 5}},
		state: "rendered", want: []string{"Spending by category", "By month", "Outflow", "9,222.54", "Bills: Rent", "Other (6 categories)"},
	}, {
		name: "spending by month", opts: Options{Tool: "spending_report", Scenario: "spending", Args: map[string]any{"group_by": "month"}},
		state: "rendered", want: []string{"Spending by month", "By month"},
	}, {
		name: "journal", opts: Options{Tool: "list_operations", Scenario: "journal"},
		state: "rendered", want: []string{"What avenir wrote", "Flag 2 transaction(s)", "partly applied", "Cannot be undone: A split", "Undo"},
	}, {
		name: "undo from the journal, with a host that echoes results", opts: Options{Tool: "list_operations", Scenario: "journal-undo", EchoResults: true},
		state: "applied", want: []string{"What avenir wrote", "Undid Flag 2 transaction(s)"},
	}, {
		name: "undo from the journal", opts: Options{Tool: "list_operations", Scenario: "journal-undo"},
		state: "applied", want: []string{"Undid Flag 2 transaction(s)"},
		check: func(t *testing.T, r Result) {
			if len(r.CallsTo("undo_operation")) != 1 || strings.Join(answers(r), ",") != "accept" {
				t.Errorf("calls %v", callNames(r.Calls))
			}
			if len(r.Messages) != 1 || !strings.HasPrefix(r.Messages[0].Text, "I confirmed on the card: Undid Flag 2 transaction(s)") {
				t.Errorf("messages %v", r.Messages)
			}
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := c.opts
			o.Server = fake()
			r := Drive(t, o)
			ok(t, r, c.state)
			for _, w := range c.want {
				if !strings.Contains(r.ViewText, w) {
					t.Errorf("the view lacks %q:\n%s", w, r.ViewText)
				}
			}
			if c.check != nil {
				c.check(t, r)
			}
		})
	}
}

// TestScreenshots writes the README's pictures of the views into AVENIR_UI_SCREENSHOTS (a
// directory; a relative one is taken from the repository's root, e.g. docs), at 400 px and
// at a desktop width, light and dark.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("AVENIR_UI_SCREENSHOTS")
	if dir == "" {
		t.Skip("set AVENIR_UI_SCREENSHOTS to a directory to write the screenshots")
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(Dir(), "..", "..", dir)
	}
	shots := []struct {
		file string
		opts Options
	}{
		{"card.png", Options{Tool: "move_money", Args: move, Scenario: "show"}},
		{"card-dark.png", Options{Tool: "move_money", Args: move, Scenario: "show", Theme: "dark"}},
		{"card-applied.png", Options{Tool: "move_money", Args: move, Scenario: "confirm"}},
		{"spending.png", Options{Tool: "spending_report", Scenario: "spending"}},
		{"spending-wide-dark.png", Options{Tool: "spending_report", Scenario: "spending", Width: 760, Theme: "dark"}},
		{"journal.png", Options{Tool: "list_operations", Scenario: "journal", Width: 760}},
	}
	for _, s := range shots {
		o := s.opts
		o.Server = fake()
		if o.Scenario == "confirm" {
			o.ScreenshotAfter = filepath.Join(dir, s.file)
		} else {
			o.Screenshot = filepath.Join(dir, s.file)
		}
		if r := Drive(t, o); !r.OK {
			t.Errorf("%s:\n%s", s.file, r)
		}
	}
}

// TestHosts drives the card through every host the harness emulates (confirmation.md §2.4's
// table; drive.mjs's HOSTS names each one's evidence), against the fake: in each, Confirm applies
// the change on the card, Decline writes nothing, and an adversarial model — everything the host
// gives its model, every tool it offers it, every string it has seen, twice — writes nothing.
// avenir's own tests (cmd/avenir, card_hosts_browser_test.go) drive the same hosts against the
// real server.
func TestHosts(t *testing.T) {
	for _, host := range Hosts {
		if host == "terminal" {
			continue // below: it draws no card
		}
		for _, sc := range []struct{ scenario, state string }{{"confirm", "applied"}, {"decline", "declined"}, {"adversary", "pending"}} {
			t.Run(host+"/"+sc.scenario, func(t *testing.T) {
				t.Parallel()
				state := sc.state
				if host == "remount" {
					// Mounted again after the scenario: answered, or (after the adversary asked
					// for the change again) superseded by the newer card.
					state = map[string]string{"confirm": "answered", "decline": "answered", "adversary": "superseded"}[sc.scenario]
				}
				r := Drive(t, Options{Server: fake(), Host: host, Tool: "move_money", Args: move, Scenario: sc.scenario})
				ok(t, r, state)
				if n := len(r.CallsTo("open_confirmation")); n < 1 {
					t.Errorf("the card never opened its handle")
				}
				switch sc.scenario {
				case "confirm":
					if a := answers(r); strings.Join(a, ",") != "accept" {
						t.Errorf("answers %v", a)
					}
				case "decline":
					if a := answers(r); strings.Join(a, ",") != "decline" {
						t.Errorf("answers %v", a)
					}
				case "adversary":
					if r.Adversary == nil || r.Adversary.Calls < 20 || len(r.Adversary.Writes) != 0 {
						t.Errorf("the adversary: %+v", r.Adversary)
					}
				}
				if host == "remount" && sc.scenario != "adversary" {
					if r.Remount == nil || r.Remount.OffersConfirm || r.Remount.State != "answered" {
						t.Errorf("mounted again: %+v", r.Remount)
					}
				}
				if host == "claude-ai" && !slices.Contains(r.HostTools, "open_confirmation") {
					t.Errorf("the session with empty capabilities was not listed open_confirmation: %v", r.HostTools)
				}
			})
		}
	}
	t.Run("terminal", func(t *testing.T) {
		t.Parallel()
		r := Drive(t, Options{Server: fake(), Host: "terminal", Tool: "move_money", Args: move, Scenario: "confirm",
			Env: []string{"FAKE_NOT_SHOWN_SECONDS=1"}, RepeatAfter: 1200 * time.Millisecond})
		if !r.OK || r.Terminal == nil || len(r.Terminal.Calls) != 3 {
			t.Fatalf("the run: %s\n%+v", r, r.Terminal)
		}
		var got []string
		for _, c := range r.Terminal.Calls {
			got = append(got, c.Status)
		}
		if strings.Join(got, ",") != "confirmation_pending,confirmation_required,applied" {
			t.Errorf("the terminal's calls answered %v", got)
		}
	})
}

// TestTelling: the card tells the conversation by ui/message, else by model context, and says it
// told only what the host took.
func TestTelling(t *testing.T) {
	for _, c := range []struct{ messages, told, via, says string }{
		{"accept", "yes", "message", "The assistant has been told."},
		{"refuse", "yes", "context", "The assistant will see this on its next turn."},
		{"none", "no", "none", "The host took no message: tell the assistant what happened."},
	} {
		t.Run(c.messages, func(t *testing.T) {
			t.Parallel()
			r := Drive(t, Options{Server: fake(), Tool: "move_money", Args: move, Scenario: "decline", Messages: c.messages})
			ok(t, r, "declined")
			if r.Told != c.told || r.ToldVia != c.via || !strings.Contains(r.ViewText, c.says) {
				t.Errorf("told %q via %q, the card says %q; want %q via %q, %q", r.Told, r.ToldVia, r.ViewText, c.told, c.via, c.says)
			}
			if c.via == "context" && (len(r.ModelContext) != 1 || len(r.Messages) != 0) {
				t.Errorf("model context %d, messages %d; want 1 and 0", len(r.ModelContext), len(r.Messages))
			}
		})
	}
}

// TestCardVersions: a card and a server of different versions of the card exchange fail closed
// (hosts keep old views across upgrades: Claude Desktop until a full quit, ChatGPT longer).
func TestCardVersions(t *testing.T) {
	for _, v := range []string{"1", "3"} {
		t.Run("a server of version "+v, func(t *testing.T) {
			t.Parallel()
			r := Drive(t, Options{Server: fake(), Env: []string{"FAKE_CARD_VERSION=" + v}, Tool: "move_money", Args: move, Scenario: "show"})
			ok(t, r, "outdated")
			if len(r.Calls) != 0 || strings.Contains(r.ViewText, "Confirm\n") || !strings.Contains(r.ViewText, "another version of avenir") {
				t.Errorf("calls %v; the card shows %q", callNames(r.Calls), r.ViewText)
			}
		})
	}
	t.Parallel()
	r := Drive(t, Options{Server: fake(), Tool: "move_money", Args: move, Scenario: "confirm",
		BeforeAnswer: &Call{Name: "answer_confirmation", Arguments: map[string]any{"token": "$TOKEN", "answer": "accept", "version": 1}}})
	// The harness's answer of another version is refused and writes nothing; the card's own
	// (version 2) then applies.
	if len(r.HarnessCalls) != 1 || !strings.Contains(string(r.HarnessCalls[0].Result), `"card_outdated"`) {
		t.Fatalf("an answer of version 1: %+v", r.HarnessCalls)
	}
	ok(t, r, "applied")
}
