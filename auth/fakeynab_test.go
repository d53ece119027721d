package auth

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeYNAB plays YNAB's OAuth (authorize, token) and GET /v1/user, as YNAB documents them:
// authorization code grant with the client secret in the form, 2-hour access tokens, refresh
// tokens that are single-use and rotate.
type fakeYNAB struct {
	srv                   *httptest.Server
	clientID, secret      string
	redirectURI           string // set once avenir's URL is known
	now                   func() time.Time
	mu                    sync.Mutex
	user                  string // who signs in at the consent page
	deny                  bool   // the person refuses consent
	tokenStatus           int    // non-zero: /oauth/token answers this status
	codes                 map[string]string
	challenges            map[string]string // code → the PKCE challenge its authorization request sent
	access                map[string]fakeAccess
	refresh               map[string]string // live refresh token → user
	spent                 map[string]bool
	refreshCalls          int
	tokensIssued          []string // every access and refresh token handed out
	refreshDelay          time.Duration
	authorizeRequestQuery url.Values
}

type fakeAccess struct {
	user    string
	expires time.Time
}

func newFakeYNAB(t *testing.T, now func() time.Time) *fakeYNAB {
	f := &fakeYNAB{
		clientID: "ynab-client-id", secret: "ynab-client-secret-" + randomString(), now: now, user: "user-alice",
		codes: map[string]string{}, challenges: map[string]string{}, access: map[string]fakeAccess{}, refresh: map[string]string{}, spent: map[string]bool{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /oauth/authorize", f.authorize)
	mux.HandleFunc("POST /oauth/token", f.token)
	mux.HandleFunc("GET /v1/user", f.userInfo)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func randomString() string {
	var b [24]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func (f *fakeYNAB) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.authorizeRequestQuery = q
	if q.Get("client_id") != f.clientID || q.Get("redirect_uri") != f.redirectURI || q.Get("response_type") != "code" {
		http.Error(w, "bad authorize request", http.StatusBadRequest)
		return
	}
	back, _ := url.Parse(f.redirectURI)
	v := url.Values{"state": {q.Get("state")}}
	if f.deny {
		v.Set("error", "access_denied")
	} else {
		code := randomString()
		f.codes[code] = f.user
		if q.Get("code_challenge_method") == "S256" {
			f.challenges[code] = q.Get("code_challenge") // YNAB, like any OAuth 2.1 server, then requires the verifier
		}
		v.Set("code", code)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (f *fakeYNAB) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	f.mu.Lock()
	delay := f.refreshDelay
	f.mu.Unlock()
	if r.PostForm.Get("grant_type") == "refresh_token" && delay > 0 {
		time.Sleep(delay) // lets concurrent refreshers pile up behind the row lock
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	oauthErr := func(status int, code string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]string{"error": code})
	}
	if f.tokenStatus != 0 {
		oauthErr(f.tokenStatus, "server_error")
		return
	}
	if r.PostForm.Get("client_id") != f.clientID || r.PostForm.Get("client_secret") != f.secret {
		oauthErr(401, "invalid_client")
		return
	}
	var user string
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		code := r.PostForm.Get("code")
		u, ok := f.codes[code]
		if !ok || r.PostForm.Get("redirect_uri") != f.redirectURI {
			oauthErr(400, "invalid_grant")
			return
		}
		if ch, asked := f.challenges[code]; asked && s256(r.PostForm.Get("code_verifier")) != ch {
			oauthErr(400, "invalid_grant")
			return
		}
		delete(f.codes, code)
		user = u
	case "refresh_token":
		f.refreshCalls++
		rt := r.PostForm.Get("refresh_token")
		u, ok := f.refresh[rt]
		if !ok {
			oauthErr(400, "invalid_grant")
			return
		}
		delete(f.refresh, rt)
		f.spent[rt] = true
		user = u
	default:
		oauthErr(400, "unsupported_grant_type")
		return
	}
	at, rt := "ynab-at-"+randomString(), "ynab-rt-"+randomString()
	f.access[at] = fakeAccess{user, f.now().Add(2 * time.Hour)}
	f.refresh[rt] = user
	f.tokensIssued = append(f.tokensIssued, at, rt)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"access_token": at, "token_type": "bearer", "expires_in": 7200, "refresh_token": rt,
	})
}

func (f *fakeYNAB) userInfo(w http.ResponseWriter, r *http.Request) {
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	f.mu.Lock()
	a, ok := f.access[tok]
	f.mu.Unlock()
	if !ok || !f.now().Before(a.expires) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":{"id":"401","name":"unauthorized","detail":"Unauthorized"}}`))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"user": map[string]string{"id": a.user}}})
}

// revokeUser drops every refresh token of user, as when the person removes avenir in YNAB's
// settings.
func (f *fakeYNAB) revokeUser(user string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for rt, u := range f.refresh {
		if u == user {
			delete(f.refresh, rt)
		}
	}
	for at, a := range f.access {
		if a.user == user {
			delete(f.access, at)
		}
	}
}

func (f *fakeYNAB) set(fn func(f *fakeYNAB)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func (f *fakeYNAB) issued() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.tokensIssued...)
}

func (f *fakeYNAB) refreshes() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refreshCalls
}

// lastAuthorize is the query of the last authorization request avenir sent the browser with.
func (f *fakeYNAB) lastAuthorize() url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.authorizeRequestQuery
}
