package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// sandboxProcess is `avenir sandbox serve` running as a process.
type sandboxProcess struct {
	url    string
	cmd    *exec.Cmd
	stderr *lockedBuffer
}

func startSandbox(t *testing.T, env []string, args ...string) *sandboxProcess {
	t.Helper()
	cmd := exec.Command(avenirBinary(t), append([]string{"sandbox", "serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	sp := &sandboxProcess{cmd: cmd, stderr: &lockedBuffer{}}
	cmd.Stderr = sp.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Errorf("stopping the sandbox: %v", err)
		}
		_ = cmd.Wait() // "signal: killed": the kill above
	})
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Scan()
		line <- sc.Text()
		_, _ = io.Copy(io.Discard, stdout) // the rest is not read; it ends when the process does
	}()
	select {
	case sp.url = <-line:
	case <-time.After(30 * time.Second):
		t.Fatalf("the sandbox printed no URL; stderr:\n%s", sp.stderr)
	}
	if !strings.HasPrefix(sp.url, "http://127.0.0.1:") || strings.HasSuffix(sp.url, ":0/v1") || !strings.HasSuffix(sp.url, "/v1") {
		t.Fatalf("the sandbox printed %q, want its real base URL", sp.url)
	}
	return sp
}

// stop sends SIGTERM and waits for a clean exit.
func (sp *sandboxProcess) stop(t *testing.T) {
	t.Helper()
	if err := sp.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := sp.cmd.Wait(); err != nil {
		t.Fatalf("the sandbox did not exit cleanly on SIGTERM: %v; stderr:\n%s", err, sp.stderr)
	}
}

// call sends a request with a bearer token and decodes the data of a 200 answer into into.
func call(t *testing.T, method, url, token, body string, into any) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, url, err)
	}
	if res.StatusCode == http.StatusOK && into != nil {
		var env struct{ Data json.RawMessage }
		if err := json.Unmarshal(raw, &env); err != nil {
			t.Fatalf("%s %s: %v: %s", method, url, err, raw)
		}
		if err := json.Unmarshal(env.Data, into); err != nil {
			t.Fatalf("%s %s: %v: %s", method, url, err, raw)
		}
	}
	return res.StatusCode
}

type monthCategory struct {
	Category struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		Budgeted int64  `json:"budgeted"`
	} `json:"category"`
}

func TestSandboxServeKeepsWritesAcrossRestarts(t *testing.T) {
	env, dir := isolatedEnv(t)
	state := filepath.Join(dir, "kept", "sandbox.json")
	sp := startSandbox(t, env, "--state", state)

	var groups struct {
		CategoryGroups []struct {
			Categories []struct{ ID, Name string }
		} `json:"category_groups"`
	}
	if code := call(t, "GET", sp.url+"/plans/last-used/categories", "any", "", &groups); code != 200 {
		t.Fatalf("GET categories: %d", code)
	}
	var restaurants string
	for _, g := range groups.CategoryGroups {
		for _, c := range g.Categories {
			if c.Name == "Restaurants" {
				restaurants = c.ID
			}
		}
	}
	path := sp.url + "/plans/last-used/months/current/categories/" + restaurants
	if code := call(t, "PATCH", path, "any", `{"category":{"budgeted":150000}}`, nil); code != 200 {
		t.Fatalf("PATCH: %d", code)
	}
	sp.stop(t)
	log := sp.stderr.String()
	if !strings.Contains(log, "method=PATCH") || !strings.Contains(log, "status=200") || !strings.Contains(log, "state saved") {
		t.Errorf("stderr does not log the requests and the save:\n%s", log)
	}

	again := startSandbox(t, env, "--state", state)
	var got monthCategory
	if code := call(t, "GET", again.url+"/plans/last-used/months/current/categories/"+restaurants, "any", "", &got); code != 200 {
		t.Fatalf("GET after restart: %d", code)
	}
	if got.Category.Budgeted != 150000 {
		t.Errorf("after a restart Restaurants has %d assigned, want the 150000 written before", got.Category.Budgeted)
	}
	again.stop(t)
}

