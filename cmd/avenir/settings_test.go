package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestUnfilledSettingsReadAsUnset: a value that is still a bundle's placeholder for a setting
// reads as unset; anything else, placeholders inside longer values included, as it is.
func TestUnfilledSettingsReadAsUnset(t *testing.T) {
	for _, tt := range []struct{ value, want string }{
		{"${user_config.plan}", ""},
		{" ${user_config.plan}\n", ""},
		{"${user_config.ynab_token}", ""},
		{"${user_config.}", ""},
		{"Huishouden", "Huishouden"},
		{"", ""},
		{"${user_config.plan} and more", "${user_config.plan} and more"},
		{"/home/you/${user_config.dir}", "/home/you/${user_config.dir}"},
		{"${HOME}", "${HOME}"},
		{"$user_config.plan", "$user_config.plan"},
	} {
		got := withoutUnfilledSettings(mapEnv(map[string]string{"V": tt.value}))("V")
		if got != tt.want {
			t.Errorf("%q reads as %q, want %q", tt.value, got, tt.want)
		}
	}
}

// bundleEnv is the environment the Claude Desktop extension's manifest gives avenir, with
// every setting left unfilled as a host may pass it (modelcontextprotocol/mcpb#250): each
// ${user_config.…} kept as it is.
func bundleEnv(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "packaging", "mcpb", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Server struct {
			MCPConfig struct {
				Env map[string]string `json:"env"`
			} `json:"mcp_config"`
		} `json:"server"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	env := m.Server.MCPConfig.Env
	for _, want := range []string{"YNAB_ACCESS_TOKEN", "AVENIR_MCP_PLAN"} {
		if !strings.HasPrefix(env[want], "${user_config.") {
			t.Fatalf("the manifest no longer sets %s from a setting: %v", want, env)
		}
	}
	return env
}

// TestDoctorWithTheBundlesUnfilledSettings: avenir started by the extension, every setting
// left unfilled and passed through as its placeholder, finds the token where 'avenir token
// set' kept it, uses YNAB's last-used plan and the journal in its usual place — and doctor says
// so, as serve would act.
func TestDoctorWithTheBundlesUnfilledSettings(t *testing.T) {
	s := newDoctorSetup(t)
	for k, v := range bundleEnv(t) {
		s.vars[k] = v
	}
	report, _, err := s.doctor(t)
	if err != nil {
		t.Fatalf("doctor: %v\n%s", err, report)
	}
	wantLine(t, report, "ok", "token", "the test keychain")
	wantLine(t, report, "ok", "plan", `"Huishouden", YNAB's last-used plan`)
	wantLine(t, report, "ok", "journal", filepath.Join(s.dir, "state", "avenir", "journal.db"))
	if strings.Contains(report, "${user_config") {
		t.Fatalf("a placeholder reached the report:\n%s", report)
	}
}

// TestUnfilledStatementFolder: the extension's statement folder left unfilled leaves
// import_statement the Downloads folder; a folder given is taken.
func TestUnfilledStatementFolder(t *testing.T) {
	env := bundleEnv(t)
	v, ok := env["AVENIR_MCP_STATEMENT_DIRS"]
	if !ok {
		t.Skip("the manifest sets no statement folder")
	}
	home := t.TempDir()
	vars := map[string]string{"HOME": home, "AVENIR_MCP_STATEMENT_DIRS": v}
	if got, want := statementDirs(withoutUnfilledSettings(mapEnv(vars))), []string{filepath.Join(home, "Downloads")}; !slices.Equal(got, want) {
		t.Errorf("unfilled: %v, want %v", got, want)
	}
	vars["AVENIR_MCP_STATEMENT_DIRS"] = filepath.Join(home, "Bank")
	if got, want := statementDirs(withoutUnfilledSettings(mapEnv(vars))), []string{filepath.Join(home, "Bank")}; !slices.Equal(got, want) {
		t.Errorf("filled: %v, want %v", got, want)
	}
}
