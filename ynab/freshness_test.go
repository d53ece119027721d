package ynab_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
)

// clock is a fake clock for the client: the cache's windows are measured on it.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// cost reads the plan with freshness f and returns what it cost in requests the sandbox saw.
func cost(t *testing.T, sb *sandbox.Sandbox, c *ynab.Client, f ynab.Freshness) (*ynab.Plan, int) {
	t.Helper()
	sb.ResetCounts()
	p, err := c.Plan(context.Background(), sandbox.PlanID, f)
	if err != nil {
		t.Fatal(err)
	}
	return p, sb.Counts().Total
}

func TestFreshnessWindows(t *testing.T) {
	sb, url := startSandbox(t)
	clk := &clock{now: today}
	c := ynab.New(ynab.Options{BaseURL: url, Token: "t", MaxAge: 20 * time.Second, Now: clk.Now})
	steps := []struct {
		name  string
		after time.Duration
		f     ynab.Freshness
		want  int
	}{
		{"the first read exports the plan", 0, ynab.WithinWindow, 1},
		{"a read within the window", 19 * time.Second, ynab.WithinWindow, 0},
		{"a read after the window asks for the changes", 2 * time.Second, ynab.WithinWindow, 1},
		{"fresh always asks", 0, ynab.Fresh, 1},
		{"a preview 59 s after the last read", 59 * time.Second, ynab.WithinPreviewAge, 0},
		{"a read at that moment", 0, ynab.WithinWindow, 1},
		{"a preview more than 60 s after it", 61 * time.Second, ynab.WithinPreviewAge, 1},
		{"a confirming call's read, however late", 10 * time.Minute, ynab.AsHeld, 0},
	}
	var asOf time.Time
	for _, s := range steps {
		clk.advance(s.after)
		p, n := cost(t, sb, c, s.f)
		if n != s.want {
			t.Fatalf("%s: %d requests, want %d", s.name, n, s.want)
		}
		if n > 0 {
			asOf = clk.Now()
		}
		if !p.Fetched.Equal(asOf) {
			t.Fatalf("%s: the snapshot says it was read at %v, want %v", s.name, p.Fetched, asOf)
		}
	}
}

func TestFreshnessAlwaysAsk(t *testing.T) {
	sb, url := startSandbox(t)
	c := ynab.New(ynab.Options{BaseURL: url, Token: "t", MaxAge: -1, Now: func() time.Time { return today }})
	cost(t, sb, c, ynab.WithinWindow)
	for _, f := range []ynab.Freshness{ynab.WithinWindow, ynab.WithinPreviewAge, ynab.Fresh} {
		if _, n := cost(t, sb, c, f); n != 1 {
			t.Fatalf("freshness %d with a window of 0 cost %d requests, want 1", f, n)
		}
	}
}

