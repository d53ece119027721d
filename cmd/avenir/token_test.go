package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeKeychain is an OS keychain in memory; setErr makes it refuse to keep anything, as a
// Linux machine with secret-tool but no Secret Service running does.
type fakeKeychain struct {
	mu     sync.Mutex
	secret string
	setErr error
	getErr error
}

func (*fakeKeychain) Name() string { return "the test keychain" }

func (k *fakeKeychain) Get() (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.getErr != nil {
		return "", k.getErr
	}
	if k.secret == "" {
		return "", errNoSecret
	}
	return k.secret, nil
}

func (k *fakeKeychain) Set(token string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.setErr != nil {
		return k.setErr
	}
	k.secret = token
	return nil
}

func (k *fakeKeychain) Delete() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.secret == "" {
		return errNoSecret
	}
	k.secret = ""
	return nil
}

// mapEnv is a getenv over a map.
func mapEnv(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// Tokens that look real enough for validToken, and differ so a test sees which one won.
const (
	tokenEnv      = "env-token-0123456789abcdef"
	tokenEnvFile  = "envfile-token-0123456789abcdef"
	tokenFile     = "file-token-0123456789abcdef"
	tokenKeychain = "keychain-token-0123456789abcdef"
)

func TestResolveToken(t *testing.T) {
	type setup struct {
		env      bool   // YNAB_ACCESS_TOKEN set
		envFile  string // YNAB_ACCESS_TOKEN_FILE's content: "" no variable, "-" a missing file, " " an empty file
		file     bool   // avenir's own token file holds tokenFile
		keychain *fakeKeychain
	}
	tests := []struct {
		name     string
		setup    setup
		want     string
		wantKind string
		wantErr  string
	}{
		{"the environment first", setup{env: true, envFile: tokenEnvFile + "\n", file: true, keychain: &fakeKeychain{secret: tokenKeychain}}, tokenEnv, "env", ""},
		{"then the file YNAB_ACCESS_TOKEN_FILE names", setup{envFile: tokenEnvFile + "\n", file: true, keychain: &fakeKeychain{secret: tokenKeychain}}, tokenEnvFile, "env-file", ""},
		{"then avenir's token file", setup{file: true, keychain: &fakeKeychain{secret: tokenKeychain}}, tokenFile, "file", ""},
		{"then the keychain", setup{keychain: &fakeKeychain{secret: tokenKeychain}}, tokenKeychain, "keychain", ""},
		{"nothing anywhere", setup{keychain: &fakeKeychain{}}, "", "", "avenir token set"},
		{"no keychain on this machine", setup{}, "", "", "YNAB_ACCESS_TOKEN_FILE"},
		{"a missing YNAB_ACCESS_TOKEN_FILE is an error, not a reason to look further", setup{envFile: "-", file: true}, "", "", "YNAB_ACCESS_TOKEN_FILE: reading the token file"},
		{"an empty YNAB_ACCESS_TOKEN_FILE", setup{envFile: " ", file: true}, "", "", "is empty"},
		{"a keychain that fails", setup{keychain: &fakeKeychain{getErr: errors.New("the keyring is locked")}}, "", "", "avenir token set"},
		{"a keychain that fails says why", setup{keychain: &fakeKeychain{getErr: errors.New("the keyring is locked")}}, "", "", "the test keychain could not be read: the keyring is locked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			vars := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config")}
			if tt.setup.env {
				vars["YNAB_ACCESS_TOKEN"] = "  " + tokenEnv + "\n"
			}
			switch tt.setup.envFile {
			case "":
			case "-":
				vars["YNAB_ACCESS_TOKEN_FILE"] = filepath.Join(dir, "missing")
			default:
				p := filepath.Join(dir, "from-env")
				if err := os.WriteFile(p, []byte(tt.setup.envFile), 0o600); err != nil {
					t.Fatal(err)
				}
				vars["YNAB_ACCESS_TOKEN_FILE"] = p
			}
			if tt.setup.file {
				if err := writeTokenFile(tokenFilePath(mapEnv(vars)), tokenFile); err != nil {
					t.Fatal(err)
				}
			}
			e := env{getenv: mapEnv(vars)}
			if tt.setup.keychain != nil {
				e.keychain = tt.setup.keychain
			}
			got, from, err := resolveToken(e)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("resolveToken: %q, %v; want an error with %q", got, err, tt.wantErr)
				}
				for _, tok := range []string{tokenEnv, tokenEnvFile, tokenFile, tokenKeychain} {
					if strings.Contains(err.Error(), tok) {
						t.Fatalf("the error shows a token: %v", err)
					}
				}
				return
			}
			if err != nil || got != tt.want || from.Kind != tt.wantKind {
				t.Fatalf("resolveToken = %q from %+v, %v; want %q from %s", got, from, err, tt.want, tt.wantKind)
			}
		})
	}
}

