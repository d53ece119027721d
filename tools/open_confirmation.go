package tools

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
)

// open_confirmation is the card's first call once the host draws it (the card exchange, version
// 2): it names the handle of the pending result it was drawn for and gets the change to show,
// its state, and, while the change is pending, a fresh one-time token for answer_confirmation.
// The call is what tells avenir the card is on screen (confirmation.md §2.4.6). It is app-only:
// the handle is in what the model reads, and only the card may turn it into a token.

var openConfirmationTool = mcp.Tool{
	Name:        "open_confirmation",
	Title:       "Open a confirmation card",
	Description: "For avenir's confirmation card only: the change a card shows, and how to answer it.",
	Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	Meta:        appOnlyMeta(cardURI),
}

type openConfirmationIn struct {
	// A plain string read as text whatever it is: any wrong value is "unknown card".
	Handle string `json:"handle" avenir:"code" jsonschema:"the handle of the pending result the card was drawn for"`
}

func (h *handlers) openConfirmation(ctx context.Context, _ *mcp.CallToolRequest, in openConfirmationIn) (*mcp.CallToolResult, confirm.CardView, error) {
	view, err := h.Confirm.OpenCard(ctx, in.Handle)
	if errors.Is(err, confirm.ErrUnknownCard) {
		return nil, confirm.CardView{}, errors.New("unknown card")
	}
	return nil, view, err
}
