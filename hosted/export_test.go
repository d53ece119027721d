package hosted

import (
	"context"
	"time"

	"github.com/avenir-mcp/avenir/journal"
)

// What the tests of package hosted_test reach inside a Server.

var MaskMoney, MaskMoneyAttr = maskMoney, maskMoneyAttr

// SweepIdle sweeps as the sweep loop does, with people idle for idleAfter dropped.
func SweepIdle(ctx context.Context, s *Server, idleAfter time.Duration) {
	s.mu.Lock()
	s.cfg.IdleAfter = idleAfter
	s.mu.Unlock()
	s.sweep(ctx)
}

// JournalFor is the journal the Server gives person.
func JournalFor(s *Server, person int64) journal.Store { return s.journals.For(person) }
