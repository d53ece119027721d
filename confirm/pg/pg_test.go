package pg_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/confirm/pg"
	"github.com/avenir-mcp/avenir/internal/pgtest"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestConfirmStore runs every test of the store against one throwaway PostgreSQL (a database
// each), without a TestMain of its own, so that the package's other tests may bring theirs.
func TestConfirmStore(t *testing.T) {
	c := pgtest.Shared(t)
	newDB := func(t *testing.T) string {
		t.Helper()
		dsn, err := c.CreateDatabase()
		if err != nil {
			t.Fatalf("creating a test database: %v", err)
		}
		return dsn
	}
	t.Run("migrations", func(t *testing.T) { testConfirmMigrations(t, newDB(t)) })
	t.Run("add and take", func(t *testing.T) { testAddTake(t, newDB(t)) })
	t.Run("one take wins", func(t *testing.T) { testOneTakeWins(t, newDB(t)) })
	t.Run("sweep", func(t *testing.T) { testSweep(t, newDB(t)) })
	t.Run("people apart", func(t *testing.T) { testPeopleApart(t, newDB(t)) })
	t.Run("two instances", func(t *testing.T) { testTwoInstances(t, newDB(t), c.BinDir()) })
	t.Run("database down", testDatabaseDown)
}

func connect(t *testing.T, dsn string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// newStore opens the store on a pool of its own (an instance) and returns it with person 1's
// view of it.
func newStore(t *testing.T, dsn string) (*pg.Confirmations, confirm.Store, *pgxpool.Pool) {
	t.Helper()
	pool := connect(t, dsn)
	c, err := pg.Open(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	return c, c.For(1), pool
}

// testConfirmMigrations: Open migrates the avenir_confirm schema to this avenir's version, once
// (internal/pgmigrate's tests hold how instances starting together do so); a newer schema is
// refused.
func testConfirmMigrations(t *testing.T, dsn string) {
	ctx := context.Background()
	newStore(t, dsn)
	pool := connect(t, dsn)
	var n, top int
	if err := pool.QueryRow(ctx, "SELECT count(*), max(version) FROM avenir_confirm.schema_migrations").Scan(&n, &top); err != nil {
		t.Fatal(err)
	}
	if want := pg.SchemaVersion(); want < 1 || n != want || top != want {
		t.Fatalf("avenir_confirm.schema_migrations has %d rows up to %d; want %d", n, top, want)
	}
	s, err := pg.Open(ctx, pool) // again: nothing to do
	if err != nil {
		t.Fatalf("migrating again: %v", err)
	}
	if err := s.Ready(ctx); err != nil {
		t.Fatalf("Ready: %v", err)
	}
	if _, err := pool.Exec(ctx, "INSERT INTO avenir_confirm.schema_migrations (version, name) VALUES (999, 'future')"); err != nil {
		t.Fatal(err)
	}
	if err := pg.Migrate(ctx, pool); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("a newer schema: %v, want it refused", err)
	}
	if err := s.Ready(ctx); err == nil {
		t.Fatal("Ready passed on a schema of another version")
	}
}

func testAddTake(t *testing.T, dsn string) {
	_, s, _ := newStore(t, dsn)
	ctx := context.Background()
	now := time.Now().Round(0)
	card := confirm.Ticket{Tool: "set_budget", Fingerprint: "fp-1", Args: "digest",
		Arguments: json.RawMessage(`{"b": 2,  "a":1, "a":3}`), // kept byte for byte, not as JSON
		Expires:   now.Add(600 * time.Second)}
	h := confirm.HashToken(confirm.KindCard, "token-1")
	if err := s.Add(ctx, confirm.KindCard, h, card, now); err != nil {
		t.Fatal(err)
	}
	// Another kind's take finds nothing, and leaves the token for its own kind.
	if _, ok, err := s.Take(ctx, confirm.KindCode, h, now); ok || err != nil {
		t.Fatalf("Take as a code = %v, %v; want nothing", ok, err)
	}
	got, ok, err := s.Take(ctx, confirm.KindCard, h, now)
	if err != nil || !ok {
		t.Fatalf("Take = %v, %v; want the ticket", ok, err)
	}
	if got.Tool != card.Tool || got.Fingerprint != card.Fingerprint || got.Args != card.Args ||
		string(got.Arguments) != string(card.Arguments) || !got.Expires.Equal(card.Expires.Truncate(time.Microsecond)) {
		t.Fatalf("ticket %+v (%s), want %+v (%s)", got, got.Arguments, card, card.Arguments)
	}
	if _, ok, err := s.Take(ctx, confirm.KindCard, h, now); ok || err != nil {
		t.Fatalf("a second Take = %v, %v; want nothing", ok, err)
	}

	// A code: no args, no arguments; live until just before it expires.
	code := confirm.Ticket{Tool: "set_goal", Fingerprint: "fp-2", Expires: now.Add(600 * time.Second)}
	for _, tt := range []struct {
		name  string
		at    time.Time
		alive bool
	}{
		{"a microsecond before it expires", code.Expires.Add(-time.Microsecond), true},
		{"when it expires", code.Expires, false},
		{"after", code.Expires.Add(time.Hour), false},
	} {
		h := confirm.HashToken(confirm.KindCode, "code "+tt.name)
		if err := s.Add(ctx, confirm.KindCode, h, code, now); err != nil {
			t.Fatal(err)
		}
		got, ok, err := s.Take(ctx, confirm.KindCode, h, tt.at)
		if err != nil || ok != tt.alive {
			t.Fatalf("%s: Take = %v, %v; want %v", tt.name, ok, err, tt.alive)
		}
		if ok && (got.Arguments != nil || got.Args != "" || got.Tool != code.Tool) {
			t.Fatalf("%s: ticket %+v, want %+v", tt.name, got, code)
		}
	}
	if err := s.Add(ctx, confirm.Kind("other"), h, card, now); err == nil || !strings.Contains(err.Error(), "kind") {
		t.Fatalf("Add of an unknown kind: %v, want it refused", err)
	}
}

// testOneTakeWins: callers on two instances (two pools) race to take one token; one wins.
func testOneTakeWins(t *testing.T, dsn string) {
	_, a, _ := newStore(t, dsn)
	_, b, _ := newStore(t, dsn)
	stores := []confirm.Store{a, b}
	ctx := context.Background()
	now := time.Now().Round(0)
	for round := range 5 {
		h := confirm.HashToken(confirm.KindState, "nonce-"+string(rune('a'+round)))
		if err := a.Add(ctx, confirm.KindState, h, confirm.Ticket{Tool: "t", Fingerprint: "f", Expires: now.Add(time.Minute)}, now); err != nil {
			t.Fatal(err)
		}
		const n = 16
		var wins atomic.Int32
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				_, ok, err := stores[i%2].Take(ctx, confirm.KindState, h, now)
				if err != nil {
					t.Errorf("caller %d: %v", i, err)
				}
				if ok {
					wins.Add(1)
				}
			})
		}
		close(start)
		wg.Wait()
		if got := wins.Load(); got != 1 {
			t.Fatalf("round %d: %d of %d callers took the token, want exactly one", round, got, n)
		}
	}
}

