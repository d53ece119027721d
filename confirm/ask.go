package confirm

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Mode says how a change was confirmed; the journal records it.
type Mode string

const (
	ModeMRTR   Mode = "mrtr"   // the user ticked the box in an input-required round trip (protocol 2026-07-28+)
	ModeElicit Mode = "elicit" // the user ticked the box in an elicitation/create sent during the call (older protocols)
	ModeCode   Mode = "code"   // the agent passed back a confirmation code
	// ModeApp (card.go): the user clicked Confirm on the card of a host that renders MCP Apps.
)

// AgentRule is the sentence the guide carries: when an agent may pass a confirmation code back,
// and why a code alone proves nothing.
const AgentRule = "Pass a confirmation code back only after the user has seen the preview and agreed to it: a code proves that a preview was made, not that anyone read it."

// ToolRule is AgentRule as every confirmed tool's description ends: short, because tools/list
// is carried into every conversation, and the guide says the rest.
const ToolRule = "Pass a code back only after the user agreed."

const (
	lifetime                   = 600 * time.Second // of a code and of a sealed state
	codeBytes                  = 8                 // 11 base64url characters
	nonceBytes                 = 16
	keyBytes                   = 32
	formKey                    = "confirm" // the one input request, and the one answer read
	formField                  = "value"   // the form's one boolean
	protocolMRTR               = "2026-07-28"
	statusDeclined             = "declined"
	statusConfirmationRequired = "confirmation_required"
)

// Messages for the agent in a Reply.
const (
	declinedMessage  = "Nothing was written."
	dismissedMessage = "The question was dismissed, and this server accepts only the user's own answer. Nothing was written."
	codeMessage      = "Nothing was written yet. Show the preview to the user. Only if the user agrees, call this tool again with the same arguments plus confirmation set to this code; it works once, for exactly these changes, within 600 seconds."
)

// Errors from Ask that become tool errors. Their text is read by the agent and the
// user, so each is a whole sentence; callers tell them apart with errors.Is and
// return them unwrapped so the text stays exact.
var (
	//lint:ignore ST1005 a whole sentence that the agent and the user read as it is (see above)
	ErrCodeRefused = errors.New("This confirmation code is unknown, expired, already used, or was issued for different changes. Call again without confirmation to get a new preview.")
	//lint:ignore ST1005 a whole sentence that the agent and the user read as it is (see above)
	ErrPlanChanged = errors.New("The plan changed between the preview and the answer. Nothing was written; call the tool again to see the new preview.")
	//lint:ignore ST1005 a whole sentence that the agent and the user read as it is (see above)
	ErrCodesDisabled = errors.New("Confirmation codes are disabled on this server (AVENIR_MCP_REQUIRE_ELICITATION=1): only the user's own answer in the client can confirm a change. Nothing was written; call again without confirmation so the client asks the user.")
	//lint:ignore ST1005 a whole sentence that the agent and the user read as it is (see above)
	ErrCannotAsk = errors.New("This client cannot ask the user to confirm (it does not support MCP form elicitation), and this server accepts only the user's own answer (AVENIR_MCP_REQUIRE_ELICITATION=1). Nothing was changed; use a client that supports elicitation, or unset the variable.")
)

