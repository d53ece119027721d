package confirm_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// instances returns two harnesses that stand for two avenir instances behind one address:
// one Store and one Key between them, and the same plan and clock.
func instances(t *testing.T, opts confirm.Options) (*harness, *harness) {
	t.Helper()
	if opts.Store == nil {
		opts.Store = confirm.NewMemoryStore()
	}
	if opts.Key == nil {
		opts.Key = randomKey(t)
	}
	a := newHarness(t, opts)
	opts.Clock = a.clock.Now
	b := newHarness(t, opts)
	b.clock, b.plan = a.clock, a.plan
	return a, b
}

func randomKey(t *testing.T) []byte {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	return key
}

func TestInstancesRedeemEachOthersCodes(t *testing.T) {
	for _, version := range allVersions {
		t.Run("version "+version, func(t *testing.T) {
			a, b := instances(t, confirm.Options{})
			ca, cb := a.connect(t, version, noElicitation()), b.connect(t, version, noElicitation())
			code := issue(t, ca, toolBudget, restaurants)
			out := decode(t)(call(t, cb, params(toolBudget, withCode(restaurants, code))))
			if out.Status != "applied" || out.Mode != string(confirm.ModeCode) {
				t.Fatalf("outcome %+v on the other instance, want applied by code", out)
			}
			for _, cs := range []*mcp.ClientSession{ca, cb} {
				res, err := call(t, cs, params(toolBudget, withCode(restaurants, code)))
				wantToolError(t, res, err, confirm.ErrCodeRefused)
			}
			a.wantWrites(t, 1)
		})
	}
	t.Run("spent on the other instance by the wrong arguments", func(t *testing.T) {
		a, b := instances(t, confirm.Options{})
		ca, cb := a.connect(t, v2026, noElicitation()), b.connect(t, v2026, noElicitation())
		code := issue(t, ca, toolBudget, restaurants)
		res, err := call(t, cb, params(toolBudget, withCode(setArgs{Category: "Tennis", Amount: 1}, code)))
		wantToolError(t, res, err, confirm.ErrCodeRefused)
		res, err = call(t, ca, params(toolBudget, withCode(restaurants, code)))
		wantToolError(t, res, err, confirm.ErrCodeRefused)
		a.wantWrites(t, 0)
	})
	t.Run("expiry on the wall clock", func(t *testing.T) {
		a, b := instances(t, confirm.Options{})
		ca, cb := a.connect(t, v2026, noElicitation()), b.connect(t, v2026, noElicitation())
		late, inTime := issue(t, ca, toolBudget, restaurants), issue(t, ca, toolGoal, restaurants)
		a.clock.Advance(599 * time.Second)
		if out := decode(t)(call(t, cb, params(toolGoal, withCode(restaurants, inTime)))); out.Status != "applied" {
			t.Fatalf("status %q at 599 s, want applied", out.Status)
		}
		a.clock.Advance(time.Second)
		res, err := call(t, cb, params(toolBudget, withCode(restaurants, late)))
		wantToolError(t, res, err, confirm.ErrCodeRefused)
		a.wantWrites(t, 1)
	})
}

func TestInstancesOpenEachOthersStates(t *testing.T) {
	a, b := instances(t, confirm.Options{})
	ca, cb := a.connect(t, v2026, manual(&user{})), b.connect(t, v2026, manual(&user{}))
	first := firstLeg(t, ca, toolBudget, restaurants)
	out := decode(t)(answerLeg(t, cb, toolBudget, restaurants, first.RequestState, accept(true)))
	if out.Status != "applied" || out.Mode != string(confirm.ModeMRTR) {
		t.Fatalf("outcome %+v on the other instance, want applied by mrtr", out)
	}
	for _, cs := range []*mcp.ClientSession{ca, cb} {
		_, err := answerLeg(t, cs, toolBudget, restaurants, first.RequestState, accept(true))
		wantRPCError(t, err, jsonrpc.CodeInvalidParams)
	}
	a.wantWrites(t, 1)

	t.Run("expired on the other instance", func(t *testing.T) {
		first := firstLeg(t, ca, toolBudget, restaurants)
		a.clock.Advance(600 * time.Second)
		_, err := answerLeg(t, cb, toolBudget, restaurants, first.RequestState, accept(true))
		wantRPCError(t, err, jsonrpc.CodeInvalidParams)
		a.wantWrites(t, 1)
	})
}

