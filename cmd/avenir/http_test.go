package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpServer is `avenir serve --sandbox --http 127.0.0.1:0` running as a process.
type httpServer struct {
	endpoint, secret string
	secretFile       string // where serve kept the secret, when it did not print it
	stderr           *lockedBuffer
	stop             func() // SIGTERM, and wait for the exit
}

// The lines serve --http writes on stderr about the secret.
const (
	secretHeaderLine = "Every request needs the header:  Authorization: Bearer "
	secretFileIntro  = "SECRET, with the secret in "
	secretFileEnd    = " (readable by you only)"
	secretFromEnv    = "SECRET, with the secret in AVENIR_MCP_HTTP_SECRET"
)

// startHTTPServe starts serve --http with stderr on a pipe, as a process manager runs it, and
// takes the secret from where serve says it is: its file, or AVENIR_MCP_HTTP_SECRET.
func startHTTPServe(t *testing.T, env []string, args ...string) *httpServer {
	t.Helper()
	cmd := exec.Command(avenirBinary(t), append([]string{"serve", "--sandbox", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = env
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	hs := startHTTPProcess(t, cmd, pipe)
	rest := hs.secret
	switch {
	case rest == secretFromEnv:
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, "AVENIR_MCP_HTTP_SECRET="); ok {
				hs.secret = v
			}
		}
	case strings.HasPrefix(rest, secretFileIntro) && strings.HasSuffix(rest, secretFileEnd):
		hs.secretFile = strings.TrimSuffix(strings.TrimPrefix(rest, secretFileIntro), secretFileEnd)
		b, err := os.ReadFile(hs.secretFile)
		if err != nil {
			t.Fatalf("the secret's file: %v", err)
		}
		hs.secret = strings.TrimSpace(string(b))
	default:
		t.Fatalf("with stderr on a pipe, serve --http said %q about the secret", rest)
	}
	if len(hs.secret) < 40 || strings.Contains(hs.stderr.String(), hs.secret) {
		t.Fatalf("secret of %d characters; stderr:\n%s", len(hs.secret), hs.stderr)
	}
	return hs
}

// startHTTPProcess starts cmd, whose stderr is out, and reads its endpoint and what follows
// the header line (the secret, or where it is) into hs.secret.
func startHTTPProcess(t *testing.T, cmd *exec.Cmd, out io.Reader) *httpServer {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	hs := &httpServer{stderr: &lockedBuffer{}}
	exited := make(chan struct{})
	go func() {
		err := cmd.Wait()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Errorf("waiting for serve --http: %v", err)
		}
		close(exited)
	}()
	var once sync.Once
	hs.stop = func() {
		once.Do(func() {
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
				t.Errorf("stopping serve --http: %v", err)
			}
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
					t.Errorf("killing serve --http: %v", err)
				}
				<-exited
			}
		})
	}
	t.Cleanup(hs.stop)
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := strings.TrimRight(sc.Text(), "\r")
			hs.stderr.Write([]byte(line + "\n"))
			if ep, ok := strings.CutPrefix(line, "avenir serving MCP over Streamable HTTP at "); ok {
				hs.endpoint = ep
			}
			if s, ok := strings.CutPrefix(line, secretHeaderLine); ok {
				hs.secret = s
				close(ready)
			}
		}
		// The rest goes nowhere: a pipe kept full would block serve's log. A read error here
		// is the end of the stream (a pty's master reads EIO once the child has gone).
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatalf("serve --http printed no endpoint and secret; stderr:\n%s", hs.stderr)
	}
	if !strings.HasPrefix(hs.endpoint, "http://127.0.0.1:") {
		t.Fatalf("endpoint %q", hs.endpoint)
	}
	return hs
}

// bearer adds the secret to every request, as a configured client does.
type bearer struct {
	secret string
	next   http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.secret)
	return b.next.RoundTrip(r)
}

