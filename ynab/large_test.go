package ynab_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

// A plan of years: the sample, grown through the sandbox's own API by n transactions spread
// over four and a half years, on its open budget accounts, among 400 payees, with memos, flags
// and splits-free categories as a household enters them.
func largePlan(tb testing.TB, n int) (*sandbox.Sandbox, string) {
	tb.Helper()
	sb, srv := sandboxtest.New(tb, sandbox.Options{Now: func() time.Time { return today }})
	ctx := context.Background()
	c := ynab.New(ynab.Options{BaseURL: srv.URL, Token: "t", MaxAge: -1})
	p, err := c.Plan(ctx, sandbox.PlanID, ynab.Fresh)
	if err != nil {
		tb.Fatal(err)
	}
	if err := fill(ctx, c, p, n); err != nil {
		tb.Fatal(err)
	}
	sb.ResetCounts()
	return sb, srv.URL
}

// fill enters n transactions into p, 1,000 a request.
func fill(ctx context.Context, c *ynab.Client, p *ynab.Plan, n int) error {
	var accounts, categories []string
	for _, a := range p.Accounts {
		if !a.Deleted && !a.Closed && a.OnBudget && a.Type != ynab.AccountCreditCard {
			accounts = append(accounts, a.ID)
		}
	}
	for _, k := range p.Categories {
		if g, _ := p.Group(k.CategoryGroupID); !k.Deleted && !k.Hidden && !k.Internal && g.Name != "Credit Card Payments" {
			categories = append(categories, k.ID)
		}
	}
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	memos := []string{"", "", "", "boodschappen week", "verjaardag", "terugbetaling", "abonnement", "contant"}
	days := 4*365 + 180
	for done := 0; done < n; {
		batch := make([]ynab.SaveTransaction, 0, 1000)
		for range min(1000, n-done) {
			t := ynab.SaveTransaction{
				AccountID: accounts[rng.IntN(len(accounts))],
				Date:      today.AddDate(0, 0, -rng.IntN(days)).Format(time.DateOnly),
				Amount:    ynab.Some(-int64(rng.IntN(20000)+100) * 10),
				PayeeName: ynab.Some(fmt.Sprintf("Winkel %03d", rng.IntN(400))),
				Cleared:   ynab.Reconciled,
				Approved:  ynab.Some(true),
			}
			if rng.IntN(50) > 0 {
				t.CategoryID = ynab.Some(categories[rng.IntN(len(categories))])
			}
			if m := memos[rng.IntN(len(memos))]; m != "" {
				t.Memo = ynab.Some(m)
			}
			if rng.IntN(40) == 0 {
				t.FlagColor = ynab.Some("blue")
			}
			batch = append(batch, t)
		}
		if _, err := c.CreateTransactions(ctx, p.ID, batch); err != nil {
			return fmt.Errorf("entering transactions %d to %d: %w", done, done+len(batch), err)
		}
		done += len(batch)
	}
	return nil
}

// heapMB is the live heap after a collection, in MB.
func heapMB() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

// BenchmarkFirstSync measures a first read of a plan of years: the export in one request, or,
// when YNAB cannot export it in time, per collection. heap-MB is what the snapshot keeps.
func BenchmarkFirstSync(b *testing.B) {
	for _, n := range []int{10_000, 50_000} {
		sb, url := largePlan(b, n)
		b.Run(fmt.Sprintf("export/%dk", n/1000), func(b *testing.B) {
			url, size := exportServer(b, sb)
			benchSync(b, sb, url, nil)
			b.ReportMetric(size, "export-MB")
		})
		b.Run(fmt.Sprintf("per_collection/%dk", n/1000), func(b *testing.B) {
			// The export does not answer within the 2 s the client waits here (30 s by default).
			benchSync(b, sb, url, &sandbox.Fault{Method: "GET", PathContains: "/plans/" + sandbox.PlanID, Delay: 3 * time.Second})
		})
	}
}

func benchSync(b *testing.B, sb *sandbox.Sandbox, url string, fault *sandbox.Fault) {
	ctx := context.Background()
	var kept float64
	var requests int
	b.ReportAllocs()
	for b.Loop() {
		if fault != nil {
			sb.InjectFault(*fault)
		}
		sb.ResetCounts()
		c := ynab.New(ynab.Options{BaseURL: url, Token: "t", HTTPClient: benchClient(fault != nil)})
		p, err := c.Plan(ctx, sandbox.PlanID, ynab.WithinWindow)
		if err != nil {
			b.Fatal(err)
		}
		p.TransactionsByDate() // what the first list does
		requests = sb.Counts().Total
		// What the snapshot keeps: the live heap with it, less the live heap without it.
		b.StopTimer()
		with := heapMB()
		runtime.KeepAlive(c)
		runtime.KeepAlive(p)
		kept = with - heapMB()
		b.StartTimer()
	}
	b.ReportMetric(kept, "heap-MB")
	if fault != nil {
		b.ReportMetric(float64(requests), "requests")
	}
}

