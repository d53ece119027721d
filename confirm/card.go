package confirm

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The card (§2.4 of the confirmation contract), exchange version 2: in a host that renders MCP
// Apps and cannot elicit, the person answers on a card the host draws, and the model never holds
// anything it could confirm with.
//
// Real hosts hand the card the tool result without _meta and structuredContent (Claude Desktop
// with a local server: modelcontextprotocol/ext-apps#696, apify/apify-mcp-server#1187), or with
// _meta replaced (ChatGPT on the web: openai/openai-apps-sdk-examples#231), while the answers to
// the card's own tools/call arrive whole (#1187). So the pending result carries only a handle
// (16 random bytes, in the structured content and as the text's last line), which confirms
// nothing alone; the card, once drawn, calls the app-only tool open_confirmation with it
// ([Asker.OpenCard]), which says the card is on screen and gives the card the change to show
// and a fresh token; the card's buttons call the app-only answer_confirmation with that token
// ([Asker.RedeemCard]). Redeeming gives back the call the card was issued for, which the tools
// run again with the Card in their context, so the answer goes through Ask and the same write
// path as a form's answer; its outcome is kept on the handle ([Asker.SettleCard]) for a card
// mounted again.
//
// A card that is not drawn (§2.4.6; Qwen Code 0.24.4 declares the extension and never draws):
// the same change asked again 10 s or more after its first pending answer, with no card for it
// opened, gets §3's cancel — a code, or under RequireElicitation [ErrCardNotShown]. Sooner, or
// once a card for it was opened, it is pending again with a new handle, and the old one is
// superseded.

// ModeApp is a change the person confirmed on the card.
const ModeApp Mode = "app"

const (
	// AppExtension is the MCP Apps extension a host declares in its capabilities.
	AppExtension = "io.modelcontextprotocol/ui"
	// AppMIMEType is the MIME type of an MCP App's HTML resource; a host that renders MCP Apps
	// lists it in the extension's mimeTypes.
	AppMIMEType = "text/html;profile=mcp-app"
	// CardVersion is the version of the exchange between the card and avenir. A card from a host's
	// cache that speaks another is refused ([ErrCardOutdated]), never half understood.
	CardVersion = 2

	statusPending  = "confirmation_pending"
	cardTokenBytes = 16 // 22 base64url characters
	handleBytes    = 16 // 22 base64url characters

	// AnswerAccept and AnswerDecline are the answers a card gives.
	AnswerAccept  = "accept"
	AnswerDecline = "decline"

	// The states of a card's handle, as open_confirmation tells them.
	CardPending    = "pending"
	CardAnswered   = "answered"
	CardExpired    = "expired"
	CardSuperseded = "superseded"
)

// NotDrawnAfter is how long after a change's first pending answer a repeated call for it, with
// no card for it opened, means the client did not draw the card (§2.4.6). Sooner, the repeat is
// taken for an impatient model, and it is pending again.
const NotDrawnAfter = 10 * time.Second

// handleRetention is how long a handle's record stays after its card was asked: hosts mount
// cards again from the transcript long after, and the card then shows what became of its change
// rather than "unknown card".
const handleRetention = 24 * time.Hour

// swapTries bounds the retries of a record that others keep moving: each try is a load and a
// conditional store, and losing eight in a row means a storm no person makes.
const swapTries = 8

// cardMessage tells the model what happens now: the person answers on the card.
const cardMessage = "Nothing was written yet. The user is asked to confirm this change on the card shown with this result; only their click there writes it. Wait for their answer: the card tells the conversation the outcome. If the user says no card appeared, call this tool again with the same arguments, not sooner than 10 seconds after this call, to get another way to confirm."

// ErrBadAnswer is answer_confirmation's answer when `answer` is neither accept nor decline.
var ErrBadAnswer = errors.New("answer: must be accept or decline; nothing was written")

// ErrUnknownCard is open_confirmation's answer for a handle it does not know. It says nothing of
// whether the handle ever existed.
var ErrUnknownCard = errors.New("unknown card")

// reasonError is an error that names its reason (reasons.md): a stable token the views and
// clients switch on, while the text stays for the person and the model.
type reasonError struct{ text, reason string }

func (e *reasonError) Error() string  { return e.text }
func (e *reasonError) Reason() string { return e.reason }