func (hs *httpServer) connect(t *testing.T, protocol string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	transport := &mcp.StreamableClientTransport{Endpoint: hs.endpoint,
		HTTPClient: &http.Client{Transport: bearer{hs.secret, http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "avenir-http-test", Version: "1"}, opts).
		Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("connecting over HTTP at %s: %v\n%s", protocol, err, hs.stderr)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestHTTPBothEras: over Streamable HTTP the go-sdk client reads and writes on both protocol
// eras, confirmed each way the client allows: the input-required round trip (2026-07-28), the
// server's own question during the call (2025-11-25), and the code without elicitation, or
// with it under AVENIR_MCP_CONFIRM=code.
func TestHTTPBothEras(t *testing.T) {
	tests := []struct {
		name     string
		protocol string
		elicit   bool
		env      []string
		via      string // how the journal says it was confirmed
	}{
		{"2026-07-28 with elicitation", "2026-07-28", true, nil, "mrtr"},
		{"2026-07-28 without elicitation", "2026-07-28", false, nil, "code"},
		{"2025-11-25 with elicitation", "2025-11-25", true, nil, "elicit"},
		{"2025-06-18 without elicitation", "2025-06-18", false, nil, "code"},
		{"2025-11-25 with elicitation, codes forced", "2025-11-25", true, []string{"AVENIR_MCP_CONFIRM=code"}, "code"},
		{"2026-07-28 with elicitation, codes forced", "2026-07-28", true, []string{"AVENIR_MCP_CONFIRM=code"}, "code"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, _ := isolatedEnv(t, tt.env...)
			hs := startHTTPServe(t, env)
			var asked atomic.Int32
			opts := &mcp.ClientOptions{}
			if tt.elicit {
				opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked.Add(1)
					if !strings.HasPrefix(req.Params.Message, "Budget Restaurants for ") {
						t.Errorf("the question was %q", req.Params.Message)
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"value": true}}, nil
				}
			}
			cs := hs.connect(t, tt.protocol, opts)
			if got := cs.InitializeResult().ProtocolVersion; got != tt.protocol {
				t.Fatalf("protocol %s, want %s", got, tt.protocol)
			}
			if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_accounts", Arguments: map[string]any{}}); err != nil || res.IsError {
				t.Fatalf("list_accounts over HTTP: %v %v", err, res)
			}
			args := map[string]any{"category": "Restaurants", "month": "current", "amount": "150.00"}
			out := moneyCall(t, cs, "set_category_budget", args)
			if tt.via == "code" {
				if out.Status != "confirmation_required" {
					t.Fatalf("first call: %+v; want confirmation_required", out)
				}
				args["confirmation"] = out.Confirmation
				out = moneyCall(t, cs, "set_category_budget", args)
			}
			if out.Status != "applied" {
				t.Fatalf("set_category_budget: %+v; want applied", out)
			}
			wantAsked := int32(0)
			if tt.via != "code" {
				wantAsked = 1
			}
			if n := asked.Load(); n != wantAsked {
				t.Fatalf("the user was asked %d time(s), want %d", n, wantAsked)
			}
			ops := moneyJournal(t, env)
			if len(ops) != 1 || ops[0].ConfirmedVia != tt.via {
				t.Fatalf("journal %+v; want one operation confirmed via %s", ops, tt.via)
			}
		})
	}
}

// TestHTTPGuard: without the secret, from a web page's origin, or addressed to another host
// name (DNS rebinding), a request is refused before it reaches MCP.
func TestHTTPGuard(t *testing.T) {
	env, _ := isolatedEnv(t)
	hs := startHTTPServe(t, env)
	port := strings.TrimSuffix(strings.TrimPrefix(hs.endpoint, "http://127.0.0.1:"), "/mcp")
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	tests := []struct {
		name       string
		auth, host string
		origin     string
		want       int
	}{
		{"no secret", "", "", "", http.StatusUnauthorized},
		{"a wrong secret", "Bearer " + strings.Repeat("x", 43), "", "", http.StatusUnauthorized},
		{"the secret without Bearer", hs.secret, "", "", http.StatusUnauthorized},
		{"a rebound host name", "Bearer " + hs.secret, "attacker.example:" + port, "", http.StatusForbidden},
		{"a web page", "Bearer " + hs.secret, "", "http://attacker.example", http.StatusForbidden},
		{"the right secret", "Bearer " + hs.secret, "", "", http.StatusOK},
		{"localhost, and its own origin", "Bearer " + hs.secret, "localhost:" + port, "http://localhost:" + port, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest("POST", hs.endpoint, strings.NewReader(initialize))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tt.want {
				t.Fatalf("status %d (%s), want %d", res.StatusCode, body, tt.want)
			}
			if tt.want != http.StatusOK && strings.Contains(string(body), "jsonrpc") {
				t.Fatalf("a refused request reached MCP: %s", body)
			}
		})
	}
	if strings.Contains(hs.stderr.String(), strings.Repeat("x", 43)) {
		t.Error("the log shows a bearer secret that was tried")
	}
}

func TestHTTPRefusedAtStart(t *testing.T) {
	env, _ := isolatedEnv(t)
	tests := []struct {
		args []string
		env  []string
		code int
		want string
	}{
		{[]string{"--http", "0.0.0.0:0"}, nil, 2, "reachable from other machines"},
		{[]string{"--http", "localhost"}, nil, 2, "give an address and port"},
		{[]string{"--http-allow-remote"}, nil, 2, "goes with --http"},
		{[]string{"--http", "127.0.0.1:0"}, []string{"AVENIR_MCP_HTTP_SECRET=short"}, 1, "too short"},
	}
	for _, tt := range tests {
		_, errOut, code := runBinary(t, append(append([]string{}, env...), tt.env...), append([]string{"serve", "--sandbox"}, tt.args...)...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("serve %v: exit %d, stderr %q; want exit %d and %q", tt.args, code, errOut, tt.code, tt.want)
		}
	}
}