func TestAnotherKeyRefusesTheState(t *testing.T) {
	store := confirm.NewMemoryStore()
	a, _ := instances(t, confirm.Options{Store: store})
	other, _ := instances(t, confirm.Options{Store: store}) // the same store, another key
	other.clock, other.plan = a.clock, a.plan
	ca, co := a.connect(t, v2026, manual(&user{})), other.connect(t, v2026, manual(&user{}))
	first := firstLeg(t, ca, toolBudget, restaurants)
	_, err := answerLeg(t, co, toolBudget, restaurants, first.RequestState, accept(true))
	wantRPCError(t, err, jsonrpc.CodeInvalidParams)
	a.wantWrites(t, 0)
	// The seal failed before the nonce was looked at, so the state still counts where its key is.
	if out := decode(t)(answerLeg(t, ca, toolBudget, restaurants, first.RequestState, accept(true))); out.Status != "applied" {
		t.Fatalf("status %q under the key that sealed it, want applied", out.Status)
	}
}

// appsRequest is a 2026-07-28 call from a host that renders MCP Apps and cannot elicit.
func appsRequest(t *testing.T, tool string, args setArgs) *mcp.CallToolRequest {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: raw, Meta: mcp.Meta{
		mcp.MetaKeyProtocolVersion: "2026-07-28",
		mcp.MetaKeyClientCapabilities: map[string]any{"extensions": map[string]any{
			confirm.AppExtension: map[string]any{"mimeTypes": []any{confirm.AppMIMEType}}}},
	}}}
}

func question(tool string, args setArgs) confirm.Question {
	return confirm.Question{Tool: tool, PlanID: "plan-1", Preview: preview(args), Args: args,
		Subject: map[string]any{"category": args.Category, "amount": args.Amount}}
}

// issueCard asks on a card through a and returns the card's token.
func issueCard(t *testing.T, a *confirm.Asker, tool string, args setArgs) string {
	t.Helper()
	d, err := a.Ask(context.Background(), appsRequest(t, tool, args), question(tool, args))
	if err != nil || d.Reply == nil || d.Reply.Handle == "" || d.Reply.Confirmation != "" {
		t.Fatalf("Ask = %+v, %v; want a pending card without a code", d, err)
	}
	view, err := a.OpenCard(context.Background(), d.Reply.Handle)
	if err != nil || view.State != confirm.CardPending || view.Token == "" {
		t.Fatalf("OpenCard = %+v, %v; want pending with a token", view, err)
	}
	return view.Token
}

func TestInstancesRedeemEachOthersCards(t *testing.T) {
	a, b := instances(t, confirm.Options{})
	ctx := context.Background()
	token := issueCard(t, a.asker, toolBudget, restaurants)
	card, err := b.asker.RedeemCard(ctx, token, confirm.AnswerAccept, confirm.CardVersion)
	if err != nil {
		t.Fatal(err)
	}
	var got setArgs
	if card.Tool != toolBudget || json.Unmarshal(card.Arguments, &got) != nil || got != restaurants || !card.Accept {
		t.Fatalf("card %+v (%s), want the call it was issued for, accepted", card, card.Arguments)
	}
	d, err := b.asker.Ask(confirm.WithCard(ctx, card), appsRequest(t, toolBudget, restaurants), question(toolBudget, restaurants))
	if err != nil || !d.Proceed || d.Mode != confirm.ModeApp {
		t.Fatalf("Ask with the card = %+v, %v; want proceed by app", d, err)
	}
	for _, asker := range []*confirm.Asker{a.asker, b.asker} {
		if _, err := asker.RedeemCard(ctx, token, confirm.AnswerAccept, confirm.CardVersion); !errors.Is(err, confirm.ErrCardRefused) {
			t.Fatalf("the token again: %v, want ErrCodeRefused", err)
		}
	}
	t.Run("expired on the other instance", func(t *testing.T) {
		token := issueCard(t, a.asker, toolBudget, restaurants)
		a.clock.Advance(600 * time.Second)
		if _, err := b.asker.RedeemCard(context.Background(), token, confirm.AnswerAccept, confirm.CardVersion); !errors.Is(err, confirm.ErrCardRefused) {
			t.Fatalf("RedeemCard = %v, want ErrCodeRefused", err)
		}
	})
}

