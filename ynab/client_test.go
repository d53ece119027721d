package ynab

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const secretToken = "tok-3f9a1c7e-very-secret"

// fakeYNAB answers every request with the statuses given, in turn (the last one repeats), and
// counts what it got.
type fakeYNAB struct {
	statuses []int
	hits     atomic.Int32
	sawToken atomic.Bool
}

func (f *fakeYNAB) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(f.hits.Add(1)) - 1
	if r.Header.Get("Authorization") == "Bearer "+secretToken {
		f.sawToken.Store(true)
	}
	st := f.statuses[min(n, len(f.statuses)-1)]
	w.Header().Set("Content-Type", "application/json")
	if st == 429 {
		w.Header().Set("Retry-After", "600")
	}
	w.WriteHeader(st)
	if st >= 400 {
		ids := map[int]string{401: `"401","name":"not_authorized","detail":"Unauthorized"`,
			429: `"429","name":"too_many_requests","detail":"Too many requests"`,
			503: `"503","name":"service_unavailable","detail":"Service unavailable"`,
			404: `"404.2","name":"resource_not_found","detail":"Resource not found"`}
		w.Write([]byte(`{"error":{"id":` + ids[st] + `}}`))
		return
	}
	w.Write([]byte(`{"data":{"user":{"id":"u1"},"transaction_ids":[],"server_knowledge":1}}`))
}

func newTestClient(t *testing.T, h http.Handler, log *bytes.Buffer) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	opts := Options{BaseURL: srv.URL + "/v1", Token: secretToken, Backoff: func(int) time.Duration { return time.Millisecond }}
	if log != nil {
		opts.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return New(opts)
}

func TestReadsRetryTemporaryFailuresOnly(t *testing.T) {
	tests := []struct {
		name     string
		statuses []int
		wantHits int32
		wantErr  string
	}{
		{"503 then success", []int{503, 503, 200}, 3, ""},
		{"503 forever is bounded", []int{503}, 4, "YNAB is failing right now (HTTP 503 service_unavailable)"},
		{"429 is never hammered", []int{429, 200}, 1, "limit of 200 requests an hour for this token is reached. Try again in about 10 minutes"},
		{"401 names the token, not retried", []int{401, 200}, 1, "YNAB refused the access token: it is invalid, expired or revoked"},
		{"404 says what was not found", []int{404}, 1, "YNAB could not find the plan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeYNAB{statuses: tt.statuses}
			var log bytes.Buffer
			c := newTestClient(t, f, &log)
			ctx, counter := WithCounter(context.Background())
			_, _, err := c.GetPlan(ctx, "p1", 0)
			if got := f.hits.Load(); got != tt.wantHits {
				t.Errorf("YNAB got %d requests, want %d", got, tt.wantHits)
			}
			if counter.N() != int(tt.wantHits) {
				t.Errorf("counted %d requests, want %d", counter.N(), tt.wantHits)
			}
			if tt.wantErr == "" && err != nil {
				t.Fatalf("err = %v, want success", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
			if !f.sawToken.Load() {
				t.Error("the token was not sent as a bearer token")
			}
			if err != nil && strings.Contains(err.Error(), secretToken) || strings.Contains(log.String(), secretToken) {
				t.Error("the token leaked into an error or the log")
			}
		})
	}
}

func TestWritesAreNeverRetried(t *testing.T) {
	f := &fakeYNAB{statuses: []int{503, 200}}
	c := newTestClient(t, f, nil)
	_, err := c.UpdateTransactions(context.Background(), "p1", []SaveTransaction{{ID: "t1", Approved: Some(true)}})
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 503 {
		t.Fatalf("err = %v, want the 503", err)
	}
	if f.hits.Load() != 1 {
		t.Fatalf("a failed write was sent %d times, want once", f.hits.Load())
	}
}

func TestBrokenConnectionIsNetErrorAndReadsRetry(t *testing.T) {
	var hits atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		w.Write([]byte(`{"data":{"user":{"id":"u1"}}}`))
	})
	c := newTestClient(t, h, nil)
	u, err := c.GetUser(context.Background())
	if err != nil || u.ID != "u1" || hits.Load() != 2 {
		t.Fatalf("GetUser = %v, %v after %d requests; want u1 after a retry", u, err, hits.Load())
	}
	hits.Store(0)
	_, err = c.DeleteTransaction(context.Background(), "p1", "t1")
	var ne *NetError
	if !errors.As(err, &ne) || hits.Load() != 1 {
		t.Fatalf("write over a dropped connection: err = %v after %d requests; want a NetError after 1", err, hits.Load())
	}
}

func TestOptSendsValueNullOrNothing(t *testing.T) {
	cat := "c1"
	tests := []struct {
		tx   SaveTransaction
		want string
	}{
		{SaveTransaction{ID: "t1", CategoryID: Some(cat)}, `{"id":"t1","category_id":"c1"}`},
		{SaveTransaction{ID: "t1", CategoryID: Null[string]()}, `{"id":"t1","category_id":null}`},
		{SaveTransaction{ID: "t1"}, `{"id":"t1"}`},
		{SaveTransaction{ID: "t1", FlagColor: Some(""), Approved: Some(false)}, `{"id":"t1","approved":false,"flag_color":""}`},
	}
	for _, tt := range tests {
		b, err := jsonMarshal(tt.tx)
		if err != nil || string(b) != tt.want {
			t.Errorf("marshal = %s, %v; want %s", b, err, tt.want)
		}
		var back SaveTransaction
		if err := jsonUnmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.CategoryID.Set != tt.tx.CategoryID.Set || (back.CategoryID.Value == nil) != (tt.tx.CategoryID.Value == nil) {
			t.Errorf("round trip of %s lost category_id's presence", b)
		}
	}
}

func TestMergeByID(t *testing.T) {
	type row struct {
		id   string
		v    int
		gone bool
	}
	key := func(r row) (string, bool) { return r.id, r.gone }
	old := []row{{"a", 1, false}, {"b", 1, false}, {"c", 1, false}}
	delta := []row{{"b", 2, false}, {"c", 0, true}, {"d", 1, false}, {"e", 1, true}}
	got := mergeByID(old, delta, key)
	want := []row{{"a", 1, false}, {"b", 2, false}, {"d", 1, false}}
	if len(got) != len(want) {
		t.Fatalf("merge = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("merge = %v, want %v", got, want)
		}
	}
	if old[1].v != 1 {
		t.Fatal("merge changed the old snapshot")
	}
}