func testSweep(t *testing.T, dsn string) {
	c, s, pool := newStore(t, dsn)
	ctx := context.Background()
	now := time.Now().Round(0)
	add := func(name string, expires time.Time, at time.Time) {
		t.Helper()
		h := confirm.HashToken(confirm.KindCode, name)
		if err := s.Add(ctx, confirm.KindCode, h, confirm.Ticket{Tool: "t", Fingerprint: "f", Expires: expires}, at); err != nil {
			t.Fatal(err)
		}
	}
	rows := func() int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM avenir_confirm.tokens").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	add("old 1", now.Add(10*time.Second), now)
	add("old 2", now.Add(20*time.Second), now)
	add("young", now.Add(10*time.Minute), now)
	if rows() != 3 {
		t.Fatalf("%d rows, want 3", rows())
	}
	add("within the minute", now.Add(10*time.Minute), now.Add(30*time.Second)) // no sweep yet
	if rows() != 4 {
		t.Fatalf("%d rows before a sweep is due, want 4", rows())
	}
	add("a minute on", now.Add(10*time.Minute), now.Add(time.Minute)) // sweeps the two old ones
	if rows() != 3 {
		t.Fatalf("%d rows after the sweep, want the 3 live ones", rows())
	}
	if _, ok, err := s.Take(ctx, confirm.KindCode, confirm.HashToken(confirm.KindCode, "young"), now.Add(time.Minute)); !ok || err != nil {
		t.Fatalf("a live token after the sweep: %v, %v", ok, err)
	}
	if n, err := c.Sweep(ctx, now.Add(time.Hour)); err != nil || n != 2 {
		t.Fatalf("Sweep = %d, %v; want the 2 left", n, err)
	}
}