// Options configures an Asker. A zero Clock, Rand, Store, Key or Logger takes the default, which
// is what a single avenir on one machine wants.
type Options struct {
	// RequireElicitation (AVENIR_MCP_REQUIRE_ELICITATION=1) lets only the user's own
	// answer in the client confirm: no codes, and a dismissed question is declined.
	RequireElicitation bool
	// AlwaysCode (AVENIR_MCP_CONFIRM=code) confirms every change by code, even where
	// the client declares elicitation: for clients that declare it and never show the
	// question (they decline or drop it, and every write would fail without the user
	// ever seeing why). It contradicts RequireElicitation; New refuses the pair.
	AlwaysCode bool
	// Clock is read for the lifetimes of codes, states and cards' tokens. Default time.Now.
	// Without a Store only its monotonic reading counts, so a wall-clock jump changes
	// nothing; with a Store only its wall-clock reading counts (see Store).
	Clock func() time.Time
	// Rand supplies codes, nonces, cards' tokens and, without a Key, the sealing key.
	// Default crypto/rand.
	Rand io.Reader
	// Store keeps the live single-use tokens. Default: a MemoryStore of this Asker's own, so
	// a restart forgets every one. A Store given here may be shared by instances on several
	// machines (hosted avenir keeps it in PostgreSQL), where a monotonic reading means
	// nothing: the Asker then counts every lifetime, its tickets' and its sealed states', on
	// the wall clock, and the instances' clocks must agree to well within the 600 s (NTP).
	Store Store
	// Key seals request states: at least 32 bytes, the same on every instance that must open
	// another's states ([DeriveKey] makes it from AVENIR_MCP_SECRET_KEY). Default: 32 bytes
	// drawn from Rand, so a restart voids every state.
	Key []byte
	// Logger is told why a Store failed; the error the caller gets says only that it did.
	// Default slog.Default().
	Logger *slog.Logger
}

// Asker decides, for each write, whether it may go ahead. It keeps the live codes,
// unanswered states' nonces and cards' tokens in its Store and is safe for concurrent use.
type Asker struct {
	requireElicitation bool
	alwaysCode         bool
	clock              func() time.Time
	// wall: lifetimes count on the wall clock, because the store may be shared across
	// machines; else on the monotonic clock, and sealed expiries count from epoch.
	wall  bool
	epoch time.Time
	key   []byte // seals request states
	store Store  // live token hash → what it confirms
	log   *slog.Logger

	mu   sync.Mutex // guards rand: a caller's reader need not be safe for concurrent use
	rand io.Reader
}

// ErrContradictoryModes is New's answer to RequireElicitation with AlwaysCode: one
// accepts only the user's own answer in the client, the other never asks there.
var ErrContradictoryModes = errors.New("AVENIR_MCP_CONFIRM=code and AVENIR_MCP_REQUIRE_ELICITATION=1 contradict each other: the first confirms every change by a code the agent passes back, the second refuses codes and accepts only the user's own answer in the client. Unset one of them")

// ErrShortKey is New's answer to an Options.Key shorter than 32 bytes.
var ErrShortKey = errors.New("the key that seals confirmation state must be at least 32 bytes")

