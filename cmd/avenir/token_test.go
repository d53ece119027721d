package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zalando/go-keyring"

	"github.com/avenir-mcp/avenir/hosted/hostedtest"
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
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				di, err := os.Stat(filepath.Dir(path))
				if err != nil {
					t.Fatal(err)
				}
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

// TestOSKeychain drives osKeychain, and `avenir token` through it, against go-keyring's own
// in-memory provider: the token goes in under avenir's service and account, comes back whole,
// and a keychain that fails sends the token to the file with the reason said.
func TestOSKeychain(t *testing.T) {
	keyring.MockInit()
	t.Cleanup(keyring.MockInit) // a fresh, empty store for whatever runs next
	k := osKeychain{name: "the test OS keychain"}
	if _, err := k.Get(); !errors.Is(err, errNoSecret) {
		t.Fatalf("Get on an empty keychain: %v; want errNoSecret", err)
	}
	if err := k.Set(tokenKeychain); err != nil {
		t.Fatal(err)
	}
	if got, err := keyring.Get("avenir", "ynab-token"); err != nil || got != tokenKeychain {
		t.Fatalf("the keychain holds %q under avenir/ynab-token (%v)", got, err)
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

	t.Run("token set, serve, token forget", func(t *testing.T) {
		e, out, _, path := tokenEnvFor(t, k, tokenKeychain+"\n")
		if err := run(context.Background(), []string{"token", "set"}, e); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "The token is in the test OS keychain") {
			t.Fatalf("output %q", out)
		}
		if got, from, err := resolveToken(e); err != nil || got != tokenKeychain || from.Kind != "keychain" || from.Desc != k.Name() {
			t.Fatalf("serve would take %q from %+v (%v)", got, from, err)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a token file was written too (%v)", err)
		}
		out.Reset()
		if err := run(context.Background(), []string{"token", "forget"}, e); err != nil || !strings.Contains(out.String(), "Forgot the token in the test OS keychain") {
			t.Fatalf("forget: %v, %q", err, out)
		}
		if _, err := keyring.Get("avenir", "ynab-token"); !errors.Is(err, keyring.ErrNotFound) {
			t.Fatalf("the keychain still holds the token (%v)", err)
		}
	})

	t.Run("a keychain that fails", func(t *testing.T) {
		keyring.MockInitWithError(errors.New("the collection is locked"))
		t.Cleanup(keyring.MockInit)
		if _, err := k.Get(); err == nil || errors.Is(err, errNoSecret) || errors.Is(err, errNoKeychain) || !strings.Contains(err.Error(), "locked") {
			t.Fatalf("Get: %v; want the keychain's own failure", err)
		}
		e, out, errOut, path := tokenEnvFor(t, k, tokenFile+"\n")
		if err := run(context.Background(), []string{"token", "set"}, e); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(errOut.String(), "the test OS keychain could not keep the token (the collection is locked); keeping it in a file instead") || !strings.Contains(out.String(), path) {
			t.Fatalf("stderr %q, stdout %q; want the reason and the file", errOut, out)
		}
		if got, from, err := resolveToken(e); err != nil || got != tokenFile || from.Kind != "file" {
			t.Fatalf("serve would take %q from %+v (%v)", got, from, err)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if _, _, err := resolveToken(e); err == nil || !strings.Contains(err.Error(), "the test OS keychain could not be read: the collection is locked") || strings.Contains(err.Error(), tokenFile) {
			t.Fatalf("with no file and a failing keychain: %v; want the reason, and no token", err)
		}
	})
}

// TestKeychainErrors: go-keyring's answers as avenir reads them.
func TestKeychainErrors(t *testing.T) {
	other := errors.New("the prompt was dismissed")
	tests := []struct {
		err            error
		secret, noneAt bool // errNoSecret, errNoKeychain
	}{
		{keyring.ErrNotFound, true, false},
		{fmt.Errorf("looking: %w", keyring.ErrNotFound), true, false},
		{keyring.ErrUnsupportedPlatform, false, true},
		{dbus.Error{Name: "org.freedesktop.DBus.Error.ServiceUnknown", Body: []any{"The name org.freedesktop.secrets was not provided by any .service files"}}, false, true},
		{dbus.Error{Name: "org.freedesktop.DBus.Error.NameHasNoOwner"}, false, true},
		{dbus.Error{Name: "org.freedesktop.Secret.Error.IsLocked"}, false, false},
		{other, false, false},
	}
	for _, tt := range tests {
		got := keychainError(tt.err)
		if errors.Is(got, errNoSecret) != tt.secret || errors.Is(got, errNoKeychain) != tt.noneAt {
			t.Errorf("keychainError(%v) = %v; want no secret %v, no keychain %v", tt.err, got, tt.secret, tt.noneAt)
		}
	}
	if keychainError(nil) != nil || keychainError(other) != other {
		t.Error("keychainError changes nil or a failure of its own")
	}
}

// TestNoKeychainAnswers: where no D-Bus session bus answers (a server, a container, a login
// over ssh), the Secret Service keychain is taken as absent: the token goes to the file with
// the reason said once, serve's error is the plain one, forget forgets the file.
func TestNoKeychainAnswers(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("the Secret Service is the keychain of Linux and the BSDs")
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(t.TempDir(), "no-bus"))
	k := osKeychain{name: "the Secret Service keyring", probe: sessionBus}
	if _, err := k.Get(); !errors.Is(err, errNoKeychain) || !strings.Contains(err.Error(), "no D-Bus session bus") {
		t.Fatalf("Get: %v; want errNoKeychain naming the missing bus", err)
	}
	e, out, errOut, path := tokenEnvFor(t, k, "")
	if _, _, err := resolveToken(e); err != errNoToken {
		t.Fatalf("resolveToken: %v; want exactly errNoToken", err)
	}
	if _, c := checkToken(e); c.status != checkFail || !strings.Contains(c.found, "(no keychain answers here: no D-Bus session bus") {
		t.Fatalf("doctor's token line: %+v", c)
	}
	e.stdin = strings.NewReader(tokenFile + "\n")
	if err := run(context.Background(), []string{"token", "set"}, e); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "avenir: no keychain answers here: no D-Bus session bus") || !strings.Contains(out.String(), path) {
		t.Fatalf("stderr %q, stdout %q", errOut, out)
	}
	out.Reset()
	if err := run(context.Background(), []string{"token", "forget"}, e); err != nil || !strings.Contains(out.String(), "Forgot the token in "+path+".") {
		t.Fatalf("forget: %v, %q", err, out)
	}
}

