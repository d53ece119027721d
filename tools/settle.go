package tools

import (
	"context"
	"log/slog"
)

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
