package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The prompts are the hosts' slash commands: short templates that lead the model through
// avenir's own tools for the jobs people come for. Each write they lead to is confirmed by the
// person like any other (on the card, in the client's form, or by a code they agree to).

type promptDef struct {
	prompt   mcp.Prompt
	readOnly bool // offered in read-only mode too
	text     func(args map[string]string) (string, error)
}

var prompts = []promptDef{
	{
		prompt: mcp.Prompt{Name: "review_month", Title: "Review the month",
			Description: "The month at a glance: what is overspent, what needs a category or approval, and what to move.",
			Arguments:   []*mcp.PromptArgument{{Name: "month", Description: "YYYY-MM, current, previous or next (default current)"}}},
		readOnly: true,
		text: func(a map[string]string) (string, error) {
			month := cmpOr(a["month"], "current")
			return fmt.Sprintf("Review my YNAB plan for the month %s with avenir. Start with get_plan_overview for that month. "+
				"Tell me in a few lines: ready to assign, the overspent categories and by how much, and how many transactions "+
				"need a category or approval (list_transactions with status uncategorized or unapproved shows them). "+
				"Then propose how to cover each overspent category from categories with money available, as move_money "+
				"calls — one at a time, each only after I agree; I confirm each one myself.", month), nil
		},
	},
	{
		prompt: mcp.Prompt{Name: "categorize_uncategorized", Title: "Categorise what is uncategorised",
			Description: "Suggest categories for the uncategorised transactions from your own history, then apply the ones you pick in one write."},
		text: func(map[string]string) (string, error) {
			return "Categorise my uncategorised YNAB transactions with avenir. Call suggest_categories (it uses only my own " +
				"history) and show me a short table: date, payee, amount, and the best suggestion with its confidence. " +
				"Leave out those without a suggestion and say how many. When I have said which to take (all, some, or " +
				"changed ones), make one apply_categories call with exactly those; I confirm it myself.", nil
		},
	},
	{
		prompt: mcp.Prompt{Name: "import_bank_statement", Title: "Import a bank statement",
			Description: "Bring the bank's statement file into an account: what is already there is matched, the rest entered, in one confirmed write.",
			Arguments: []*mcp.PromptArgument{
				{Name: "account", Description: "the YNAB account the statement is for", Required: true},
				{Name: "file", Description: "the statement file (in the folders avenir may read; default your Downloads)"},
			}},
		text: func(a map[string]string) (string, error) {
			account := strings.TrimSpace(a["account"])
			if account == "" {
				return "", fmt.Errorf("account: name the YNAB account the statement is for")
			}
			file := "the statement file I name (ask me for it if I have not)"
			if f := strings.TrimSpace(a["file"]); f != "" {
				file = fmt.Sprintf("the file %q", f)
			}
			return fmt.Sprintf("Import %s into my YNAB account %q with avenir's import_statement. Show me its preview as it "+
				"comes: how many lines are new, matched and already imported, the ambiguous ones and the warnings. I confirm "+
				"it myself. Afterwards, tell me which new lines have no category, and offer suggest_categories for them.", file, account), nil
		},
	},
	{
		prompt: mcp.Prompt{Name: "what_changed_today", Title: "What the assistant changed today",
			Description: "avenir's journal of today's writes, with how each was confirmed and what can be undone."},
		readOnly: true,
		text: func(map[string]string) (string, error) {
			return "Show me what was changed in my YNAB plan through avenir today. Call list_operations and keep today's " +
				"entries: for each, the time, what happened, its status and how it was confirmed. Say which can be undone. " +
				"If I ask to undo one, call undo_operation with its operation_id; I confirm the undo myself.", nil
		},
	},
}

func cmpOr(v, def string) string {
	if strings.TrimSpace(v) == "" {
		return def
	}
	return strings.TrimSpace(v)
}

// addPrompts registers the prompts: in read-only mode, those that lead to no write.
func addPrompts(srv *mcp.Server, readOnly bool) {
	for _, p := range prompts {
		if readOnly && !p.readOnly {
			continue
		}
		srv.AddPrompt(&p.prompt, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			body, err := p.text(req.Params.Arguments)
			if err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{Description: p.prompt.Description,
				Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: body}}}}, nil
		})
	}
}
