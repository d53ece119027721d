package confirm

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The card (§2.4 of the confirmation contract): in a host that renders MCP Apps and cannot
// elicit, the person answers on a card the host draws, and the model never holds anything it
// could confirm with. The first call issues a one-time token that travels only in the result's
// _meta, which hosts hand to the view and not to the model; the card's buttons call the app-only
// tool answer_confirmation with it. Redeeming the token gives back the call it was issued for,
// which the tools run again with the Card in their context, so the answer goes through Ask and
// the same write path as a form's answer.

// ModeApp is a change the person confirmed on the card.
const ModeApp Mode = "app"

const (
	// AppExtension is the MCP Apps extension a host declares in its capabilities.
	AppExtension = "io.modelcontextprotocol/ui"
	// AppMIMEType is the MIME type of an MCP App's HTML resource; a host that renders MCP Apps
	// lists it in the extension's mimeTypes.
	AppMIMEType = "text/html;profile=mcp-app"
	// MetaKey names the card's token in a pending result's _meta.
	MetaKey = "avenir/confirmation"

	statusPending  = "confirmation_pending"
	cardTokenBytes = 16 // 22 base64url characters

	// AnswerAccept and AnswerDecline are the answers a card gives.
	AnswerAccept  = "accept"
	AnswerDecline = "decline"
)

// cardMessage tells the model what happens now: the person answers on the card.
const cardMessage = "Nothing was written yet. The user is asked to confirm this change on the card shown with this result; only their click there writes it. Wait for their answer: the card tells the conversation the outcome. Do not call this tool again for this change."

// ErrBadAnswer is answer_confirmation's answer when `answer` is neither accept nor decline.
var ErrBadAnswer = errors.New("answer: must be accept or decline; nothing was written")

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

// CardToken is what a pending result carries in its _meta for the card, and nowhere else.
type CardToken struct {
	Token            string `json:"token"`
	ExpiresInSeconds int    `json:"expires_in_seconds"`
}

// Card is a card's answer whose token was redeemed: the call it was issued for (its tool and the
// arguments as the client sent them) and what the person said.
type Card struct {
	Tool      string
	Arguments json.RawMessage
	Accept    bool

	fingerprint string
	args        string // the digest of the arguments Ask saw
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

// RedeemCard spends a card's token and returns the call it confirms. The token goes at
// its first use, whatever follows, so a second click (or a replay) confirms nothing. An unknown,
// used, expired or foreign token is ErrCodeRefused: §5's sentence. A failing Store is an error
// wrapping ErrStore, and nothing is confirmed.
func (a *Asker) RedeemCard(ctx context.Context, token, answer string) (Card, error) {
	if answer != AnswerAccept && answer != AnswerDecline {
		return Card{}, ErrBadAnswer
	}
	if err := ctx.Err(); err != nil {
		return Card{}, err
	}
	if !wellFormed(token, cardTokenBytes) { // never issued, so nothing to spend or look up
		return Card{}, ErrCodeRefused
	}
	t, ok, err := a.take(ctx, KindCard, token, a.now())
	if err != nil {
		return Card{}, err
	}
	if !ok {
		return Card{}, ErrCodeRefused
	}
	return Card{Tool: t.Tool, Arguments: t.Arguments, Accept: answer == AnswerAccept, fingerprint: t.Fingerprint, args: t.Args}, nil
}

// issueCard asks on a card: a token bound to the fingerprint, the tool and the arguments.
func (a *Asker) issueCard(ctx context.Context, req *mcp.CallToolRequest, q Question, fp string) (Decision, error) {
	args, err := argsDigest(q.Args)
	if err != nil {
		return Decision{}, err
	}
	token, err := a.token(cardTokenBytes)
	if err != nil {
		return Decision{}, err
	}
	now := a.now()
	t := Ticket{Tool: q.Tool, Fingerprint: fp, Args: args, Arguments: slices.Clone(req.Params.Arguments), Expires: now.Add(lifetime)}
	if err := a.add(ctx, KindCard, token, t, now); err != nil {
		return Decision{}, err
	}
	return Decision{Fingerprint: fp, Reply: &Reply{
		Status:  statusPending,
		Preview: q.Preview,
		Message: cardMessage,
		Card:    &CardToken{Token: token, ExpiresInSeconds: int(lifetime / time.Second)},
	}}, nil
}

// answerCard reads a card's answer for q: only for the call its token was issued for, and only
// while the change is still the one the card showed.
func (a *Asker) answerCard(c Card, q Question, fp string) (Decision, error) {
	args, err := argsDigest(q.Args)
	if err != nil {
		return Decision{}, err
	}
	if c.Tool != q.Tool || c.args != args {
		return Decision{}, ErrCodeRefused
	}
	if !c.Accept {
		return declined(q, fp, declinedMessage), nil
	}
	if c.fingerprint != fp {
		return Decision{}, ErrPlanChanged
	}
	return Decision{Proceed: true, Mode: ModeApp, Fingerprint: fp}, nil
}
