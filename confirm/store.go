package confirm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"sync"
	"time"
)

// Kind names one sort of single-use token an Asker issues. The kind is part of a token's
// hash, so a token of one kind never counts as another: a state's nonce, which anyone holding
// the state can read, is worth nothing as a card's token.
type Kind string

const (
	KindCode  Kind = "code"  // a confirmation code, for a client that cannot ask (§5)
	KindState Kind = "state" // the nonce of a sealed request state (§4)
	KindCard  Kind = "card"  // a card's token, for a host that renders MCP Apps (§2.4)
)

// The kinds of a Store's records (Load, Swap): what a card shows and where it stands, which the
// card's own calls read again, so unlike a token a record is not used up by reading it.
const (
	KindHandle Kind = "handle" // a card's handle: the change it shows, and its state (pending, answered, superseded)
	KindChange Kind = "change" // one change asked on cards: when it was first asked, whether a card for it was shown
)

// TokenHash is how a Store knows a token: SHA-256 over the token's kind and the token. The
// Asker hashes every token before it reaches a Store, so no Store, and no dump of a shared
// one, ever holds a live token in the clear. The tokens are 64 to 128 random bits that live
// 600 seconds, so a hash without salt leaves nothing to guess in that time.
type TokenHash [sha256.Size]byte

// HashToken returns the hash under which a Store keeps token of kind k.
func HashToken(k Kind, token string) TokenHash {
	h := sha256.New()
	h.Write([]byte("avenir/confirm/" + string(k) + "\x00"))
	h.Write([]byte(token))
	var out TokenHash
	h.Sum(out[:0])
	return out
}

// Ticket is what a single-use token stands for: one tool's change, until Expires.
type Ticket struct {
	Tool        string
	Fingerprint string // of the change it confirms
	// Args is the digest of the arguments of the call it was issued for (states and cards; a
	// code is bound by the fingerprint alone).
	Args string
	// Arguments are a card's call's arguments as the client sent them, to run that call again.
	Arguments json.RawMessage
	// Handle, for a card's token, is the hash of the handle whose card was given it (HashToken
	// of KindHandle): the answer is recorded there.
	Handle TokenHash
	// Expires is when the token stops counting. With the Asker's own store it carries the
	// monotonic reading and is compared by it; in a Store given in Options it is a wall-clock
	// time (the Asker strips the monotonic reading), since such a store may be shared by
	// processes on several machines, where only the wall clock means the same.
	Expires time.Time
}

// Store keeps the live single-use tokens of an Asker: codes, sealed states' nonces and cards'
// tokens. The default is a MemoryStore of the Asker's own; hosted avenir shares one store (in
// PostgreSQL) among its instances, so that any instance redeems what another issued.
//
// A Store must be safe for concurrent use. Any error it returns fails the confirmation
// closed: nothing is issued, or nothing is confirmed.
type Store interface {
	// Add records the token of kind k hashed as h, standing for t. now is the Asker's clock,
	// for a store that drops expired tokens as it goes.
	Add(ctx context.Context, k Kind, h TokenHash, t Ticket, now time.Time) error
	// Take removes the token of kind k hashed as h and returns what it stood for, with ok
	// false if it is unknown, already taken, or expired at now. Take is atomic: of any number of
	// concurrent Takes of one token, at most one gets ok. A token is removed by its first Take
	// even when the caller then finds it was issued for something else; an error may leave it
	// taken, and the caller confirms nothing either way.
	Take(ctx context.Context, k Kind, h TokenHash, now time.Time) (t Ticket, ok bool, err error)
	// Load returns the record of kind k hashed as h, with ok false if there is none or it
	// expired at now.
	Load(ctx context.Context, k Kind, h TokenHash, now time.Time) (r Record, ok bool, err error)
	// Swap puts r as the record of kind k hashed as h if that record's Data is now old (nil:
	// there is none, or it expired at now), and reports whether it did. Swap is atomic: of
	// concurrent Swaps from one old, at most one succeeds; the others find the record moved,
	// load it again and decide again.
	Swap(ctx context.Context, k Kind, h TokenHash, old []byte, r Record, now time.Time) (swapped bool, err error)
}

// Record is what a Store keeps under a record's hash: the Asker's encoding of a card's handle
// or of a change (opaque to the Store), until Expires (a time as Ticket.Expires is).
type Record struct {
	Data    []byte
	Expires time.Time
}

// sweepEvery is how often a MemoryStore drops expired tokens: often enough to keep it near the
// tokens of the last lifetime, seldom enough that adding stays O(1).
const sweepEvery = time.Minute

// MemoryStore is a Store in this process's memory: a restart forgets every token. Several
// Askers of one process may share it.
type MemoryStore struct {
	mu      sync.Mutex
	live    map[memoryKey]Ticket
	records map[memoryKey]Record
	swept   time.Time // when expired tokens and records were last dropped
}