// A write's answer is merged into the cache: a preview after it costs nothing and shows it; a
// read costs one delta only where YNAB derives figures the answer does not carry.
func TestWritesFeedTheCache(t *testing.T) {
	sb, url := startSandbox(t)
	ctx := context.Background()
	c := ynab.New(ynab.Options{BaseURL: url, Token: "t", MaxAge: ynab.MaxFreshness, Now: func() time.Time { return today }})
	p, _ := cost(t, sb, c, ynab.WithinWindow)
	var tx ynab.TransactionSummary
	for _, t := range p.Transactions {
		if a, _ := p.Account(t.AccountID); !t.Deleted && a.OnBudget && t.TransferAccountID == nil && len(p.Lines(t.ID)) == 0 && t.FlagColor == nil {
			tx = t
			break
		}
	}
	var cat ynab.Category
	for _, k := range p.Categories {
		if g, _ := p.Group(k.CategoryGroupID); !k.Deleted && !k.Internal && !k.Hidden && g.Name != "Credit Card Payments" {
			cat = k
			break
		}
	}
	month := "2026-12-01"

	if _, err := c.UpdateTransactions(ctx, p.ID, []ynab.SaveTransaction{{ID: tx.ID, FlagColor: ynab.Some("purple")}}); err != nil {
		t.Fatal(err)
	}
	p, n := cost(t, sb, c, ynab.WithinWindow)
	if got, _ := p.Transaction(tx.ID); n != 0 || got.FlagColor == nil || *got.FlagColor != "purple" {
		t.Fatalf("a read after a flag write cost %d requests and shows flag %v; want 0 and purple", n, got.FlagColor)
	}

	if _, err := c.UpdateMonthCategory(ctx, p.ID, month, cat.ID, 123450); err != nil {
		t.Fatal(err)
	}
	p, n = cost(t, sb, c, ynab.WithinPreviewAge)
	if got, _ := p.MonthCategory(month, cat.ID); n != 0 || got.Budgeted != 123450 {
		t.Fatalf("a preview after assigning cost %d requests and shows %d assigned; want 0 and 123450", n, got.Budgeted)
	}
	before, _ := p.Month(month)
	p, n = cost(t, sb, c, ynab.WithinWindow)
	after, _ := p.Month(month)
	if n != 1 || after.ToBeBudgeted == before.ToBeBudgeted {
		t.Fatalf("a read after assigning cost %d requests, ready to assign %d → %d; want 1 delta that moves it", n, before.ToBeBudgeted, after.ToBeBudgeted)
	}

	if _, err := c.UpdateTransactions(ctx, p.ID, []ynab.SaveTransaction{{ID: tx.ID, CategoryID: ynab.Some(cat.ID)}}); err != nil {
		t.Fatal(err)
	}
	if p, n = cost(t, sb, c, ynab.WithinPreviewAge); n != 0 {
		t.Fatalf("a preview after a category change cost %d requests, want 0", n)
	}
	if got, _ := p.Transaction(tx.ID); got.CategoryID == nil || *got.CategoryID != cat.ID {
		t.Fatalf("the preview's snapshot does not show the category just written: %s, want %s", *got.CategoryID, cat.ID)
	}
	if _, n = cost(t, sb, c, ynab.WithinWindow); n != 1 {
		t.Fatalf("a read after a category change cost %d requests, want 1 (the activity moved)", n)
	}

	if _, err := c.ImportTransactions(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, n = cost(t, sb, c, ynab.WithinPreviewAge); n != 1 {
		t.Fatalf("a preview after an import cost %d requests, want 1: the answer holds only ids", n)
	}

	sb.InjectFault(sandbox.Fault{Method: "PATCH", Status: 500})
	if _, err := c.UpdateTransactions(ctx, p.ID, []ynab.SaveTransaction{{ID: tx.ID, FlagColor: ynab.Some("red")}}); err == nil {
		t.Fatal("the faulted write succeeded")
	}
	if _, n = cost(t, sb, c, ynab.WithinPreviewAge); n != 1 {
		t.Fatalf("a preview after a failed write cost %d requests, want 1: whether it landed is not known", n)
	}
}

func TestParseFreshness(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"", 0, false},
		{"30", 30 * time.Second, false},
		{" 15s ", 15 * time.Second, false},
		{"1m", time.Minute, false},
		{"0", -1, false},
		{"61", 0, true},
		{"2m", 0, true},
		{"-5", 0, true},
		{"soon", 0, true},
	}
	for _, tt := range tests {
		got, err := ynab.ParseFreshness(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseFreshness(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
		if err != nil && !strings.Contains(err.Error(), "AVENIR_MCP_FRESHNESS") {
			t.Errorf("ParseFreshness(%q): the error %q does not name the variable", tt.in, err)
		}
	}
}

// displayOnly matches the fields a collection endpoint adds for display, which the export omits.
var displayOnly = regexp.MustCompile(`(_formatted|_currency|_name)$`)

// plain drops display-only fields and the categories of every month but current, which a
// plan read per collection does not hold.
func plain(t *testing.T, p ynab.PlanDetail, current string) ynab.PlanDetail {
	t.Helper()
	p.Months = append([]ynab.Month(nil), p.Months...)
	for i := range p.Months {
		if p.Months[i].Month != current {
			p.Months[i].Categories = nil
		}
	}
	p.PayeeLocations, p.LastModifiedOn = nil, ""
	b, _ := json.Marshal(p)
	var generic any
	json.Unmarshal(b, &generic)
	var strip func(v any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if displayOnly.MatchString(k) && k != "name" {
					delete(v, k)
					continue
				}
				strip(x)
			}
		case []any:
			for _, x := range v {
				strip(x)
			}
		}
	}
	strip(generic)
	b, _ = json.Marshal(generic)
	var out ynab.PlanDetail
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	out.ID, out.Name = p.ID, p.Name
	return out
}

