package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The transaction edits (apply_categories, flag_transactions, approve_transactions,
// split_transaction) end to end through the real binary and its sandbox.

// txeditsSession is a client of `avenir serve --sandbox` that records what the user was asked.
type txeditsSession struct {
	t      *testing.T
	cs     *mcp.ClientSession
	elicit bool

	mu    sync.Mutex
	asked []string
}

func txeditsConnect(t *testing.T, env []string, protocol string, elicit bool) *txeditsSession {
	s := &txeditsSession{t: t, elicit: elicit}
	var opts *mcp.ClientOptions
	if elicit {
		opts = &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			s.mu.Lock()
			s.asked = append(s.asked, r.Params.Message)
			s.mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"value": true}}, nil
		}}
	}
	s.cs = connectBinary(t, env, protocol, opts)
	return s
}

// call calls a tool that must succeed and decodes its structured result into out.
func (s *txeditsSession) call(tool string, args map[string]any, out any) {
	s.t.Helper()
	res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		s.t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		s.t.Fatalf("%s(%v) failed: %v", tool, args, res.Content[0].(*mcp.TextContent).Text)
	}
	if _, err := resultInto(res, out); err != nil {
		s.t.Fatalf("%s: %v", tool, err)
	}
}

type txeditsWrite struct {
	Status       string `json:"status"`
	OperationID  string `json:"operation_id"`
	Preview      string `json:"preview"`
	Confirmation string `json:"confirmation"`
}

// write makes a confirmed write the way the client can: the elicitation form, or the preview
// and the code. The question or preview must open with first; the write must be applied and
// journaled as confirmed via.
func (s *txeditsSession) write(tool string, args map[string]any, first, via string) {
	s.t.Helper()
	var out txeditsWrite
	s.call(tool, args, &out)
	if !s.elicit {
		if out.Status != "confirmation_required" || txeditsFirstLine(out.Preview) != first {
			s.t.Fatalf("%s: %+v; want confirmation_required with a preview opening %q", tool, out, first)
		}
		args = txeditsWithCode(args, out.Confirmation)
		s.call(tool, args, &out)
	} else {
		s.mu.Lock()
		asked := slices.Clone(s.asked)
		s.asked = nil
		s.mu.Unlock()
		if len(asked) != 1 || txeditsFirstLine(asked[0]) != first {
			s.t.Fatalf("%s: the user was asked %q; want once, opening %q", tool, asked, first)
		}
	}
	s.applied(tool, out, first, via)
}

// applied checks that a write was applied and that the journal holds it.
func (s *txeditsSession) applied(tool string, out txeditsWrite, first, via string) {
	s.t.Helper()
	if out.Status != "applied" || out.OperationID == "" {
		s.t.Fatalf("%s: %+v; want applied", tool, out)
	}
	var op struct {
		Status       string `json:"status"`
		ConfirmedVia string `json:"confirmed_via"`
		Summary      string `json:"summary"`
		Preview      string `json:"preview"`
		Changes      []struct {
			Before json.RawMessage `json:"before"`
		} `json:"changes"`
	}
	s.call("get_operation", map[string]any{"operation_id": out.OperationID}, &op)
	if op.Status != "applied" || op.ConfirmedVia != via || !strings.HasPrefix(op.Preview, first) || strings.HasSuffix(op.Summary, "?") || len(op.Changes) == 0 || len(op.Changes[0].Before) == 0 {
		s.t.Fatalf("%s: journal entry %+v; want applied via %s, %q, with the state before", tool, op, via, first)
	}
}

type txeditsTx struct {
	ID         string `json:"id"`
	Date       string `json:"date"`
	Payee      string `json:"payee"`
	Category   string `json:"category"`
	Flag       string `json:"flag"`
	SplitLines []struct {
		AmountMilliunits int64 `json:"amount_milliunits"`
	} `json:"split_lines"`
}