func TestSandboxServeToken(t *testing.T) {
	env, dir := isolatedEnv(t)
	sp := startSandbox(t, env, "--state", filepath.Join(dir, "s.json"), "--token", "s3cret")
	if code := call(t, "GET", sp.url+"/user", "guess", "", nil); code != http.StatusUnauthorized {
		t.Errorf("a wrong token got %d, want 401", code)
	}
	if code := call(t, "GET", sp.url+"/user", "s3cret", "", nil); code != http.StatusOK {
		t.Errorf("the right token got %d, want 200", code)
	}
	sp.stop(t)
	if strings.Contains(sp.stderr.String(), "s3cret") || strings.Contains(sp.stderr.String(), "guess") {
		t.Error("the log shows a token")
	}
}

func TestSandboxCommandLine(t *testing.T) {
	dir := t.TempDir()
	getenv := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return dir
		}
		return ""
	}
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{"no subcommand", []string{"sandbox"}, 2, "say serve or reset"},
		{"unknown subcommand", []string{"sandbox", "frobnicate"}, 2, `unknown command "frobnicate"`},
		{"help", []string{"sandbox", "serve", "--help"}, 0, "--allow-remote"},
		{"bad flag", []string{"sandbox", "serve", "--adr", "x"}, 2, "flag provided but not defined"},
		{"stray argument", []string{"sandbox", "reset", "now"}, 2, "takes no arguments"},
		{"negative rate limit", []string{"sandbox", "serve", "--rate-limit", "-1"}, 2, "--rate-limit"},
		{"all interfaces", []string{"sandbox", "serve", "--addr", "0.0.0.0:8765"}, 2, "not a loopback address"},
		{"no host", []string{"sandbox", "serve", "--addr", ":8765"}, 2, "--allow-remote"},
		{"another machine", []string{"sandbox", "serve", "--addr", "192.168.1.20:8765"}, 2, "not a loopback address"},
		{"help on faults", []string{"sandbox", "--help"}, 0, ""},
		{"a rule that does nothing", []string{"sandbox", "serve", "--fault", "GET /user"}, 2,
			`invalid value "GET /user" for flag -fault: the rule does nothing`},
		{"a rule without a path", []string{"sandbox", "serve", "--fault", "status=503"}, 2, "starts with a method and a path"},
		{"a bad status", []string{"sandbox", "serve", "--fault", "GET /user status=302"}, 2, "400 to 599, not 302"},
		{"an unknown sample", []string{"sandbox", "serve", "--sample", "huge"}, 2, `--sample: sample must be standard, large or large:N`},
		{"a tiny large sample", []string{"sandbox", "reset", "--sample", "large:5"}, 2, "1000 to 200000 transactions, not 5"},
		{"a negative export cost", []string{"sandbox", "serve", "--export-cost", "-1ms"}, 2, "--export-cost must be 0"},
		{"a sample without the sandbox", []string{"serve", "--sample", "large"}, 2, "--sample goes with --sandbox"},
		{"an OAuth client without a secret", []string{"sandbox", "serve", "--oauth-client", "app"}, 2, "must be ID:SECRET"},
		{"an OAuth client with two secrets", []string{"sandbox", "serve", "--oauth-client", "app:a", "--oauth-client", "app:b"}, 2,
			`"app" is given twice with different secrets`},
		{"an OAuth client twice", []string{"sandbox", "serve", "--oauth-client", "app:a", "--oauth-client", "app:a"}, 2,
			`"app" is given twice`},
		{"OAuth on all interfaces", []string{"sandbox", "serve", "--oauth-client", "app:a", "--addr", "0.0.0.0:8765"}, 2,
			"signs in anyone under any name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, env{stdout: &out, stderr: &errOut, getenv: getenv})
			code := exitCode(err, &errOut)
			if tt.name == "help on faults" {
				for _, want := range []string{"--fault RULE", "retry-after=D", "drop=after", "--sample NAME", "--export-cost D", "/_sandbox/faults",
					"--oauth-client ID:SECRET", "/_sandbox/oauth/expire"} {
					if !strings.Contains(out.String(), want) {
						t.Errorf("the help lacks %q:\n%s", want, out.String())
					}
				}
			}
			if code != tt.wantCode || !strings.Contains(errOut.String(), tt.wantStderr) {
				t.Errorf("avenir %v: exit %d, stderr %q; want exit %d and %q", tt.args, code, errOut.String(), tt.wantCode, tt.wantStderr)
			}
		})
	}
}

