package sandbox_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

// A fault with Skip lets that many matching requests through before it answers.
func TestFaultSkip(t *testing.T) {
	sb, srv := sandboxtest.New(t, sandbox.Options{})
	sb.InjectFault(sandbox.Fault{PathContains: "/user", Skip: 2, Status: 503})
	var got []int
	for range 4 {
		req, _ := http.NewRequest("GET", srv.URL+"/user", nil)
		req.Header.Set("Authorization", "Bearer t")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got = append(got, resp.StatusCode)
	}
	if want := []int{200, 200, 503, 200}; !slices.Equal(got, want) {
		t.Fatalf("statuses = %v, want %v", got, want)
	}
}
