package journal

import (
	"context"
	"errors"
	"fmt"
)

// RecoverEach is the loop of every store's Recover: it checks each of ops — prepared operations
// whose writer is gone, that nobody else settles meanwhile — with c, and records what c read,
// change by change (s.Resolve), in order. It returns the operations it settled. One that c
// cannot decide stays prepared, and the returned error names it and says why; an error of s, or
// ctx's end, stops it.
func RecoverEach(ctx context.Context, s Store, c Checker, ops []Operation) ([]Operation, error) {
	var (
		settled []Operation
		errs    []error
	)
	for _, op := range ops {
		if err := ctx.Err(); err != nil {
			return settled, errors.Join(append(errs, err)...)
		}
		changes, err := c.Check(ctx, op)
		if err != nil {
			errs = append(errs, fmt.Errorf("operation %s (%s) stays prepared: could not tell whether YNAB has it: %w", op.ID, op.Summary, err))
			continue
		}
		op, err = s.Resolve(ctx, op.ID, changes)
		if err != nil {
			return settled, errors.Join(append(errs, err)...)
		}
		settled = append(settled, op)
	}
	return settled, errors.Join(errs...)
}