func TestSandboxReset(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "avenir", "sandbox.json")
	getenv := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return dir
		}
		return ""
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"sandbox", "reset"}, env{stdout: &out, stderr: &errOut, getenv: getenv}); err != nil {
		t.Fatalf("reset: %v", err)
	}
	if !strings.Contains(out.String(), "restored") || !strings.Contains(out.String(), state) {
		t.Errorf("reset said %q, want it to say it restored %s", out.String(), state)
	}
	if _, err := os.Stat(state); err != nil {
		t.Errorf("reset wrote no state at the default path: %v", err)
	}

	foreign := filepath.Join(dir, "notes.json")
	if err := os.WriteFile(foreign, []byte(`{"shopping":["milk"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), []string{"sandbox", "reset", "--state", foreign}, env{stdout: &out, stderr: &errOut, getenv: getenv})
	if code := exitCode(err, &errOut); code != 1 || !strings.Contains(errOut.String(), foreign) {
		t.Errorf("reset of a foreign file: exit %d, stderr %q; want 1 and the file named", code, errOut.String())
	}
	if b, err := os.ReadFile(foreign); err != nil || string(b) != `{"shopping":["milk"]}` {
		t.Errorf("reset overwrote a file that is not a sandbox state (%v)", err)
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8765": true, "127.0.0.1:0": true, "[::1]:8765": true, "localhost:8765": true,
		"0.0.0.0:8765": false, ":8765": false, "[::]:8765": false, "10.0.0.5:80": false, "example.com:80": false, "nonsense": false,
	} {
		if got := isLoopback(addr); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// lockedBuffer is a bytes.Buffer a process can write while a test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// request sends a request with a bearer token ("" for none) and returns the status, headers
// and body.
func request(t *testing.T, method, url, token, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, url, err)
	}
	return res.StatusCode, res.Header, string(raw)
}

// Faults from the command line and from the control endpoint reach a client of the real binary.
func TestSandboxServeFaults(t *testing.T) {
	env, dir := isolatedEnv(t)
	sp := startSandbox(t, env, "--state", filepath.Join(dir, "s.json"), "--token", "s3cret",
		"--fault", "GET /user status=503 retry-after=7 times=2", "--fault", "POST /plans/*/transactions drop=before")
	for i := range 2 {
		status, h, body := request(t, "GET", sp.url+"/user", "s3cret", "")
		if status != 503 || h.Get("Retry-After") != "7" || !strings.Contains(body, `"service_unavailable"`) {
			t.Errorf("GET /user #%d: %d (Retry-After %q) %s; want the rule's 503", i+1, status, h.Get("Retry-After"), body)
		}
	}
	if status, _, body := request(t, "GET", sp.url+"/user", "s3cret", ""); status != 200 {
		t.Errorf("GET /user after the rule's two times: %d %s", status, body)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}} // no retry on a fresh connection
	req, err := http.NewRequest("POST", sp.url+"/plans/last-used/transactions", strings.NewReader(`{"transaction":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer s3cret")
	if res, err := client.Do(req); err == nil {
		res.Body.Close()
		t.Errorf("the dropped POST got an answer: %d", res.StatusCode)
	}

	control := strings.TrimSuffix(sp.url, "/v1") + "/_sandbox"
	if status, _, body := request(t, "POST", control+"/faults", "", "GET /plans/*/accounts error=403.1"); status != 401 {
		t.Errorf("the control endpoint without the token: %d %s", status, body)
	}
	if status, _, body := request(t, "POST", control+"/faults", "guess", "GET /plans/*/accounts error=403.1"); status != 401 {
		t.Errorf("the control endpoint with a wrong token: %d %s", status, body)
	}
	if status, _, body := request(t, "POST", control+"/faults", "s3cret", "GET /plans/*/accounts error=403.1"); status != 201 {
		t.Fatalf("POST a rule: %d %s", status, body)
	}
	if status, _, body := request(t, "GET", sp.url+"/plans/last-used/accounts", "s3cret", ""); status != 403 ||
		!strings.Contains(body, `"subscription_lapsed"`) {
		t.Errorf("GET accounts after the rule: %d %s", status, body)
	}
	status, _, body := request(t, "GET", control+"/counts", "s3cret", "")
	var counts struct {
		Data struct {
			Counts struct {
				Total   int
				ByRoute map[string]int `json:"by_route"`
			}
		}
	}
	if status != 200 || json.Unmarshal([]byte(body), &counts) != nil {
		t.Fatalf("GET counts: %d %s", status, body)
	}
	if c := counts.Data.Counts; c.Total != 5 || c.ByRoute["GET /user"] != 3 || c.ByRoute["POST /plans/{plan_id}/transactions"] != 1 ||
		c.ByRoute["GET /plans/{plan_id}/accounts"] != 1 {
		t.Errorf("counts %+v: want the 5 API requests, not the control ones", c)
	}
	sp.stop(t)
	log := sp.stderr.String()
	for _, want := range []string{`rule="GET /user status=503 retry-after=7s times=2"`, "sandbox control", "status=dropped"} {
		if !strings.Contains(log, want) {
			t.Errorf("stderr lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "s3cret") || strings.Contains(log, "guess") {
		t.Error("the log shows a token")
	}
}

// The large sample gets a state file of its own, its export fails past its cost like YNAB's,
// and a state file holding another sample is refused until it is reset.
func TestSandboxServeLargeSample(t *testing.T) {
	procEnv, dir := isolatedEnv(t)
	sp := startSandbox(t, procEnv, "--sample", "large:1000", "--export-cost", "31ms")
	status, _, body := request(t, "GET", sp.url+"/plans/last-used", "any", "")
	if status != 503 || !strings.Contains(body, `"service_unavailable"`) || !strings.Contains(body, "took longer than 30s") {
		t.Errorf("the full export: %d %.300s; want YNAB's 503", status, body)
	}
	var list struct {
		Transactions    []json.RawMessage
		ServerKnowledge int64 `json:"server_knowledge"`
	}
	if code := call(t, "GET", sp.url+"/plans/last-used/transactions", "any", "", &list); code != 200 || len(list.Transactions) != 1000 {
		t.Errorf("GET transactions: %d with %d transactions, want 1000", code, len(list.Transactions))
	}
	if code := call(t, "GET", sp.url+"/plans/last-used?last_knowledge_of_server="+strconv.FormatInt(list.ServerKnowledge, 10), "any", "", nil); code != 200 {
		t.Errorf("a delta export: %d", code)
	}
	sp.stop(t)
	large := filepath.Join(dir, "avenir", "sandbox-large.json")
	if _, err := os.Stat(large); err != nil {
		t.Fatalf("no state at %s: %v", large, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "avenir", "sandbox.json")); err == nil {
		t.Error("the large sample wrote the state file of 'avenir serve --sandbox'")
	}

	getenv := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return dir
		}
		return ""
	}
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"sandbox", "serve", "--addr", "127.0.0.1:0", "--sample", "large:2000"},
		env{stdout: &out, stderr: &errOut, getenv: getenv})
	if code := exitCode(err, &errOut); code != 1 || !strings.Contains(errOut.String(), "holds the large:1000 sample, not large:2000") {
		t.Errorf("serving another size over the state: exit %d, %s", code, errOut.String())
	}
	err = run(context.Background(), []string{"sandbox", "reset", "--sample", "large:2000"}, env{stdout: &out, stderr: &errOut, getenv: getenv})
	if err != nil || !strings.Contains(out.String(), "large:2000 sample plan is restored in "+large) {
		t.Fatalf("reset: %v, %s", err, out.String())
	}
	again := startSandbox(t, procEnv, "--sample", "large:2000")
	if code := call(t, "GET", again.url+"/plans/last-used/transactions", "any", "", &list); code != 200 || len(list.Transactions) != 2000 {
		t.Errorf("after the reset: %d with %d transactions, want 2000", code, len(list.Transactions))
	}
	again.stop(t)
}