// testPeopleApart: a token one person was given is unknown to every other person's store, even
// with the same kind and hash; a store for no person (id 0, an unset id) records and confirms
// nothing; and the table keeps a person's token under the hash avenir hosted has always used,
// so an upgraded instance redeems what an older one issued.
func testPeopleApart(t *testing.T, dsn string) {
	c, alice, pool := newStore(t, dsn)
	bob := c.For(2)
	ctx := context.Background()
	now := time.Now().Round(0)
	ticket := confirm.Ticket{Tool: "set_budget", Fingerprint: "fp", Expires: now.Add(time.Minute)}
	h := confirm.HashToken(confirm.KindCode, "123456")
	if err := alice.Add(ctx, confirm.KindCode, h, ticket, now); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := bob.Take(ctx, confirm.KindCode, h, now); ok || err != nil {
		t.Fatalf("another person's Take of the code = %v, %v; want nothing", ok, err)
	}

	// The row's key: SHA-256 over "avenir/hosted/person", a zero byte, the person's id as 8
	// big-endian bytes, and the token's hash.
	d := sha256.New()
	d.Write([]byte("avenir/hosted/person\x00"))
	d.Write([]byte{0, 0, 0, 0, 0, 0, 0, 1})
	d.Write(h[:])
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM avenir_confirm.tokens WHERE hash = $1", d.Sum(nil)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("%d rows under person 1's key for the code, want 1", n)
	}
	if _, ok, err := alice.Take(ctx, confirm.KindCode, h, now); !ok || err != nil {
		t.Fatalf("the person's own Take = %v, %v; want the ticket", ok, err)
	}

	nobody := c.For(0)
	if err := nobody.Add(ctx, confirm.KindCode, h, ticket, now); err == nil {
		t.Fatal("a store for no person recorded a code")
	}
	if _, ok, err := nobody.Take(ctx, confirm.KindCode, h, now); ok || err == nil {
		t.Fatalf("a store for no person: Take = %v, %v; want an error", ok, err)
	}
}

// Calls as clients make them: one without elicitation (a code), a 2026-07-28 one with form
// elicitation (a sealed state), and a host that renders MCP Apps (a card).
type setArgs struct {
	Category string `json:"category"`
	Amount   int64  `json:"amount"`
}

var restaurants = setArgs{Category: "Restaurants", Amount: 150000}

func request(t *testing.T, caps map[string]any) *mcp.CallToolRequest {
	t.Helper()
	raw, err := json.Marshal(restaurants)
	if err != nil {
		t.Fatal(err)
	}
	p := &mcp.CallToolParamsRaw{Name: "set_budget", Arguments: raw}
	if caps != nil {
		p.Meta = mcp.Meta{mcp.MetaKeyProtocolVersion: "2026-07-28", mcp.MetaKeyClientCapabilities: caps}
	}
	return &mcp.CallToolRequest{Params: p}
}

var (
	formCaps = map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}
	appCaps  = map[string]any{"extensions": map[string]any{
		confirm.AppExtension: map[string]any{"mimeTypes": []any{confirm.AppMIMEType}}}}
)