// tokenEnvFor is an env for `avenir token` with its own configuration directory.
func tokenEnvFor(t *testing.T, kc keychain, stdin string) (env, *strings.Builder, *strings.Builder, string) {
	t.Helper()
	dir := t.TempDir()
	vars := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config")}
	var out, errOut strings.Builder
	return env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, getenv: mapEnv(vars), keychain: kc},
		&out, &errOut, tokenFilePath(mapEnv(vars))
}

func TestTokenSet(t *testing.T) {
	t.Run("into the keychain, and an older file goes", func(t *testing.T) {
		kc := &fakeKeychain{}
		e, out, _, path := tokenEnvFor(t, kc, tokenKeychain+"\n")
		if err := writeTokenFile(path, tokenFile); err != nil {
			t.Fatal(err)
		}
		if err := run(context.Background(), []string{"token", "set"}, e); err != nil {
			t.Fatal(err)
		}
		if kc.secret != tokenKeychain || !strings.Contains(out.String(), "the test keychain") {
			t.Fatalf("keychain %q, output %q; want the token in the keychain", kc.secret, out)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the old token file is still there (%v): it would win over the keychain", err)
		}
		if got, from, err := resolveToken(e); err != nil || got != tokenKeychain || from.Kind != "keychain" {
			t.Fatalf("serve would take %q from %+v (%v)", got, from, err)
		}
	})
	fileCases := []struct {
		name string
		kc   keychain
		args []string
	}{
		{"no keychain: a file only its owner can read", nil, nil},
		{"a keychain that refuses: the file", &fakeKeychain{setErr: errors.New("no Secret Service is running")}, nil},
		{"--file", &fakeKeychain{}, []string{"--file"}},
	}
	for _, tc := range fileCases {
		t.Run(tc.name, func(t *testing.T) {
			e, out, _, path := tokenEnvFor(t, tc.kc, "  "+tokenFile+"\r\n")
			if err := run(context.Background(), append([]string{"token", "set"}, tc.args...), e); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil || string(b) != tokenFile+"\n" || !strings.Contains(out.String(), path) {
				t.Fatalf("file %q (%v), output %q; want the token in %s", b, err, out, path)
			}
			if runtime.GOOS != "windows" {
				fi, _ := os.Stat(path)
				di, _ := os.Stat(filepath.Dir(path))
				if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
					t.Fatalf("file mode %v, directory mode %v; want 0600 and 0700", fi.Mode().Perm(), di.Mode().Perm())
				}
			}
			if got, from, err := resolveToken(e); err != nil || got != tokenFile || from.Kind != "file" {
				t.Fatalf("serve would take %q from %+v (%v)", got, from, err)
			}
		})
	}
	refusals := []struct {
		name, stdin string
		args        []string
		wantUsage   bool
		want        string
	}{
		{"the token as an argument", "", []string{tokenFile}, true, "reads the token from stdin"},
		{"nothing on stdin", "", nil, false, "no token on stdin"},
		{"a sentence instead of a token", "my token is secret\n", nil, false, "does not look like a YNAB personal access token"},
		{"an unknown flag", "", []string{"--keychain"}, true, "flag provided but not defined"},
	}
	for _, tc := range refusals {
		t.Run("refuses "+tc.name, func(t *testing.T) {
			kc := &fakeKeychain{}
			e, _, _, path := tokenEnvFor(t, kc, tc.stdin)
			err := run(context.Background(), append([]string{"token", "set"}, tc.args...), e)
			var ue *usageError
			if err == nil || errors.As(err, &ue) != tc.wantUsage || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("token set: %v; want a refusal with %q (usage error %v)", err, tc.want, tc.wantUsage)
			}
			if _, statErr := os.Stat(path); kc.secret != "" || statErr == nil {
				t.Fatal("something was kept after a refusal")
			}
			if strings.Contains(err.Error(), tokenFile) {
				t.Fatalf("the error shows the token: %v", err)
			}
		})
	}
}

