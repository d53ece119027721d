package auth

import (
	"html/template"
	"net/http"
)

// The two pages a person sees at avenir during sign-in: the consent page and the error page.
// They are plain HTML with no script, served with headers that keep them out of frames (so no
// other site can overlay the consent button) and out of caches.

var pageTemplates = template.Must(template.New("layout").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · avenir</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 34rem; margin: 3rem auto; padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.4rem; }
.box { border: 1px solid #d2d2d7; border-radius: 8px; padding: 1rem 1.25rem; margin: 1rem 0; }
.warn { background: #fff8e1; border-color: #f5c518; }
button, .button { font: inherit; padding: .5rem 1.1rem; border-radius: 6px; border: 1px solid #0a66c2; margin-right: .5rem; cursor: pointer; text-decoration: none; display: inline-block; }
.primary { background: #0a66c2; color: #fff; }
.secondary { background: #fff; color: #0a66c2; }
code { font-size: .9em; word-break: break-all; }
</style>
</head>
<body>
{{template "body" .}}
</body>
</html>
{{define "consent"}}
<h1>Connect {{.ClientName}} to your YNAB plans?</h1>
<div class="box">
<p><strong>{{.ClientName}}</strong> asks to use avenir to read your YNAB plans and, each time
with your confirmation, to change them.</p>
<p>{{if .Document}}This app is identified by its published description at <code>{{.ClientHost}}</code>.
{{else}}This app registered itself with avenir; avenir cannot check who made it.{{end}}</p>
<p>After you sign in with YNAB, you will be sent back to <code>{{.RedirectURI}}</code>.</p>
</div>
{{if .Localhost}}<div class="box warn"><p>That address is on <strong>this computer</strong>: continue only
if you just asked an app here to connect to avenir.</p></div>{{end}}
<form method="post" action="{{.Action}}">
<input type="hidden" name="request" value="{{.Request}}">
<button class="primary" type="submit" name="decision" value="allow">Continue to YNAB</button>
<button class="secondary" type="submit" name="decision" value="deny">Cancel</button>
</form>
{{end}}
{{define "error"}}
<h1>{{.Title}}</h1>
<div class="box"><p>{{.Message}}</p></div>
{{if .Back}}<p><a class="button secondary" href="{{.Back}}">Return to {{.ClientName}}</a></p>{{end}}
{{end}}
`))

func pageTemplate(body string) *template.Template {
	t := template.Must(pageTemplates.Clone())
	return template.Must(t.New("body").Parse(body))
}

var (
	consentTemplate = pageTemplate(`{{template "consent" .}}`)
	errorTemplate   = pageTemplate(`{{template "error" .}}`)
)

type consentPage struct {
	Title, ClientName, ClientHost, RedirectURI, Action, Request string
	Document, Localhost                                         bool
}

type errorPage struct {
	Title, Message, ClientName string
	Back                       template.URL // the client's redirect URI with the error, or ""
}

func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
	// same-origin, not no-referrer: under no-referrer a browser sends "Origin: null" with the
	// page's own form posts, and the forms are accepted only with avenir's origin.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
}

func (s *Server) renderConsent(w http.ResponseWriter, p consentPage) {
	pageHeaders(w)
	p.Title = "Connect to avenir"
	if err := consentTemplate.ExecuteTemplate(w, "layout", p); err != nil {
		s.log.Error("rendering the consent page", "err", err)
	}
}

// renderError shows the person what went wrong and what to do. back, when set, is the client's
// redirect URI carrying the OAuth error, so that the app learns the sign-in ended.
func (s *Server) renderError(w http.ResponseWriter, status int, title, message, clientName, back string) {
	pageHeaders(w)
	w.WriteHeader(status)
	if clientName == "" {
		clientName = "the app"
	}
	// back was built by avenir from a registered redirect URI (https or loopback http), so it is
	// safe to put in an href.
	if err := errorTemplate.ExecuteTemplate(w, "layout", errorPage{title, message, clientName, template.URL(back)}); err != nil {
		s.log.Error("rendering an error page", "err", err)
	}
}