// TestTokensDoNotCrossKinds: a sealed state's nonce is readable by whoever holds the state, a
// model included; it must not work as a card's token, which only the card should hold.
func TestTokensDoNotCrossKinds(t *testing.T) {
	a, _ := instances(t, confirm.Options{})
	state := firstLeg(t, a.connect(t, v2026, manual(&user{})), toolBudget, restaurants).RequestState
	body, _, _ := strings.Cut(state, ".")
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Nonce string `json:"n"`
	}
	if err := json.Unmarshal(raw, &claims); err != nil || len(claims.Nonce) != 22 {
		t.Fatalf("state body %s: want a 22-character nonce (%v)", raw, err)
	}
	if _, err := a.asker.RedeemCard(context.Background(), claims.Nonce, confirm.AnswerAccept, confirm.CardVersion); !errors.Is(err, confirm.ErrCardRefused) {
		t.Fatalf("the state's nonce as a card token: %v, want ErrCodeRefused", err)
	}
}

// TestOneTakeWins: many callers on both instances race to use one token; exactly one wins.
func TestOneTakeWins(t *testing.T) {
	const n = 16
	race := func(t *testing.T, try func(i int) bool) {
		t.Helper()
		var wins atomic.Int32
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				if try(i) {
					wins.Add(1)
				}
			})
		}
		close(start)
		wg.Wait()
		if got := wins.Load(); got != 1 {
			t.Fatalf("%d of %d callers won, want exactly one", got, n)
		}
	}
	t.Run("a code", func(t *testing.T) {
		a, b := instances(t, confirm.Options{})
		askers := []*confirm.Asker{a.asker, b.asker}
		code := issue(t, a.connect(t, v2026, noElicitation()), toolBudget, restaurants)
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: toolBudget}}
		q := question(toolBudget, restaurants)
		q.Subject = map[string]any{"category_id": "cat-rest", "amount": restaurants.Amount} // as the harness's tool has it
		q.Confirmation = code
		race(t, func(i int) bool {
			d, err := askers[i%2].Ask(context.Background(), req, q)
			if err != nil && !errors.Is(err, confirm.ErrCodeRefused) {
				t.Errorf("caller %d: %v", i, err)
			}
			return err == nil && d.Proceed
		})
	})
	t.Run("a state", func(t *testing.T) {
		a, b := instances(t, confirm.Options{})
		sessions := []*mcp.ClientSession{a.connect(t, v2026, manual(&user{})), b.connect(t, v2026, manual(&user{}))}
		state := firstLeg(t, sessions[0], toolBudget, restaurants).RequestState
		race(t, func(i int) bool {
			p := params(toolBudget, restaurants)
			p.RequestState, p.InputResponses = state, mcp.InputResponseMap{"confirm": accept(true)}
			out, err := result(sessions[i%2].CallTool(context.Background(), p))
			var we *jsonrpc.Error
			if err != nil && (!errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams) {
				t.Errorf("caller %d: %v", i, err)
			}
			return err == nil && out.Status == "applied"
		})
		a.wantWrites(t, 1)
	})
	t.Run("a card", func(t *testing.T) {
		a, b := instances(t, confirm.Options{})
		askers := []*confirm.Asker{a.asker, b.asker}
		token := issueCard(t, a.asker, toolBudget, restaurants)
		race(t, func(i int) bool {
			_, err := askers[i%2].RedeemCard(context.Background(), token, confirm.AnswerAccept, confirm.CardVersion)
			if err != nil && !errors.Is(err, confirm.ErrCardRefused) {
				t.Errorf("caller %d: %v", i, err)
			}
			return err == nil
		})
	})
}

