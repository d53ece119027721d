package auth

import (
	"context"
	"encoding/hex"
	"errors"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/internal/pgtest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A dump of the database holds no credential in the clear: not avenir's tokens, codes or client
// secrets, not YNAB's tokens, not the sign-in's state, form token or browser cookie.
func TestDatabaseDumpHoldsNoToken(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	var secrets []string
	keep := func(ss ...string) {
		for _, s := range ss {
			if s != "" {
				secrets = append(secrets, s)
			}
		}
	}

	// A public client, all the way through a refresh, with every intermediate value kept.
	c := h.publicClient()
	b := newBrowser(t)
	request := h.consent(b, h.authorizeURL(c, nil))
	ynabURL := h.toYNAB(b, request)
	cookies := b.c.Jar.Cookies(mustURL(h.url + "/oauth/"))
	if len(cookies) != 1 {
		t.Fatalf("the browser holds %d cookies for avenir; want the sign-in cookie", len(cookies))
	}
	resp, _ := b.get(ynabURL.String())
	callback := location(t, resp)
	resp, _ = b.get(callback.String())
	code := location(t, resp).Query().Get("code")
	keep(request, ynabURL.Query().Get("state"), callback.Query().Get("code"), code, cookies[0].Value, c.verifier)
	status, out := h.exchange(c, code)
	if status != 200 {
		t.Fatal(out)
	}
	keep(out["access_token"].(string), out["refresh_token"].(string))
	_, out = h.refresh(c, out["refresh_token"].(string))
	keep(out["access_token"].(string), out["refresh_token"].(string))
	h.clock.Advance(2*time.Hour + time.Minute) // YNAB's token expires; the source refreshes it
	_, out = h.refresh(c, out["refresh_token"].(string))
	keep(out["access_token"].(string), out["refresh_token"].(string))
	if resp, _ := h.callMCP("Bearer " + out["access_token"].(string)); resp.StatusCode != 200 {
		t.Fatalf("MCP call: %s", resp.Status)
	}
	// A confidential client: its secret.
	cc := h.register(map[string]any{"client_name": "Web App", "redirect_uris": []string{"https://web.example/cb"}})
	keep(cc.secret, h.ynab.secret)
	keep(h.ynab.issued()...)
	if len(h.ynab.issued()) < 4 {
		t.Fatalf("YNAB issued %d tokens; the test wants the sign-in's and a refresh's", len(h.ynab.issued()))
	}

	dump := pgDump(t, h.dsn)
	if !strings.Contains(dump, "auth.ynab_grants") || !strings.Contains(dump, "user-alice") {
		t.Fatalf("the dump does not look like a dump of the auth schema:\n%.2000s", dump)
	}
	for _, s := range secrets {
		if strings.Contains(dump, s) || strings.Contains(dump, hex.EncodeToString([]byte(s))) {
			t.Errorf("the database dump holds %q in the clear", s)
		}
	}
	// Every text column, read directly, too: nothing that looks like one of the credentials.
	rows, err := h.pool.Query(context.Background(), `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = 'auth' AND data_type IN ('text', 'ARRAY', 'bytea')`)
	if err != nil {
		t.Fatal(err)
	}
	var cols [][2]string
	for rows.Next() {
		var tbl, col string
		rows.Scan(&tbl, &col)
		cols = append(cols, [2]string{tbl, col})
	}
	rows.Close()
	for _, tc := range cols {
		var all string
		if err := h.pool.QueryRow(context.Background(), `SELECT coalesce(string_agg(`+tc[1]+`::text, ' '), '') FROM auth.`+tc[0]).Scan(&all); err != nil {
			t.Fatalf("reading auth.%s.%s: %v", tc[0], tc[1], err)
		}
		for _, s := range secrets {
			if strings.Contains(all, s) {
				t.Errorf("auth.%s.%s holds %q in the clear", tc[0], tc[1], s)
			}
		}
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

func pgDump(t *testing.T, dsn string) string {
	t.Helper()
	bin := filepath.Join(pgtest.Shared(t).BinDir(), "pg_dump")
	out, err := exec.Command(bin, "--data-only", "--schema=auth", "--dbname="+dsn).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("pg_dump: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("pg_dump: %v", err)
	}
	return string(out)
}

// A sealed YNAB grant opens only for its own person: copied into another person's row, it is
// refused rather than handing one person's YNAB access to another.
func TestSealedGrantIsBoundToItsPerson(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c := h.publicClient()
	accessA, _ := h.tokens(newBrowser(t), c)
	h.ynab.set(func(f *fakeYNAB) { f.user = "user-bob" })
	accessB, _ := h.tokens(newBrowser(t), c)
	_, a := h.callMCP("Bearer " + accessA)
	_, b := h.callMCP("Bearer " + accessB)
	pa, pb := int64(a["person_id"].(float64)), int64(b["person_id"].(float64))
	if pa == pb || a["ynab_says"] != "user-alice" || b["ynab_says"] != "user-bob" {
		t.Fatalf("two people: %v %v", a, b)
	}
	ctx := context.Background()
	if _, err := h.pool.Exec(ctx, `UPDATE auth.ynab_grants SET sealed = (SELECT sealed FROM auth.ynab_grants WHERE person_id = $1) WHERE person_id = $2`, pa, pb); err != nil {
		t.Fatal(err)
	}
	tok, err := h.srv.TokenSource(pb).Token(ctx)
	if err == nil || !strings.Contains(err.Error(), "cannot be decrypted") {
		t.Fatalf("bob's source with alice's sealed grant gave %q, %v; want a decryption error", tok, err)
	}
	// Another key cannot open a grant either.
	other := newHarness(t, harnessOpts{dsn: h.dsn, key: []byte("another key, 32 bytes long......")})
	if _, err := other.srv.TokenSource(pa).Token(ctx); err == nil || !strings.Contains(err.Error(), "AVENIR_MCP_SECRET_KEY") {
		t.Fatalf("a server with another key: %v", err)
	}
}

// Migrate brings the auth schema to this avenir's version, once (internal/pgmigrate's tests hold
// how instances starting together do so); a database from a newer avenir is refused.
func TestMigrate(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	var n, max int
	pool.QueryRow(ctx, "SELECT count(*), max(version) FROM auth.schema_migrations").Scan(&n, &max)
	if n != SchemaVersion() || max != SchemaVersion() || n < 1 {
		t.Fatalf("schema_migrations has %d rows up to %d; want %d", n, max, SchemaVersion())
	}
	if err := Migrate(ctx, pool); err != nil {
		t.Fatalf("migrating again: %v", err)
	}
	pool.Exec(ctx, "INSERT INTO auth.schema_migrations (version, name) VALUES (999, 'future')")
	if err := Migrate(ctx, pool); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("a newer schema: %v", err)
	}
	if err := migrated(ctx, pool); err == nil {
		t.Fatal("Ready would pass on a schema of another version")
	}
}

// Sweep removes what expired and keeps what can still be used, or must still be recognised.
func TestSweep(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c := h.publicClient()
	access, refresh := h.tokens(newBrowser(t), c)
	spent := h.code(newBrowser(t), c)
	h.exchange(c, spent)
	h.consent(newBrowser(t), h.authorizeURL(c, nil)) // a sign-in left half-way
	ctx := context.Background()
	if err := h.srv.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if resp, _ := h.callMCP("Bearer " + access); resp.StatusCode != 200 {
		t.Fatal("Sweep removed a live token")
	}
	if status, out := h.exchange(c, spent); out["error"] != "invalid_grant" || !strings.Contains(out["error_description"].(string), "already used") {
		t.Fatalf("after Sweep, the spent code's replay is not recognised: %d %v", status, out)
	}
	h.clock.Advance(31 * 24 * time.Hour)
	if err := h.srv.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"pending_authorizations", "codes", "tokens", "grants"} {
		if n := h.count("SELECT count(*) FROM auth." + table); n != 0 {
			t.Errorf("auth.%s has %d rows after everything expired", table, n)
		}
	}
	if status, _ := h.refresh(c, refresh); status != 400 {
		t.Fatal("a swept refresh token still works")
	}
	if n := h.count("SELECT count(*) FROM auth.people"); n != 1 {
		t.Error("Sweep removed the person")
	}
	if err := h.srv.Ready(ctx); err != nil {
		t.Errorf("Ready: %v", err)
	}
}