// exportServer serves the sandbox's plan export as recorded bytes, so that a benchmark of the
// export measures the client (transfer on loopback, decoding, indexing), not the emulator.
func exportServer(b *testing.B, sb *sandbox.Sandbox) (string, float64) {
	export, err := sb.Export(sandbox.PlanID)
	if err != nil {
		b.Fatal(err)
	}
	body, err := json.Marshal(map[string]any{"data": map[string]any{"plan": export, "server_knowledge": 1}})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv.URL, float64(len(body)) / (1 << 20)
}

// benchClient waits 2 s for an answer when short, else the client's default 30 s.
func benchClient(short bool) *http.Client {
	if short {
		return &http.Client{Timeout: 2 * time.Second}
	}
	return nil
}

// httpClient waits 500 ms for an answer when short, else the client's default 30 s.
func httpClient(short bool) *http.Client {
	if short {
		return &http.Client{Timeout: 500 * time.Millisecond}
	}
	return nil
}

// The plan of years stays whole when read per collection: every transaction, at a cost of
// one request per collection and one per year of history.
func TestLargePlanPerCollection(t *testing.T) {
	if testing.Short() {
		t.Skip("enters 5,000 transactions")
	}
	sb, url := largePlan(t, 5000)
	sb.InjectFault(sandbox.Fault{Method: "GET", PathContains: "/plans/" + sandbox.PlanID, Status: 503, Delay: 300 * time.Millisecond})
	c := ynab.New(ynab.Options{BaseURL: url, Token: "t", HTTPClient: httpClient(true), Now: func() time.Time { return today }})
	p, err := c.Plan(context.Background(), sandbox.PlanID, ynab.WithinWindow)
	if err != nil {
		t.Fatal(err)
	}
	export, _ := sb.Export(sandbox.PlanID)
	if got, want := len(p.TransactionsByDate()), len(export.Transactions); got != want || got < 5000 {
		t.Fatalf("read per collection: %d transactions, the export has %d", got, want)
	}
	// The failed export, months, accounts, categories, payees, scheduled, plans, and one
	// request a year from the plan's first month (2022-06) to today (2026-12): 5 windows.
	if n := sb.Counts().Total; n != 12 {
		t.Fatalf("reading per collection cost %d requests (%v), want 12", n, sb.Counts().ByRoute)
	}
}

// BenchmarkFirstSyncPeakRSS measures the peak resident memory of a process whose only work is
// the first sync of a plan of years: this test binary run again, as TestSyncChild, against the
// export served by this one.
func BenchmarkFirstSyncPeakRSS(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("needs /proc to read a process's peak memory")
	}
	for _, n := range []int{10_000, 50_000} {
		sb, _ := largePlan(b, n)
		url, _ := exportServer(b, sb)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			var peak float64
			for b.Loop() {
				cmd := exec.Command(os.Args[0], "-test.run=^TestSyncChild$", "-test.v")
				cmd.Env = append(os.Environ(), "AVENIR_SYNC_CHILD_URL="+url)
				out, err := cmd.CombinedOutput()
				if err != nil {
					b.Fatalf("child: %v\n%s", err, out)
				}
				m := regexp.MustCompile(`peak-rss-kb=(\d+)`).FindSubmatch(out)
				if m == nil {
					b.Fatalf("the child did not say its peak: %s", out)
				}
				kb, _ := strconv.Atoi(string(m[1]))
				peak = float64(kb) / 1024
			}
			b.ReportMetric(peak, "peak-RSS-MB")
		})
	}
}

// TestSyncChild is BenchmarkFirstSyncPeakRSS's child: one first sync, then its peak RSS.
func TestSyncChild(t *testing.T) {
	url := os.Getenv("AVENIR_SYNC_CHILD_URL")
	if url == "" {
		t.Skip("run by BenchmarkFirstSyncPeakRSS")
	}
	p, err := ynab.New(ynab.Options{BaseURL: url, Token: "t"}).Plan(context.Background(), sandbox.PlanID, ynab.WithinWindow)
	if err != nil {
		t.Fatal(err)
	}
	p.TransactionsByDate()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(status)
	if m == nil {
		t.Fatal("no VmHWM in /proc/self/status")
	}
	fmt.Printf("peak-rss-kb=%s\n", m[1])
}