// recordingStore is a Store that keeps what it was handed, around a MemoryStore.
type recordingStore struct {
	*confirm.MemoryStore
	mu    sync.Mutex
	added []added
}

type added struct {
	kind confirm.Kind
	hash confirm.TokenHash
	t    confirm.Ticket
}

func newRecordingStore() *recordingStore {
	return &recordingStore{MemoryStore: confirm.NewMemoryStore()}
}

func (s *recordingStore) Add(ctx context.Context, k confirm.Kind, h confirm.TokenHash, t confirm.Ticket, now time.Time) error {
	s.mu.Lock()
	s.added = append(s.added, added{k, h, t})
	s.mu.Unlock()
	return s.MemoryStore.Add(ctx, k, h, t, now)
}

// TestSharedStoreSeesHashesAndWallClock: what a shared store is handed has no token in the clear
// and no monotonic reading.
func TestSharedStoreSeesHashesAndWallClock(t *testing.T) {
	store := newRecordingStore()
	a, _ := instances(t, confirm.Options{Store: store})
	code := issue(t, a.connect(t, v2026, noElicitation()), toolBudget, restaurants)
	token := issueCard(t, a.asker, toolGoal, restaurants)
	if len(store.added) != 2 {
		t.Fatalf("the store was handed %d tokens, want 2", len(store.added))
	}
	want := []struct {
		kind  confirm.Kind
		token string
	}{{confirm.KindCode, code}, {confirm.KindCard, token}}
	for i, got := range store.added {
		if got.kind != want[i].kind || got.hash != confirm.HashToken(want[i].kind, want[i].token) {
			t.Errorf("token %d: kind %s, hash %x; want the %s's hash", i, got.kind, got.hash, want[i].kind)
		}
		if got.hash == confirm.HashToken(confirm.KindState, want[i].token) {
			t.Errorf("token %d: its hash does not depend on its kind", i)
		}
		if s := got.t.Expires.String(); strings.Contains(s, "m=") {
			t.Errorf("token %d expires at %s, which carries a monotonic reading", i, s)
		}
		if d := got.t.Expires.Sub(a.clock.Now()); d != 600*time.Second {
			t.Errorf("token %d lives %v, want 600 s", i, d)
		}
	}
	if string(store.added[1].t.Arguments) != `{"category":"Restaurants","amount":150000}` || store.added[1].t.Args == "" {
		t.Errorf("card ticket %+v, want the raw arguments and their digest", store.added[1].t)
	}
}

// failingStore fails Add or Take on request, and otherwise is a MemoryStore.
type failingStore struct {
	*confirm.MemoryStore
	failAdd, failTake atomic.Bool
}

var errDatabaseDown = errors.New("dial tcp 10.0.0.7:5432: connect: connection refused")

func (s *failingStore) Add(ctx context.Context, k confirm.Kind, h confirm.TokenHash, t confirm.Ticket, now time.Time) error {
	if s.failAdd.Load() {
		return errDatabaseDown
	}
	return s.MemoryStore.Add(ctx, k, h, t, now)
}

func (s *failingStore) Take(ctx context.Context, k confirm.Kind, h confirm.TokenHash, now time.Time) (confirm.Ticket, bool, error) {
	if s.failTake.Load() {
		return confirm.Ticket{}, false, errDatabaseDown
	}
	return s.MemoryStore.Take(ctx, k, h, now)
}

// Swap fails with Add: what records a card fails as what records a token does.
func (s *failingStore) Swap(ctx context.Context, k confirm.Kind, h confirm.TokenHash, old []byte, r confirm.Record, now time.Time) (bool, error) {
	if s.failAdd.Load() {
		return false, errDatabaseDown
	}
	return s.MemoryStore.Swap(ctx, k, h, old, r, now)
}

