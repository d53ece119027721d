package tools

import (
	"context"
	"errors"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/confirm"
	"github.com/avenir-mcp/avenir/ynab"
)

// Outcomes as data: every result of a write whose status is neither applied nor
// confirmation_pending carries a reason in its structured content, a stable token that code
// (the views, tests, clients) switches on. The message stays for the model and the person;
// code never reads it. (A declined write is a result; every other such outcome is a tool
// error whose structured content names the reason.)
const (
	reasonDeclined        = "declined"         // the person declined
	reasonPlanChanged     = "plan_changed"     // the fingerprint differs at the answer (confirm.ErrPlanChanged)
	reasonCodeRefused     = "code_refused"     // a code unknown, expired, used, or for other changes (confirm.ErrCodeRefused)
	reasonCardRefused     = "card_refused"     // a card's secret unknown, used, expired or foreign
	reasonCardOutdated    = "card_outdated"    // the card and the server speak different versions of the card exchange
	reasonCardNotShown    = "card_not_shown"   // REQUIRE_ELICITATION=1 and the card was not drawn
	reasonCodesDisabled   = "codes_disabled"   // a code passed under AVENIR_MCP_REQUIRE_ELICITATION=1 (confirm.ErrCodesDisabled)
	reasonCannotAsk       = "cannot_ask"       // the client cannot ask and codes are disabled (confirm.ErrCannotAsk)
	reasonPartial         = "partial"          // some changes landed, some did not
	reasonYNABRefused     = "ynab_refused"     // YNAB did not take the write; nothing landed
	reasonNotSettled      = "not_settled"      // the outcome is not known; the journal keeps the operation prepared
	reasonInvalidArgument = "invalid_argument" // bad input, or a thing the arguments name that is not there
	// reasonError is any other failure before anything was written: YNAB could not be read,
	// the journal or the plan's write lock was not to be had, avenir failed inside.
	reasonError = "error"
)

// reasoner is an error that says its own reason (confirm's card errors, and the write path's
// outcomes below).
type reasoner interface{ Reason() string }

// reasonOf is the reason a failed write call gives: the reason an error in err's chain carries,
// else that of a sentinel it wraps; a failure to reach YNAB or the journal is reasonError, and
// anything else a tool refused is about its arguments.
func reasonOf(err error) string {
	var r reasoner
	if errors.As(err, &r) && r.Reason() != "" {
		return r.Reason()
	}
	var api *ynab.APIError
	var netErr *ynab.NetError
	switch {
	case errors.Is(err, confirm.ErrPlanChanged):
		return reasonPlanChanged
	case errors.Is(err, confirm.ErrCodeRefused):
		return reasonCodeRefused
	case errors.Is(err, confirm.ErrCodesDisabled):
		return reasonCodesDisabled
	case errors.Is(err, confirm.ErrCannotAsk):
		return reasonCannotAsk
	case errors.As(err, &api), errors.As(err, &netErr), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return reasonError
	}
	return reasonInvalidArgument
}

// outcomeError is an error of the write path that says its reason and, once the journal holds
// the operation, its id: the card offers to undo a partial write by it, without reading prose.
type outcomeError struct {
	reason    string
	operation string
	err       error
}

func (e *outcomeError) Error() string  { return e.err.Error() }
func (e *outcomeError) Unwrap() error  { return e.err }
func (e *outcomeError) Reason() string { return e.reason }

// because gives err a reason (and the journal's operation id, "" when there is none).
func because(reason, operation string, err error) error {
	return &outcomeError{reason: reason, operation: operation, err: err}
}

// operationOf is the journal's operation a failed write names, if any.
func operationOf(err error) string {
	var o *outcomeError
	if errors.As(err, &o) {
		return o.operation
	}
	return ""
}

// failure is the output of a write tool whose call failed: its status (partial, or error),
// reason and operation go in the failed result's structured content.
type failure interface {
	failed(reason, operation string)
}

// failed marks a write's output as a failed call's.
func (o *writeOut) failed(reason, operation string) {
	o.Status, o.Reason, o.OperationID = "error", reason, operation
	if reason == reasonPartial {
		o.Status = "partial"
	}
	o.Summary, o.Preview, o.Confirmation, o.ExpiresInSeconds, o.Message, o.Undoable = "", "", "", 0, "", nil
	o.Title, o.Changes, o.Notes, o.PlanName, o.Tool, o.recorded = "", nil, nil, "", "", nil
}

// failedWrite is the tool error of a write call that failed outside a tool's typed handler
// (answer_confirmation's own refusals): the message, and the status and reason as data.
func failedWrite(log *slog.Logger, err error) *mcp.CallToolResult {
	res := toolError(log, err)
	var o writeOut
	o.failed(reasonOf(err), operationOf(err))
	res.StructuredContent = o
	return res
}
