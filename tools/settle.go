package tools

import (
	"context"
	"log/slog"
	"time"
)

// settleAllTimeout bounds Settle: the journal's reads and writes and YNAB's reads of every
// operation it settles. What is not settled by then stays prepared for the next try, and the
// server (or the person's first request, hosted) goes on rather than wait on a store or YNAB
// that stopped answering.
const settleAllTimeout = 2 * time.Minute

// Settle resolves the operations a crash left prepared in d.Journal, by asking YNAB (through
// d.YNAB) whether their changes are there. One it cannot decide now (YNAB unreachable) stays
// prepared for next time; the caller goes on either way, so it returns nothing and logs what it
// did to d.Logger. `serve` runs it at start, avenir hosted when it builds a person's server.
func Settle(ctx context.Context, d Deps) {
	log := d.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
		d.Logger = log
	}
	ctx, cancel := context.WithTimeout(ctx, settleAllTimeout)
	defer cancel()
	pending, err := d.Journal.Pending(ctx)
	if err != nil || len(pending) == 0 {
		if err != nil {
			log.Warn("journal: could not look for unfinished operations", "err", err)
		}
		return
	}
	resolved, err := d.Journal.Recover(ctx, NewRecovery(d))
	for _, op := range resolved {
		log.Info("journal: resolved an operation a crash left unfinished", "operation", op.ID, "tool", op.Tool, "status", op.Status)
	}
	if err != nil {
		log.Warn("journal: some unfinished operations could not be resolved yet; they stay prepared", "err", err)
	}
}
