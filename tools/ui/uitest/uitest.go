// Package uitest drives avenir's MCP Apps views in a real browser, for tests: it runs the test
// host tools/ui/test/drive.mjs (headless Chromium, ext-apps' AppBridge, the TypeScript SDK's
// client over stdio) against a server, plays a scenario in a view as a person would, and
// returns what happened: the results the view was handed and got back, the messages it sent
// to the conversation, and whether a confirmation token leaked anywhere.
//
// It needs node, the packages of tools/ui/package-lock.json in tools/ui/node_modules
// (tools/ui/build.sh installs them) and Chromium (Debian's chromium, or CHROMIUM naming one).
// Where one is missing, Drive skips the test — but fails it when CI is set, since .ci/run
// installs all three.
package uitest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Options are one run of the harness.
type Options struct {
	// Server is the MCP server to start over stdio: the program and its arguments.
	Server []string
	// Env is added to the server's environment, as K=V (the test's own is passed on too).
	Env []string
	// Dir is the server's working directory; empty for the test's.
	Dir string
	// Protocol is "" for the older protocol era (2025-11-25: capabilities in initialize) or
	// "2026-07-28" (capabilities in every request's _meta).
	Protocol string
	// Host is the host to emulate (drive.mjs's HOSTS): "" or sdk (the SDK's bridge),
	// claude-desktop, chatgpt-web, claude-ai, terminal, strict or remount. The Hosts variable
	// lists them.
	Host string
	// Messages is what the host does with the view's messages: "" or accept, refuse
	// (ui/message answered with an error) or none (neither ui/message nor model context).
	Messages string
	// AdversaryWait is how long the adversarial model (scenario adversary) waits before it
	// retries; RepeatAfter how long a terminal's model waits before it asks again (default
	// 10.5 s: avenir gives a code 10 s after a card nobody drew).
	AdversaryWait, RepeatAfter time.Duration
	// Tool is the tool to call; its _meta.ui.resourceUri names the view. Args are its
	// arguments (marshalled to JSON; nil for none).
	Tool string
	Args any
	// Scenario is one of show, adversary, confirm, decline, double-click, undo, expire, spending,
	// journal and journal-undo (README.md beside drive.mjs says what each does).
	Scenario string
	// BeforeAnswer is a tool the harness calls itself once the card is pending, before the
	// click; the string "$TOKEN" in its arguments stands for the card's token.
	BeforeAnswer *Call
	// Elicit, when set (accept, decline or cancel), declares form elicitation too and answers
	// the server's questions so.
	Elicit string
	// EchoResults makes the host also notify the view of the results of its own tools/call,
	// as some hosts do.
	EchoResults bool
	// ExpectState makes the run fail unless the view ends in this state.
	ExpectState string
	// Theme is light (default) or dark; Width the view's width in CSS pixels (default 400).
	Theme string
	Width int
	// Screenshot and ScreenshotAfter are PNG files to write: the view once it shows the
	// result, and at the end of the scenario.
	Screenshot, ScreenshotAfter string
	// Wait bounds each wait in the browser (default 20 s).
	Wait time.Duration
}

// Hosts are the hosts the harness emulates (drive.mjs's HOSTS), each with the evidence of
// what it does: confirmation.md §2.4's table.
var Hosts = []string{"sdk", "claude-desktop", "chatgpt-web", "claude-ai", "terminal", "strict", "remount"}

