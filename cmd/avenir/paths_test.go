package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPaths: avenir's own directories on each OS, from the environment a person may set, the
// OS as a value so that every rule runs here. Paths are compared with forward slashes: the
// separator is the test machine's.
func TestPaths(t *testing.T) {
	unix := map[string]string{"HOME": "/home/you"}
	unixXDG := map[string]string{"HOME": "/home/you", "XDG_CONFIG_HOME": "/cfg", "XDG_STATE_HOME": "/state"}
	win := map[string]string{"USERPROFILE": `C:\Users\you`, "APPDATA": `C:\Users\you\AppData\Roaming`, "LOCALAPPDATA": `D:\Local`}
	winBare := map[string]string{"USERPROFILE": `C:\Users\you`, "HOME": "/c/Users/you/msys"}
	winXDG := map[string]string{"USERPROFILE": `C:\Users\you`, "XDG_CONFIG_HOME": `C:\xdg\config`, "XDG_STATE_HOME": `C:\xdg\state`}
	journalSet := map[string]string{"HOME": "/home/you", "AVENIR_MCP_JOURNAL": "/data/avenir.db"}
	tests := []struct {
		goos                              string
		vars                              map[string]string
		config, state, tokenFile, journal string
	}{
		{"linux", unix, "/home/you/.config/avenir", "/home/you/.local/state/avenir", "/home/you/.config/avenir/ynab-token", "/home/you/.local/state/avenir/journal.db"},
		{"linux", unixXDG, "/cfg/avenir", "/state/avenir", "/cfg/avenir/ynab-token", "/state/avenir/journal.db"},
		{"linux", journalSet, "/home/you/.config/avenir", "/home/you/.local/state/avenir", "/home/you/.config/avenir/ynab-token", "/data/avenir.db"},
		{"darwin", unix, "/home/you/.config/avenir", "/home/you/.local/state/avenir", "/home/you/.config/avenir/ynab-token", "/home/you/.local/state/avenir/journal.db"},
		{"darwin", unixXDG, "/cfg/avenir", "/state/avenir", "/cfg/avenir/ynab-token", "/state/avenir/journal.db"},
		// The state (the journal) in the profile, outside AppData, which the packaged Claude
		// Desktop's container redirects; the token file in AppData, which it only reads.
		{"windows", win, `C:\Users\you\AppData\Roaming/avenir`, `C:\Users\you/.local/state/avenir`, `C:\Users\you\AppData\Roaming/avenir/ynab-token`, `C:\Users\you/.local/state/avenir/journal.db`},
		// Without APPDATA and LOCALAPPDATA, under the profile (not a Unix shell's HOME).
		{"windows", winBare, `C:\Users\you/AppData/Roaming/avenir`, `C:\Users\you/.local/state/avenir`, `C:\Users\you/AppData/Roaming/avenir/ynab-token`, `C:\Users\you/.local/state/avenir/journal.db`},
		{"windows", winXDG, `C:\xdg\config/avenir`, `C:\xdg\state/avenir`, `C:\xdg\config/avenir/ynab-token`, `C:\xdg\state/avenir/journal.db`},
	}
	for _, tt := range tests {
		p := osPaths{goos: tt.goos, getenv: mapEnv(tt.vars)}
		for _, c := range []struct{ what, got, want string }{
			{"configDir", p.configDir(), tt.config},
			{"stateDir", p.stateDir(), tt.state},
			{"tokenFile", p.tokenFile(), tt.tokenFile},
			{"journal", p.journal(), tt.journal},
		} {
			if filepath.ToSlash(c.got) != filepath.ToSlash(c.want) {
				t.Errorf("%s with %v: %s = %s, want %s", tt.goos, tt.vars, c.what, c.got, c.want)
			}
		}
	}
}

// TestHostPaths: the functions the commands call use the machine's own OS and the rules above.
func TestHostPaths(t *testing.T) {
	vars := map[string]string{"HOME": "/home/you", "XDG_CONFIG_HOME": "/cfg", "XDG_STATE_HOME": "/state"}
	getenv := mapEnv(vars)
	for _, c := range []struct{ got, want string }{
		{stateDir(getenv), "/state/avenir"},
		{sandboxStatePath(getenv), "/state/avenir/sandbox.json"},
		{journalPath(getenv), "/state/avenir/journal.db"},
		{tokenFilePath(getenv), "/cfg/avenir/ynab-token"},
	} {
		if filepath.ToSlash(c.got) != c.want {
			t.Errorf("%s, want %s", c.got, c.want)
		}
	}
}

// TestJournalOutsideMSIXRedirection: on Windows the journal is under the profile and not under
// AppData, whatever APPDATA and LOCALAPPDATA say: a program the packaged Claude Desktop starts
// has every file it creates under AppData redirected into Claude's package
// (anthropics/claude-code#94254), so a journal there would not be the one a terminal's
// `avenir journal list` reads.
func TestJournalOutsideMSIXRedirection(t *testing.T) {
	vars := map[string]string{"USERPROFILE": `C:\Users\you`, "APPDATA": `C:\Users\you\AppData\Roaming`,
		"LOCALAPPDATA": `C:\Users\you\AppData\Local`}
	p := osPaths{goos: "windows", getenv: mapEnv(vars)}
	for _, got := range []string{p.journal(), p.stateDir()} {
		if strings.Contains(strings.ToLower(got), "appdata") {
			t.Errorf("%s is under AppData", got)
		}
	}
}