// New returns an Asker. With the defaults it draws a fresh sealing key from opts.Rand and
// keeps its tokens in memory, so a new Asker (a restart) invalidates every request state,
// code and card issued before; Askers given one Store and one Key redeem each other's.
func New(opts Options) (*Asker, error) {
	if opts.RequireElicitation && opts.AlwaysCode {
		return nil, ErrContradictoryModes
	}
	a := &Asker{
		requireElicitation: opts.RequireElicitation,
		alwaysCode:         opts.AlwaysCode,
		clock:              opts.Clock,
		rand:               opts.Rand,
		store:              opts.Store,
		wall:               opts.Store != nil,
		log:                opts.Logger,
	}
	if a.clock == nil {
		a.clock = time.Now
	}
	if a.rand == nil {
		a.rand = rand.Reader
	}
	if a.store == nil {
		a.store = NewMemoryStore()
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	switch {
	case opts.Key == nil:
		a.key = make([]byte, keyBytes)
		if _, err := io.ReadFull(a.rand, a.key); err != nil {
			return nil, fmt.Errorf("drawing the key that seals confirmation state: %w", err)
		}
	case len(opts.Key) < keyBytes:
		return nil, fmt.Errorf("%w, not %d", ErrShortKey, len(opts.Key))
	default:
		a.key = bytes.Clone(opts.Key)
	}
	a.epoch = a.now()
	return a, nil
}

// now reads the clock as the Asker counts time: with the monotonic reading when its tokens
// stay in this process, without it when they may be read on another machine.
func (a *Asker) now() time.Time {
	t := a.clock()
	if a.wall {
		return t.Round(0)
	}
	return t
}

// Question is one write waiting for confirmation.
type Question struct {
	Tool         string // the tool's name, bound into the sealed state and the code
	PlanID       string // the resolved plan id
	Subject      any    // the exact change as data; must have a canonical form (see Canonical)
	Preview      string // the text the user sees
	Args         any    // the tool's arguments without the confirmation code, bound into the sealed state
	Confirmation string // the confirmation argument, if the agent passed one
	// Card is the change as a card shows it (open_confirmation), for a client that draws one;
	// without a first line, the card's is Preview.
	Card CardPreview
}

// Decision is Ask's answer. Exactly one of: Proceed (write now; Mode says how it
// was confirmed), Input (an input-required result to return as is from the tool
// handler), or Reply (a normal tool result: declined or confirmation_required).
// Fingerprint is the subject's fingerprint whenever Ask returns no error.
type Decision struct {
	Proceed     bool
	Mode        Mode
	Fingerprint string
	Input       *mcp.CallToolResult
	Reply       *Reply
}

// Reply is a tool result that writes nothing.
type Reply struct {
	Status           string `json:"status"` // "declined", "confirmation_required" or "confirmation_pending"
	Preview          string `json:"preview"`
	Confirmation     string `json:"confirmation,omitempty"`       // the code, for confirmation_required
	ExpiresInSeconds int    `json:"expires_in_seconds,omitempty"` // 600 when issued
	Message          string `json:"message"`                      // what the agent should do next
	// Handle, for confirmation_pending, names the card's change to open_confirmation. It is no
	// secret and confirms nothing alone: the result carries it where the model reads too.
	Handle string `json:"-"`
}

// Ask decides whether q's change may be written now. It picks one of the three
// ways described in the package doc from req: the answer leg when req carries a
// request state (a confirmation in q is then ignored), the code leg when q carries
// a confirmation, else the first call.
//
// Errors: a *jsonrpc.Error, to be returned unwrapped, for a request state that
// does not verify (invalid params) and for a 2026-07-28 client without
// elicitation under RequireElicitation (-32021); ErrCodeRefused, ErrPlanChanged,
// ErrCodesDisabled and ErrCannotAsk; or a plain error when q is incomplete or
// randomness fails. An error always means: write nothing.
func (a *Asker) Ask(ctx context.Context, req *mcp.CallToolRequest, q Question) (Decision, error) {
	if err := ctx.Err(); err != nil {
		return Decision{}, err
	}
	if req == nil || req.Params == nil {
		return Decision{}, errors.New("confirming a change: the call has no request")
	}
	if q.Tool == "" || q.Preview == "" {
		return Decision{}, errors.New("confirming a change: the question needs a tool name and a preview")
	}
	fp, err := Fingerprint(q.PlanID, q.Subject)
	if err != nil {
		return Decision{}, fmt.Errorf("confirming %s: %w", q.Tool, err)
	}
	if c, ok := ctx.Value(cardKey{}).(Card); ok {
		return a.answerCard(c, q, fp)
	}
	switch {
	case req.Params.RequestState != "":
		return a.answer(ctx, req, q, fp)
	case q.Confirmation != "":
		return a.redeemCode(ctx, q, fp)
	default:
		return a.ask(ctx, req, q, fp)
	}
}

// ask puts the question: as a form when the client can show one (and codes are not
// forced), else as a code.
func (a *Asker) ask(ctx context.Context, req *mcp.CallToolRequest, q Question, fp string) (Decision, error) {
	if !a.alwaysCode && formElicitation(req.ClientCapabilities()) {
		state, err := a.issueState(ctx, q, fp)
		if err != nil {
			return Decision{}, err
		}
		return Decision{Fingerprint: fp, Input: &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{formKey: confirmForm(q.Preview)},
			RequestState:  state,
		}}, nil
	}
	if !a.alwaysCode && RendersApps(req.ClientCapabilities()) {
		return a.issueCard(ctx, req, q, fp) // the person's own click; allowed when only that may confirm
	}
	if a.requireElicitation {
		if speaksMRTR(req) {
			return Decision{}, missingElicitation()
		}
		return Decision{}, ErrCannotAsk
	}
	return a.issueCode(ctx, q, fp)
}

