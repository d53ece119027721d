package auth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// A person's own page (/account): the apps they gave access to their YNAB through avenir, each
// with a button that revokes it at once (its tokens stop working; the app must ask again). To
// see it the person signs in with YNAB, as at an app's sign-in; avenir keeps nothing of YNAB's
// from that sign-in but who it was, and a session cookie lasts half an hour.

const accountSessionTTL = 30 * time.Minute

const accountCookie = "avenir-account"

func (s *Server) accountCookieName() string {
	if strings.HasPrefix(s.origin, "https://") {
		return hostCookiePrefix + accountCookie
	}
	return accountCookie
}

// accountPerson is the person whose session cookie the request carries, or 0.
func (s *Server) accountPerson(ctx context.Context, r *http.Request) (int64, error) {
	ck, err := r.Cookie(s.accountCookieName())
	if err != nil || !wellFormedSecret(ck.Value) {
		return 0, nil
	}
	var person int64
	err = s.pool.QueryRow(ctx, `SELECT person_id FROM auth.sessions WHERE session_hash = $1 AND expires_at > $2`,
		s.hashSecret(ck.Value), s.now()).Scan(&person)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return person, err
}

type accountApp struct {
	GrantID              int64
	Name, Redirect, Kind string
	Since                string
}

type accountPage struct {
	Title    string
	SignedIn bool
	Apps     []accountApp
	Notice   string
}

var accountTemplate = pageTemplate(`<h1>Your apps connected to avenir</h1>
{{if .Notice}}<div class="box"><p>{{.Notice}}</p></div>{{end}}
{{if .SignedIn}}
{{if .Apps}}{{range .Apps}}<div class="box">
<p><strong>{{.Name}}</strong> — since {{.Since}}<br>returns to <code>{{.Redirect}}</code></p>
<form method="post" action="/account/revoke"><input type="hidden" name="grant" value="{{.GrantID}}">
<button class="secondary" type="submit">Revoke access</button></form>
</div>{{end}}
{{else}}<div class="box"><p>No app holds access to your YNAB through avenir.</p></div>{{end}}
<form method="post" action="/account/signout"><button class="secondary" type="submit">Sign out</button></form>
{{else}}
<div class="box"><p>Sign in with YNAB to see the apps you gave access to your YNAB plans through
avenir, and to revoke any of them.</p></div>
<form method="post" action="/account/signin"><button class="primary" type="submit">Sign in with YNAB</button></form>
{{end}}`)

func (s *Server) renderAccount(w http.ResponseWriter, status int, p accountPage) {
	pageHeaders(w)
	w.WriteHeader(status)
	p.Title = "Your apps"
	if err := accountTemplate.ExecuteTemplate(w, "layout", p); err != nil {
		s.log.Error("rendering the account page", "err", err)
	}
}