// transactions lists transactions with the given filters, by payee.
func (s *txeditsSession) transactions(filters map[string]any) map[string]txeditsTx {
	s.t.Helper()
	var out struct {
		Transactions []txeditsTx `json:"transactions"`
	}
	s.call("list_transactions", filters, &out)
	byPayee := map[string]txeditsTx{}
	for _, t := range out.Transactions {
		byPayee[t.Payee] = t
	}
	return byPayee
}

func TestTransactionEditsOverStdio(t *testing.T) {
	clients := []struct {
		name, protocol string
		elicit         bool
		via            string
	}{
		{"2025-06-18 without elicitation", "2025-06-18", false, "code"},
		{"2026-07-28 with elicitation", "2026-07-28", true, "mrtr"},
	}
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			env, _ := isolatedEnv(t)
			s := txeditsConnect(t, env, c.protocol, c.elicit)
			uncategorized := s.transactions(map[string]any{"account": "Betaalrekening", "status": "uncategorized"})
			kruidvat, tikkie := uncategorized["Kruidvat"], uncategorized["Tikkie"]
			market := s.transactions(map[string]any{"payee": "Market"})["Market"]
			if kruidvat.ID == "" || tikkie.ID == "" || market.ID == "" {
				t.Fatalf("the sample lacks Kruidvat, Tikkie or Market: %v %v", uncategorized, market)
			}

			s.write("apply_categories", map[string]any{"changes": []any{
				map[string]any{"transaction_id": kruidvat.ID, "category": "Persoonlijke verzorging"},
				map[string]any{"transaction_id": tikkie.ID, "category": "Restaurants"},
			}}, "Recategorise 2 transaction(s)?", c.via)
			s.write("flag_transactions", map[string]any{"flags": []any{
				map[string]any{"transaction_id": market.ID, "color": "red"},
				map[string]any{"transaction_id": kruidvat.ID, "color": "green"},
			}}, "Change the flag of 2 transaction(s)?", c.via)
			s.write("split_transaction", map[string]any{"transaction_id": market.ID, "lines": []any{
				map[string]any{"amount": "-50.00", "category": "Boodschappen"},
				map[string]any{"amount": "-36.40", "category": "Restaurants", "memo": "Koffie"},
			}}, "Split "+market.Date+" Market 86.40 into 2 lines?", c.via)

			unapproved := s.transactions(map[string]any{"account": "Betaalrekening", "status": "unapproved"})
			var ids []string
			for _, tx := range unapproved {
				ids = append(ids, tx.ID)
			}
			var approved txeditsWrite
			s.call("approve_transactions", map[string]any{"transaction_ids": ids}, &approved)
			s.applied("approve_transactions", approved, "Approve 3 transaction(s)?", "none")

			after := s.transactions(map[string]any{"account": "Betaalrekening", "since": market.Date})
			if got := after["Market"]; len(got.SplitLines) != 2 || got.Flag != "red" || got.Category != "" {
				t.Errorf("Market after the writes: %+v; want a split of 2 lines, flagged red", got)
			}
			if got := after["Kruidvat"]; got.Category == "" || got.Flag != "green" {
				t.Errorf("Kruidvat after the writes: %+v; want categorised and flagged green", got)
			}
			if left := s.transactions(map[string]any{"account": "Betaalrekening", "status": "unapproved"}); len(left) != 0 {
				t.Errorf("still unapproved after approving: %v", left)
			}
		})
	}
}

// In read-only mode the binary offers none of the transaction edits.
func TestTransactionEditsReadOnly(t *testing.T) {
	env, _ := isolatedEnv(t, "AVENIR_MCP_READ_ONLY=1")
	cs := connectBinary(t, env, "2025-06-18", nil)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if slices.Contains([]string{"apply_categories", "flag_transactions", "approve_transactions", "split_transaction"}, tool.Name) {
			t.Errorf("read-only mode offers %s", tool.Name)
		}
	}
}

func txeditsFirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func txeditsWithCode(args map[string]any, code string) map[string]any {
	out := map[string]any{"confirmation": code}
	for k, v := range args {
		out[k] = v
	}
	return out
}
