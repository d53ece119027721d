package ynab_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

var today = time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)

func startSandbox(t *testing.T) (*sandbox.Sandbox, string) {
	t.Helper()
	sb, srv := sandboxtest.New(t, sandbox.Options{Now: func() time.Time { return today }})
	return sb, srv.URL
}

// normalized is a plan export with every collection sorted, so that two exports with the same
// content compare equal whatever the order of their entries.
func normalized(t *testing.T, p ynab.PlanDetail) string {
	t.Helper()
	byID := func(a, b string) int { return cmp.Compare(a, b) }
	slices.SortFunc(p.Accounts, func(a, b ynab.Account) int { return byID(a.ID, b.ID) })
	slices.SortFunc(p.Payees, func(a, b ynab.Payee) int { return byID(a.ID, b.ID) })
	slices.SortFunc(p.CategoryGroups, func(a, b ynab.CategoryGroup) int { return byID(a.ID, b.ID) })
	slices.SortFunc(p.Categories, func(a, b ynab.Category) int { return byID(a.ID, b.ID) })
	slices.SortFunc(p.Transactions, func(a, b ynab.TransactionSummary) int { return byID(a.ID, b.ID) })
	slices.SortFunc(p.Subtransactions, func(a, b ynab.SubTransaction) int { return byID(a.ID, b.ID) })
	slices.SortFunc(p.ScheduledTransactions, func(a, b ynab.ScheduledTransaction) int { return byID(a.ID, b.ID) })
	slices.SortFunc(p.ScheduledSubtransactions, func(a, b ynab.ScheduledSubTransaction) int { return byID(a.ID, b.ID) })
	slices.SortFunc(p.Months, func(a, b ynab.Month) int { return byID(a.Month, b.Month) })
	for i := range p.Months {
		m := &p.Months[i]
		m.Categories = slices.Clone(m.Categories)
		slices.SortFunc(m.Categories, func(a, b ynab.Category) int { return byID(a.ID, b.ID) })
	}
	b, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDeltaCacheEqualsFreshRead is the property the cache rests on: after any sequence of
// writes, the plan merged from the writes' answers and delta requests equals a fresh full read.
func TestDeltaCacheEqualsFreshRead(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			sb, url := startSandbox(t)
			ctx := context.Background()
			// The clock stands still: only what a write did can make a read ask YNAB.
			cached := ynab.New(ynab.Options{BaseURL: url, Token: "t", MaxAge: ynab.MaxFreshness, Now: func() time.Time { return today }})
			p, err := cached.Plan(ctx, sandbox.PlanID, ynab.Fresh)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(seed, 7))
			free := 0 // reads that the writes' answers made free
			for step := range 25 {
				if err := randomWrite(ctx, cached, p, rng); err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				sb.ResetCounts()
				if p, err = cached.Plan(ctx, sandbox.PlanID, ynab.WithinWindow); err != nil {
					t.Fatal(err)
				}
				n := sb.Counts().Total
				if n > 1 {
					t.Fatalf("step %d: a read after a write cost %d requests, want at most 1 delta", step, n)
				}
				fresh, _, err := ynab.New(ynab.Options{BaseURL: url, Token: "t"}).GetPlan(ctx, sandbox.PlanID, 0)
				if err != nil {
					t.Fatal(err)
				}
				merged := p.PlanDetail
				if n == 0 {
					free++
					// A write's answer does not say when the plan was modified; nothing shows it.
					merged.LastModifiedOn = fresh.LastModifiedOn
				}
				if got, want := normalized(t, merged), normalized(t, fresh); got != want {
					t.Fatalf("step %d: the merged plan differs from a fresh read:\n%s", step, firstDiff(got, want))
				}
			}
			if free == 0 {
				t.Fatal("no write's answer made the next read free: the flag and memo writes should have")
			}
		})
	}
}

// randomWrite makes one of the writes avenir makes, on something picked at random.
func randomWrite(ctx context.Context, c *ynab.Client, p *ynab.Plan, rng *rand.Rand) error {
	var txs []ynab.TransactionSummary
	for _, t := range p.Transactions {
		if !t.Deleted && t.TransferAccountID == nil && len(p.Lines(t.ID)) == 0 {
			if a, ok := p.Account(t.AccountID); ok && a.OnBudget && !a.Closed {
				txs = append(txs, t)
			}
		}
	}
	var cats []ynab.Category
	for _, cat := range p.Categories {
		if !cat.Deleted && !cat.Internal && !cat.Hidden {
			cats = append(cats, cat)
		}
	}
	tx := txs[rng.IntN(len(txs))]
	cat := cats[rng.IntN(len(cats))]
	month := today.Format("2006-01") + "-01"
	switch rng.IntN(7) {
	case 0:
		_, err := c.UpdateTransactions(ctx, p.ID, []ynab.SaveTransaction{{ID: tx.ID, CategoryID: ynab.Some(cat.ID)}})
		return err
	case 1:
		colors := append([]string{""}, ynab.FlagColors...)
		_, err := c.UpdateTransactions(ctx, p.ID, []ynab.SaveTransaction{{ID: tx.ID, FlagColor: ynab.Some(colors[rng.IntN(len(colors))])}})
		return err
	case 2:
		_, err := c.UpdateMonthCategory(ctx, p.ID, month, cat.ID, int64(rng.IntN(50000))*10)
		return err
	case 3:
		_, err := c.CreateTransactions(ctx, p.ID, []ynab.SaveTransaction{{
			AccountID: tx.AccountID, Date: today.AddDate(0, 0, -rng.IntN(20)).Format("2006-01-02"),
			Amount: ynab.Some(-int64(rng.IntN(100000)) * 10), PayeeName: ynab.Some(fmt.Sprintf("Winkel %d", rng.IntN(5))),
			CategoryID: ynab.Some(cat.ID), ImportID: ynab.Some(fmt.Sprintf("AVENIR-TEST:%d", rng.Int64())),
		}})
		return err
	case 4:
		_, err := c.DeleteTransaction(ctx, p.ID, tx.ID)
		return err
	case 5:
		_, err := c.UpdateTransactions(ctx, p.ID, []ynab.SaveTransaction{{ID: tx.ID, Memo: ynab.Some(fmt.Sprint("memo ", rng.IntN(100))), Approved: ynab.Some(true)}})
		return err
	default:
		_, err := c.UpdateTransactions(ctx, p.ID, []ynab.SaveTransaction{{ID: tx.ID, Approved: ynab.Some(!tx.Approved), Cleared: ynab.Cleared}})
		return err
	}
}

func firstDiff(a, b string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			lo := max(0, i-300)
			return fmt.Sprintf("merged: …%s…\nfresh:  …%s…", a[lo:min(len(a), i+200)], b[lo:min(len(b), i+200)])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(a), len(b))
}

// The log warns when YNAB says nine tenths of the hour's requests are spent.
func TestRateLimitWarning(t *testing.T) {
	_, srv := sandboxtest.New(t, sandbox.Options{Now: func() time.Time { return today }, RateLimit: 10})
	var log bytes.Buffer
	c := ynab.New(ynab.Options{BaseURL: srv.URL, Token: "t", Logger: slog.New(slog.NewTextHandler(&log, nil))})
	for i := range 8 {
		if _, err := c.GetUser(context.Background()); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(log.String(), "nearly reached") {
			t.Fatalf("warned after %d of 10 requests", i+1)
		}
	}
	if _, err := c.GetUser(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "YNAB's hourly request limit is nearly reached") || !strings.Contains(log.String(), "used=9 limit=10") {
		t.Fatalf("no warning at 9 of 10 requests: %s", log.String())
	}
}