// TestHTTPFixedSecret: AVENIR_MCP_HTTP_SECRET keeps one secret across restarts, so a client's
// configured header keeps working; serve names the variable and copies the secret nowhere.
func TestHTTPFixedSecret(t *testing.T) {
	secret := strings.Repeat("s3cr3t-", 6)
	env, dir := isolatedEnv(t, "AVENIR_MCP_HTTP_SECRET="+secret)
	hs := startHTTPServe(t, env)
	if hs.secret != secret || hs.secretFile != "" {
		t.Fatalf("serve pointed to secret %q in %q, want the configured one", hs.secret, hs.secretFile)
	}
	hs.connect(t, "2025-11-25", nil)
	if m, err := filepath.Glob(filepath.Join(dir, "avenir", "*secret*")); err != nil || len(m) != 0 {
		t.Fatalf("secret files %v (%v); want none", m, err)
	}
}

// TestHTTPSecretInAFile: with stderr on a pipe (a process manager's log), a generated secret
// never appears there: it is in a file only its owner can read, in the state directory, named
// on stderr and in the log; the file goes when the server stops.
func TestHTTPSecretInAFile(t *testing.T) {
	env, dir := isolatedEnv(t)
	hs := startHTTPServe(t, env, "--log-level", "debug")
	port := strings.TrimSuffix(strings.TrimPrefix(hs.endpoint, "http://127.0.0.1:"), "/mcp")
	if want := filepath.Join(dir, "avenir", "http-"+port+".secret"); hs.secretFile != want {
		t.Fatalf("the secret is in %s, want %s", hs.secretFile, want)
	}
	fi, err := os.Stat(hs.secretFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the secret's file: %v, %v; want mode 0600", fi, err)
	}
	if err := hs.connect(t, "2025-11-25", nil).Close(); err != nil {
		t.Fatal(err)
	}
	hs.stop()
	if strings.Contains(hs.stderr.String(), hs.secret) || !strings.Contains(hs.stderr.String(), `secret_file=`+hs.secretFile) {
		t.Fatalf("stderr shows the secret, or its log does not name the file:\n%s", hs.stderr)
	}
	if _, err := os.Stat(hs.secretFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the secret's file is still there after the server stopped (%v)", err)
	}
}

// TestHTTPWithTypeScriptSDK drives the server over Streamable HTTP with the TypeScript SDK
// clients most desktop apps are built on (1.x and 2.x, both protocol eras, with and without
// elicitation), through testdata/http-ts/http_client.mjs. The clients are installed by .ci/run
// (npm ci of testdata/http-ts into a cache directory named by AVENIR_HTTP_TS_CLIENTS); without
// it the test is skipped, except in CI, where it fails.
func TestHTTPWithTypeScriptSDK(t *testing.T) {
	dir := os.Getenv("AVENIR_HTTP_TS_CLIENTS")
	if dir == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("AVENIR_HTTP_TS_CLIENTS is not set: .ci/run installs the TypeScript clients and sets it")
		}
		t.Skip("set AVENIR_HTTP_TS_CLIENTS to a directory with testdata/http-ts's packages installed (see .ci/run)")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "client")); err != nil {
		t.Fatalf("AVENIR_HTTP_TS_CLIENTS=%s has no installed clients: %v", dir, err)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "http-ts", "http_client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// Node finds the packages from the script's own directory.
	run := filepath.Join(dir, "http_client.mjs")
	if err := os.WriteFile(run, script, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kind, protocol string
		asked          int
		via            string
	}{
		{"v1-2025-06-18", "2025-06-18", 0, "code"},
		{"v1-2025-11-25-elicit", "2025-11-25", 1, "elicit"},
		{"v2-2026-07-28-elicit", "2026-07-28", 1, "mrtr"},
		{"v2-2026-07-28", "2026-07-28", 0, "code"},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			env, _ := isolatedEnv(t)
			hs := startHTTPServe(t, env)
			cmd := exec.Command("node", run, tt.kind, hs.endpoint)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "AVENIR_HTTP_SECRET="+hs.secret)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("node http_client.mjs %s: %v\n%s\nserver:\n%s", tt.kind, err, stderr.String(), hs.stderr)
			}
			var got struct {
				Protocol string `json:"protocol"`
				Tools    int    `json:"tools"`
				Status   string `json:"status"`
				Asked    int    `json:"asked"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			if got.Protocol != tt.protocol || got.Tools == 0 || got.Status != "applied" || got.Asked != tt.asked {
				t.Fatalf("%+v; want protocol %s, the tools, applied, asked %d time(s)", got, tt.protocol, tt.asked)
			}
			if ops := moneyJournal(t, env); len(ops) != 1 || ops[0].ConfirmedVia != tt.via {
				t.Fatalf("journal %+v; want one operation confirmed via %s", ops, tt.via)
			}
		})
	}
}