var (
	// ErrCardRefused refuses a card's token that is unknown, used, expired, foreign, or of a
	// card that was superseded or answered: §5's sentence, reason card_refused.
	ErrCardRefused error = &reasonError{ErrCodeRefused.Error(), "card_refused"}
	// ErrCardOutdated refuses an answer from a card of another exchange version (a host kept an
	// old card across an avenir upgrade, or the other way round): reason card_outdated.
	ErrCardOutdated error = &reasonError{"This card is from another version of avenir than the server it answers, so it cannot confirm. Nothing was written; close the card and ask for the change again.", "card_outdated"}
	// ErrCardNotShown is §2.4.6 under RequireElicitation: the client declared the MCP Apps
	// extension but did not draw the card, and codes are disabled. Reason card_not_shown.
	ErrCardNotShown error = &reasonError{"This client said it shows avenir's confirmation card but did not show it, and this server accepts only the user's own answer (AVENIR_MCP_REQUIRE_ELICITATION=1). Nothing was changed; use a client that shows the card or supports elicitation.", "card_not_shown"}
)

// RendersApps reports whether a client declared that it renders MCP Apps: the extension, with
// the MCP App MIME type among its mimeTypes.
func RendersApps(c *mcp.ClientCapabilities) bool {
	if c == nil || c.Extensions == nil {
		return false
	}
	settings, ok := c.Extensions[AppExtension].(map[string]any)
	if !ok {
		return false
	}
	types, _ := settings["mimeTypes"].([]any)
	return slices.ContainsFunc(types, func(t any) bool { s, _ := t.(string); return s == AppMIMEType })
}

