package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/hosted/hostedtest"
	"github.com/avenir-mcp/avenir/ynab"
)

// serve --hosted's wiring: the environment read, and the server started on it and stopped.
// What avenir hosted does is tested in package hosted.

func TestServeHosted(t *testing.T) {
	e := hostedtest.New(t)
	ln := e.Listen() // an address of its own, the public URL
	addr := ln.Addr().String()
	ln.Close()
	mln := e.Listen() // metrics and readiness, apart
	metricsAddr := mln.Addr().String()
	mln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr hostedtest.LogBuffer
	done := make(chan error, 1)
	go func() {
		done <- runServe(ctx, []string{"--http", addr, "--hosted", "--metrics-addr", metricsAddr}, env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, getenv: e.Getenv})
	}()
	ready := hostedtest.WaitFor(20*time.Second, func() bool {
		resp, err := http.Get("http://" + metricsAddr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	cancel()
	if err := <-done; err != nil || !ready {
		t.Fatalf("serve --hosted: ready %v, returned %v; stderr:\n%s", ready, err, stderr.String())
	}
	if !strings.Contains(stderr.String(), `"msg":"avenir hosted serving MCP"`) {
		t.Fatalf("serve --hosted logged no JSON start line:\n%s", stderr.String())
	}
}

// The environment is read with an error naming every variable that is missing or wrong, and
// never a secret's value.
func TestHostedConfig(t *testing.T) {
	good := map[string]string{
		"AVENIR_MCP_DATABASE_URL":       "postgres://avenir:pw-9d8c@db:5432/avenir",
		"AVENIR_MCP_PUBLIC_URL":         "https://avenir.example.com",
		"AVENIR_MCP_YNAB_CLIENT_ID":     "cid",
		"AVENIR_MCP_YNAB_CLIENT_SECRET": "csecret-77aa",
		"AVENIR_MCP_SECRET_KEY":         base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)),
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range good {
			m[a] = b
		}
		m[k] = v
		return m
	}
	cfg, err := hostedConfigFromEnv(func(k string) string { return good[k] })
	if err != nil || cfg.databaseURL != good["AVENIR_MCP_DATABASE_URL"] || cfg.YNABURL != ynab.DefaultBaseURL || len(cfg.Auth.SecretKey) != 32 {
		t.Fatalf("a good environment: %+v %v", cfg.databaseURL, err)
	}
	for _, c := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"nothing set", map[string]string{}, []string{"AVENIR_MCP_DATABASE_URL is not set", "AVENIR_MCP_PUBLIC_URL is not set",
			"AVENIR_MCP_YNAB_CLIENT_ID is not set", "AVENIR_MCP_YNAB_CLIENT_SECRET is not set", "AVENIR_MCP_SECRET_KEY is not set"}},
		{"a short key", with("AVENIR_MCP_SECRET_KEY", base64.StdEncoding.EncodeToString([]byte("short"))), []string{"AVENIR_MCP_SECRET_KEY", "32 bytes"}},
		{"a key that is not base64", with("AVENIR_MCP_SECRET_KEY", "not base64!!"), []string{"AVENIR_MCP_SECRET_KEY", "base64"}},
		{"a database URL that is not one", with("AVENIR_MCP_DATABASE_URL", "postgres://avenir:pw-9d8c@db:notaport/avenir"), []string{"AVENIR_MCP_DATABASE_URL is not a PostgreSQL connection string"}},
		{"a bad freshness", with("AVENIR_MCP_FRESHNESS", "600"), []string{"AVENIR_MCP_FRESHNESS"}},
		{"contradictory confirmation", with("AVENIR_MCP_CONFIRM", "code"), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := c.env
			if c.name == "contradictory confirmation" {
				env["AVENIR_MCP_REQUIRE_ELICITATION"] = "1"
				c.want = []string{"AVENIR_MCP_CONFIRM=code and AVENIR_MCP_REQUIRE_ELICITATION=1"}
			}
			_, err := hostedConfigFromEnv(func(k string) string { return env[k] })
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			for _, secret := range []string{"pw-9d8c", "csecret-77aa", env["AVENIR_MCP_SECRET_KEY"]} {
				if secret != "" && strings.Contains(err.Error(), secret) {
					t.Errorf("error %q repeats a secret", err)
				}
			}
		})
	}
}

func TestHostedFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--hosted"}, "--hosted goes with --http"},
		{[]string{"--hosted", "--http", "nonsense"}, "give an address and port"},
		{[]string{"--hosted", "--http", ":0", "--sandbox"}, "--sandbox and --sample do not go with it"},
	} {
		var stderr bytes.Buffer
		err := runServe(context.Background(), c.args, env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, getenv: func(string) string { return "" }})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("serve %v: %v; want %q", c.args, err, c.want)
		}
	}
	// Reachable from elsewhere without --http-allow-remote: OAuth guards hosted avenir.
	h := &httpFlags{addr: "0.0.0.0:8080", hosted: true}
	if err := h.check(); err != nil {
		t.Errorf("--hosted --http 0.0.0.0:8080: %v", err)
	}
}