func TestTokenForget(t *testing.T) {
	kc := &fakeKeychain{secret: tokenKeychain}
	e, out, _, path := tokenEnvFor(t, kc, "")
	if err := writeTokenFile(path, tokenFile); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"token", "forget"}, e); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) || kc.secret != "" {
		t.Fatalf("after forget: file %v, keychain %q; want both gone", err, kc.secret)
	}
	if !strings.Contains(out.String(), path) || !strings.Contains(out.String(), "the test keychain") {
		t.Fatalf("output %q does not say what was forgotten", out)
	}
	if _, _, err := resolveToken(e); !errors.Is(err, errNoToken) {
		t.Fatalf("serve would still find a token: %v", err)
	}
	out.Reset()
	if err := run(context.Background(), []string{"token", "forget"}, e); err != nil || !strings.Contains(out.String(), "nothing to forget") {
		t.Fatalf("a second forget: %v, %q", err, out)
	}
}

// fakeSecretTool is a stand-in for libsecret's secret-tool with its command line and its
// answers (lookup of a missing item: status 1, nothing said), keeping the secret in a file.
const fakeSecretTool = `#!/bin/sh
store="$FAKE_KEYRING"
[ -n "$FAKE_KEYRING_LOCKED" ] && { echo "secret-tool: Cannot autolaunch D-Bus without X11 \$DISPLAY" >&2; exit 1; }
cmd=$1; shift
[ "$cmd" = store ] && shift # --label=…
[ "$1 $2 $3 $4" = "service avenir account ynab-token" ] || { echo "secret-tool: unexpected attributes: $*" >&2; exit 2; }
case "$cmd" in
store) cat > "$store" ;;
lookup) [ -f "$store" ] || exit 1; cat "$store" ;;
clear) rm -f "$store" ;;
*) echo "secret-tool: unknown command $cmd" >&2; exit 2 ;;
esac
`

