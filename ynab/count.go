package ynab

import (
	"context"
	"sync/atomic"
)

// Counter counts the YNAB requests made on behalf of one tool call. YNAB allows 200 requests an
// hour per token, so every tool result says what it cost.
type Counter struct{ n atomic.Int64 }

// N is the number of requests counted so far (every attempt counts, retries included).
func (c *Counter) N() int {
	if c == nil {
		return 0
	}
	return int(c.n.Load())
}

type counterKey struct{}

// WithCounter returns a context whose YNAB requests are counted by the returned Counter.
func WithCounter(ctx context.Context) (context.Context, *Counter) {
	c := new(Counter)
	return context.WithValue(ctx, counterKey{}, c), c
}

func count(ctx context.Context) {
	if c := CounterFrom(ctx); c != nil {
		c.n.Add(1)
	}
}

// CounterFrom returns the context's Counter, or nil (which counts nothing and reads 0).
func CounterFrom(ctx context.Context) *Counter {
	c, _ := ctx.Value(counterKey{}).(*Counter)
	return c
}
