package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/oauth2"
)

// ErrSignInRequired is matched (errors.Is) by every error that means the person must sign in
// with YNAB again: YNAB refused the stored refresh token (the person revoked avenir's access,
// or it lapsed), or no YNAB sign-in is on record.
var ErrSignInRequired = errors.New("sign in again")

// SignInRequiredError says why the person must sign in again. Its message is meant for them.
type SignInRequiredError struct {
	PersonID int64
	Reason   string
}

func (e *SignInRequiredError) Error() string {
	return "avenir has no working YNAB sign-in for this account (" + e.Reason + "): sign in again — reconnect avenir in your app, which opens YNAB's sign-in"
}

// Is makes errors.Is(err, ErrSignInRequired) true.
func (e *SignInRequiredError) Is(target error) bool { return target == ErrSignInRequired }

// describeYNABError says what YNAB's OAuth endpoint answered, without its body (which a future
// YNAB might fill with anything) and without any token.
func describeYNABError(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		status := ""
		if re.Response != nil {
			status = re.Response.Status
		}
		if re.ErrorCode != "" {
			return fmt.Sprintf("YNAB answered %s %s", status, re.ErrorCode)
		}
		return "YNAB answered " + status
	}
	return fetchProblem(err)
}

// ynabUserID asks YNAB who the token belongs to: GET /user → data.user.id.
func (s *Server) ynabUserID(ctx context.Context, accessToken string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.cfg.YNABAPIURL+"/user", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+accessToken)
	req.Header.Set("Accept", "application/json")
	resp, err := s.cfg.YNABHTTPClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("GET /user: %s", fetchProblem(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return "", fmt.Errorf("GET /user: reading the answer: %s", fetchProblem(err))
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET /user answered %s", resp.Status)
	}
	var out struct {
		Data struct {
			User struct {
				ID string `json:"id"`
			} `json:"user"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &out); err != nil || strings.TrimSpace(out.Data.User.ID) == "" {
		return "", errors.New("GET /user answered without data.user.id")
	}
	return out.Data.User.ID, nil
}

// TokenSource gives a valid YNAB access token for one person, refreshing YNAB's two-hour token
// by itself with the stored refresh token. Any number of instances may use sources of the same
// person at once: a refresh happens under the person's row lock (SELECT … FOR UPDATE), and the
// one that waited finds the token its peer stored instead of spending the refresh token again —
// which YNAB would refuse, as it rotates refresh tokens. It is safe for concurrent use.
type TokenSource struct {
	s      *Server
	person int64
}

// TokenSource returns the YNAB token source of a person. Most code gets it from the request
// context instead ([CallerFrom]).
func (s *Server) TokenSource(personID int64) *TokenSource { return &TokenSource{s, personID} }

// PersonID is whose token the source gives.
func (ts *TokenSource) PersonID() int64 { return ts.person }

// refreshMargin: a token this close to its expiry is refreshed rather than handed out, so that
// it does not expire between here and YNAB.
const refreshMargin = 2 * time.Minute

// Token returns a YNAB access token good for at least a couple of minutes. It fails with an
// error matching ErrSignInRequired when the person must sign in again; other errors are
// temporary (the database or YNAB unreachable) and the stored grant is kept.
func (ts *TokenSource) Token(ctx context.Context) (string, error) {
	var sealed []byte
	var expires time.Time
	err := ts.s.pool.QueryRow(ctx, `SELECT sealed, access_expires_at FROM auth.ynab_grants WHERE person_id = $1`, ts.person).
		Scan(&sealed, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", &SignInRequiredError{ts.person, "no YNAB sign-in is on record"}
	}
	if err != nil {
		return "", fmt.Errorf("reading the YNAB sign-in: %w", err)
	}
	if ts.s.now().Add(refreshMargin).Before(expires) {
		g, err := ts.open(sealed)
		if err != nil {
			return "", err
		}
		return g.AccessToken, nil
	}
	return ts.refresh(ctx, "")
}

// Refresh is for a YNAB answer of 401 to the access token refused: it refreshes the token,
// unless another instance already did (the stored token is no longer the refused one), and
// returns the token to retry with.
func (ts *TokenSource) Refresh(ctx context.Context, refused string) (string, error) {
	return ts.refresh(ctx, refused)
}

func (ts *TokenSource) open(sealed []byte) (sealedYNAB, error) {
	var g sealedYNAB
	plain, err := ts.s.seal.open(ts.person, sealed)
	if err != nil {
		return g, err
	}
	if err := json.Unmarshal(plain, &g); err != nil {
		return g, errUnseal
	}
	return g, nil
}

func (ts *TokenSource) refresh(ctx context.Context, refused string) (string, error) {
	s := ts.s
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return "", fmt.Errorf("refreshing the YNAB token: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var sealed []byte
	var expires time.Time
	err = tx.QueryRow(ctx, `SELECT sealed, access_expires_at FROM auth.ynab_grants WHERE person_id = $1 FOR UPDATE`, ts.person).
		Scan(&sealed, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", &SignInRequiredError{ts.person, "no YNAB sign-in is on record"}
	}
	if err != nil {
		return "", fmt.Errorf("refreshing the YNAB token: locking the sign-in: %w", err)
	}
	g, err := ts.open(sealed)
	if err != nil {
		return "", err
	}
	now := s.now()
	if now.Add(refreshMargin).Before(expires) && g.AccessToken != refused {
		return g.AccessToken, nil // a peer refreshed while we waited for the lock
	}
	tok, err := s.ynab.TokenSource(s.ynabContext(ctx), &oauth2.Token{RefreshToken: g.RefreshToken, Expiry: now.Add(-time.Hour)}).Token()
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
		// The refresh token is dead: YNAB will not take it again. Forget it and end avenir's
		// grants of this person, so that their apps get a 401 and send them through sign-in.
		if _, err := tx.Exec(ctx, `DELETE FROM auth.ynab_grants WHERE person_id = $1`, ts.person); err != nil {
			return "", fmt.Errorf("forgetting the refused YNAB sign-in: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE auth.grants SET revoked_at = $2 WHERE person_id = $1 AND revoked_at IS NULL`, ts.person, now); err != nil {
			return "", fmt.Errorf("ending the person's grants: %w", err)
		}
		if err := tx.Commit(ctx); err != nil {
			return "", fmt.Errorf("forgetting the refused YNAB sign-in: %w", err)
		}
		s.log.Warn("YNAB refused the refresh token; the person must sign in again", "person", ts.person)
		return "", &SignInRequiredError{ts.person, "YNAB refused the stored sign-in; it may have been revoked in YNAB's settings"}
	}
	if err != nil {
		return "", fmt.Errorf("refreshing the YNAB token: %s", describeYNABError(err))
	}
	next := sealedYNAB{AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken}
	if next.RefreshToken == "" {
		next.RefreshToken = g.RefreshToken // YNAB kept the old one
	}
	plain, err := json.Marshal(next)
	if err != nil {
		return "", err
	}
	if _, err := tx.Exec(ctx, `UPDATE auth.ynab_grants SET sealed = $2, access_expires_at = $3, updated_at = $4 WHERE person_id = $1`,
		ts.person, s.seal.seal(ts.person, plain), ynabExpiry(tok, now), now); err != nil {
		return "", fmt.Errorf("storing the refreshed YNAB token: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		// YNAB has rotated the refresh token and the new one is lost: the next refresh will be
		// refused and the person asked to sign in again. Nothing better is possible.
		return "", fmt.Errorf("storing the refreshed YNAB token: %w", err)
	}
	return next.AccessToken, nil
}

// Transport is an http.RoundTripper for YNAB's API on behalf of one person: it takes each
// request from the person's [Budget], sets the Authorization header from the [TokenSource],
// and after a 401 refreshes the token and tries once more (YNAB did nothing with a request it
// refused, so a retry cannot do a write twice). A request the budget refuses is answered as
// YNAB answers a request over its limit (429, with Retry-After), so the YNAB client reports it
// as it reports YNAB's own. cmd/avenir may give the ynab client an http.Client with this
// transport.
type Transport struct {
	Source *TokenSource
	Budget *Budget // nil: no budget
	Base   http.RoundTripper
}

func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	ctx := req.Context()
	tok, err := t.Source.Token(ctx) // first: a person who must sign in again spends no budget
	if err != nil {
		return nil, err
	}
	if t.Budget != nil {
		if _, err := t.Budget.Take(ctx, t.Source.person); err != nil {
			var be *BudgetExhaustedError
			if errors.As(err, &be) {
				return budgetResponse(req, be), nil
			}
			return nil, err
		}
	}
	resp, err := base.RoundTrip(withToken(req, tok))
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	if req.Body != nil && req.GetBody == nil {
		return resp, nil // the body cannot be sent again
	}
	next, err := t.Source.Refresh(ctx, tok)
	if err != nil {
		return resp, nil // YNAB's own 401 says it best; the error is logged by refresh when it matters
	}
	retry := withToken(req, next)
	if req.GetBody != nil {
		if retry.Body, err = req.GetBody(); err != nil {
			return resp, nil
		}
	}
	resp.Body.Close()
	return base.RoundTrip(retry)
}

func withToken(req *http.Request, tok string) *http.Request {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	return r
}

func budgetResponse(req *http.Request, be *BudgetExhaustedError) *http.Response {
	body, _ := json.Marshal(map[string]any{"error": map[string]string{
		"id": "429", "name": "too_many_requests", "detail": be.Error(),
	}})
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Retry-After", fmt.Sprint(int(be.RetryAfter.Seconds()+0.999)))
	return &http.Response{
		Status: "429 Too Many Requests", StatusCode: http.StatusTooManyRequests,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h,
		Body: io.NopCloser(strings.NewReader(string(body))), ContentLength: int64(len(body)), Request: req,
	}
}
