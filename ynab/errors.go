package ynab

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// APIError is an error answer from YNAB: its HTTP status and the {"error": {...}} body. Its
// message is written for the person behind the assistant: what happened and what to do. It
// never holds the access token (the token only ever travels in a request header).
type APIError struct {
	Status     int
	ID         string // YNAB's error id, e.g. "403.1"; a string, never parsed as a number
	Name       string
	Detail     string
	Method     string
	Path       string        // the request path, without query
	RetryAfter time.Duration // for 429, when YNAB said (Retry-After); 0 if it did not
}

func (e *APIError) Error() string {
	switch {
	case e.Status == 401:
		return "YNAB refused the access token: it is invalid, expired or revoked. " +
			"Make a new personal access token at https://app.ynab.com/settings/developer " +
			"and set it as YNAB_ACCESS_TOKEN for avenir."
	case e.ID == "403.1":
		return "YNAB refused the request because the subscription of this YNAB account has lapsed. " +
			"Renew it in YNAB, then try again."
	case e.ID == "403.2":
		return "YNAB refused the request because the trial of this YNAB account has expired. " +
			"Subscribe in YNAB, then try again."
	case e.ID == "403.3":
		return "YNAB refused the write because the access token is read-only. " +
			"Use a token that may write (a personal access token from https://app.ynab.com/settings/developer)."
	case e.ID == "403.4":
		return "YNAB refused the request because it would exceed YNAB's data limits: " + e.detail()
	case e.Status == 403:
		return "YNAB refused the request (forbidden): " + e.detail()
	case e.Status == 404:
		return fmt.Sprintf("YNAB could not find the %s: %s", what(e.Path), e.detail())
	case e.Status == 409:
		return "YNAB refused the request because it conflicts with something that exists: " + e.detail()
	case e.Status == 429:
		when := "within the hour"
		if e.RetryAfter > 0 {
			when = "in about " + roundUp(e.RetryAfter)
		}
		return "YNAB's limit of 200 requests an hour for this token is reached. Try again " + when + "."
	case e.Status >= 500:
		return fmt.Sprintf("YNAB is failing right now (HTTP %d %s). Try again in a few minutes.", e.Status, e.nameOr("error"))
	case e.Status == 400:
		return "YNAB rejected the request: " + e.detail()
	default:
		return fmt.Sprintf("YNAB answered HTTP %d: %s", e.Status, e.detail())
	}
}

func (e *APIError) detail() string {
	if e.Detail != "" {
		return e.Detail
	}
	return e.nameOr("no detail given")
}

func (e *APIError) nameOr(s string) string {
	if e.Name != "" {
		return e.Name
	}
	return s
}

// Temporary reports whether the same request may succeed later without any change: YNAB was
// failing or busy.
func (e *APIError) Temporary() bool { return e.Status >= 500 || e.Status == 429 }

// IsStatus reports whether err is an APIError with that HTTP status.
func IsStatus(err error, status int) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == status
}

// what names the thing a path points at, for a 404 message: "/plans/x/transactions/y" → "transaction".
func what(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	names := map[string]string{
		"plans": "plan", "accounts": "account", "categories": "category", "payees": "payee",
		"transactions": "transaction", "months": "month", "scheduled_transactions": "scheduled transaction",
		"category_groups": "category group",
	}
	// The last collection name followed by an id is the thing; a trailing collection means the
	// collection's owner was not found.
	for i := len(parts) - 2; i >= 0; i-- {
		if n, ok := names[parts[i]]; ok {
			return n
		}
	}
	return "resource"
}

func roundUp(d time.Duration) string {
	m := int((d + time.Minute - 1) / time.Minute)
	if m <= 1 {
		return "a minute"
	}
	return fmt.Sprintf("%d minutes", m)
}

// NetError is a request that got no answer from YNAB: the connection failed or broke. For a
// write it means the outcome is unknown.
type NetError struct {
	Method, Path string
	Err          error
}

func (e *NetError) Error() string {
	return fmt.Sprintf("could not reach YNAB (%s %s): %v", e.Method, e.Path, e.Err)
}

func (e *NetError) Unwrap() error { return e.Err }
