package main

import (
	"os"
	"path/filepath"
)

// stateDir is $XDG_STATE_HOME/avenir, else ~/.local/state/avenir: where the journal and the
// sandbox's state file live unless configured otherwise.
func stateDir(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "avenir")
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".local", "state", "avenir")
}

// sandboxStatePath is the state file that `serve --sandbox` and `sandbox serve|reset` share.
func sandboxStatePath(getenv func(string) string) string {
	return filepath.Join(stateDir(getenv), "sandbox.json")
}

// journalPath is AVENIR_MCP_JOURNAL, else journal.db in the state directory.
func journalPath(getenv func(string) string) string {
	if p := getenv("AVENIR_MCP_JOURNAL"); p != "" {
		return p
	}
	return filepath.Join(stateDir(getenv), "journal.db")
}