// wantStoreError checks an error the person reads: ErrStore's sentence, the cause in the
// chain but not in the text.
func wantStoreError(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, confirm.ErrStore) || !errors.Is(err, errDatabaseDown) || err.Error() != confirm.ErrStore.Error() {
		t.Fatalf("error %v, want ErrStore's sentence with the store's error in its chain", err)
	}
}

func TestStoreFailureFailsClosed(t *testing.T) {
	var logged bytes.Buffer
	newFailing := func(t *testing.T) (*harness, *failingStore) {
		store := &failingStore{MemoryStore: confirm.NewMemoryStore()}
		logged.Reset()
		h, _ := instances(t, confirm.Options{Store: store, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
		return h, store
	}
	ctx := context.Background()
	wantLogged := func(t *testing.T) {
		t.Helper()
		if !strings.Contains(logged.String(), errDatabaseDown.Error()) {
			t.Errorf("log %q does not give the store's error", logged.String())
		}
	}

	t.Run("no code is issued", func(t *testing.T) {
		h, store := newFailing(t)
		store.failAdd.Store(true)
		d, err := h.asker.Ask(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: toolBudget}}, question(toolBudget, restaurants))
		wantStoreError(t, err)
		if d.Reply != nil || d.Proceed {
			t.Fatalf("decision %+v with a failed store, want none", d)
		}
		res, err := call(t, h.connect(t, v2026, noElicitation()), params(toolBudget, restaurants))
		wantToolError(t, res, err, confirm.ErrStore)
		wantLogged(t)
	})
	t.Run("no state is issued", func(t *testing.T) {
		h, store := newFailing(t)
		store.failAdd.Store(true)
		res, err := call(t, h.connect(t, v2026, manual(&user{})), params(toolBudget, restaurants))
		wantToolError(t, res, err, confirm.ErrStore)
		if res.RequestState != "" || res.NeedsInput() {
			t.Fatalf("result %+v asks for input with a failed store", res)
		}
	})
	t.Run("no card is issued", func(t *testing.T) {
		h, store := newFailing(t)
		store.failAdd.Store(true)
		d, err := h.asker.Ask(ctx, appsRequest(t, toolBudget, restaurants), question(toolBudget, restaurants))
		wantStoreError(t, err)
		if d.Reply != nil {
			t.Fatalf("reply %+v with a failed store, want none", d.Reply)
		}
	})
	t.Run("a live code confirms nothing", func(t *testing.T) {
		h, store := newFailing(t)
		cs := h.connect(t, v2026, noElicitation())
		code := issue(t, cs, toolBudget, restaurants)
		store.failTake.Store(true)
		res, err := call(t, cs, params(toolBudget, withCode(restaurants, code)))
		wantToolError(t, res, err, confirm.ErrStore)
		h.wantWrites(t, 0)
		wantLogged(t)
	})
	t.Run("a live state confirms nothing", func(t *testing.T) {
		h, store := newFailing(t)
		cs := h.connect(t, v2026, manual(&user{}))
		first := firstLeg(t, cs, toolBudget, restaurants)
		store.failTake.Store(true)
		res, err := answerLeg(t, cs, toolBudget, restaurants, first.RequestState, accept(true))
		wantToolError(t, res, err, confirm.ErrStore)
		h.wantWrites(t, 0)
	})
	t.Run("a live card confirms nothing", func(t *testing.T) {
		h, store := newFailing(t)
		token := issueCard(t, h.asker, toolBudget, restaurants)
		store.failTake.Store(true)
		card, err := h.asker.RedeemCard(ctx, token, confirm.AnswerAccept, confirm.CardVersion)
		wantStoreError(t, err)
		if card.Tool != "" || card.Accept {
			t.Fatalf("card %+v with a failed store, want none", card)
		}
	})
}

