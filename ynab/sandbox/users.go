package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The sandbox's people. Without an OAuth application (Options.OAuthClients) it has one user, its
// own: every token reaches the same sample plans, as a personal access token reaches its
// owner's. With one, each person who signs in on the consent page under a login name of their
// choosing becomes a user of their own, with their own copy of the sample (see userSample), and
// an OAuth access token reaches only its user's plans, as on YNAB, where two accounts share no
// plan unless one shares it. The copies live in the state file beside the sandbox's own plans.

// maxLogin bounds a login name, which is typed on the consent page.
const maxLogin = 100

// normalLogin checks the login name typed on the consent page and returns the one it stands
// for: trimmed and in lower case, since YNAB's logins are e-mail addresses, which people type
// in any case.
func normalLogin(raw string) (string, error) {
	login := strings.ToLower(strings.TrimSpace(raw))
	switch {
	case login == "":
		return "", errors.New("type a login name (any name: each one is a user of its own)")
	case utf8.RuneCountInString(login) > maxLogin:
		return "", fmt.Errorf("a login name has at most %d characters", maxLogin)
	case strings.ContainsFunc(login, unicode.IsControl):
		return "", errors.New("a login name has no control characters")
	}
	return login, nil
}

// UserPlanID returns the id of user's copy of a sample plan (PlanID, SecondPlanID or
// LargePlanID): the user who signed in with that login name on the consent page, in any case.
// The same login gets the same ids in every run, and no two users share one.
func UserPlanID(login, samplePlanID string) string {
	return userID(strings.ToLower(strings.TrimSpace(login)), samplePlanID)
}

// userID is the id an entity of the sample has in user login's copy.
func userID(login, id string) string { return uuidFor("oauth user", login, id) }

// sampleIDPattern matches the sample's ids, all name-based UUIDs (uuidFor) or written as such.
var sampleIDPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// userSample builds user login's copy of the sample smp, dated by now: the same plans, figures
// and names, but every id (plans, accounts, payees, categories, transactions, the user's own)
// renamed for this user, so that one user's ids name nothing of another's, as on YNAB. The copy
// goes through the state file's own JSON form, where the ids are the strings shaped like a
// UUID, values or keys (the assignments are keyed by category id); the numbers are kept exact.
func userSample(smp Sample, now time.Time, login string) (*world, error) {
	raw, err := json.Marshal(smp.build(now))
	if err != nil {
		return nil, fmt.Errorf("copy the sample for a user: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("copy the sample for a user: %w", err)
	}
	raw, err = json.Marshal(renameIDs(tree, func(id string) string { return userID(login, id) }))
	if err != nil {
		return nil, fmt.Errorf("copy the sample for a user: %w", err)
	}
	w := &world{}
	if err := json.Unmarshal(raw, w); err != nil {
		return nil, fmt.Errorf("copy the sample for a user: %w", err)
	}
	return w, nil
}

// renameIDs replaces every id in a decoded JSON tree, in values and in keys.
func renameIDs(v any, rename func(string) string) any {
	switch v := v.(type) {
	case string:
		if sampleIDPattern.MatchString(v) {
			return rename(v)
		}
	case []any:
		for i := range v {
			v[i] = renameIDs(v[i], rename)
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if sampleIDPattern.MatchString(k) {
				k = rename(k)
			}
			out[k] = renameIDs(x, rename)
		}
		return out
	}
	return v
}

// worldOf returns the plans a request reaches: the sandbox's own (login "") or user login's,
// made from the sample if the state holds none for them yet. Callers hold s.mu.
func (s *Sandbox) worldOf(login string) (*world, error) {
	if login == "" {
		return s.w, nil
	}
	if w := s.users[login]; w != nil {
		return w, nil
	}
	w, err := userSample(s.resetSample(), s.opts.Now(), login)
	if err != nil {
		return nil, err
	}
	s.users[login] = w
	return w, nil
}

// resetUsers restores every user's copy of the sample as Reset restores the sandbox's own
// plans. Callers hold s.mu.
func (s *Sandbox) resetUsers(smp Sample, now time.Time) error {
	for login, old := range s.users {
		fresh, err := userSample(smp, now, login)
		if err != nil {
			return err
		}
		s.users[login] = succeedWorld(fresh, old)
	}
	return nil
}

// succeedWorld makes the plans of a freshly built world take the place of old's (plan.succeed).
func succeedWorld(fresh, old *world) *world {
	for i, p := range fresh.Plans {
		if o := old.findPlan(p.ID); o != nil {
			fresh.Plans[i] = p.succeed(o)
		}
	}
	return fresh
}

// findUserPlan finds a plan by id among the users' copies. Callers hold s.mu.
func (s *Sandbox) findUserPlan(id string) *plan {
	for _, w := range s.users {
		if p := w.findPlan(id); p != nil {
			return p
		}
	}
	return nil
}