// TestKeychainBinaryWithoutDBus runs the real binary where no D-Bus session bus answers:
// `avenir token set` keeps the token in the file and says why, serve takes it from there and is
// let in by a sandbox that accepts only that token, `avenir token forget` removes it.
func TestKeychainBinaryWithoutDBus(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("the Secret Service is the keychain of Linux and the BSDs")
	}
	config := filepath.Join(t.TempDir(), "config")
	env, dir := isolatedEnv(t, "XDG_CONFIG_HOME="+config,
		"DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(t.TempDir(), "no-bus"))
	cmd := exec.Command(avenirBinary(t), "token", "set")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(tokenFile + "\n")
	out, err := cmd.CombinedOutput()
	path := filepath.Join(config, "avenir", tokenFileName)
	if err != nil || !strings.Contains(string(out), "no keychain answers here") || !strings.Contains(string(out), path) || strings.Contains(string(out), tokenFile) {
		t.Fatalf("token set: %v\n%s", err, out)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the token file: %v, %v; want mode 0600", fi, err)
	}

	sp := startSandbox(t, env, "--state", filepath.Join(dir, "s.json"), "--token", tokenFile)
	cs := connectServe(t, append(env, "AVENIR_MCP_YNAB_URL="+sp.url), "2025-11-25", nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_plans", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("list_plans with the file's token: %v %v", err, res)
	}

	cmd = exec.Command(avenirBinary(t), "token", "forget")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Forgot the token in "+path) {
		t.Fatalf("token forget: %v\n%s", err, out)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the token file is still there after forget (%v)", err)
	}
}

