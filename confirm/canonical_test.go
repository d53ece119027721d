package confirm_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/avenir-mcp/avenir/confirm"
)

// TestFingerprintVector checks the test vector printed in the package doc.
func TestFingerprintVector(t *testing.T) {
	const planID = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
	subject := json.RawMessage(`{"transactions": [
	   {"payee": "Market", "amount": -86400, "date": "2026-09-12", "memo": "Kaas & \"brood\""},
	   {"payee": "Café Zon", "amount": 2500000, "date": "2026-09-01"}],
	 "approved": true, "account_id": "acc-betaal"}`)
	const wantBody = `{"account_id":"acc-betaal","approved":true,"transactions":[{"amount":-86400,"date":"2026-09-12","memo":"Kaas & \"brood\"","payee":"Market"},{"amount":2500000,"date":"2026-09-01","payee":"Café Zon"}]}`
	const wantFingerprint = "68e30b7792c10417cc8a174e1dd5624c36ec511dd9368835d70d6d2672287f1e"

	body, err := confirm.Canonical(subject)
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != wantBody {
		t.Errorf("Canonical =\n%s\nwant\n%s", body, wantBody)
	}
	fp, err := confirm.Fingerprint(planID, subject)
	if err != nil {
		t.Fatal(err)
	}
	if fp != wantFingerprint {
		t.Errorf("Fingerprint = %s, want %s", fp, wantFingerprint)
	}
}

func TestCanonical(t *testing.T) {
	type line struct {
		CategoryID string `json:"category_id"`
		Amount     int64  `json:"amount"`
		Memo       string `json:"memo,omitempty"`
	}
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"keys sorted, no white space", map[string]any{"b": 1, "a": map[string]any{"d": true, "c": nil}}, `{"a":{"c":null,"d":true},"b":1}`},
		{"struct tags apply", line{CategoryID: "c1", Amount: -5}, `{"amount":-5,"category_id":"c1"}`},
		{"array sorted", []int{3, -1, 2}, `[-1,2,3]`},
		{"nested arrays sorted inside out", [][]int{{2, 1}, {0}}, `[[0],[1,2]]`},
		{"list of changes sorted", []line{{"c2", 10, ""}, {"c1", 20, ""}}, `[{"amount":10,"category_id":"c2"},{"amount":20,"category_id":"c1"}]`},
		{"duplicates kept", []string{"a", "a"}, `["a","a"]`},
		{"only JSON's escapes", "q\"b\\n\b\t\n\f\r\x01\x1f<&>é\u2028", `"q\"b\\n\b\t\n\f\r\u0001\u001f<&>é` + "\u2028" + `"`},
		{"largest milliunits", int64(math.MaxInt64), `9223372036854775807`},
		{"negative zero is zero", math.Copysign(0, -1), `0`},
		{"whole float is an integer", 3.0, `3`},
		{"empty containers", map[string]any{"a": []any{}, "b": map[string]any{}}, `{"a":[],"b":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := confirm.Canonical(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("Canonical(%#v) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestCanonicalRefuses(t *testing.T) {
	tests := []struct {
		name string
		in   any
	}{
		{"fraction", map[string]any{"amount": 1.5}},
		{"exponent", 1e21},
		{"beyond int64", uint64(math.MaxUint64)},
		{"not a number", math.NaN()},
		{"not JSON at all", make(chan int)},
		{"fraction deep in a list", []any{map[string]any{"amount": []any{0.25}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := confirm.Canonical(tt.in); err == nil {
				t.Errorf("Canonical(%v) = %s, want an error", tt.in, got)
			}
		})
	}
}

func TestFingerprint(t *testing.T) {
	type change struct {
		TransactionID string `json:"transaction_id"`
		CategoryID    string `json:"category_id"`
	}
	type subject struct {
		Changes []change `json:"changes"`
	}
	base := subject{Changes: []change{{"t1", "c1"}, {"t2", "c2"}, {"t3", "c1"}}}
	fp := func(t *testing.T, plan string, s any) string {
		t.Helper()
		got, err := confirm.Fingerprint(plan, s)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := fp(t, "plan-1", base)

	t.Run("same changes in another order", func(t *testing.T) {
		reordered := subject{Changes: []change{{"t3", "c1"}, {"t1", "c1"}, {"t2", "c2"}}}
		if got := fp(t, "plan-1", reordered); got != want {
			t.Errorf("reordered changes gave %s, want %s", got, want)
		}
	})
	others := []struct {
		name    string
		plan    string
		subject any
	}{
		{"another plan", "plan-2", base},
		{"another category", "plan-1", subject{Changes: []change{{"t1", "c2"}, {"t2", "c2"}, {"t3", "c1"}}}},
		{"a change fewer", "plan-1", subject{Changes: []change{{"t1", "c1"}, {"t2", "c2"}}}},
		{"categories swapped between transactions", "plan-1", subject{Changes: []change{{"t1", "c2"}, {"t2", "c1"}, {"t3", "c1"}}}},
	}
	for _, o := range others {
		t.Run(o.name, func(t *testing.T) {
			if got := fp(t, o.plan, o.subject); got == want {
				t.Errorf("%s gave the same fingerprint %s", o.name, got)
			}
		})
	}
	t.Run("plan id and subject never trade places", func(t *testing.T) {
		if fp(t, "a", "b") == fp(t, "b", "a") {
			t.Error(`Fingerprint("a", "b") == Fingerprint("b", "a")`)
		}
	})
	t.Run("no plan id", func(t *testing.T) {
		if _, err := confirm.Fingerprint("", base); err == nil {
			t.Error("an empty plan id gave a fingerprint")
		}
	})
	t.Run("float amount", func(t *testing.T) {
		if _, err := confirm.Fingerprint("plan-1", map[string]any{"amount": 12.5}); err == nil {
			t.Error("a fractional amount gave a fingerprint")
		}
	})
}