// TestKeychainThroughSecretTool runs the real binary with a fake secret-tool first on PATH:
// `avenir token set` hands the token to it on stdin (never in its arguments), and serve takes
// it from there and is let in by a sandbox that accepts only that token.
func TestKeychainThroughSecretTool(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Secret Service through secret-tool is the Linux keychain")
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "secret-tool"), []byte(fakeSecretTool), 0o755); err != nil {
		t.Fatal(err)
	}
	keyring := filepath.Join(t.TempDir(), "keyring")
	env, dir := isolatedEnv(t, "FAKE_KEYRING="+keyring, "XDG_CONFIG_HOME="+filepath.Join(t.TempDir(), "config"))
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + bin + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}

	cmd := exec.Command(avenirBinary(t), "token", "set")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(tokenKeychain + "\n")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "the Secret Service keyring") {
		t.Fatalf("token set: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(keyring); err != nil || string(b) != tokenKeychain {
		t.Fatalf("the keyring holds %q (%v); want the token", b, err)
	}

	sp := startSandbox(t, env, "--state", filepath.Join(dir, "s.json"), "--token", tokenKeychain)
	cs := connectServe(t, append(env, "AVENIR_MCP_YNAB_URL="+sp.url), "2025-11-25", nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_plans", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("list_plans with the keychain's token: %v %v", err, res)
	}

	locked := append(env, "FAKE_KEYRING_LOCKED=1")
	cmd = exec.Command(avenirBinary(t), "token", "set")
	cmd.Env = locked
	cmd.Stdin = strings.NewReader(tokenFile + "\n")
	out, err = cmd.CombinedOutput()
	path := filepath.Join(strings.TrimPrefix(env[len(env)-1], "XDG_CONFIG_HOME="), "avenir", tokenFileName)
	if b, _ := os.ReadFile(path); err != nil || string(b) != tokenFile+"\n" || !strings.Contains(string(out), "Cannot autolaunch D-Bus") {
		t.Fatalf("with no Secret Service: %v, file %q\n%s\nwant the token in %s and the reason shown", err, b, out, path)
	}

	cmd = exec.Command(avenirBinary(t), "token", "forget")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("token forget: %v\n%s", err, out)
	}
	if _, err := os.Stat(keyring); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the keyring still holds the token after forget (%v)", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the token file is still there after forget (%v)", err)
	}
}

// fakeSecurity is a stand-in for macOS's security(1): find-generic-password -w prints the
// password or exits 44, -i reads add-generic-password commands from stdin, and
// delete-generic-password exits 44 when there is nothing. It checks the service and account.
const fakeSecurity = `#!/bin/sh
store="$FAKE_KEYRING"
case "$1" in
find-generic-password)
  [ "$2 $3 $4 $5 $6" = "-s avenir -a ynab-token -w" ] || { echo "security: bad arguments: $*" >&2; exit 2; }
  [ -f "$store" ] || { echo "security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain." >&2; exit 44; }
  cat "$store"; echo ;;
delete-generic-password)
  [ -f "$store" ] || exit 44
  rm -f "$store" ;;
-i)
  read -r line
  case "$line" in
  'add-generic-password -U -s avenir -a ynab-token -l "avenir: YNAB personal access token" -w "'*'"')
    printf '%s' "$line" | sed 's/.*-w "\(.*\)"$/\1/' > "$store" ;;
  *) echo "security: unexpected command: $line" >&2 ;;
  esac ;;
*) echo "security: unknown command $1" >&2; exit 2 ;;
esac
`

// TestMacKeychainCommands runs macKeychain against a stand-in security(1): the token goes in
// on stdin, never in an argument, and comes back whole.
func TestMacKeychainCommands(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in is a shell script")
	}
	dir := t.TempDir()
	tool := filepath.Join(dir, "security")
	if err := os.WriteFile(tool, []byte(fakeSecurity), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_KEYRING", filepath.Join(dir, "keyring"))
	k := macKeychain{tool: tool}
	if _, err := k.Get(); !errors.Is(err, errNoSecret) {
		t.Fatalf("Get on an empty keychain: %v; want errNoSecret", err)
	}
	if err := k.Set(tokenKeychain); err != nil {
		t.Fatal(err)
	}
	if got, err := k.Get(); err != nil || got != tokenKeychain {
		t.Fatalf("Get = %q, %v", got, err)
	}
	if err := k.Delete(); err != nil {
		t.Fatal(err)
	}
	if err := k.Delete(); !errors.Is(err, errNoSecret) {
		t.Fatalf("a second Delete: %v; want errNoSecret", err)
	}
	broken := macKeychain{tool: filepath.Join(dir, "missing")}
	if err := broken.Set(tokenKeychain); err == nil || strings.Contains(err.Error(), tokenKeychain) {
		t.Fatalf("Set with no security tool: %v; want an error without the token", err)
	}
}
