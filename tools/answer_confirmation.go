package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/tools/ui"
)

// answer_confirmation is how avenir's confirmation card answers (confirmation.md §2.4, the card
// exchange version 2): the card's Confirm and Decline buttons call it with the token
// open_confirmation gave the card. It is app-only — hosts offer it to the card, never to the
// model. An accept runs the call the token was issued for again, through its own tool and the
// one write path, with the person's answer in the context; so what it returns is that tool's own
// result, and what became of the change is kept on the card's handle for the card mounted again.

// cardURI is the card every confirmed tool names.
const cardURI = ui.ConfirmURI

// cardMeta is every confirmed tool's _meta: a host that renders MCP Apps draws the card for its
// results. Other hosts ignore it.
var cardMeta = mcp.Meta{"ui": map[string]any{"resourceUri": cardURI}}

// appOnlyMeta is the _meta of a tool only the views call: MCP Apps' visibility, and ChatGPT's own
// keys beside it (openai/visibility "private" keeps it from ChatGPT's model, widgetAccessible
// lets the view call it), since ChatGPT reads its own and not always the extension's.
func appOnlyMeta(uri string) mcp.Meta {
	return mcp.Meta{
		"ui":                      map[string]any{"resourceUri": uri, "visibility": []string{"app"}},
		"openai/visibility":       "private",
		"openai/widgetAccessible": true,
	}
}

// modelAndApp is the _meta of a tool a view calls and the model too, drawn with the view at uri:
// strict hosts refuse a view's call to a tool whose visibility does not name app
// (PostHog/posthog#97507), so it is named, with the model.
func modelAndApp(uri string) mcp.Meta {
	return mcp.Meta{"ui": map[string]any{"resourceUri": uri, "visibility": []string{"model", "app"}}}
}

// appOnly reports whether a tool is for the views only: hosts keep it from the model.
func appOnly(t *mcp.Tool) bool {
	ui, _ := t.Meta["ui"].(map[string]any)
	switch vis := ui["visibility"].(type) {
	case []string:
		return len(vis) == 1 && vis[0] == "app"
	case []any: // as a client decodes it
		return len(vis) == 1 && vis[0] == "app"
	}
	return false
}

var answerConfirmationTool = mcp.Tool{
	Name:        "answer_confirmation",
	Title:       "Answer a confirmation card",
	Description: "For avenir's confirmation card only: the user's answer to the change it shows.",
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
	Meta:        appOnlyMeta(cardURI),
	InputSchema: &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			// Plain strings, as confirmation is: any wrong value gets §5's sentence.
			"token":   {Type: "string", Description: "the token open_confirmation gave the card"},
			"answer":  {Type: "string", Description: "accept or decline"},
			"version": {Type: "integer", Description: "the card exchange's version: 2"},
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
	// Version is read as text whatever JSON it is, so a card of another version is told so
	// (card_outdated), never given a type error.
	Version string `json:"version,omitempty" avenir:"code"`
}

func (h *handlers) addAnswerConfirmation(srv *mcp.Server) {
	at, err := argTypeFor(reflect.TypeFor[answerConfirmationIn]())
	if err != nil {
		panic(fmt.Sprintf("answer_confirmation: arguments: %v", err))
	}
	srv.AddTool(&answerConfirmationTool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in answerConfirmationIn
		if err := decodeArgs(req.Params.Arguments, at, &in, answerConfirmationTool.Name); err != nil {
			return failedWrite(h.log, because(reasonInvalidArgument, "", err)), nil
		}
		version := 0
		if in.Version == fmt.Sprint(confirm.CardVersion) {
			version = confirm.CardVersion
		}
		card, err := h.Confirm.RedeemCard(ctx, in.Token, in.Answer, version)
		if errors.Is(err, confirm.ErrBadAnswer) {
			return failedWrite(h.log, because(reasonInvalidArgument, "", fmt.Errorf("answer: %s is neither accept nor decline; nothing was written", quoted(in.Answer)))), nil
		}
		if err != nil {
			return failedWrite(h.log, err), nil
		}
		call, ok := h.calls[card.Tool]
		if !ok { // a token is only issued by a tool this server has
			return failedWrite(h.log, confirm.ErrCardRefused), nil
		}
		again := *req
		again.Params = &mcp.CallToolParamsRaw{Meta: req.Params.Meta, Name: card.Tool, Arguments: card.Arguments}
		h.log.Info("a card answered", "tool", card.Tool, "accept", card.Accept)
		res, err := call(confirm.WithCard(ctx, card), &again)
		if serr := h.Confirm.SettleCard(context.WithoutCancel(ctx), card, outcomeOf(res, err)); serr != nil {
			h.log.Warn("the card's outcome was not kept for the card mounted again", "tool", card.Tool, "err", serr)
		}
		return res, err
	})
}

// outcomeOf is what a card's answer did, as the card mounted again shows it: the write's status,
// reason, operation and message, read from its result.
func outcomeOf(res *mcp.CallToolResult, err error) confirm.CardOutcome {
	if err != nil || res == nil {
		return confirm.CardOutcome{Status: "error", Message: "The answer could not be handled; nothing more is known here."}
	}
	var o confirm.CardOutcome
	if raw, merr := json.Marshal(res.StructuredContent); merr == nil && res.StructuredContent != nil {
		_ = json.Unmarshal(raw, &o) // what does not decode stays empty and is filled in below
	}
	if res.IsError {
		if o.Status != "partial" { // a partial write keeps its status: part of it is in YNAB
			o.Status = "error"
		}
		if o.Message == "" && len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				o.Message = bound(tc.Text, 2000)
			}
		}
	}
	if o.Status == "" {
		o.Status = "error"
	}
	return o
}
