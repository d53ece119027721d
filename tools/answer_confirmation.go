package tools

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/tools/ui"
)

// answer_confirmation is how avenir's confirmation card answers (confirmation.md §2.4): the
// card's Confirm and Decline buttons call it with the token of the pending result they show. It
// is app-only — hosts offer it to the card, never to the model — and listed only to clients
// that declared the MCP Apps extension. An accept runs the call the token was issued for again,
// through its own tool and the one write path, with the person's answer in the context; so what
// it returns is that tool's own result.

// cardURI is the card every confirmed tool names.
const cardURI = ui.ConfirmURI

// cardMeta is every confirmed tool's _meta: a host that renders MCP Apps draws the card for its
// results. Other hosts ignore it.
var cardMeta = mcp.Meta{"ui": map[string]any{"resourceUri": cardURI}}

// listedToApps keeps answer_confirmation and the views out of what a client that did not
// declare the MCP Apps extension lists: only a card can answer, and such a client draws none.
// (Hosts that do declare it keep the tool from the model themselves, by its visibility.)
func listedToApps(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || (method != "tools/list" && method != "resources/list") {
			return res, err
		}
		if r, ok := req.(interface {
			ClientCapabilities() *mcp.ClientCapabilities
		}); ok && confirm.RendersApps(r.ClientCapabilities()) {
			return res, nil
		}
		switch list := res.(type) {
		case *mcp.ListToolsResult:
			list.Tools = slices.DeleteFunc(slices.Clone(list.Tools), func(t *mcp.Tool) bool { return t.Name == answerConfirmationTool.Name })
		case *mcp.ListResourcesResult:
			list.Resources = slices.DeleteFunc(slices.Clone(list.Resources), func(r *mcp.Resource) bool { return isView(r.URI) })
		}
		return res, nil
	}
}

var answerConfirmationTool = mcp.Tool{
	Name:        "answer_confirmation",
	Title:       "Answer a confirmation card",
	Description: "For avenir's confirmation card only: the user's answer to the change it shows.",
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
	Meta:        mcp.Meta{"ui": map[string]any{"resourceUri": cardURI, "visibility": []string{"app"}}},
	InputSchema: &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			// A plain string, as confirmation is: any wrong value gets §5's sentence.
			"token":  {Type: "string", Description: "the token the card was given"},
			"answer": {Type: "string", Description: "accept or decline"},
		},
		Required: []string{"token", "answer"},
	},
	OutputSchema: &jsonschema.Schema{
		Type:        "object",
		Description: "the confirmed tool's own result",
		Properties:  map[string]*jsonschema.Schema{"status": {Type: "string"}},
	},
}

type answerConfirmationIn struct {
	Token  string `json:"token" avenir:"code"`
	Answer string `json:"answer"`
}

func (h *handlers) addAnswerConfirmation(srv *mcp.Server) {
	at, err := argTypeFor(reflect.TypeFor[answerConfirmationIn]())
	if err != nil {
		panic(fmt.Sprintf("answer_confirmation: arguments: %v", err))
	}
	srv.AddTool(&answerConfirmationTool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in answerConfirmationIn
		if err := decodeArgs(req.Params.Arguments, at, &in, answerConfirmationTool.Name); err != nil {
			return toolError(h.log, err), nil
		}
		card, err := h.Confirm.RedeemCard(ctx, in.Token, in.Answer)
		if errors.Is(err, confirm.ErrBadAnswer) {
			return toolError(h.log, fmt.Errorf("answer: %s is neither accept nor decline; nothing was written", quoted(in.Answer))), nil
		}
		if err != nil {
			return toolError(h.log, err), nil
		}
		call, ok := h.calls[card.Tool]
		if !ok { // a token is only issued by a tool this server has
			return toolError(h.log, confirm.ErrCodeRefused), nil
		}
		again := *req
		again.Params = &mcp.CallToolParamsRaw{Meta: req.Params.Meta, Name: card.Tool, Arguments: card.Arguments}
		h.log.Info("a card answered", "tool", card.Tool, "accept", card.Accept)
		return call(confirm.WithCard(ctx, card), &again)
	})
}
