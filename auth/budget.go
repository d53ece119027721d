package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Budget counts each person's YNAB requests against YNAB's limit (200 an hour per token) over a
// sliding hour. It lives in PostgreSQL, not in memory, because a person's token is shared by
// every instance: the count must be too. A Take is one short transaction serialised per person
// by a lock on the person's row; next to a YNAB request it costs little.
type Budget struct {
	pool   *pgxpool.Pool
	limit  int
	window time.Duration
	now    func() time.Time
}

// BudgetExhaustedError: the person's requests of the last hour have reached the limit.
type BudgetExhaustedError struct {
	Limit      int
	RetryAfter time.Duration // until the oldest request of the window leaves it
}

func (e *BudgetExhaustedError) Error() string {
	return fmt.Sprintf("the hourly budget of %d YNAB requests for this account is spent; it frees up in %s",
		e.Limit, e.RetryAfter.Round(time.Second))
}

// Limit is the number of requests allowed in any hour.
func (b *Budget) Limit() int { return b.limit }

// Take records one YNAB request for the person and returns how many remain in the window, or a
// *BudgetExhaustedError (recording nothing) when none do. Call it before each request to YNAB.
func (b *Budget) Take(ctx context.Context, personID int64) (remaining int, err error) {
	now := b.now()
	err = pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM auth.people WHERE id = $1 FOR NO KEY UPDATE`, personID).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("person %d is not known", personID)
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM auth.ynab_requests WHERE person_id = $1 AND at <= $2`, personID, now.Add(-b.window)); err != nil {
			return err
		}
		var used int
		var oldest *time.Time
		if err := tx.QueryRow(ctx, `SELECT count(*), min(at) FROM auth.ynab_requests WHERE person_id = $1`, personID).Scan(&used, &oldest); err != nil {
			return err
		}
		if used >= b.limit {
			wait := b.window
			if oldest != nil {
				wait = oldest.Add(b.window).Sub(now)
			}
			return &BudgetExhaustedError{Limit: b.limit, RetryAfter: max(wait, time.Second)}
		}
		remaining = b.limit - used - 1
		_, err = tx.Exec(ctx, `INSERT INTO auth.ynab_requests (person_id, at) VALUES ($1, $2)`, personID, now)
		return err
	})
	var be *BudgetExhaustedError
	if err != nil && !errors.As(err, &be) {
		return 0, fmt.Errorf("counting the YNAB request budget: %w", err)
	}
	return remaining, err
}