type memoryKey struct {
	kind Kind
	hash TokenHash
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{live: map[memoryKey]Ticket{}, records: map[memoryKey]Record{}}
}

// sweep drops the expired tokens and records if a sweep is due. s.mu is held.
func (s *MemoryStore) sweep(now time.Time) {
	if now.Sub(s.swept) < sweepEvery {
		return
	}
	for key, old := range s.live {
		if !now.Before(old.Expires) {
			delete(s.live, key)
		}
	}
	for key, old := range s.records {
		if !now.Before(old.Expires) {
			delete(s.records, key)
		}
	}
	s.swept = now
}

// Add records a token, first dropping the expired ones if a sweep is due.
func (s *MemoryStore) Add(_ context.Context, k Kind, h TokenHash, t Ticket, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(now)
	s.live[memoryKey{k, h}] = t
	return nil
}

// Load returns a record if it is live at now.
func (s *MemoryStore) Load(_ context.Context, k Kind, h TokenHash, now time.Time) (Record, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.records[memoryKey{k, h}]
	if !ok || !now.Before(r.Expires) {
		return Record{}, false, nil
	}
	return Record{Data: bytes.Clone(r.Data), Expires: r.Expires}, true, nil
}

// Swap puts r if the record holds old at now.
func (s *MemoryStore) Swap(_ context.Context, k Kind, h TokenHash, old []byte, r Record, now time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(now)
	key := memoryKey{k, h}
	cur, ok := s.records[key]
	live := ok && now.Before(cur.Expires)
	if (old == nil && live) || (old != nil && (!live || !bytes.Equal(cur.Data, old))) {
		return false, nil
	}
	s.records[key] = Record{Data: bytes.Clone(r.Data), Expires: r.Expires}
	return true, nil
}

// Take removes a token and returns what it stood for if it was live at now.
func (s *MemoryStore) Take(_ context.Context, k Kind, h TokenHash, now time.Time) (Ticket, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := memoryKey{k, h}
	t, ok := s.live[key]
	delete(s.live, key)
	if !ok || !now.Before(t.Expires) {
		return Ticket{}, false, nil
	}
	return t, true, nil
}

var _ Store = (*MemoryStore)(nil)

// ErrStore is what Ask and RedeemCard say when the Store failed: nothing was confirmed, and
// the caller writes nothing. The store's own error, which may name a database server, is in
// the chain (errors.Unwrap) and in the Asker's log, not in this text, which the person reads.
//
//lint:ignore ST1005 a whole sentence that the agent and the user read as it is
var ErrStore = errors.New("The confirmation could not be recorded or checked, because the server's confirmation store failed. Nothing was written; try again in a moment.")

// storeError is a Store failure: its text is ErrStore's, its chain holds ErrStore and the
// store's own error.
type storeError struct {
	doing string // what the Asker was doing, for the log
	err   error
}

func (e *storeError) Error() string   { return ErrStore.Error() }
func (e *storeError) Unwrap() []error { return []error{ErrStore, e.err} }

// add hashes token and records it; a store failure is logged and becomes a storeError.
func (a *Asker) add(ctx context.Context, k Kind, token string, t Ticket, now time.Time) error {
	if err := a.store.Add(ctx, k, HashToken(k, token), t, now); err != nil {
		return a.storeFailed("recording a "+string(k)+" token", err)
	}
	return nil
}

// take hashes token and takes it from the store; a store failure is logged and becomes a
// storeError, and then ok is false.
func (a *Asker) take(ctx context.Context, k Kind, token string, now time.Time) (Ticket, bool, error) {
	t, ok, err := a.store.Take(ctx, k, HashToken(k, token), now)
	if err != nil {
		return Ticket{}, false, a.storeFailed("taking a "+string(k)+" token", err)
	}
	return t, ok, nil
}

// load reads a record; a store failure is logged and becomes a storeError.
func (a *Asker) load(ctx context.Context, k Kind, h TokenHash, now time.Time) (Record, bool, error) {
	r, ok, err := a.store.Load(ctx, k, h, now)
	if err != nil {
		return Record{}, false, a.storeFailed("loading a "+string(k)+" record", err)
	}
	return r, ok, nil
}

// swap puts a record if it still holds old; a store failure is logged and becomes a storeError.
func (a *Asker) swap(ctx context.Context, k Kind, h TokenHash, old []byte, r Record, now time.Time) (bool, error) {
	ok, err := a.store.Swap(ctx, k, h, old, r, now)
	if err != nil {
		return false, a.storeFailed("storing a "+string(k)+" record", err)
	}
	return ok, nil
}

func (a *Asker) storeFailed(doing string, err error) error {
	a.log.Error("the confirmation store failed; nothing is confirmed", "doing", doing, "err", err)
	return &storeError{doing: doing, err: err}
}
