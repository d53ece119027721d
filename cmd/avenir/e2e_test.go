package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/hosted/hostedtest"
)

// End-to-end tests of the real binary: built once, run as a process, spoken to over stdio.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// avenirBinary builds cmd/avenir once per test run.
func avenirBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "avenir-e2e-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "avenir")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = &buildError{out: string(out), err: err}
		}
	})
	if binErr != nil {
		t.Fatalf("building avenir: %v", binErr)
	}
	return binPath
}

type buildError struct {
	out string
	err error
}

func (b *buildError) Error() string { return b.err.Error() + "\n" + b.out }

// isolatedEnv is an environment with its own state directory and journal and no YNAB token.
func isolatedEnv(t testing.TB, extra ...string) (env []string, stateDir string) {
	t.Helper()
	dir := t.TempDir()
	env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_STATE_HOME=" + dir,
		"AVENIR_MCP_JOURNAL=" + filepath.Join(dir, "journal.db")}
	return append(env, extra...), dir
}

func runBinary(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(avenirBinary(t), args...)
	cmd.Env = env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func TestCommandLine(t *testing.T) {
	env, _ := isolatedEnv(t)
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"version", []string{"version"}, 0, "avenir ", ""},
		{"help", []string{"--help"}, 0, "avenir serve", ""},
		{"serve help", []string{"serve", "--help"}, 0, "", "--sandbox"},
		{"no command", nil, 2, "", "no command given"},
		{"unknown command", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{"bad serve flag", []string{"serve", "--sandboxx"}, 2, "", "flag provided but not defined"},
		{"serve without a token says how to get one", []string{"serve"}, 1, "", "https://app.ynab.com/settings/developer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runBinary(t, env, tt.args...)
			if code != tt.wantCode || !strings.Contains(out, tt.wantStdout) || !strings.Contains(errOut, tt.wantStderr) {
				t.Fatalf("avenir %v: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
					tt.args, code, out, errOut, tt.wantCode, tt.wantStdout, tt.wantStderr)
			}
		})
	}
}

// connectBinary starts `avenir serve --sandbox` and connects the go-sdk client at protocol
// (""= 2026-07-28) with opts.
func connectBinary(t *testing.T, env []string, protocol string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return connectServe(t, env, protocol, opts, "--sandbox")
}

// connectServe starts `avenir serve ARGS…` and connects the go-sdk client to it.
func connectServe(t *testing.T, env []string, protocol string, opts *mcp.ClientOptions, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(avenirBinary(t), append([]string{"serve"}, args...)...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "avenir-e2e", Version: "1"}, opts).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("connecting to avenir serve --sandbox: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestReadToolsOverStdio(t *testing.T) {
	for _, protocol := range []string{"2026-07-28", "2025-06-18"} {
		t.Run(protocol, func(t *testing.T) {
			env, _ := isolatedEnv(t)
			cs := connectBinary(t, env, protocol, nil)
			ctx := context.Background()
			if got := cs.InitializeResult().ProtocolVersion; got != protocol {
				t.Errorf("protocol %s, want %s", got, protocol)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			reads := 0
			for _, tool := range tools.Tools {
				if tool.Annotations == nil {
					t.Errorf("%s has no annotations", tool.Name)
					continue
				}
				if tool.OutputSchema == nil {
					t.Errorf("%s has no output schema", tool.Name)
				}
				if !tool.Annotations.ReadOnlyHint {
					continue
				}
				reads++
				args := map[string]any{}
				if tool.Name == "get_operation" {
					args["operation_id"] = "01J0000000000000000000000"
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: args})
				if err != nil {
					t.Errorf("%s: %v", tool.Name, err)
					continue
				}
				if res.IsError != (tool.Name == "get_operation") {
					t.Errorf("%s: isError=%v: %v", tool.Name, res.IsError, res.Content)
				}
			}
			if reads < 9 {
				t.Errorf("%d read tools listed, want the 9 of spec/tools.md", reads)
			}
			guide, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "avenir-mcp://guide"})
			if err != nil || len(guide.Contents) != 1 || !strings.Contains(guide.Contents[0].Text, "confirmation") {
				t.Fatalf("reading the guide: %v %v", err, guide)
			}
		})
	}
}

