package auth

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds an access token to every request, as an MCP client's auth provider does.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// Behind the middleware, the go-sdk's streamable handler: a tool sees the caller in its
// context and the SDK's TokenInfo in the request, and a session opened by one person cannot be
// used with another's token.
func TestGoSDKBehindMiddleware(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "avenir-test", Version: "0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "whoami", Description: "who is calling"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			c, ok := CallerFrom(ctx)
			if !ok || req.Extra == nil || req.Extra.TokenInfo == nil {
				return nil, nil, fmt.Errorf("no caller (%v) or no TokenInfo", ok)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
				Text: fmt.Sprintf("person=%d sdk=%s ynab=%s", c.Person.ID, req.Extra.TokenInfo.UserID, c.Person.YNABUserID),
			}}}, nil, nil
		})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	h := newHarness(t, harnessOpts{mcp: handler})
	c := h.publicClient()
	aliceToken, _ := h.tokens(newBrowser(t), c)
	h.ynab.set(func(f *fakeYNAB) { f.user = "user-bob" })
	bobToken, _ := h.tokens(newBrowser(t), c)

	ctx := context.Background()
	connect := func(tok string) (*mcp.ClientSession, error) {
		client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, nil)
		return client.Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint: h.url + "/mcp", HTTPClient: &http.Client{Transport: bearer{tok}}, DisableStandaloneSSE: true, MaxRetries: -1,
		}, nil)
	}
	alice, err := connect(aliceToken)
	if err != nil {
		t.Fatal(err)
	}
	defer alice.Close()
	res, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("whoami: %v %+v", err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	var pid int64
	var sdkUser, ynabUser string
	fmt.Sscanf(text, "person=%d sdk=%s ynab=%s", &pid, &sdkUser, &ynabUser)
	if pid == 0 || sdkUser != strconv.FormatInt(pid, 10) || ynabUser != "user-alice" {
		t.Fatalf("whoami = %q", text)
	}

	// Bob's token with Alice's session: the SDK refuses it.
	req, _ := http.NewRequest("POST", h.url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+bobToken)
	req.Header.Set("Mcp-Session-Id", alice.ID())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("another person's token on Alice's session: %s; want 403", resp.Status)
	}

	if _, err := connect("not-a-token"); err == nil {
		t.Fatal("a client with a bad token connected")
	}
}