// `avenir sandbox serve --oauth-client` plays YNAB's OAuth: a person signs in on the consent
// page, the application exchanges the code, the token reaches that person's own copy of the
// sample, the control endpoint expires it, and after a restart the refresh token still works.
// Neither the log nor the state file shows a secret, a code or a token.
func TestSandboxServeOAuth(t *testing.T) {
	env, dir := isolatedEnv(t)
	state := filepath.Join(dir, "oauth", "sandbox.json")
	const callback = "http://127.0.0.1:9/callback"
	args := []string{"--state", state, "--oauth-client", "hosted-app:app-s3cret:" + callback}
	sp := startSandbox(t, env, args...)
	origin := strings.TrimSuffix(sp.url, "/v1")
	browser := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	authorize := url.Values{"client_id": {"hosted-app"}, "redirect_uri": {callback}, "response_type": {"code"}, "state": {"xyz"}}
	res, err := browser.Get(origin + "/oauth/authorize?" + authorize.Encode())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(page), `name="user"`) {
		t.Fatalf("the consent page: %d\n%s", res.StatusCode, page)
	}
	consent := url.Values{"user": {"dana"}, "decision": {"authorize"}}
	for k, v := range authorize {
		consent[k] = v
	}
	res, err = browser.PostForm(origin+"/oauth/authorize", consent)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, _ := url.Parse(res.Header.Get("Location"))
	code := loc.Query().Get("code")
	if res.StatusCode != http.StatusFound || !strings.HasPrefix(loc.String(), callback+"?") || code == "" || loc.Query().Get("state") != "xyz" {
		t.Fatalf("Authorize answered %d to %q, want a redirect to the callback with a code and the state", res.StatusCode, loc)
	}

	token := func(origin string, form url.Values) (access, refresh string) {
		t.Helper()
		form.Set("client_id", "hosted-app")
		form.Set("client_secret", "app-s3cret")
		res, err := http.PostForm(origin+"/oauth/token", form)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var tok struct {
			AccessToken  string `json:"access_token"`
			RefreshToken string `json:"refresh_token"`
			ExpiresIn    int    `json:"expires_in"`
		}
		if err := json.NewDecoder(res.Body).Decode(&tok); err != nil || res.StatusCode != http.StatusOK || tok.ExpiresIn != 7200 {
			t.Fatalf("the token endpoint: %d %+v %v", res.StatusCode, tok, err)
		}
		return tok.AccessToken, tok.RefreshToken
	}
	access, refresh := token(origin, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {callback}})
	dana := sandbox.UserPlanID("dana", sandbox.PlanID)
	var plans struct{ Plans []struct{ ID string } }
	if status := call(t, "GET", sp.url+"/plans", access, "", &plans); status != http.StatusOK || len(plans.Plans) == 0 || plans.Plans[0].ID != dana {
		t.Fatalf("GET /plans with Dana's token: %d %+v, want her plan %s", status, plans, dana)
	}
	if status := call(t, "GET", sp.url+"/plans", "any-token", "", nil); status != http.StatusUnauthorized {
		t.Errorf("a token the sandbox never issued: %d, want 401", status)
	}
	if status := call(t, "POST", origin+"/_sandbox/oauth/expire", "control", "", nil); status != http.StatusOK {
		t.Fatalf("POST /_sandbox/oauth/expire: %d", status)
	}
	if status := call(t, "GET", sp.url+"/plans", access, "", nil); status != http.StatusUnauthorized {
		t.Errorf("an expired token: %d, want 401", status)
	}
	sp.stop(t)

	again := startSandbox(t, env, args...)
	access2, _ := token(strings.TrimSuffix(again.url, "/v1"), url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}})
	if status := call(t, "GET", again.url+"/plans/"+dana+"/accounts", access2, "", nil); status != http.StatusOK {
		t.Errorf("after a restart and a refresh, Dana's accounts: %d", status)
	}
	again.stop(t)

	saved, _ := os.ReadFile(state)
	logs := sp.stderr.String() + again.stderr.String()
	if !strings.Contains(logs, "sandbox playing YNAB's OAuth") || !strings.Contains(logs, "clients=hosted-app") {
		t.Errorf("the log does not say the sandbox plays OAuth:\n%s", logs)
	}
	for _, secret := range []string{"app-s3cret", code, access, refresh, access2} {
		if strings.Contains(logs, secret) || strings.Contains(string(saved), secret) {
			t.Errorf("the log or the state file shows a secret, a code or a token")
		}
	}
}
