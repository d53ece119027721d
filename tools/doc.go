// Package tools is avenir's MCP surface: one file per tool, the guide resource, and the server
// that holds them. A tool resolves names to ids, reads the plan through the YNAB client's delta
// cache, and — for a write — builds a plan of changes, asks the person through confirm.Ask,
// journals it write-ahead and only then calls YNAB.
//
// Where things are, beside the tools' own files (named after the tool):
//
//   - server.go, registry.go: the server, every tool's entry, the typed handler wrapper.
//   - args.go, amount.go, dates.go, resolve.go, month.go: reading arguments — strict JSON,
//     exact amounts, dates and months, names resolved to ids.
//   - write.go: the one write path (edit, builder, confirm, lock, journal, YNAB, outcome);
//     reason.go: a failed or declined write's reason, as data.
//   - changes.go, entered.go, transactions.go: writing journaled changes, entering
//     transactions as a person would, naming transactions.
//   - readback.go: what YNAB holds of a journaled change (recovery, lost answers, undo's drift).
//   - describe.go: a change in words, for previews, the card and partial outcomes;
//     summary.go: what a write did, in the past tense.
//   - card.go, answer_confirmation.go, apps.go, views.go: the card and the MCP Apps views,
//     and how the reads show data to a model.
//   - statement_match.go: a bank statement's lines against the plan (import_statement).
//   - analysis.go: what the analysis tools share; guide.go, guide.md, prompts.go: the guide
//     resource and the prompts.
package tools
