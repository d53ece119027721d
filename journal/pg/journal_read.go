package pg

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"
)

// rowQuerier is what reads run on: the pool, or a write's transaction.
type rowQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// eventsOf selects the events of one operation of a person ($1, $2), in order.
const eventsOf = `SELECT operation, event FROM avenir_journal.events WHERE person = $1 AND operation = $2 ORDER BY id`

// readOp replays the events of the operation id of person.
func readOp(ctx context.Context, q rowQuerier, person int64, id ulid.ULID) (journal.Operation, error) {
	rows, err := q.Query(ctx, eventsOf, person, id[:])
	if err != nil {
		return journal.Operation{}, fmt.Errorf("reading operation %s: %w", id, err)
	}
	return oneOp(rows, id)
}

// oneOp replays the events of the operation id in rows (of eventsOf), or says it is not found.
func oneOp(rows pgx.Rows, id ulid.ULID) (journal.Operation, error) {
	ops, err := scanOps(rows)
	switch {
	case err != nil:
		return journal.Operation{}, err
	case len(ops) == 0:
		return journal.Operation{}, fmt.Errorf("operation %s: %w", id, journal.ErrNotFound)
	}
	return ops[0], nil
}

// scanOps reads rows of (operation, event), each operation's events together and in order, and
// replays each operation.
func scanOps(rows pgx.Rows) ([]journal.Operation, error) {
	defer rows.Close()
	var (
		ops    []journal.Operation
		events []journal.Event
		key    []byte // the operation whose events are in events
	)
	flush := func() error {
		if len(events) == 0 {
			return nil
		}
		op, err := journal.Project(events)
		if err != nil {
			return err
		}
		ops, events = append(ops, op), nil
		return nil
	}
	for rows.Next() {
		var opKey, raw []byte
		if err := rows.Scan(&opKey, &raw); err != nil {
			return nil, fmt.Errorf("reading the journal: %w", err)
		}
		if !bytes.Equal(opKey, key) {
			if err := flush(); err != nil {
				return nil, err
			}
			key = opKey
		}
		var ev journal.Event
		if err := json.Unmarshal(raw, &ev); err != nil {
			return nil, fmt.Errorf("operation %s: an event: %w", idString(opKey), err)
		}
		if ev.Operation != idString(opKey) {
			return nil, fmt.Errorf("operation %s: event %s says it is of operation %s", idString(opKey), ev.ID, ev.Operation)
		}
		events = append(events, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the journal: %w", err)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return ops, nil
}

// Get returns the person's operation id with all its events, or journal.ErrNotFound, which is
// also what another person's operation is.
func (s *store) Get(ctx context.Context, id string) (journal.Operation, error) {
	key, err := s.parse(id)
	if err != nil {
		return journal.Operation{}, err
	}
	return readOp(ctx, s.js.pool, s.person, key)
}

// List returns the person's operations f selects, newest first. The operations and their
// events are read in one statement, so one snapshot of the journal.
func (s *store) List(ctx context.Context, f journal.Filter) ([]journal.Operation, error) {
	if s.person < 1 {
		return nil, errNoPerson
	}
	if f.Limit <= 0 {
		f.Limit = journal.DefaultLimit
	}
	where, args := s.filter(f)
	args = append(args, f.Limit)
	return s.query(ctx, fmt.Sprintf(`WITH selected AS (
			SELECT o.id FROM avenir_journal.operations o WHERE %s ORDER BY o.id DESC LIMIT $%d)
		SELECT e.operation, e.event FROM avenir_journal.events e JOIN selected ON e.operation = selected.id
		WHERE e.person = $1 ORDER BY e.operation DESC, e.id`, where, len(args)), args...)
}

// Pending returns the person's operations still prepared, oldest first.
func (s *store) Pending(ctx context.Context) ([]journal.Operation, error) {
	if s.person < 1 {
		return nil, errNoPerson
	}
	where, args := s.filter(journal.Filter{Status: journal.StatusPrepared})
	return s.query(ctx, fmt.Sprintf(`WITH selected AS (SELECT o.id FROM avenir_journal.operations o WHERE %s)
		SELECT e.operation, e.event FROM avenir_journal.events e JOIN selected ON e.operation = selected.id
		WHERE e.person = $1 ORDER BY e.operation, e.id`, where), args...)
}

func (s *store) query(ctx context.Context, sql string, args ...any) ([]journal.Operation, error) {
	rows, err := s.js.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the journal: %w", err)
	}
	return scanOps(rows)
}

// filter is the condition on operations o that selects what f asks for, of the person ($1),
// and its arguments. An operation's status is prepared until an outcome row says otherwise.
func (s *store) filter(f journal.Filter) (string, []any) {
	conds := []string{"o.person = $1"}
	args := []any{s.person}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.PlanID != "" {
		conds = append(conds, "o.plan_id = "+arg(f.PlanID))
	}
	if f.Tool != "" {
		conds = append(conds, "o.tool = "+arg(f.Tool))
	}
	if !f.Since.IsZero() {
		// Operations' times are whole microseconds: at or after Since is at or after Since
		// rounded up to one.
		since := f.Since.Truncate(time.Microsecond)
		if since.Before(f.Since) {
			since = since.Add(time.Microsecond)
		}
		conds = append(conds, "o.time >= "+arg(since))
	}
	const outcome = "SELECT 1 FROM avenir_journal.outcomes x WHERE x.person = o.person AND x.operation = o.id"
	switch f.Status {
	case "":
	case journal.StatusPrepared:
		conds = append(conds, "NOT EXISTS ("+outcome+")")
	default:
		conds = append(conds, "EXISTS ("+outcome+" AND x.status = "+arg(string(f.Status))+")")
	}
	return strings.Join(conds, " AND "), args
}
