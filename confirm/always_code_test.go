package confirm_test

import (
	"errors"
	"testing"

	"github.com/avenir-mcp/avenir/confirm"
)

// TestAlwaysCode: with AVENIR_MCP_CONFIRM=code a client that declares elicitation is never
// asked; the change is confirmed by code, exactly as for a client without elicitation.
func TestAlwaysCode(t *testing.T) {
	for _, version := range allVersions {
		t.Run("version "+version, func(t *testing.T) {
			h := newHarness(t, confirm.Options{AlwaysCode: true})
			u := &user{}
			u.set(accept(true)) // would say yes at once, if it were asked
			cs := h.connect(t, version, answering(u))
			code := issue(t, cs, toolBudget, restaurants)
			if n := len(u.asked()); n != 0 {
				t.Fatalf("the client was asked %d time(s), want never", n)
			}
			h.wantWrites(t, 0)
			out := decode(t)(call(t, cs, params(toolBudget, withCode(restaurants, code))))
			if out.Status != "applied" || out.Mode != string(confirm.ModeCode) {
				t.Fatalf("outcome %+v, want applied by code", out)
			}
			h.wantWrites(t, 1)
			res, err := call(t, cs, params(toolBudget, withCode(restaurants, code)))
			wantToolError(t, res, err, confirm.ErrCodeRefused)
			h.wantWrites(t, 1)
		})
	}
	t.Run("a client without elicitation", func(t *testing.T) {
		h := newHarness(t, confirm.Options{AlwaysCode: true})
		cs := h.connect(t, v2026, noElicitation())
		code := issue(t, cs, toolBudget, restaurants)
		if out := decode(t)(call(t, cs, params(toolBudget, withCode(restaurants, code)))); out.Status != "applied" {
			t.Fatalf("status %q, want applied", out.Status)
		}
	})
}

func TestAlwaysCodeContradictsRequireElicitation(t *testing.T) {
	a, err := confirm.New(confirm.Options{AlwaysCode: true, RequireElicitation: true})
	if a != nil || !errors.Is(err, confirm.ErrContradictoryModes) {
		t.Fatalf("New = %v, %v; want ErrContradictoryModes", a, err)
	}
}