// msixWorld is a Windows profile laid out in a temporary folder: LOCALAPPDATA and APPDATA in
// it, and the Claude packages a test installs.
type msixWorld struct {
	root string
	p    osPaths
}

func newMSIXWorld(t *testing.T, vars map[string]string) *msixWorld {
	t.Helper()
	root := t.TempDir()
	env := map[string]string{"USERPROFILE": root, "APPDATA": filepath.Join(root, "AppData", "Roaming"),
		"LOCALAPPDATA": filepath.Join(root, "AppData", "Local")}
	for k, v := range vars {
		if v == "" {
			delete(env, k)
		} else {
			env[k] = v
		}
	}
	return &msixWorld{root: root, p: osPaths{goos: "windows", getenv: mapEnv(env)}}
}

// pkg installs a Claude package: "installed" (its folder only), "ran" (its roaming Claude
// folder), "configured" (and a claude_desktop_config.json in it), or "file" (a file of that
// name, not a package).
func (w *msixWorld) pkg(t *testing.T, name, state string) string {
	t.Helper()
	pkg := filepath.Join(w.root, "AppData", "Local", "Packages", name)
	dir := filepath.Join(pkg, "LocalCache", "Roaming", "Claude")
	var err error
	switch state {
	case "installed":
		err = os.MkdirAll(pkg, 0o700)
	case "ran":
		err = os.MkdirAll(dir, 0o700)
	case "configured":
		if err = os.MkdirAll(dir, 0o700); err == nil {
			err = os.WriteFile(filepath.Join(dir, "claude_desktop_config.json"), []byte("{}"), 0o600)
		}
	case "file":
		if err = os.MkdirAll(filepath.Dir(pkg), 0o700); err == nil {
			err = os.WriteFile(pkg, nil, 0o600)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "claude_desktop_config.json")
}

// TestClaudeDesktopConfigMSIX: on Windows the packaged Claude Desktop's file comes first
// (anthropics/claude-code#26073: it reads only %LOCALAPPDATA%\Packages\Claude_*\LocalCache\
// Roaming\Claude), %APPDATA%\Claude where no Claude package is installed.
func TestClaudeDesktopConfigMSIX(t *testing.T) {
	const real = "Claude_pzs8sxrjxfjjc"
	classic := func(w *msixWorld) string {
		return filepath.Join(w.root, "AppData", "Roaming", "Claude", "claude_desktop_config.json")
	}
	tests := []struct {
		name string
		vars map[string]string         // changes to the profile's environment ("" unsets)
		pkgs [][2]string               // name, state
		want func(w *msixWorld) string // the file
		pick string                    // or: the package whose file it is
	}{
		{name: "no package: the classic install's file", want: classic},
		{name: "installed, never run", pkgs: [][2]string{{real, "installed"}}, pick: real},
		{name: "installed and run", pkgs: [][2]string{{real, "ran"}}, pick: real},
		{name: "the package that has run before one that has not",
			pkgs: [][2]string{{"Claude_aaaaaaaaaaaaa", "installed"}, {real, "ran"}}, pick: real},
		{name: "the package with a configuration before one without",
			pkgs: [][2]string{{"Claude_aaaaaaaaaaaaa", "configured"}, {real, "ran"}}, pick: "Claude_aaaaaaaaaaaaa"},
		{name: "equals: the first by name",
			pkgs: [][2]string{{real, "ran"}, {"Claude_zzzzzzzzzzzzz", "ran"}}, pick: real},
		{name: "not Claude's packages", want: classic,
			pkgs: [][2]string{{"ClaudeHelper_pzs8sxrjxfjjc", "ran"}, {"Claude_x", "file"}, {"Microsoft.Claude_1", "ran"}}},
		{name: "without LOCALAPPDATA, under the profile", vars: map[string]string{"LOCALAPPDATA": ""},
			pkgs: [][2]string{{real, "ran"}}, pick: real},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newMSIXWorld(t, tt.vars)
			files := map[string]string{}
			for _, pk := range tt.pkgs {
				files[pk[0]] = w.pkg(t, pk[0], pk[1])
			}
			want := ""
			if tt.want != nil {
				want = tt.want(w)
			} else {
				want = files[tt.pick]
			}
			if got := w.p.claudeDesktopConfig(); got != want {
				t.Errorf("Claude Desktop's file: %s, want %s", got, want)
			}
			// The rule is Windows' only: the same folders on macOS change nothing.
			mac := osPaths{goos: "darwin", getenv: w.p.getenv}
			if got := mac.claudeDesktopConfig(); !strings.HasSuffix(filepath.ToSlash(got), "Library/Application Support/Claude/claude_desktop_config.json") {
				t.Errorf("on macOS: %s", got)
			}
		})
	}
}
