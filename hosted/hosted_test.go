package hosted_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/hosted"
	"github.com/avenir-mcp/avenir/hosted/hostedtest"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// avenir hosted end to end, over loopback (hostedtest: a real PostgreSQL, the sandbox playing
// YNAB and its OAuth), with two instances on one database behind one public URL.

func TestHosted(t *testing.T) {
	e := hostedtest.New(t)
	a, b := e.Start(), e.Start()

	t.Run("no token gets the challenge", func(t *testing.T) {
		for _, in := range []*hostedtest.Instance{a, b} {
			resp, err := http.Post(in.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			want := `Bearer resource_metadata="` + e.Public + `/.well-known/oauth-protected-resource/mcp"`
			if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), want) {
				t.Fatalf("%s: %s, WWW-Authenticate %q; want 401 with %s", in.URL, resp.Status, resp.Header.Get("WWW-Authenticate"), want)
			}
		}
	})

	aliceToken, _ := e.SignIn("alice")
	bobToken, _ := e.SignIn("bob")
	alicePlan, bobPlan := sandbox.UserPlanID("alice", sandbox.PlanID), sandbox.UserPlanID("bob", sandbox.PlanID)
	aliceA := e.Connect(a, aliceToken, "", false)
	aliceB := e.Connect(b, aliceToken, "", false)
	bobB := e.Connect(b, bobToken, "2025-11-25", false) // an older protocol: a session on B

	t.Run("each sees only their own plans", func(t *testing.T) {
		for _, c := range []struct {
			who        string
			cl         *hostedtest.Client
			own, other string
		}{{"alice", aliceA, alicePlan, bobPlan}, {"bob", bobB, bobPlan, alicePlan}} {
			var out struct {
				Plans []struct {
					ID string `json:"id"`
				} `json:"plans"`
			}
			c.cl.OK("list_plans", map[string]any{}, &out)
			var ids []string
			for _, p := range out.Plans {
				ids = append(ids, p.ID)
			}
			joined := strings.Join(ids, " ")
			if !strings.Contains(joined, c.own) || strings.Contains(joined, c.other) {
				t.Fatalf("%s sees plans %v; want their own %s and not %s", c.who, ids, c.own, c.other)
			}
		}
	})

	var aliceOp string
	t.Run("a code issued by one instance is redeemed by the other", func(t *testing.T) {
		tennis, bobTennis := e.Assigned("alice", "Tennis"), e.Assigned("bob", "Tennis")
		var first hostedtest.Write
		aliceA.OK("move_money", hostedtest.Move("30"), &first)
		if first.Status != "confirmation_required" || first.Confirmation == "" {
			t.Fatalf("first call = %+v; want a code", first)
		}
		// Bob holding Alice's code confirms nothing of his.
		if res := bobB.Call("move_money", hostedtest.WithCode(hostedtest.Move("30"), first.Confirmation)); !res.IsError || !strings.Contains(hostedtest.ResultText(res), "This confirmation code is unknown") {
			t.Fatalf("Bob passing Alice's code: %s; want it refused as unknown", hostedtest.ResultText(res))
		}
		var done hostedtest.Write
		aliceB.OK("move_money", hostedtest.WithCode(hostedtest.Move("30"), first.Confirmation), &done)
		if done.Status != "applied" || done.OperationID == "" {
			t.Fatalf("with the code on the other instance: %+v; want applied", done)
		}
		aliceOp = done.OperationID
		if got := e.Assigned("alice", "Tennis"); got != tennis-30000 {
			t.Fatalf("Alice's Tennis holds %d, want %d", got, tennis-30000)
		}
		if got := e.Assigned("bob", "Tennis"); got != bobTennis {
			t.Fatalf("Bob's Tennis moved: %d, want %d", got, bobTennis)
		}
	})

	t.Run("another's operation is not found", func(t *testing.T) {
		var op map[string]any
		aliceA.OK("get_operation", map[string]any{"operation_id": aliceOp}, &op)
		for _, tool := range []string{"get_operation", "undo_operation"} {
			res := bobB.Call(tool, map[string]any{"operation_id": aliceOp})
			if !res.IsError || !strings.Contains(hostedtest.ResultText(res), "there is no operation") {
				t.Fatalf("Bob's %s of Alice's operation: %s; want not found", tool, hostedtest.ResultText(res))
			}
		}
		var list struct {
			Operations []struct {
				ID string `json:"id"`
			} `json:"operations"`
		}
		bobB.OK("list_operations", map[string]any{}, &list)
		if len(list.Operations) != 0 {
			t.Fatalf("Bob's journal lists %+v; want nothing", list.Operations)
		}
	})

	t.Run("a write confirmed on the card", func(t *testing.T) {
		cardB := e.Connect(b, aliceToken, "", true)
		cardA := e.Connect(a, aliceToken, "", true)
		tennis := e.Assigned("alice", "Tennis")
		res := cardB.Call("move_money", hostedtest.Move("5"))
		var pending struct {
			Status string `json:"status"`
			Card   struct {
				Handle string `json:"handle"`
			} `json:"card"`
		}
		hostedtest.Remarshal(t, res.StructuredContent, &pending)
		if res.IsError || pending.Status != "confirmation_pending" || pending.Card.Handle == "" {
			t.Fatalf("on a card host: %s; want confirmation_pending with a card's handle", hostedtest.ResultText(res))
		}
		// The card is drawn and opened through instance A; it answers through B.
		var view confirm.CardView
		cardA.OK("open_confirmation", map[string]any{"handle": pending.Card.Handle}, &view)
		if view.State != confirm.CardPending || view.Token == "" {
			t.Fatalf("open_confirmation on the other instance: %+v; want pending with a token", view)
		}
		var done hostedtest.Write
		cardB.OK("answer_confirmation", map[string]any{"token": view.Token, "answer": "accept", "version": confirm.CardVersion}, &done)
		if done.Status != "applied" {
			t.Fatalf("the card's answer on the other instance: %+v; want applied", done)
		}
		if got := e.Assigned("alice", "Tennis"); got != tennis-5000 {
			t.Fatalf("Alice's Tennis holds %d, want %d", got, tennis-5000)
		}
		if res := cardA.Call("answer_confirmation", map[string]any{"token": view.Token, "answer": "accept", "version": confirm.CardVersion}); !res.IsError {
			t.Fatalf("a card's token answered twice: %s", hostedtest.ResultText(res))
		}
		// Mounted again, through A, the card shows what became of its change.
		var again confirm.CardView
		cardA.OK("open_confirmation", map[string]any{"handle": pending.Card.Handle}, &again)
		if again.State != confirm.CardAnswered || again.Token != "" || again.Outcome == nil || again.Outcome.Status != "applied" || again.Outcome.OperationID != done.OperationID {
			t.Fatalf("the card mounted again: %+v; want answered, applied, no token", again)
		}
	})

	t.Run("concurrent moves through both instances conserve money", func(t *testing.T) {
		tennis, restaurants := e.Assigned("alice", "Tennis"), e.Assigned("alice", "Restaurants")
		const workers, tries = 6, 6
		var mu sync.Mutex
		applied := 0
		var wg sync.WaitGroup
		for w := range workers {
			cl := aliceA
			if w%2 == 1 {
				cl = aliceB
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range tries {
					if hostedtest.ConfirmedMove(cl.CS) { // else the plan moved between preview and code: ask again
						mu.Lock()
						applied++
						mu.Unlock()
						return
					}
				}
			}()
		}
		wg.Wait()
		gotT, gotR := e.Assigned("alice", "Tennis"), e.Assigned("alice", "Restaurants")
		if applied == 0 || gotT+gotR != tennis+restaurants || gotT != tennis-int64(applied)*1000 {
			t.Fatalf("%d moves applied; Tennis %d → %d, Restaurants %d → %d: money is not conserved to the milliunit",
				applied, tennis, gotT, restaurants, gotR)
		}
		t.Logf("%d of %d concurrent moves applied", applied, workers)
	})

	t.Run("YNAB's expired tokens are refreshed", func(t *testing.T) {
		const token, refused = `avenir_ynab_requests_total{endpoint="oauth",method="POST",status="2xx"}`, `avenir_ynab_requests_total{endpoint="api",method="GET",status="4xx"}`
		refreshes := e.Metric(a, token) + e.Metric(b, token)
		refusals := e.Metric(a, refused) + e.Metric(b, refused)
		req, err := http.NewRequest("POST", e.SandboxOrigin+"/_sandbox/oauth/expire", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer control") // any token: the sandbox has none of its own
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("expiring the sandbox's tokens: %s", resp.Status)
		}
		var out map[string]any
		aliceA.OK("list_accounts", map[string]any{"fresh": true}, &out)
		bobB.OK("list_accounts", map[string]any{"fresh": true}, &out)
		after := e.Metric(a, token) + e.Metric(b, token)
		if got := e.Metric(a, refused) + e.Metric(b, refused) - refusals; got < 2 {
			t.Fatalf("YNAB refused %v requests after the expiry; want the expired token refused for each person", got)
		}
		if after < refreshes+2 {
			t.Fatalf("YNAB's token endpoint was asked %v times after the expiry; want a refresh for each person", after-refreshes)
		}
	})

	t.Run("metrics", func(t *testing.T) {
		_, body := e.Get(b.OpsURL + "/metrics")
		for _, want := range []string{
			`avenir_tool_calls_total{status="applied",tool="move_money"}`,
			`avenir_writes_total{outcome="applied",tool="move_money"}`,
			`avenir_tool_calls_total{status="ok",tool="list_plans"}`,
			`avenir_ynab_requests_total{endpoint="api",method="PATCH",status="2xx"}`,
			`avenir_ynab_request_duration_seconds_bucket{endpoint="api",method="GET",status="2xx",le=`,
			`go_goroutines`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("/metrics has no %s", want)
			}
		}
		_, abody := e.Get(a.OpsURL + "/metrics")
		if !strings.Contains(abody, `avenir_writes_total{outcome="confirmation_required",tool="move_money"}`) {
			t.Errorf("instance A's /metrics has no confirmation_required writes")
		}
		if strings.Contains(body+abody, alicePlan) || strings.Contains(body+abody, "/plans/") {
			t.Error("/metrics names a plan or a path")
		}
	})

	t.Run("logs hold no token and no amount", func(t *testing.T) {
		if res := aliceA.Call("move_money", hostedtest.Move("-30")); !res.IsError || !strings.Contains(hostedtest.ResultText(res), "-30.00") {
			t.Fatalf("a negative move: %s; want an error naming the amount to the person", hostedtest.ResultText(res))
		}
		logs := e.Logs.String()
		if !strings.Contains(logs, `"msg":"tool call"`) {
			t.Fatal("no tool call was logged")
		}
		for _, secret := range []string{aliceToken, bobToken, hostedtest.ClientSecret, e.Key} {
			if strings.Contains(logs, secret) {
				t.Fatal("a secret is in the log")
			}
		}
		for _, amount := range []string{"30.00", "15.00", "45.00"} {
			if strings.Contains(logs, amount) {
				t.Errorf("the log names the amount %s", amount)
			}
		}
	})

	t.Run("the sweep drops idle people's servers, and they come back", func(t *testing.T) {
		if got := e.Metric(a, "avenir_people_cached"); got != 1 {
			t.Fatalf("instance A holds %v people's servers; want Alice's", got)
		}
		hosted.SweepIdle(context.Background(), a.Server, 0)
		if got := e.Metric(a, "avenir_people_cached"); got != 0 {
			t.Fatalf("after the sweep instance A holds %v people's servers; want none", got)
		}
		var out map[string]any
		e.Connect(a, aliceToken, "", false).OK("list_plans", map[string]any{}, &out)
		if got := e.Metric(a, "avenir_people_cached"); got != 1 {
			t.Fatalf("after Alice's next call instance A holds %v people's servers; want hers", got)
		}
	})

	t.Run("readyz fails when the database is down, and it goes on when it is back", func(t *testing.T) {
		for _, in := range []*hostedtest.Instance{a, b} {
			if code, body := e.Get(in.OpsURL + "/readyz"); code != 200 {
				t.Fatalf("/readyz with the database up: %d %s", code, body)
			}
		}
		if err := e.Cluster.Pause(); err != nil {
			t.Fatal(err)
		}
		if code, body := e.Get(a.OpsURL + "/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "not ready") {
			t.Fatalf("/readyz with the database down: %d %s; want 503", code, body)
		}
		if code, _ := e.Get(a.URL + "/healthz"); code != 200 {
			t.Fatalf("/healthz with the database down: %d; want 200 (the process is up)", code)
		}
		req, err := http.NewRequest("POST", a.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+aliceToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "database") {
			t.Fatalf("an MCP call with the database down: %s %s; want 503 saying why", resp.Status, body)
		}
		// Back up, it goes on: ready again, and a confirmed write goes through and is journaled.
		if err := e.Cluster.Resume(); err != nil {
			t.Fatal(err)
		}
		if !hostedtest.WaitFor(30*time.Second, func() bool { code, _ := e.Get(a.OpsURL + "/readyz"); return code == 200 }) {
			t.Fatal("/readyz stays failing after the database came back")
		}
		again := e.Connect(a, aliceToken, "", false)
		var first, done hostedtest.Write
		again.OK("move_money", hostedtest.Move("1"), &first)
		again.OK("move_money", hostedtest.WithCode(hostedtest.Move("1"), first.Confirmation), &done)
		if done.Status != "applied" {
			t.Fatalf("a write after the database came back: %+v", done)
		}
	})
}

func TestHostedLogMasksMoney(t *testing.T) {
	for in, want := range map[string]string{
		"amount: -30.00 is not more than zero":                 "amount: -# is not more than zero",
		"Tennis: 45.00 → 15.00; €1.234,56 and 86.40 EUR":       "Tennis: # → #; €# and # EUR",
		"plan 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 2026-12-01": "plan 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 2026-12-01",
		"at 10:30:00, op 01JABCD2EFGH":                         "at 10:30:00, op 01JABCD2EFGH",
	} {
		if got := hosted.MaskMoney(in); got != want {
			t.Errorf("maskMoney(%q) = %q, want %q", in, got, want)
		}
	}
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: hosted.MaskMoneyAttr}))
	log.Info("tool call", "tool", "move_money", "ynab_requests", 3, "error", "Restaurants has 12.50 available")
	log.Warn("x", "err", fmt.Errorf("wrapped: %w", io.EOF), "amount_free", "12.50")
	if s := buf.String(); strings.Contains(s, "12.50 available") || !strings.Contains(s, `"ynab_requests":3`) || !strings.Contains(s, `"amount_free":"12.50"`) {
		t.Fatalf("log = %s", s)
	}
}