func question() confirm.Question {
	return confirm.Question{Tool: "set_budget", PlanID: "plan-1", Preview: "Budget Restaurants: 150.00?",
		Subject: map[string]any{"category_id": "cat-rest", "amount": 150000}, Args: restaurants}
}

// instance is one avenir instance: its own pool and Asker, the database and the secret shared.
func instance(t *testing.T, dsn string, secret []byte) *confirm.Asker {
	t.Helper()
	_, s, _ := newStore(t, dsn)
	key, err := confirm.DeriveKey(secret)
	if err != nil {
		t.Fatal(err)
	}
	a, err := confirm.New(confirm.Options{Store: s, Key: key, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// testTwoInstances: what one instance issues, the other redeems, each exactly once, and the
// database never holds a token in the clear.
func testTwoInstances(t *testing.T, dsn, bin string) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	a, b := instance(t, dsn, secret), instance(t, dsn, secret)
	ctx := context.Background()
	var issued []string // every token handed out, to look for in the dump

	// A code, issued by a, used on b, then refused on both.
	d, err := a.Ask(ctx, request(t, nil), question())
	if err != nil || d.Reply == nil || d.Reply.Confirmation == "" {
		t.Fatalf("first call = %+v, %v; want a code", d, err)
	}
	code := d.Reply.Confirmation
	issued = append(issued, code)
	q := question()
	q.Confirmation = code
	if d, err := b.Ask(ctx, request(t, nil), q); err != nil || !d.Proceed || d.Mode != confirm.ModeCode {
		t.Fatalf("the code on the other instance = %+v, %v; want proceed", d, err)
	}
	for _, asker := range []*confirm.Asker{a, b} {
		if _, err := asker.Ask(ctx, request(t, nil), q); !errors.Is(err, confirm.ErrCodeRefused) {
			t.Fatalf("the code again: %v, want ErrCodeRefused", err)
		}
	}

	// A sealed state, issued by a, answered on b.
	d, err = a.Ask(ctx, request(t, formCaps), question())
	if err != nil || d.Input == nil || d.Input.RequestState == "" {
		t.Fatalf("first call = %+v, %v; want an input-required result", d, err)
	}
	answer := request(t, formCaps)
	answer.Params.RequestState = d.Input.RequestState
	answer.Params.InputResponses = mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"value": true}}}
	issued = append(issued, nonceOf(t, d.Input.RequestState))
	if d, err := b.Ask(ctx, answer, question()); err != nil || !d.Proceed || d.Mode != confirm.ModeMRTR {
		t.Fatalf("the answer on the other instance = %+v, %v; want proceed", d, err)
	}
	if _, err := a.Ask(ctx, answer, question()); err == nil {
		t.Fatal("the state answered twice")
	}
	// Under another secret, the state of a does not open.
	d, err = a.Ask(ctx, request(t, formCaps), question())
	if err != nil || d.Input == nil {
		t.Fatalf("first call = %+v, %v", d, err)
	}
	answer.Params.RequestState = d.Input.RequestState
	stranger := instance(t, dsn, []byte("another secret, 32 bytes long..."))
	if _, err := stranger.Ask(ctx, answer, question()); err == nil {
		t.Fatal("an instance with another secret opened the state")
	}

	// A card's token, issued by a, redeemed by callers on both at once: one wins. The card is
	// opened through b: its handle's record is shared.
	openCard := func(asker *confirm.Asker) (handle, token string) {
		t.Helper()
		d, err := a.Ask(ctx, request(t, appCaps), question())
		if err != nil || d.Reply == nil || d.Reply.Handle == "" {
			t.Fatalf("first call = %+v, %v; want a card", d, err)
		}
		view, err := asker.OpenCard(ctx, d.Reply.Handle)
		if err != nil || view.State != confirm.CardPending || view.Token == "" {
			t.Fatalf("OpenCard = %+v, %v; want pending with a token", view, err)
		}
		return d.Reply.Handle, view.Token
	}
	handle, token := openCard(b)
	issued = append(issued, handle, token)
	var wins atomic.Int32
	var won confirm.Card
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			card, err := []*confirm.Asker{a, b}[i%2].RedeemCard(ctx, token, confirm.AnswerAccept, confirm.CardVersion)
			switch {
			case err == nil:
				wins.Add(1)
				won = card
			case !errors.Is(err, confirm.ErrCardRefused):
				t.Errorf("caller %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d callers redeemed the card, want exactly one", wins.Load())
	}
	if d, err := b.Ask(confirm.WithCard(ctx, won), request(t, appCaps), question()); err != nil || !d.Proceed || d.Mode != confirm.ModeApp {
		t.Fatalf("the card's answer = %+v, %v; want proceed", d, err)
	}
	if err := b.SettleCard(ctx, won, confirm.CardOutcome{Status: "applied", OperationID: "op-1"}); err != nil {
		t.Fatal(err)
	}
	if view, err := a.OpenCard(ctx, handle); err != nil || view.State != confirm.CardAnswered || view.Outcome == nil || view.Outcome.OperationID != "op-1" || view.Token != "" {
		t.Fatalf("the answered card mounted again on the other instance = %+v, %v; want answered with its outcome, no token", view, err)
	}
	// Another pending card stays in the tables for the dump.
	handle, token = openCard(a)
	issued = append(issued, handle, token)

	// A live code stays in the table as well.
	d, err = b.Ask(ctx, request(t, nil), question())
	if err != nil || d.Reply == nil {
		t.Fatalf("first call = %+v, %v", d, err)
	}
	issued = append(issued, d.Reply.Confirmation)
	out, err := exec.Command(filepath.Join(bin, "pg_dump"), "--data-only", "--schema=avenir_confirm", "--dbname="+dsn).Output()
	if err != nil {
		t.Fatalf("pg_dump: %v", err)
	}
	dump := string(out)
	if !strings.Contains(dump, "set_budget") {
		t.Fatalf("the dump shows no live token's row:\n%s", dump)
	}
	for _, tok := range issued {
		if strings.Contains(dump, tok) {
			t.Errorf("the dump holds %q in the clear", tok)
		}
	}
}