// answer reads the user's answer to a form, after checking that the sealed state
// is genuine, live, unspent and still about the same change.
func (a *Asker) answer(ctx context.Context, req *mcp.CallToolRequest, q Question, fp string) (Decision, error) {
	args, err := argsDigest(q.Args)
	if err != nil {
		return Decision{}, err
	}
	sealed, ok, err := a.spendState(ctx, req.Params.RequestState, q.Tool, args)
	if err != nil {
		return Decision{}, err
	}
	if !ok {
		return Decision{}, invalidState()
	}
	// fp was computed from fresh data: a different one means the plan moved
	// between the question and the answer.
	if sealed.Fingerprint != fp {
		return Decision{}, ErrPlanChanged
	}
	res, answered := req.Params.InputResponses[formKey].(*mcp.ElicitResult)
	if !answered || res == nil {
		return a.ask(ctx, req, q, fp) // no answer: ask again, as the protocol says
	}
	switch res.Action {
	case "accept":
		// The 2026 path is not validated against the form, so only a JSON true counts.
		if ticked, _ := res.Content[formField].(bool); ticked {
			return Decision{Proceed: true, Mode: modeOf(req), Fingerprint: fp}, nil
		}
		return declined(q, fp, declinedMessage), nil
	case "cancel":
		// Dismissing is not refusing: a headless client dismisses everything.
		if a.requireElicitation {
			return declined(q, fp, dismissedMessage), nil
		}
		return a.issueCode(ctx, q, fp)
	default:
		return declined(q, fp, declinedMessage), nil
	}
}

// redeemCode spends the agent's code and proceeds only if it was live and issued
// for exactly this change.
// The code is spent even when it does not match, so a wrong guess costs the guesser the code,
// never gives a second try.
func (a *Asker) redeemCode(ctx context.Context, q Question, fp string) (Decision, error) {
	if a.requireElicitation {
		return Decision{}, ErrCodesDisabled
	}
	if !wellFormed(q.Confirmation, codeBytes) { // never issued, so nothing to spend or look up
		return Decision{}, ErrCodeRefused
	}
	t, ok, err := a.take(ctx, KindCode, q.Confirmation, a.now())
	if err != nil {
		return Decision{}, err
	}
	if !ok || t.Tool != q.Tool || t.Fingerprint != fp {
		return Decision{}, ErrCodeRefused
	}
	return Decision{Proceed: true, Mode: ModeCode, Fingerprint: fp}, nil
}

func (a *Asker) issueCode(ctx context.Context, q Question, fp string) (Decision, error) {
	code, err := a.token(codeBytes)
	if err != nil {
		return Decision{}, err
	}
	now := a.now()
	if err := a.add(ctx, KindCode, code, Ticket{Tool: q.Tool, Fingerprint: fp, Expires: now.Add(lifetime)}, now); err != nil {
		return Decision{}, err
	}
	return Decision{Fingerprint: fp, Reply: &Reply{
		Status:           statusConfirmationRequired,
		Preview:          q.Preview,
		Confirmation:     code,
		ExpiresInSeconds: int(lifetime / time.Second),
		Message:          codeMessage,
	}}, nil
}