// handleAccount shows the signed-in person's apps, or the way to sign in.
func (s *Server) handleAccount(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	person, err := s.accountPerson(ctx, r)
	if err != nil {
		s.log.Error("account: reading the session", "err", err)
		s.renderError(w, 500, "Something went wrong", "avenir could not read its records. Try again in a moment.", "", "")
		return
	}
	if person == 0 {
		s.renderAccount(w, http.StatusOK, accountPage{Notice: r.URL.Query().Get("notice")})
		return
	}
	rows, err := s.pool.Query(ctx, `SELECT g.id, c.name, c.kind, c.redirect_uris[1], g.created_at FROM auth.grants g
		JOIN auth.clients c USING (client_id)
		WHERE g.person_id = $1 AND g.revoked_at IS NULL AND g.created_at > $2
			AND EXISTS (SELECT 1 FROM auth.tokens t WHERE t.grant_id = g.id AND t.revoked_at IS NULL AND t.expires_at > $3)
		ORDER BY g.created_at DESC`, person, s.now().Add(-s.cfg.GrantLifetime), s.now())
	var apps []accountApp
	if err == nil {
		for rows.Next() {
			var a accountApp
			var since time.Time
			if err = rows.Scan(&a.GrantID, &a.Name, &a.Kind, &a.Redirect, &since); err != nil {
				break
			}
			if a.Name == "" {
				a.Name = "An unnamed app"
			}
			a.Since = since.UTC().Format("2 January 2006, 15:04 UTC")
			apps = append(apps, a)
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	if err != nil {
		s.log.Error("account: listing the grants", "err", err)
		s.renderError(w, 500, "Something went wrong", "avenir could not read its records. Try again in a moment.", "", "")
		return
	}
	s.renderAccount(w, http.StatusOK, accountPage{SignedIn: true, Apps: apps, Notice: r.URL.Query().Get("notice")})
}

// handleAccountSignIn sends the person to YNAB's sign-in, to learn who they are.
func (s *Server) handleAccountSignIn(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(r) {
		s.renderError(w, 403, "This form was not sent from avenir's page", "Open your apps page at avenir and sign in from there.", "", "")
		return
	}
	_, idHash := s.newSecret()
	now := s.now()
	if _, err := s.pool.Exec(r.Context(), `INSERT INTO auth.pending_authorizations
		(id_hash, purpose, redirect_uri, redirect_given, state, code_challenge, resource, created_at, expires_at)
		VALUES ($1, 'account', '', false, '', '', '', $2, $3)`, idHash, now, now.Add(s.cfg.SignInTTL)); err != nil {
		s.log.Error("account: storing the sign-in", "err", err)
		s.renderError(w, 500, "Something went wrong", "avenir could not save this sign-in. Try again in a moment.", "", "")
		return
	}
	s.toYNAB(w, r, `UPDATE auth.pending_authorizations SET ynab_state_hash = $2, browser_hash = $3, ynab_verifier = $4
		WHERE id_hash = $1 AND ynab_state_hash IS NULL`, idHash, "")
}

// finishAccountSignIn is YNAB's callback for the account page: who signed in, then a session.
// YNAB's tokens are not kept: the page needs only the person.
func (s *Server) finishAccountSignIn(w http.ResponseWriter, r *http.Request, q url.Values, verifier string) {
	ctx := r.Context()
	again := "Open your apps page at avenir and sign in again."
	if q.Get("error") != "" || q.Get("code") == "" {
		s.renderError(w, 403, "YNAB did not complete the sign-in", "Nothing was changed. "+again, "", "")
		return
	}
	tok, err := s.exchangeYNAB(ctx, q.Get("code"), verifier)
	if err != nil {
		s.log.Warn("account: YNAB's token endpoint refused or failed", "err", describeYNABError(err))
		s.renderError(w, 502, "YNAB did not complete the sign-in", "avenir could not obtain access from YNAB. "+again, "", "")
		return
	}
	userID, err := s.ynabUserID(ctx, tok.AccessToken)
	if err != nil {
		s.log.Warn("account: reading the YNAB user", "err", err)
		s.renderError(w, 502, "YNAB did not complete the sign-in", "avenir could not read who you are at YNAB. "+again, "", "")
		return
	}
	var person int64
	err = s.pool.QueryRow(ctx, `SELECT id FROM auth.people WHERE ynab_user_id = $1`, userID).Scan(&person)
	if errors.Is(err, pgx.ErrNoRows) {
		http.Redirect(w, r, accountPath+"?notice="+url.QueryEscape("This YNAB account has never connected an app through avenir."), http.StatusSeeOther)
		return
	}
	session, sessionHash := s.newSecret()
	now := s.now()
	if err == nil {
		_, err = s.pool.Exec(ctx, `INSERT INTO auth.sessions (session_hash, person_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
			sessionHash, person, now, now.Add(accountSessionTTL))
	}
	if err != nil {
		s.log.Error("account: storing the session", "err", err)
		s.renderError(w, 500, "Something went wrong", "avenir could not save your sign-in. "+again, "", "")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: s.accountCookieName(), Value: session, Path: "/", MaxAge: int(accountSessionTTL.Seconds()),
		HttpOnly: true, Secure: strings.HasPrefix(s.origin, "https://"), SameSite: http.SameSiteLaxMode,
	})
	http.Redirect(w, r, accountPath, http.StatusSeeOther)
}

// handleAccountRevoke revokes one of the signed-in person's grants: its tokens stop working at
// once, and its refresh token is refused.
func (s *Server) handleAccountRevoke(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if !s.sameOrigin(r) {
		s.renderError(w, 403, "This form was not sent from avenir's page", "Open your apps page at avenir and revoke from there.", "", "")
		return
	}
	person, err := s.accountPerson(ctx, r)
	if err != nil || person == 0 {
		http.Redirect(w, r, accountPath, http.StatusSeeOther)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 1<<10)
	grant, perr := strconv.ParseInt(r.PostFormValue("grant"), 10, 64)
	if perr != nil {
		s.renderError(w, 400, "This form is not valid", "Open your apps page at avenir again.", "", "")
		return
	}
	// Keyed by the person: a grant id of someone else's revokes nothing.
	tag, err := s.pool.Exec(ctx, `UPDATE auth.grants SET revoked_at = $3 WHERE id = $1 AND person_id = $2 AND revoked_at IS NULL`, grant, person, s.now())
	if err != nil {
		s.log.Error("account: revoking a grant", "err", err)
		s.renderError(w, 500, "Something went wrong", "avenir could not revoke the app. Try again in a moment.", "", "")
		return
	}
	if tag.RowsAffected() == 1 {
		s.log.Info("grant revoked by its person", "person", person, "grant", grant)
	}
	http.Redirect(w, r, accountPath+"?notice="+url.QueryEscape("Access revoked: that app can no longer reach your YNAB through avenir."), http.StatusSeeOther)
}

func (s *Server) handleAccountSignOut(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(r) {
		s.renderError(w, 403, "This form was not sent from avenir's page", "Open your apps page at avenir.", "", "")
		return
	}
	if ck, err := r.Cookie(s.accountCookieName()); err == nil && wellFormedSecret(ck.Value) {
		s.pool.Exec(r.Context(), `DELETE FROM auth.sessions WHERE session_hash = $1`, s.hashSecret(ck.Value))
	}
	http.SetCookie(w, &http.Cookie{Name: s.accountCookieName(), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: strings.HasPrefix(s.origin, "https://"), SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, accountPath, http.StatusSeeOther)
}
