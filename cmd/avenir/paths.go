package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
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
// $XDG_STATE_HOME/avenir where it is set, else ~/.local/state/avenir on every OS, Windows
// included (%USERPROFILE%\.local\state\avenir).
//
// Not %LOCALAPPDATA% on Windows: Claude Desktop there is an MSIX package, and a program it
// starts runs inside the package's container, where every file created under AppData is
// silently written to %LOCALAPPDATA%\Packages\Claude_*\LocalCache\… instead, seen by no
// process outside the package (anthropics/claude-code#94254, #25579). The journal Claude's
// avenir wrote would then not be the one `avenir journal list` reads in a terminal, nor the one
// another client's avenir writes. The profile folder is not redirected, so ~/.local/state is
// the same file for all of them.
func (p osPaths) stateDir() string {
	if d := p.getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "avenir")
	}
	return filepath.Join(p.home(), ".local", "state", "avenir")
}

// claudeDesktopConfig is the file Claude Desktop reads its local MCP servers from.
//
// On Windows, Claude Desktop is an MSIX package since February 2026, and it reads
// %LOCALAPPDATA%\Packages\Claude_<publisher id>\LocalCache\Roaming\Claude\
// claude_desktop_config.json: the %APPDATA%\Claude file a person (or avenir) writes from
// outside the package is never read by it (anthropics/claude-code#26073, #25579). So the
// packaged Claude's file comes first, where a Claude package is installed, and %APPDATA%\Claude
// (the installs from before) otherwise.
func (p osPaths) claudeDesktopConfig() string {
	const name = "claude_desktop_config.json"
	switch p.goos {
	case "darwin":
		return filepath.Join(p.home(), "Library", "Application Support", "Claude", name)
	case "windows":
		if dir := p.msixClaudeDir(); dir != "" {
			return filepath.Join(dir, name)
		}
		return filepath.Join(p.appData(), "Claude", name)
	}
	// No Linux build is published; the community builds read this file.
	return filepath.Join(p.xdgConfigHome(), "Claude", name)
}

// msixClaudeDir is the packaged Claude Desktop's own roaming folder,
// %LOCALAPPDATA%\Packages\Claude_*\LocalCache\Roaming\Claude, or "" when no Claude package is
// installed. Of several packages (a leftover beside the current one), the one whose
// configuration file exists wins, then the one that has run (its folder exists), then the first
// by name, so that the choice is the same at every run.
func (p osPaths) msixClaudeDir() string {
	// ReadDir rather than Glob: a profile folder's name may hold [ or *, which Glob would read
	// as a pattern.
	packages := filepath.Join(p.localAppData(), "Packages")
	entries, _ := os.ReadDir(packages) // no Packages folder: no packaged Claude
	best, bestRank := "", -1
	for _, pkg := range entries { // ReadDir sorts them by name
		if !pkg.IsDir() || !strings.HasPrefix(pkg.Name(), "Claude_") {
			continue
		}
		dir := filepath.Join(packages, pkg.Name(), "LocalCache", "Roaming", "Claude")
		rank := 0
		if _, err := os.Stat(filepath.Join(dir, "claude_desktop_config.json")); err == nil {
			rank = 2
		} else if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			rank = 1
		}
		if rank > bestRank {
			best, bestRank = dir, rank
		}
	}
	return best
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
