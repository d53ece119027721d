package main

import "context"

// Placeholder: the journal helper replaces this file.
func runJournal(ctx context.Context, args []string, e env) error { return usagef("journal: not built yet") }