// TestWireFormatInputRequired speaks hand-written JSON-RPC to the binary, as a 2026-07-28
// client with elicitation that no SDK wrote: the first call of a confirmed write must come
// back input_required with one form request "confirm".
func TestWireFormatInputRequired(t *testing.T) {
	env, _ := isolatedEnv(t)
	cmd := exec.Command(avenirBinary(t), "serve", "--sandbox")
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"hand-written","version":"0"}}`
	req := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + meta +
		`,"name":"set_category_budget","arguments":{"category":"Restaurants","month":"current","amount":"150.00"}}}` + "\n"
	if _, err := stdin.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 16<<20)
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			ResultType    string `json:"resultType"`
			RequestState  string `json:"requestState"`
			InputRequests map[string]struct {
				Method string `json:"method"`
				Params struct {
					Mode            string `json:"mode"`
					Message         string `json:"message"`
					RequestedSchema struct {
						Type       string `json:"type"`
						Properties map[string]struct {
							Type string `json:"type"`
						} `json:"properties"`
						Required []string `json:"required"`
					} `json:"requestedSchema"`
				} `json:"params"`
			} `json:"inputRequests"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	for lines.Scan() {
		if err := json.Unmarshal(lines.Bytes(), &resp); err == nil && resp.ID == 7 {
			break
		}
	}
	if resp.ID != 7 {
		t.Fatalf("no answer to the call: %v", lines.Err())
	}
	r := resp.Result
	if len(resp.Error) > 0 || r.ResultType != "input_required" || r.RequestState == "" || len(r.InputRequests) != 1 {
		t.Fatalf("answer = %+v (error %s); want input_required with one input request and a state", r, resp.Error)
	}
	c, ok := r.InputRequests["confirm"]
	if !ok || c.Method != "elicitation/create" || c.Params.Mode != "form" {
		t.Fatalf("input request = %+v; want confirm: elicitation/create in form mode", r.InputRequests)
	}
	s := c.Params.RequestedSchema
	if s.Type != "object" || len(s.Properties) != 1 || s.Properties["value"].Type != "boolean" || len(s.Required) != 0 {
		t.Fatalf("form schema = %+v; want one boolean property value, not required", s)
	}
	if !strings.HasPrefix(c.Params.Message, "Budget Restaurants for 2026-") || !strings.Contains(c.Params.Message, ": 120.00 → 150.00?") {
		t.Fatalf("message = %q; want the preview", c.Params.Message)
	}
}

// TestRestartForgetsCodes: a code issued by one server process is refused by the next.
func TestRestartForgetsCodes(t *testing.T) {
	env, _ := isolatedEnv(t)
	args := map[string]any{"category": "Restaurants", "month": "current", "amount": "150.00"}
	first := connectBinary(t, env, "2025-06-18", nil)
	res, err := first.CallTool(context.Background(), &mcp.CallToolParams{Name: "set_category_budget", Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("preview: %v %v", err, res)
	}
	var got struct{ Status, Confirmation string }
	b := mustResult(t, res, &got)
	if got.Status != "confirmation_required" || len(got.Confirmation) != 11 {
		t.Fatalf("preview = %s; want confirmation_required with an 11-character code", b)
	}
	first.Close()

	second := connectBinary(t, env, "2025-06-18", nil)
	args["confirmation"] = got.Confirmation
	res, err = second.CallTool(context.Background(), &mcp.CallToolParams{Name: "set_category_budget", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	const refused = "This confirmation code is unknown, expired, already used, or was issued for different changes. Call again without confirmation to get a new preview."
	if !res.IsError || len(res.Content) == 0 || res.Content[0].(*mcp.TextContent).Text != refused {
		t.Fatalf("after a restart the old code gave %v; want the refusal", res.Content)
	}
}

func TestDemo(t *testing.T) {
	env, _ := isolatedEnv(t)
	out, errOut, code := runBinary(t, env, "demo")
	if code != 0 {
		t.Fatalf("demo exited %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"Huishouden", "Ready to assign", "need a category", "[ Confirm ]", "applied: Budgeted Uitjes", " app ",
		// The statement step: its preview's lines of each kind, confirmed by code, and what it did.
		"(import_statement)", "│ new: ", "│ matched: ", "│ already imported: ", "│ ambiguous, left alone: ",
		"applied: Imported", "new transaction(s) entered, unapproved"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	// The sample's statement has new lines, matching ones, and the one YNAB's linked import
	// brought in before it; and the journal lists the import.
	first := regexp.MustCompile(`│ Import \d+ statement line\(s\) into Betaalrekening: [1-9]\d* new, [1-9]\d* matched, 1 already imported\?`)
	if !first.MatchString(out) || !regexp.MustCompile(`applied +code +Imported \d+ statement line`).MatchString(out) {
		t.Errorf("demo output lacks the statement's first line or its journal entry:\n%s", out)
	}
}

// TestPilotOverStdio: the pilot write through the real binary, asked through the client, on
// both sides of the 2026-07-28 divide; the journal CLI then shows how it was confirmed.
func TestPilotOverStdio(t *testing.T) {
	for _, tt := range []struct{ protocol, via string }{{"2026-07-28", "mrtr"}, {"2025-11-25", "elicit"}} {
		t.Run(tt.protocol, func(t *testing.T) {
			env, _ := isolatedEnv(t)
			var asked []string
			opts := &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked = append(asked, r.Params.Message)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"value": true}}, nil
			}}
			cs := connectBinary(t, env, tt.protocol, opts)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "set_category_budget",
				Arguments: map[string]any{"category": "Restaurants", "month": "current", "amount": "150.00"}})
			if err != nil || res.IsError {
				t.Fatalf("set_category_budget: %v %v", err, res)
			}
			var out struct {
				Status      string `json:"status"`
				OperationID string `json:"operation_id"`
			}
			b := mustResult(t, res, &out)
			if out.Status != "applied" || out.OperationID == "" || len(asked) != 1 || !strings.HasSuffix(asked[0], ": 120.00 → 150.00?") {
				t.Fatalf("result %s, asked %q; want applied after one question", b, asked)
			}
			stdout, stderr, code := runBinary(t, env, "journal", "list", "--json")
			if code != 0 || !strings.Contains(stdout, `"confirmed_via":"`+tt.via+`"`) || !strings.Contains(stdout, out.OperationID) {
				t.Fatalf("journal list --json: exit %d\n%s\n%s", code, stdout, stderr)
			}
			// Once the answer is out, the journal says so: an identical call now is a new one.
			// (It is recorded just after the line is written, so the client may be first.)
			if !hostedtest.WaitFor(10*time.Second, func() bool {
				stdout, stderr, code = runBinary(t, env, "journal", "show", out.OperationID)
				return code == 0 && strings.Contains(stdout, "answered")
			}) {
				t.Fatalf("journal show %s has no answered event: exit %d\n%s\n%s", out.OperationID, code, stdout, stderr)
			}
		})
	}
}