// nonceOf reads the nonce out of a sealed state, as anyone holding the state can.
func nonceOf(t *testing.T, state string) string {
	t.Helper()
	body, _, _ := strings.Cut(state, ".")
	raw, err := base64.RawURLEncoding.DecodeString(body)
	var claims struct {
		Nonce string `json:"n"`
	}
	if err != nil || json.Unmarshal(raw, &claims) != nil || len(claims.Nonce) != 22 {
		t.Fatalf("state %q: no 22-character nonce in it", state)
	}
	return claims.Nonce
}

// testDatabaseDown: with the database gone, nothing is issued and nothing is confirmed.
func testDatabaseDown(t *testing.T) {
	c := pgtest.Start(t)
	dsn, err := c.CreateDatabase()
	if err != nil {
		t.Fatal(err)
	}
	a := instance(t, dsn, []byte("0123456789abcdef0123456789abcdef"))
	ctx := context.Background()
	d, err := a.Ask(ctx, request(t, nil), question())
	if err != nil || d.Reply == nil {
		t.Fatalf("first call = %+v, %v", d, err)
	}
	q := question()
	q.Confirmation = d.Reply.Confirmation
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	for name, req := range map[string]*mcp.CallToolRequest{"a code": request(t, nil), "a state": request(t, formCaps), "a card": request(t, appCaps)} {
		if d, err := a.Ask(ctx, req, question()); !errors.Is(err, confirm.ErrStore) || d.Reply != nil || d.Input != nil {
			t.Errorf("issuing %s with the database down = %+v, %v; want ErrStore", name, d, err)
		}
	}
	if d, err := a.Ask(ctx, request(t, nil), q); !errors.Is(err, confirm.ErrStore) || d.Proceed {
		t.Errorf("a live code with the database down = %+v, %v; want ErrStore", d, err)
	}
}
