package main

import (
	"context"
	"flag"
	"io"
	"strings"
	"testing"
)

// A YNAB URL over plain http to anything but this machine is refused at start, naming the
// setting, locally and hosted: the person's token and the operator's client secret would cross
// the network in the clear (issue 30 #10).
func TestPlainHTTPYNABURLRefusedAtStart(t *testing.T) {
	hostedEnv := []string{"AVENIR_MCP_DATABASE_URL=postgres://avenir@127.0.0.1:1/avenir", "AVENIR_MCP_PUBLIC_URL=https://avenir.example.com",
		"AVENIR_MCP_YNAB_CLIENT_ID=cid", "AVENIR_MCP_YNAB_CLIENT_SECRET=cs", "AVENIR_MCP_SECRET_KEY=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="}
	for _, tc := range []struct {
		name, setting string
		env           []string
		args          []string
	}{
		{"local", "AVENIR_MCP_YNAB_URL", []string{"AVENIR_MCP_YNAB_URL=http://api.ynab.example/v1", "YNAB_ACCESS_TOKEN=tok"}, []string{"serve"}},
		{"hosted API", "AVENIR_MCP_YNAB_URL", append([]string{"AVENIR_MCP_YNAB_URL=http://10.1.2.3/v1"}, hostedEnv...), []string{"serve", "--http", "127.0.0.1:0", "--hosted"}},
		{"hosted OAuth", "AVENIR_MCP_YNAB_OAUTH_URL", append([]string{"AVENIR_MCP_YNAB_OAUTH_URL=http://app.ynab.example/oauth"}, hostedEnv...), []string{"serve", "--http", "127.0.0.1:0", "--hosted"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _ := isolatedEnv(t, tc.env...)
			_, stderr, code := runBinary(t, env, tc.args...)
			if code == 0 || !strings.Contains(stderr, tc.setting) || !strings.Contains(stderr, "loopback") {
				t.Fatalf("exit %d; want a refusal naming %s:\n%s", code, tc.setting, stderr)
			}
		})
	}
}

// avenir hosted's metrics and readiness listen on loopback unless told otherwise, and a
// --metrics-addr that is no address is refused (issue 30 #12).
func TestMetricsAddrFlag(t *testing.T) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	h := addHTTPFlags(fs)
	if err := fs.Parse([]string{"--http", ":8080", "--hosted"}); err != nil || h.metricsAddr != "127.0.0.1:9464" || h.check() != nil {
		t.Fatalf("the default --metrics-addr: %q (%v)", h.metricsAddr, err)
	}
	err := runServe(context.Background(), []string{"--hosted", "--http", ":0", "--metrics-addr", "nonsense"},
		env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "--metrics-addr") {
		t.Fatalf("--metrics-addr nonsense: %v", err)
	}
}
