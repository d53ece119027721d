package main

import "context"

// Placeholder: the sandbox helper replaces this file.
func runSandbox(ctx context.Context, args []string, e env) error { return usagef("sandbox: not built yet") }
