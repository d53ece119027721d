package tools

import (
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// afterAnswers stands for a transport's AfterAnswer: it takes every function, and runs them
// when the test says the answers are written.
type afterAnswers struct {
	mu   sync.Mutex
	reqs []mcp.Request
	fns  []func()
}

func (a *afterAnswers) take(req mcp.Request, fn func()) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reqs, a.fns = append(a.reqs, req), append(a.fns, fn)
	return true
}

func (a *afterAnswers) taken() ([]mcp.Request, []func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.reqs, a.fns
}

// An applied write counts as answered once the transport wrote its answer, when the transport
// can say so (stdio); the question before it is no answer to record. Where the transport cannot
// say so (HTTP), the write counts as answered when its call returns.
func TestAnsweredWhenTheTransportWroteTheAnswer(t *testing.T) {
	answered := func(e *testEnv, id string) bool {
		t.Helper()
		op, err := e.journal.Get(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		return op.Answered
	}

	t.Run("the transport says when", func(t *testing.T) {
		after := &afterAnswers{}
		e := newEnv(t, envOptions{kind: noElicit, afterAnswer: after.take})
		_, w := e.apply("set_category_budget", budgetArgs)
		reqs, fns := after.taken()
		if len(fns) != 1 {
			t.Fatalf("the question and the applied write gave AfterAnswer %d functions; want 1, the write's", len(fns))
		}
		call, ok := reqs[0].(*mcp.CallToolRequest)
		if !ok || call.Params.Name != "set_category_budget" {
			t.Fatalf("AfterAnswer was given %#v, want the set_category_budget call", reqs[0])
		}
		if answered(e, w.OperationID) {
			t.Fatal("the write counts as answered before the transport wrote its answer")
		}
		fns[0]()
		if !answered(e, w.OperationID) {
			t.Fatal("the write does not count as answered once the transport wrote its answer")
		}
	})

	for name, afterAnswer := range map[string]func(mcp.Request, func()) bool{
		"no transport says":           nil,
		"the transport cannot say so": func(mcp.Request, func()) bool { return false },
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, envOptions{kind: noElicit, afterAnswer: afterAnswer})
			_, w := e.apply("set_category_budget", budgetArgs)
			if !answered(e, w.OperationID) {
				t.Fatal("the write does not count as answered once its call returned")
			}
		})
	}
}
