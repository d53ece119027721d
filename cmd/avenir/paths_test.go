package main

import (
	"path/filepath"
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
		{"windows", win, `C:\Users\you\AppData\Roaming/avenir`, `D:\Local/avenir`, `C:\Users\you\AppData\Roaming/avenir/ynab-token`, `D:\Local/avenir/journal.db`},
		// Without APPDATA and LOCALAPPDATA, under the profile (not a Unix shell's HOME).
		{"windows", winBare, `C:\Users\you/AppData/Roaming/avenir`, `C:\Users\you/AppData/Local/avenir`, `C:\Users\you/AppData/Roaming/avenir/ynab-token`, `C:\Users\you/AppData/Local/avenir/journal.db`},
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