// CardLine is one change as the card shows it: label, before → after.
type CardLine struct {
	Label  string `json:"label"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// CardPreview is the change a card shows: its first line, every change line, the warnings.
type CardPreview struct {
	FirstLine string     `json:"first_line"`
	Lines     []CardLine `json:"lines"`
	Warnings  []string   `json:"warnings"`
}

// CardOutcome is what became of a card's change once it was answered: the write's result.
type CardOutcome struct {
	Status      string `json:"status"`
	Reason      string `json:"reason,omitempty"`
	OperationID string `json:"operation_id,omitempty"`
	Message     string `json:"message,omitempty"`
}

// CardView is open_confirmation's answer: what the card shows, and, while the change is pending,
// the token its buttons answer with.
type CardView struct {
	Version          int          `json:"version"`
	State            string       `json:"state" jsonschema:"pending, answered, expired or superseded"`
	Tool             string       `json:"tool"`
	Preview          CardPreview  `json:"preview"`
	Token            string       `json:"token,omitempty" jsonschema:"while pending: the one-time token answer_confirmation takes"`
	ExpiresInSeconds int          `json:"expires_in_seconds,omitempty"`
	Outcome          *CardOutcome `json:"outcome,omitempty" jsonschema:"once answered: the write's result"`
}

// Card is a card's answer whose token was redeemed: the call it was issued for (its tool and the
// arguments as the client sent them) and what the person said.
type Card struct {
	Tool      string
	Arguments json.RawMessage
	Accept    bool

	fingerprint string
	args        string    // the digest of the arguments Ask saw
	handle      TokenHash // where the outcome is kept
}

type cardKey struct{}

// WithCard returns ctx carrying the card's answer: Ask, asked for the call the card was issued
// for, takes it as the person's answer.
func WithCard(ctx context.Context, c Card) context.Context {
	return context.WithValue(ctx, cardKey{}, c)
}

// Answering reports whether ctx carries a card's answer: the call answers a question rather than
// asking one.
func Answering(ctx context.Context) bool {
	_, ok := ctx.Value(cardKey{}).(Card)
	return ok
}

// handleRecord is a card's handle as the Store keeps it (KindHandle).
type handleRecord struct {
	Tool        string          `json:"tool"`
	Fingerprint string          `json:"fp"`
	Args        string          `json:"args"`
	Arguments   json.RawMessage `json:"arguments,omitempty"`
	Change      string          `json:"change"` // hex of the change's hash (KindChange)
	Preview     CardPreview     `json:"preview"`
	State       string          `json:"state"`           // pending, answered or superseded; expired is pending past Pending
	Pending     int64           `json:"pending"`         // stamp: until when it may be answered
	Token       string          `json:"token,omitempty"` // hex of the live token's hash, once opened
	Outcome     *CardOutcome    `json:"outcome,omitempty"`
}

// changeRecord is one change asked on cards (KindChange), by tool and arguments.
type changeRecord struct {
	First  int64  `json:"first"`            // stamp of its first pending answer
	Opened bool   `json:"opened"`           // a card for it told avenir it is on screen
	Handle string `json:"handle,omitempty"` // hex of the current handle's hash; "" once a code was given
}

func changeHash(tool, args string) TokenHash { return HashToken(KindChange, tool+"\x00"+args) }

func hexHash(h TokenHash) string { return hex.EncodeToString(h[:]) }

func parseHash(s string) (TokenHash, bool) {
	var h TokenHash
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(h) {
		return h, false
	}
	copy(h[:], b)
	return h, true
}

// duration converts a span of stamps back to a duration.
func (a *Asker) since(stamp int64, now time.Time) time.Duration {
	return time.Duration(a.stamp(now) - stamp)
}

func decodeRecord[T any](r Record) (T, error) {
	var v T
	if err := json.Unmarshal(r.Data, &v); err != nil {
		return v, fmt.Errorf("reading a card's record: %w", err)
	}
	return v, nil
}

func encodeRecord(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain values only
	}
	return b
}

// issueCard asks on a card: a new handle for q's change, unless the client evidently did not
// draw the card it was given for the same change (§2.4.6), which is §3's cancel.
func (a *Asker) issueCard(ctx context.Context, req *mcp.CallToolRequest, q Question, fp string) (Decision, error) {
	args, err := argsDigest(q.Args)
	if err != nil {
		return Decision{}, err
	}
	ch := changeHash(q.Tool, args)
	for range swapTries {
		now := a.now()
		cur, found, err := a.load(ctx, KindChange, ch, now)
		if err != nil {
			return Decision{}, err
		}
		var rec changeRecord
		if found {
			if rec, err = decodeRecord[changeRecord](cur); err != nil {
				return Decision{}, err
			}
		}
		var old []byte
		if found {
			old = cur.Data
		}
		if found && !rec.Opened && a.since(rec.First, now) >= NotDrawnAfter {
			// Not drawn: the card given for this change never said it was on screen.
			next := rec
			next.Handle = ""
			if ok, err := a.swap(ctx, KindChange, ch, old, Record{Data: encodeRecord(next), Expires: cur.Expires}, now); err != nil {
				return Decision{}, err
			} else if !ok {
				continue
			}
			if err := a.supersede(ctx, rec.Handle, now); err != nil {
				return Decision{}, err
			}
			a.log.Info("a card was not drawn; asking the other way", "tool", q.Tool)
			if a.requireElicitation {
				return Decision{}, ErrCardNotShown
			}
			return a.issueCode(ctx, q, fp)
		}
		handle, err := a.token(handleBytes)
		if err != nil {
			return Decision{}, err
		}
		hh := HashToken(KindHandle, handle)
		hrec := handleRecord{Tool: q.Tool, Fingerprint: fp, Args: args, Arguments: slices.Clone(req.Params.Arguments),
			Change: hexHash(ch), Preview: q.Card, State: CardPending, Pending: a.stamp(now.Add(lifetime))}
		if hrec.Preview.FirstLine == "" {
			hrec.Preview.FirstLine = q.Preview
		}
		if ok, err := a.swap(ctx, KindHandle, hh, nil, Record{Data: encodeRecord(hrec), Expires: now.Add(handleRetention)}, now); err != nil {
			return Decision{}, err
		} else if !ok {
			continue // 128 random bits met a live handle: never, but then draw again
		}
		next := changeRecord{First: a.stamp(now), Handle: hexHash(hh)}
		expires := now.Add(lifetime)
		if found {
			next.First, next.Opened, expires = rec.First, rec.Opened, cur.Expires
		}
		if ok, err := a.swap(ctx, KindChange, ch, old, Record{Data: encodeRecord(next), Expires: expires}, now); err != nil {
			return Decision{}, err
		} else if !ok {
			continue // the new handle was never given out: it stays pending and unknown to anyone
		}
		if found {
			if err := a.supersede(ctx, rec.Handle, now); err != nil {
				return Decision{}, err
			}
		}
		return Decision{Fingerprint: fp, Reply: &Reply{
			Status:  statusPending,
			Preview: q.Preview,
			Message: cardMessage,
			Handle:  handle,
		}}, nil
	}
	return Decision{}, a.storeFailed("asking on a card", errors.New("the change's record kept moving"))
}

// supersede marks a pending handle superseded and voids its live token, so its card, mounted
// again, offers no Confirm. "" is no handle.
func (a *Asker) supersede(ctx context.Context, handle string, now time.Time) error {
	hh, ok := parseHash(handle)
	if !ok {
		return nil
	}
	for range swapTries {
		cur, found, err := a.load(ctx, KindHandle, hh, now)
		if err != nil || !found {
			return err
		}
		rec, err := decodeRecord[handleRecord](cur)
		if err != nil {
			return err
		}
		if rec.State != CardPending {
			return nil
		}
		token := rec.Token
		rec.State, rec.Token = CardSuperseded, ""
		ok, err := a.swap(ctx, KindHandle, hh, cur.Data, Record{Data: encodeRecord(rec), Expires: cur.Expires}, now)
		if err != nil {
			return err
		}
		if ok {
			return a.void(ctx, token, now)
		}
	}
	return a.storeFailed("superseding a card", errors.New("the handle's record kept moving"))
}

// void takes a card's token out of the store by its hash (hex), so it confirms nothing.
func (a *Asker) void(ctx context.Context, token string, now time.Time) error {
	th, ok := parseHash(token)
	if !ok {
		return nil
	}
	if _, _, err := a.store.Take(ctx, KindCard, th, now); err != nil {
		return a.storeFailed("voiding a card's token", err)
	}
	return nil
}

// OpenCard is open_confirmation: a card, drawn, tells avenir it is on screen and gets what to
// show. For a pending change it gets a fresh token (16 random bytes, 600 s, used once, bound to
// the fingerprint, the tool and the arguments); each open voids the token of the one before. An
// unknown handle is ErrUnknownCard, whatever the reason.
func (a *Asker) OpenCard(ctx context.Context, handle string) (CardView, error) {
	if err := ctx.Err(); err != nil {
		return CardView{}, err
	}
	if !wellFormed(handle, handleBytes) {
		return CardView{}, ErrUnknownCard
	}
	hh := HashToken(KindHandle, handle)
	for range swapTries {
		now := a.now()
		cur, found, err := a.load(ctx, KindHandle, hh, now)
		if err != nil {
			return CardView{}, err
		}
		if !found {
			return CardView{}, ErrUnknownCard
		}
		rec, err := decodeRecord[handleRecord](cur)
		if err != nil {
			return CardView{}, err
		}
		view := CardView{Version: CardVersion, State: rec.State, Tool: rec.Tool, Preview: rec.Preview, Outcome: rec.Outcome}
		if view.Preview.Lines == nil {
			view.Preview.Lines = []CardLine{}
		}
		if view.Preview.Warnings == nil {
			view.Preview.Warnings = []string{}
		}
		if rec.State != CardPending {
			return view, nil
		}
		if a.stamp(now) >= rec.Pending {
			view.State = CardExpired
			return view, nil
		}
		current, err := a.markOpened(ctx, rec.Change, hexHash(hh), now)
		if err != nil {
			return CardView{}, err
		}
		if !current { // another handle, or a code, took over this change
			if err := a.supersede(ctx, hexHash(hh), now); err != nil {
				return CardView{}, err
			}
			view.State = CardSuperseded
			return view, nil
		}
		token, err := a.token(cardTokenBytes)
		if err != nil {
			return CardView{}, err
		}
		expires := now.Add(lifetime)
		t := Ticket{Tool: rec.Tool, Fingerprint: rec.Fingerprint, Args: rec.Args, Arguments: rec.Arguments, Handle: hh, Expires: expires}
		if err := a.add(ctx, KindCard, token, t, now); err != nil {
			return CardView{}, err
		}
		th := HashToken(KindCard, token)
		previous := rec.Token
		rec.Token, rec.Pending = hexHash(th), a.stamp(expires)
		ok, err := a.swap(ctx, KindHandle, hh, cur.Data, Record{Data: encodeRecord(rec), Expires: cur.Expires}, now)
		if err != nil || !ok {
			if verr := a.void(ctx, hexHash(th), now); verr != nil && err == nil {
				err = verr
			}
			if err != nil {
				return CardView{}, err
			}
			continue
		}
		if err := a.void(ctx, previous, now); err != nil {
			return CardView{}, err
		}
		view.Token, view.ExpiresInSeconds = token, int(lifetime/time.Second)
		return view, nil
	}
	return CardView{}, a.storeFailed("opening a card", errors.New("the handle's record kept moving"))
}

// markOpened records that the card of handle (hex) for change (hex) is on screen, and reports
// whether that handle is still the change's current one. A change whose record has expired
// while its card stayed pending starts again from this card.
func (a *Asker) markOpened(ctx context.Context, change, handle string, now time.Time) (bool, error) {
	ch, ok := parseHash(change)
	if !ok {
		return false, nil
	}
	for range swapTries {
		cur, found, err := a.load(ctx, KindChange, ch, now)
		if err != nil {
			return false, err
		}
		next := changeRecord{First: a.stamp(now), Opened: true, Handle: handle}
		expires := now.Add(lifetime)
		var old []byte
		if found {
			rec, err := decodeRecord[changeRecord](cur)
			if err != nil {
				return false, err
			}
			if rec.Handle != handle {
				return false, nil
			}
			if rec.Opened {
				return true, nil
			}
			old, next.First, expires = cur.Data, rec.First, cur.Expires
		}
		ok, err := a.swap(ctx, KindChange, ch, old, Record{Data: encodeRecord(next), Expires: expires}, now)
		if err != nil {
			return false, err
		}
		if ok {
			return true, nil
		}
	}
	return false, a.storeFailed("opening a card", errors.New("the change's record kept moving"))
}

// RedeemCard spends a card's token and returns the call it confirms. The token goes at its
// first use, whatever follows, so a second click (or a replay) confirms nothing; its handle is
// marked answered at once, so the card mounted again offers no Confirm. A version other than
// CardVersion is ErrCardOutdated; an unknown, used, expired or foreign token, or one of a card
// superseded since, is ErrCardRefused. A failing Store is an error wrapping ErrStore, and
// nothing is confirmed.
func (a *Asker) RedeemCard(ctx context.Context, token, answer string, version int) (Card, error) {
	if answer != AnswerAccept && answer != AnswerDecline {
		return Card{}, ErrBadAnswer
	}
	if err := ctx.Err(); err != nil {
		return Card{}, err
	}
	if !wellFormed(token, cardTokenBytes) { // never issued, so nothing to spend or look up
		if version != CardVersion {
			return Card{}, ErrCardOutdated
		}
		return Card{}, ErrCardRefused
	}
	now := a.now()
	t, ok, err := a.take(ctx, KindCard, token, now)
	if err != nil {
		return Card{}, err
	}
	if version != CardVersion { // spent all the same: a token counts once, whatever its answer
		return Card{}, ErrCardOutdated
	}
	if !ok || t.Handle == (TokenHash{}) {
		return Card{}, ErrCardRefused
	}
	th := hexHash(HashToken(KindCard, token))
	for range swapTries {
		cur, found, err := a.load(ctx, KindHandle, t.Handle, now)
		if err != nil {
			return Card{}, err
		}
		if !found {
			return Card{}, ErrCardRefused
		}
		rec, err := decodeRecord[handleRecord](cur)
		if err != nil {
			return Card{}, err
		}
		if rec.State != CardPending || rec.Token != th || rec.Tool != t.Tool || rec.Fingerprint != t.Fingerprint || rec.Args != t.Args {
			return Card{}, ErrCardRefused
		}
		rec.State, rec.Token = CardAnswered, ""
		ok, err := a.swap(ctx, KindHandle, t.Handle, cur.Data, Record{Data: encodeRecord(rec), Expires: cur.Expires}, now)
		if err != nil {
			return Card{}, err
		}
		if ok {
			return Card{Tool: t.Tool, Arguments: t.Arguments, Accept: answer == AnswerAccept,
				fingerprint: t.Fingerprint, args: t.Args, handle: t.Handle}, nil
		}
	}
	return Card{}, a.storeFailed("answering a card", errors.New("the handle's record kept moving"))
}

// SettleCard keeps the outcome of c's change on its handle, for its card mounted again. A
// failure is logged and returned; the write's own result stands either way.
func (a *Asker) SettleCard(ctx context.Context, c Card, o CardOutcome) error {
	if c.handle == (TokenHash{}) {
		return nil
	}
	for range swapTries {
		now := a.now()
		cur, found, err := a.load(ctx, KindHandle, c.handle, now)
		if err != nil || !found {
			return err
		}
		rec, err := decodeRecord[handleRecord](cur)
		if err != nil {
			return err
		}
		if rec.State != CardAnswered || rec.Outcome != nil {
			return nil
		}
		rec.Outcome = &o
		ok, err := a.swap(ctx, KindHandle, c.handle, cur.Data, Record{Data: encodeRecord(rec), Expires: cur.Expires}, now)
		if err != nil || ok {
			return err
		}
	}
	return a.storeFailed("keeping a card's outcome", errors.New("the handle's record kept moving"))
}

// answerCard reads a card's answer for q: only for the call its token was issued for, and only
// while the change is still the one the card showed.
func (a *Asker) answerCard(c Card, q Question, fp string) (Decision, error) {
	args, err := argsDigest(q.Args)
	if err != nil {
		return Decision{}, err
	}
	if c.Tool != q.Tool || c.args != args {
		return Decision{}, ErrCardRefused
	}
	if !c.Accept {
		return declined(q, fp, declinedMessage), nil
	}
	if c.fingerprint != fp {
		return Decision{}, ErrPlanChanged
	}
	return Decision{Proceed: true, Mode: ModeApp, Fingerprint: fp}, nil
}