// TestTwoServersShareASandbox: `avenir serve` pointed at a running `avenir sandbox serve` works
// like `serve --sandbox`, and two servers on it share one plan: what one writes, the other reads.
func TestTwoServersShareASandbox(t *testing.T) {
	env, _ := isolatedEnv(t)
	sb := startSandbox(t, env, "--token", "shared-sandbox-token")
	env = append(env, "AVENIR_MCP_YNAB_URL="+sb.url, "YNAB_ACCESS_TOKEN=shared-sandbox-token")
	writer := connectServe(t, env, "2025-06-18", nil)
	reader := connectServe(t, env, "2026-07-28", nil)
	ctx := context.Background()
	assigned := func(fresh bool) string {
		res, err := reader.CallTool(ctx, &mcp.CallToolParams{Name: "list_categories", Arguments: map[string]any{"fresh": fresh}})
		if err != nil || res.IsError {
			t.Fatalf("list_categories: %v %v", err, res)
		}
		var out struct {
			Groups []struct {
				Categories []struct {
					Name     string
					Assigned string `json:"assigned"`
				} `json:"categories"`
			} `json:"groups"`
		}
		mustResult(t, res, &out)
		for _, g := range out.Groups {
			for _, c := range g.Categories {
				if c.Name == "Restaurants" {
					return c.Assigned
				}
			}
		}
		t.Fatal("no Restaurants")
		return ""
	}
	if got := assigned(false); got != "€120,00" {
		t.Fatalf("Restaurants before = %s", got)
	}
	args := map[string]any{"category": "Restaurants", "month": "current", "amount": "150.00"}
	res, err := writer.CallTool(ctx, &mcp.CallToolParams{Name: "set_category_budget", Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("preview: %v %v", err, res)
	}
	var first struct{ Confirmation string }
	mustResult(t, res, &first)
	args["confirmation"] = first.Confirmation
	if res, err = writer.CallTool(ctx, &mcp.CallToolParams{Name: "set_category_budget", Arguments: args}); err != nil || res.IsError {
		t.Fatalf("write: %v %v", err, res)
	}
	// The reader's cache holds its read for the freshness window; fresh: true asks YNAB at once.
	if got := assigned(true); got != "€150,00" {
		t.Fatalf("with fresh: true the second server still reads %s for Restaurants", got)
	}
}

// TestServeRefusesAForeignJournal: a journal path that holds something else stops serve at
// start, with the file named, and the file is left as it was.
func TestServeRefusesAForeignJournal(t *testing.T) {
	env, dir := isolatedEnv(t)
	path := filepath.Join(dir, "journal.db")
	content := []byte("my tax notes, not a journal\n")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runBinary(t, env, "serve", "--sandbox")
	if code != 1 || !strings.Contains(stderr, path) {
		t.Fatalf("serve with a foreign journal: exit %d, stderr %q; want exit 1 naming %s", code, stderr, path)
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, content) {
		t.Fatalf("serve changed a file that is not its journal (%v)", err)
	}
}
