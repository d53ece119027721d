package confirm

import "time"

// sweepEvery is how often a ledger drops expired tokens: often enough to keep it
// near the tokens of the last lifetime, seldom enough that issuing stays O(1).
const sweepEvery = time.Minute

// ticket is what a single-use token stands for: a confirmation code, or the nonce
// of a sealed state, each confirms one tool's change and counts only until expires.
type ticket struct {
	tool        string
	fingerprint string
	expires     time.Time // on the Asker's clock, compared by its monotonic reading
}

// ledger holds the live tokens of one kind, in memory only: a restart forgets
// every one. It is not safe for concurrent use; the Asker guards it.
type ledger struct {
	live  map[string]ticket
	swept time.Time // when expired tokens were last dropped
}

func newLedger() *ledger { return &ledger{live: map[string]ticket{}} }

// add records a token, first dropping the expired ones if a sweep is due.
func (l *ledger) add(token string, t ticket, now time.Time) {
	if now.Sub(l.swept) >= sweepEvery {
		for k, old := range l.live {
			if !now.Before(old.expires) {
				delete(l.live, k)
			}
		}
		l.swept = now
	}
	l.live[token] = t
}

// redeem spends token and reports whether it was live and issued for exactly
// this tool and fingerprint. The token is spent even when it does not match, so
// a wrong guess costs the guesser the token, never gives a second try.
func (l *ledger) redeem(token, tool, fingerprint string, now time.Time) bool {
	t, ok := l.live[token]
	delete(l.live, token)
	return ok && now.Before(t.expires) && t.tool == tool && t.fingerprint == fingerprint
}
