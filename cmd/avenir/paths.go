package main

import (
	"os"
	"path/filepath"
	"runtime"
)

// Where files live, in one place: avenir's own (the token file, the journal, the sandbox's
// state, the HTTP secret) and the MCP clients' configuration files that `avenir config` edits.
// Each rule reads the environment first, so that a person (and a test) can move everything
// with XDG_CONFIG_HOME, XDG_STATE_HOME, APPDATA or LOCALAPPDATA, and takes the OS as a value,
// so that the Windows and macOS rules are tested on any machine.

// osPaths resolves paths for one OS from one environment.
type osPaths struct {
	goos   string              // "linux", "darwin", "windows", …: runtime.GOOS
	getenv func(string) string // os.Getenv, or a test's map
}

// hostPaths is osPaths for the machine avenir runs on.
func hostPaths(getenv func(string) string) osPaths {
	return osPaths{goos: runtime.GOOS, getenv: getenv}
}

// home is the person's home directory: %USERPROFILE% on Windows (where HOME, if set at all,
// is usually a Unix shell's), else $HOME, else what the OS says.
func (p osPaths) home() string {
	if p.goos == "windows" {
		if h := p.getenv("USERPROFILE"); h != "" {
			return h
		}
	}
	if h := p.getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir() // "" when even the OS does not know: paths become relative
	return h
}

// appData is Windows' roaming application data, %APPDATA%.
func (p osPaths) appData() string {
	if d := p.getenv("APPDATA"); d != "" {
		return d
	}
	return filepath.Join(p.home(), "AppData", "Roaming")
}

// localAppData is Windows' application data for this machine only, %LOCALAPPDATA%.
func (p osPaths) localAppData() string {
	if d := p.getenv("LOCALAPPDATA"); d != "" {
		return d
	}
	return filepath.Join(p.home(), "AppData", "Local")
}

// xdgConfigHome is $XDG_CONFIG_HOME, else ~/.config: the base of Linux programs' settings,
// and of those programs that use it on every OS (opencode, the Claude Desktop builds for Linux).
func (p osPaths) xdgConfigHome() string {
	if d := p.getenv("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	return filepath.Join(p.home(), ".config")
}

// configDir is avenir's settings directory, where the token file lives when there is no
// keychain: $XDG_CONFIG_HOME/avenir where it is set (on any OS), else %APPDATA%\avenir on
// Windows, else ~/.config/avenir (macOS too: a command-line program's dotfile, as the README
// has always said).
func (p osPaths) configDir() string {
	if d := p.getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "avenir")
	}
	if p.goos == "windows" {
		return filepath.Join(p.appData(), "avenir")
	}
	return filepath.Join(p.home(), ".config", "avenir")
}

// stateDir is where the journal, the sandbox's state and the HTTP secret live:
// $XDG_STATE_HOME/avenir where it is set, else %LOCALAPPDATA%\avenir on Windows (state
// belongs to this machine, it does not roam with the profile), else ~/.local/state/avenir.
func (p osPaths) stateDir() string {
	if d := p.getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "avenir")
	}
	if p.goos == "windows" {
		return filepath.Join(p.localAppData(), "avenir")
	}
	return filepath.Join(p.home(), ".local", "state", "avenir")
}

// tokenFileName is the token's file in avenir's configuration directory.
const tokenFileName = "ynab-token"

// tokenFile is the file `avenir token set` writes where there is no keychain.
func (p osPaths) tokenFile() string { return filepath.Join(p.configDir(), tokenFileName) }

// journal is AVENIR_MCP_JOURNAL, else journal.db in the state directory.
func (p osPaths) journal() string {
	if j := p.getenv("AVENIR_MCP_JOURNAL"); j != "" {
		return j
	}
	return filepath.Join(p.stateDir(), "journal.db")
}

// The functions the rest of avenir calls, for the machine it runs on.

// stateDir is avenir's state directory on this machine.
func stateDir(getenv func(string) string) string { return hostPaths(getenv).stateDir() }

// sandboxStatePath is the state file that `serve --sandbox` and `sandbox serve|reset` share.
func sandboxStatePath(getenv func(string) string) string {
	return filepath.Join(stateDir(getenv), "sandbox.json")
}

// journalPath is AVENIR_MCP_JOURNAL, else journal.db in the state directory.
func journalPath(getenv func(string) string) string { return hostPaths(getenv).journal() }

// tokenFilePath is the file `avenir token set` writes where there is no keychain.
func tokenFilePath(getenv func(string) string) string { return hostPaths(getenv).tokenFile() }