func TestDeriveKey(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	key, err := confirm.DeriveKey(secret)
	if err != nil {
		t.Fatal(err)
	}
	// HKDF-SHA256 (RFC 5869), no salt, info "avenir/confirm/request-state-seal/v1", computed
	// apart from Go. A change here voids every live state at an upgrade, and instances of two
	// versions would refuse each other's: change the label only on purpose.
	const want = "980b053a6250d8ec41b520b3f9243a4e7ecc4c837b61259b82b34e4d3ab31585"
	if got := hex.EncodeToString(key); got != want {
		t.Fatalf("DeriveKey = %s, want %s", got, want)
	}
	other, err := confirm.DeriveKey(append(bytes.Clone(secret[:31]), 'g'))
	if err != nil || bytes.Equal(other, key) {
		t.Fatalf("another secret gave %x, %v; want another key", other, err)
	}
	for _, short := range [][]byte{nil, {}, secret[:31]} {
		if k, err := confirm.DeriveKey(short); err == nil || k != nil {
			t.Errorf("DeriveKey(%d bytes) = %x, %v; want an error", len(short), k, err)
		}
	}
}

func TestKeyOption(t *testing.T) {
	if _, err := confirm.New(confirm.Options{Key: make([]byte, 31)}); !errors.Is(err, confirm.ErrShortKey) {
		t.Fatalf("New with a 31-byte key: %v, want ErrShortKey", err)
	}
	// A given key is used as is, and no randomness is drawn for it.
	key := randomKey(t)
	if _, err := confirm.New(confirm.Options{Key: key, Rand: &failingReader{}}); err != nil {
		t.Fatalf("New with a key and no randomness: %v", err)
	}
	// The caller's slice may change afterwards without changing the seal.
	a, b := instances(t, confirm.Options{Key: key})
	clear(key)
	first := firstLeg(t, a.connect(t, v2026, manual(&user{})), toolBudget, restaurants)
	if out := decode(t)(answerLeg(t, b.connect(t, v2026, manual(&user{})), toolBudget, restaurants, first.RequestState, accept(true))); out.Status != "applied" {
		t.Fatalf("status %q, want applied", out.Status)
	}
}

// TestMemoryStoreRecords: a record is put only over what the caller last read (nothing, or an
// expired one, for nil), so of two writers from one reading exactly one wins.
func TestMemoryStoreRecords(t *testing.T) {
	s := confirm.NewMemoryStore()
	ctx := context.Background()
	now := time.Now()
	h := confirm.HashToken(confirm.KindHandle, "h")
	rec := func(data string, ttl time.Duration) confirm.Record {
		return confirm.Record{Data: []byte(data), Expires: now.Add(ttl)}
	}
	steps := []struct {
		name string
		old  []byte
		put  confirm.Record
		want bool
	}{
		{"onto nothing", nil, rec("a", time.Minute), true},
		{"onto nothing, when there is one", nil, rec("b", time.Minute), false},
		{"over what is not there", []byte("x"), rec("b", time.Minute), false},
		{"over what is there", []byte("a"), rec("b", time.Second), true},
	}
	for _, st := range steps {
		if ok, err := s.Swap(ctx, confirm.KindHandle, h, st.old, st.put, now); err != nil || ok != st.want {
			t.Fatalf("%s: Swap = %v, %v; want %v", st.name, ok, err, st.want)
		}
	}
	if r, ok, _ := s.Load(ctx, confirm.KindHandle, h, now); !ok || string(r.Data) != "b" {
		t.Fatalf("Load = %q, %v; want b", r.Data, ok)
	}
	if _, ok, _ := s.Load(ctx, confirm.KindChange, h, now); ok {
		t.Fatal("a record of one kind loads as another")
	}
	later := now.Add(2 * time.Second)
	if _, ok, _ := s.Load(ctx, confirm.KindHandle, h, later); ok {
		t.Fatal("an expired record loads")
	}
	if ok, _ := s.Swap(ctx, confirm.KindHandle, h, []byte("b"), rec("c", time.Minute), later); ok {
		t.Fatal("a swap over an expired record")
	}
	if ok, _ := s.Swap(ctx, confirm.KindHandle, h, nil, rec("c", time.Minute), later); !ok {
		t.Fatal("no new record over an expired one")
	}
}
