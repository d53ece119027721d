package tools

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// Deps.OnCall hears of every call as it ends, with the write's status, what it cost and how
// long it took; hosted avenir's /metrics counts from it.
func TestOnCall(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	requests := map[string]int{}
	e := newEnv(t, envOptions{kind: noElicit, onCall: func(tool, status string, n int, took time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, tool+" "+status)
		requests[tool+" "+status] += n
		if took < 0 {
			t.Errorf("%s took %v", tool, took)
		}
	}})
	var plans struct{}
	e.ok("list_plans", map[string]any{}, &plans)
	code := e.preview("move_money", moveArgs).Confirmation
	if out, _, msg := moneyConfirm(e, "move_money", moveArgs, code); out == nil || out.Status != "applied" {
		t.Fatalf("move_money with the code: %+v %s", out, msg)
	}
	e.fails("move_money", withArg(moveArgs, "amount", "-1"), "amount")

	mu.Lock()
	defer mu.Unlock()
	want := []string{"list_plans ok", "move_money confirmation_required", "move_money applied", "move_money error"}
	if !slices.Equal(got, want) {
		t.Fatalf("OnCall heard %q; want %q", got, want)
	}
	if requests["list_plans ok"] == 0 || requests["move_money applied"] < 2 {
		t.Fatalf("requests heard = %v; want list_plans' read and the move's writes counted", requests)
	}
}