// When YNAB cannot export the plan in time (the client waits 500 ms here), the cache reads it
// per collection and refreshes it per
// collection after that: the same plan, at a known cost.
func TestPlanReadPerCollectionWhenTheExportFails(t *testing.T) {
	for _, fault := range []struct {
		name  string
		fault sandbox.Fault
	}{
		{"503 after a while", sandbox.Fault{Method: "GET", PathContains: "/plans/" + sandbox.PlanID, Status: 503, Delay: 300 * time.Millisecond}},
		{"timeout", sandbox.Fault{Method: "GET", PathContains: "/plans/" + sandbox.PlanID, Delay: 2 * time.Second}},
	} {
		t.Run(fault.name, func(t *testing.T) {
			sb, url := startSandbox(t)
			ctx := context.Background()
			sb.InjectFault(fault.fault)
			c := ynab.New(ynab.Options{BaseURL: url, Token: "t", MaxAge: -1, Now: func() time.Time { return today },
				HTTPClient: &http.Client{Timeout: 500 * time.Millisecond}})
			p, err := c.Plan(ctx, sandbox.PlanID, ynab.WithinWindow)
			if err != nil {
				t.Fatal(err)
			}
			counts := sb.Counts()
			export, err := sb.Export(sandbox.PlanID)
			if err != nil {
				t.Fatal(err)
			}
			// The sample runs from 2026-10; one window of a year holds it, so: the failed export,
			// months, accounts, categories, payees, scheduled, one window, plans.
			if counts.Total != 8 || counts.ByRoute["GET /plans/{plan_id}"] != 1 || counts.ByRoute["GET /plans/{plan_id}/transactions"] != 1 {
				t.Fatalf("reading per collection cost %v, want 8 requests: the failed export, 6 collections and the plan list", counts.ByRoute)
			}
			current := "2026-12-01"
			if got, want := normalized(t, plain(t, p.PlanDetail, current)), normalized(t, plain(t, export, current)); got != want {
				t.Fatalf("the plan read per collection differs from its export:\n%s", firstDiff(got, want))
			}
			if _, ok := p.Month("2026-10-01"); ok {
				t.Fatal("a past month without its categories is reported present: tools would show the current month's figures for it")
			}
			if m, ok := p.Month(current); !ok || len(m.Categories) == 0 {
				t.Fatal("the current month has no categories")
			}

			// Deltas per collection: after a write, one request per collection.
			var tx ynab.TransactionSummary
			for _, t := range p.Transactions {
				if !t.Deleted && t.TransferAccountID == nil && len(p.Lines(t.ID)) == 0 {
					tx = t
					break
				}
			}
			if _, err := c.UpdateTransactions(ctx, p.ID, []ynab.SaveTransaction{{ID: tx.ID, Amount: ynab.Some(tx.Amount - 1000)}}); err != nil {
				t.Fatal(err)
			}
			p, n := cost(t, sb, c, ynab.WithinWindow)
			if n != 6 || sb.Counts().ByRoute["GET /plans/{plan_id}"] != 0 {
				t.Fatalf("a refresh per collection cost %v, want the 6 collections' deltas", sb.Counts().ByRoute)
			}
			export, _ = sb.Export(sandbox.PlanID)
			if got, want := normalized(t, plain(t, p.PlanDetail, current)), normalized(t, plain(t, export, current)); got != want {
				t.Fatalf("after a delta per collection the plan differs from its export:\n%s", firstDiff(got, want))
			}
		})
	}
}