func (a *Asker) issueState(ctx context.Context, q Question, fp string) (string, error) {
	args, err := argsDigest(q.Args)
	if err != nil {
		return "", err
	}
	nonce, err := a.token(nonceBytes)
	if err != nil {
		return "", err
	}
	now := a.now()
	expires := now.Add(lifetime)
	sealed, err := a.seal(claims{
		Fingerprint: fp,
		Tool:        q.Tool,
		Args:        args,
		Expires:     a.stamp(expires),
		Nonce:       nonce,
	})
	if err != nil {
		return "", err
	}
	if err := a.add(ctx, KindState, nonce, Ticket{Tool: q.Tool, Fingerprint: fp, Args: args, Expires: expires}, now); err != nil {
		return "", err
	}
	return sealed, nil
}

// spendState verifies state and spends its nonce. The nonce goes at the first verified use,
// whatever the answer turns out to be, so no state counts twice. ok is false for a state that
// does not verify or is spent; err is the store's failure.
func (a *Asker) spendState(ctx context.Context, state, tool, args string) (claims, bool, error) {
	now := a.now()
	c, err := a.open(state, tool, args, now)
	if err != nil {
		return claims{}, false, nil
	}
	t, ok, err := a.take(ctx, KindState, c.Nonce, now)
	if err != nil || !ok || t.Tool != c.Tool || t.Fingerprint != c.Fingerprint || t.Args != c.Args {
		return claims{}, false, err
	}
	return c, true, nil
}

// token draws n random bytes as base64url without padding.
func (a *Asker) token(n int) (string, error) {
	buf := make([]byte, n)
	a.mu.Lock()
	_, err := io.ReadFull(a.rand, buf)
	a.mu.Unlock()
	if err != nil {
		return "", fmt.Errorf("drawing a random confirmation token: %w", err)
	}
	return b64.EncodeToString(buf), nil
}

// wellFormed reports whether s could be a token of n random bytes as token makes them, so
// that what cannot have been issued is refused without asking the store.
func wellFormed(s string, n int) bool {
	if len(s) != b64.EncodedLen(n) {
		return false
	}
	_, err := b64.DecodeString(s)
	return err == nil
}

func declined(q Question, fp, message string) Decision {
	return Decision{Fingerprint: fp, Reply: &Reply{Status: statusDeclined, Preview: q.Preview, Message: message}}
}

// confirmForm is the one yes/no question. Its box is deliberately not required:
// the SDK checks an older client's answer against the form before it fills in
// defaults, so a required box left out would become a protocol error instead of
// the "declined" the user meant.
func confirmForm(preview string) *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Mode:    "form",
		Message: preview,
		RequestedSchema: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				formField: {
					Type:        "boolean",
					Title:       "Apply this change",
					Description: "Tick to apply the change shown above. Leave it unticked, or decline, and nothing is written.",
					Default:     json.RawMessage("false"),
				},
			},
		},
	}
}

// formElicitation reports whether the client declared form elicitation. An
// elicitation capability naming neither form nor URL means form, as in the SDK.
func formElicitation(c *mcp.ClientCapabilities) bool {
	if c == nil || c.Elicitation == nil {
		return false
	}
	return c.Elicitation.Form != nil || c.Elicitation.URL == nil
}

// speaksMRTR reports whether the request is served by the input-required round
// trip. A request without any protocol version is served as the latest, as the
// SDK does.
func speaksMRTR(req *mcp.CallToolRequest) bool {
	v := req.ProtocolVersion()
	return v == "" || v >= protocolMRTR
}

func modeOf(req *mcp.CallToolRequest) Mode {
	if speaksMRTR(req) {
		return ModeMRTR
	}
	return ModeElicit
}

func invalidState() error {
	return &jsonrpc.Error{
		Code:    jsonrpc.CodeInvalidParams,
		Message: "The requestState of this call was not issued by this server for this tool and these arguments, or it has expired or been used. Nothing was written; call the tool again without requestState for a new preview.",
	}
}

func missingElicitation() error {
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: "This server accepts only the user's own answer, and this client does not support elicitation, so it cannot ask. Nothing was changed.",
		Data:    json.RawMessage(`{"requiredCapabilities":{"elicitation":{}}}`),
	}
}