// TestKeychainBinaryWithSecretService runs the real binary against a real Secret Service:
// GNOME Keyring on a D-Bus session bus of the test's own, where both are installed (Debian:
// dbus-daemon, gnome-keyring). `avenir token set` keeps the token there and no file, serve
// takes it from there and is let in by a sandbox that accepts only that token, and
// `avenir token forget` removes it.
func TestKeychainBinaryWithSecretService(t *testing.T) {
	daemon, err1 := exec.LookPath("dbus-daemon")
	keyringd, err2 := exec.LookPath("gnome-keyring-daemon")
	if err1 != nil || err2 != nil {
		t.Skip("needs dbus-daemon and gnome-keyring-daemon (Debian: apt-get install dbus-daemon gnome-keyring)")
	}
	dir := t.TempDir()
	bus := "unix:path=" + filepath.Join(dir, "bus")
	start := func(cmd *exec.Cmd) {
		t.Helper()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
				t.Errorf("stopping %s: %v", cmd.Path, err)
			}
			_ = cmd.Wait() // "signal: killed": the kill above
		})
	}
	busd := exec.Command(daemon, "--session", "--nofork", "--address="+bus, "--print-address=1")
	addr, err := busd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start(busd)
	if line, err := bufio.NewReader(addr).ReadString('\n'); err != nil || !strings.HasPrefix(line, bus) {
		t.Fatalf("dbus-daemon: %q, %v", line, err)
	}
	home := filepath.Join(dir, "home")
	daemonEnv := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_RUNTIME_DIR=" + dir,
		"XDG_DATA_HOME=" + filepath.Join(home, "share"), "DBUS_SESSION_BUS_ADDRESS=" + bus}
	gk := exec.Command(keyringd, "--unlock", "--components=secrets", "--foreground")
	gk.Env = daemonEnv
	gk.Stdin = strings.NewReader("the login keyring's password")
	start(gk)
	conn, err := dbus.Connect(bus)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var callErr error
	if !hostedtest.WaitFor(10*time.Second, func() bool {
		var owned bool
		callErr = conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.freedesktop.secrets").Store(&owned)
		return callErr != nil || owned
	}) {
		t.Fatal("gnome-keyring-daemon did not take org.freedesktop.secrets within 10 s")
	}
	if callErr != nil {
		t.Fatal(callErr)
	}

	config := filepath.Join(dir, "config")
	env, state := isolatedEnv(t, "XDG_CONFIG_HOME="+config, "DBUS_SESSION_BUS_ADDRESS="+bus)
	avenir := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(avenirBinary(t), args...)
		cmd.Env = env
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil || strings.Contains(string(out), tokenKeychain) {
			t.Fatalf("avenir %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := avenir(tokenKeychain+"\n", "token", "set"); !strings.Contains(out, "The token is in the Secret Service keyring") {
		t.Fatalf("token set:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(config, "avenir", tokenFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a token file was written too (%v)", err)
	}
	sp := startSandbox(t, env, "--state", filepath.Join(state, "s.json"), "--token", tokenKeychain)
	cs := connectServe(t, append(env, "AVENIR_MCP_YNAB_URL="+sp.url), "2025-11-25", nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_plans", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("list_plans with the keychain's token: %v %v", err, res)
	}
	if out := avenir("", "token", "forget"); !strings.Contains(out, "Forgot the token in the Secret Service keyring") {
		t.Fatalf("token forget:\n%s", out)
	}
	if out := avenir("", "token", "forget"); !strings.Contains(out, "nothing to forget") {
		t.Fatalf("a second forget:\n%s", out)
	}
}