// Call is a tools/call: the view's, forwarded to the server, or the harness's own.
type Call struct {
	Name      string          `json:"name"`
	Arguments map[string]any  `json:"arguments"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// Message is a ui/message the view sent to the host, for the conversation.
type Message struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// Result is what the harness saw.
type Result struct {
	OK               bool              `json:"ok"`
	Scenario         string            `json:"scenario"`
	Tool             string            `json:"tool"`
	Protocol         string            `json:"protocol"`
	ResourceURI      string            `json:"resource_uri"`
	ResourceMIMEType string            `json:"resource_mime_type"`
	ViewBytes        int               `json:"view_bytes"`
	AppOnlyTools     []string          `json:"app_only_tools"`
	InitialResult    json.RawMessage   `json:"initial_result"`
	Calls            []Call            `json:"calls"`
	HarnessCalls     []Call            `json:"harness_calls"`
	Elicitations     []json.RawMessage `json:"elicitations"`
	Messages         []Message         `json:"messages"`
	ModelContext     []json.RawMessage `json:"model_context"`
	Logs             []json.RawMessage `json:"logs"`
	// States are the view's data-state at each step; FinalState the last.
	States     []string `json:"states"`
	FinalState string   `json:"final_state"`
	// Told is "yes" or "no" after the view tried to tell the conversation, else empty.
	Told     string `json:"told"`
	ToldVia  string `json:"told_via"`
	ViewText string `json:"view_text"`

	TokensSeen          int      `json:"tokens_seen"`
	TokenInModelContent bool     `json:"token_in_model_content"`
	TokenInMessages     bool     `json:"token_in_messages"`
	TokenInView         bool     `json:"token_in_view"`
	BlockedRequests     []string `json:"blocked_requests"`
	ConsoleErrors       []string `json:"console_errors"`
	RefusedCalls        []string `json:"refused_calls"`
	Screenshots         []string `json:"screenshots"`
	Host                string   `json:"host"`
	HostTools           []string `json:"host_tools"`
	// Adversary is what the adversarial model did (scenario adversary).
	Adversary *struct {
		Calls    int            `json:"calls"`
		Strings  int            `json:"strings"`
		Writes   []any          `json:"writes"`
		Statuses map[string]int `json:"statuses"`
	} `json:"adversary"`
	// Terminal is what the model of a host that never draws did: each call and its status.
	Terminal *struct {
		Calls []struct {
			Arguments map[string]any  `json:"arguments"`
			Status    string          `json:"status"`
			Reason    string          `json:"reason"`
			Result    json.RawMessage `json:"result"`
		} `json:"calls"`
	} `json:"terminal"`
	// Remount is the card mounted again after the scenario (host remount).
	Remount *struct {
		State         string `json:"state"`
		Outcome       string `json:"outcome"`
		Text          string `json:"text"`
		OffersConfirm bool   `json:"offers_confirm"`
	} `json:"remount"`
	// Checks are the harness's own checks that failed, in words; Error why the run stopped.
	Checks []string `json:"checks"`
	Error  string   `json:"error"`
}

// CallsTo is the view's calls to one tool.
func (r Result) CallsTo(name string) []Call {
	var out []Call
	for _, c := range r.Calls {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// Dir is tools/ui: where drive.mjs, node_modules and dist are.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// Available says what the harness lacks on this machine, or nil when it has everything.
func Available() error {
	if _, err := exec.LookPath("node"); err != nil {
		return errors.New("no node on PATH")
	}
	if _, err := os.Stat(filepath.Join(Dir(), "node_modules", "puppeteer-core", "package.json")); err != nil {
		return errors.New("tools/ui/node_modules is not installed: run tools/ui/build.sh")
	}
	if Chromium() == "" {
		return errors.New("no chromium: apt-get install chromium, or set CHROMIUM")
	}
	return nil
}

// Chromium is the browser the harness uses: $CHROMIUM, else chromium on PATH, or "".
func Chromium() string {
	if c := os.Getenv("CHROMIUM"); c != "" {
		return c
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Drive runs one scenario and returns what the harness saw. It skips the test where the
// harness cannot run (and fails it when CI is set), and fails it when the harness could not
// be run or its output not read; a scenario whose checks failed returns with OK false, for
// the test to report with the rest of the Result.
func Drive(t testing.TB, o Options) Result {
	t.Helper()
	if err := Available(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the browser harness cannot run on CI: %v", err)
		}
		t.Skipf("the browser harness cannot run: %v", err)
	}
	if len(o.Server) == 0 || o.Tool == "" || o.Scenario == "" {
		t.Fatal("uitest.Drive: Server, Tool and Scenario are required")
	}
	argv, err := json.Marshal(o.Server)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{filepath.Join(Dir(), "test", "drive.mjs"),
		"--server-argv", string(argv), "--tool", o.Tool, "--scenario", o.Scenario}
	if o.Args != nil {
		b, err := json.Marshal(o.Args)
		if err != nil {
			t.Fatalf("uitest.Drive: Args: %v", err)
		}
		args = append(args, "--args", string(b))
	}
	for _, kv := range o.Env {
		args = append(args, "--env", kv)
	}
	if o.BeforeAnswer != nil {
		b, err := json.Marshal(o.BeforeAnswer)
		if err != nil {
			t.Fatalf("uitest.Drive: BeforeAnswer: %v", err)
		}
		args = append(args, "--before-answer", string(b))
	}
	opt := func(flag, v string) {
		if v != "" {
			args = append(args, flag, v)
		}
	}
	opt("--cwd", o.Dir)
	if o.Protocol != "" {
		opt("--protocol", o.Protocol)
	}
	opt("--elicit", o.Elicit)
	opt("--host", o.Host)
	opt("--messages", o.Messages)
	if o.AdversaryWait > 0 {
		opt("--adversary-wait", strconv.FormatInt(o.AdversaryWait.Milliseconds(), 10))
	}
	if o.RepeatAfter > 0 {
		opt("--repeat-after", strconv.FormatInt(o.RepeatAfter.Milliseconds(), 10))
	}
	if o.EchoResults {
		args = append(args, "--echo-results")
	}
	opt("--expect-state", o.ExpectState)
	opt("--theme", o.Theme)
	if o.Width != 0 {
		opt("--width", strconv.Itoa(o.Width))
	}
	opt("--screenshot", o.Screenshot)
	opt("--screenshot-after", o.ScreenshotAfter)
	wait := o.Wait
	if wait == 0 {
		wait = 20 * time.Second
	}
	opt("--timeout", strconv.FormatInt(wait.Milliseconds(), 10))
	opt("--chromium", Chromium())

	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var exit *exec.ExitError
	if errors.As(runErr, &exit) && exit.ExitCode() == 2 {
		t.Fatalf("drive.mjs refused its arguments: %s", strings.TrimSpace(stderr.String()))
	}
	line := lastLine(stdout.Bytes())
	var r Result
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatalf("drive.mjs (%v) printed no result: %v\nstdout: %s\nstderr: %s", runErr, err, stdout.String(), tail(stderr.String(), 4000))
	}
	if !r.OK {
		t.Logf("drive.mjs stderr:\n%s", tail(stderr.String(), 4000))
	}
	return r
}

func lastLine(b []byte) []byte {
	var last []byte
	s := bufio.NewScanner(bytes.NewReader(b))
	s.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for s.Scan() {
		if l := bytes.TrimSpace(s.Bytes()); len(l) > 0 {
			last = append(last[:0], l...)
		}
	}
	return last
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// String is a short account of a run, for a test's failure message.
func (r Result) String() string {
	b, err := json.MarshalIndent(struct {
		OK         bool      `json:"ok"`
		FinalState string    `json:"final_state"`
		States     []string  `json:"states"`
		Calls      []string  `json:"calls"`
		Messages   []Message `json:"messages"`
		Checks     []string  `json:"checks"`
		Error      string    `json:"error"`
		ViewText   string    `json:"view_text"`
	}{r.OK, r.FinalState, r.States, callNames(r.Calls), r.Messages, r.Checks, r.Error, r.ViewText}, "", "  ")
	if err != nil {
		return fmt.Sprint(err)
	}
	return string(b)
}

func callNames(cs []Call) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}
