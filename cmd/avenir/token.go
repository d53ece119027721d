package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/zalando/go-keyring"
)

// The YNAB token, kept properly: never on a command line, never in a client's configuration
// file in plain text. `avenir token set` reads it from stdin into the OS keychain where the
// machine has one that answers, else into a file only its owner can read; `serve` finds it
// there.
//
// The keychain is reached through github.com/zalando/go-keyring: the macOS Keychain (through
// /usr/bin/security, the secret passed on its stdin, never in its arguments), the freedesktop
// Secret Service over D-Bus on Linux and the BSDs (GNOME Keyring, KWallet; no secret-tool
// needed), the Windows Credential Manager. Each does the platform's own access control.

const tokenUsage = `Usage:
  avenir token set [--file]   read your YNAB personal access token from stdin and keep it
  avenir token forget         remove the token avenir keeps

set keeps the token in the OS keychain (the macOS Keychain; on Linux the Secret Service:
GNOME Keyring, KWallet; the Windows Credential Manager), else — where no keychain answers,
or with --file — in %s
(readable by you only). It reads one line from stdin: paste the token and press Enter, or
pipe it in; never pass it as an argument.

avenir serve looks for the token in this order: YNAB_ACCESS_TOKEN, the file named by
YNAB_ACCESS_TOKEN_FILE, the file above, the keychain. Make a token at
https://app.ynab.com/settings/developer ("New Token").
`

// errNoSecret is what a keychain says when it holds no token for avenir.
var errNoSecret = errors.New("no token stored")

// errNoKeychain marks a keychain that does not answer at all on this machine (no D-Bus
// session, no Secret Service on it, an OS without one): for finding and forgetting the token
// that is the same as a keychain holding none.
var errNoKeychain = errors.New("no keychain answers here")

// keychain is the OS's secret store as avenir uses it: one secret, avenir's YNAB token.
type keychain interface {
	Name() string // for people: "the macOS keychain"
	Get() (string, error)
	Set(token string) error
	Delete() error // errNoSecret when there was none
}

// The keychain item's names: what a person sees in Keychain Access, Seahorse or the
// Credential Manager (as "avenir:ynab-token").
const (
	secretService = "avenir"
	secretAccount = "ynab-token"
)

// systemKeychain returns the machine's keychain, or nil on an OS that has none go-keyring can
// reach. Whether it actually answers (a Linux without a desktop session has no Secret
// Service) shows at the first use.
func systemKeychain() keychain {
	switch runtime.GOOS {
	case "darwin":
		return osKeychain{name: "the macOS keychain"}
	case "windows":
		return osKeychain{name: "the Windows Credential Manager"}
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly":
		return osKeychain{name: "the Secret Service keyring", probe: sessionBus}
	}
	return nil
}

// osKeychain is the OS keychain through go-keyring. probe, when set, checks first that there
// is something to talk to, so that "no keychain here" is told apart from a keychain that
// failed.
type osKeychain struct {
	name  string
	probe func() error
}

func (k osKeychain) Name() string { return k.name }

func (k osKeychain) Get() (string, error) {
	if err := k.reach(); err != nil {
		return "", err
	}
	t, err := keyring.Get(secretService, secretAccount)
	if err != nil {
		return "", keychainError(err)
	}
	t = strings.TrimSpace(t)
	if t == "" {
		return "", errNoSecret
	}
	return t, nil
}

// Set stores the token and reads it back: macOS's `security -i` does not always say through
// its exit status whether the command inside succeeded, and a keychain that swallowed the
// token must not be reported as holding it.
func (k osKeychain) Set(token string) error {
	if err := k.reach(); err != nil {
		return err
	}
	if err := keyring.Set(secretService, secretAccount, token); err != nil {
		return keychainError(err)
	}
	got, err := k.Get()
	if err != nil {
		return fmt.Errorf("the token could not be read back: %w", err)
	}
	if got != token {
		return errors.New("it holds another token than the one just stored")
	}
	return nil
}

func (k osKeychain) Delete() error {
	if err := k.reach(); err != nil {
		return err
	}
	return keychainError(keyring.Delete(secretService, secretAccount))
}

func (k osKeychain) reach() error {
	if k.probe == nil {
		return nil
	}
	return k.probe()
}

// sessionBus checks that there is a D-Bus session bus to find the Secret Service on. godbus
// keeps the connection it opens, and go-keyring then uses that one.
func sessionBus() error {
	if _, err := dbus.SessionBus(); err != nil {
		return fmt.Errorf("%w: no D-Bus session bus (%v)", errNoKeychain, err)
	}
	return nil
}

// keychainError maps go-keyring's answers to avenir's: not found, no keychain at all (no
// Secret Service on the bus, an unsupported OS), or the failure as it was. None of them
// carries the token: go-keyring's errors name the item and the OS's reason only.
func keychainError(err error) error {
	var de dbus.Error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, keyring.ErrNotFound):
		return errNoSecret
	case errors.Is(err, keyring.ErrUnsupportedPlatform):
		return fmt.Errorf("%w: %v", errNoKeychain, err)
	case errors.As(err, &de) && (de.Name == "org.freedesktop.DBus.Error.ServiceUnknown" || de.Name == "org.freedesktop.DBus.Error.NameHasNoOwner"):
		return fmt.Errorf("%w: no Secret Service on the D-Bus session bus (%v)", errNoKeychain, err)
	}
	return err
}

// tokenSource says where a token was found, for the log and doctor: never the token itself.
type tokenSource struct {
	Kind string // "env", "env-file", "file", "keychain"
	Desc string // for people: "YNAB_ACCESS_TOKEN", "/home/me/.config/avenir/ynab-token", …
}

// errNoToken is resolveToken's answer when no source holds a token; its text says how to
// give avenir one.
var errNoToken = errors.New(`avenir serve needs a YNAB personal access token, and none is set.

  1. Open https://app.ynab.com/settings/developer and choose "New Token".
  2. Run: avenir token set   and paste it (it goes to your OS keychain, or a file only
     you can read). Or give it to avenir in its environment as YNAB_ACCESS_TOKEN, or
     YNAB_ACCESS_TOKEN_FILE naming a file that holds it; never on a command line.

To try avenir without a YNAB account, run: avenir serve --sandbox   (or: avenir demo)`)

// resolveToken finds the YNAB token: YNAB_ACCESS_TOKEN, then the file YNAB_ACCESS_TOKEN_FILE
// names, then avenir's own token file, then the keychain. A source that is set but unusable
// (a file that cannot be read, an empty one) is an error, not a reason to look further: the
// person meant that source. Errors name the source, never the token.
func resolveToken(e env) (string, tokenSource, error) {
	if t := strings.TrimSpace(e.getenv("YNAB_ACCESS_TOKEN")); t != "" {
		return t, tokenSource{"env", "YNAB_ACCESS_TOKEN"}, nil
	}
	if p := e.getenv("YNAB_ACCESS_TOKEN_FILE"); p != "" {
		t, err := readTokenFile(p)
		if err != nil {
			return "", tokenSource{}, fmt.Errorf("YNAB_ACCESS_TOKEN_FILE: %w", err)
		}
		return t, tokenSource{"env-file", p}, nil
	}
	p := tokenFilePath(e.getenv)
	switch t, err := readTokenFile(p); {
	case err == nil:
		return t, tokenSource{"file", p}, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", tokenSource{}, err
	}
	if e.keychain != nil {
		t, err := e.keychain.Get()
		switch {
		case err == nil && t != "":
			return t, tokenSource{"keychain", e.keychain.Name()}, nil
		case err != nil && !errors.Is(err, errNoSecret) && !errors.Is(err, errNoKeychain):
			// Last place looked: say how to give a token, and why the keychain did not.
			return "", tokenSource{}, fmt.Errorf("%w\n\n(%s could not be read: %v)", errNoToken, e.keychain.Name(), err)
		}
	}
	return "", tokenSource{}, errNoToken
}

// readTokenFile reads a token file: surrounding white space (a trailing newline) is ignored;
// an empty file is an error.
func readTokenFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading the token file: %w", err) // *PathError names the file
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return "", fmt.Errorf("the token file %s is empty", path)
	}
	return t, nil
}

// tokenChars is what a token may hold. YNAB's tokens are far narrower; this only keeps out
// what could never be one (spaces, quotes, control characters, a pasted sentence).
var tokenChars = regexp.MustCompile(`^[A-Za-z0-9._~+/=-]{16,512}$`)

func validToken(t string) error {
	if !tokenChars.MatchString(t) {
		return errors.New("that does not look like a YNAB personal access token: expected 16 to 512 letters, digits or -._~+/= on one line (make one at https://app.ynab.com/settings/developer)")
	}
	return nil
}

func runToken(args []string, e env) error {
	usage := fmt.Sprintf(tokenUsage, tokenFilePath(e.getenv))
	if len(args) == 0 {
		fmt.Fprint(e.stderr, usage)
		return usagef("token: say set or forget")
	}
	fs := flag.NewFlagSet("token "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	toFile := false
	if args[0] == "set" {
		fs.BoolVar(&toFile, "file", false, "keep the token in the file even where there is a keychain")
	}
	switch err := fs.Parse(args[1:]); {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(e.stdout, usage)
		return errHelp
	case err != nil:
		return usagef("token %s: %v", args[0], err)
	case fs.NArg() > 0 && args[0] == "set":
		return usagef("token set takes no arguments: it reads the token from stdin, so that it never shows in your shell's history or the process list")
	case fs.NArg() > 0:
		return usagef("token %s takes no arguments, got %q", args[0], fs.Arg(0))
	}
	switch args[0] {
	case "set":
		return tokenSet(e, toFile)
	case "forget":
		return tokenForget(e)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(e.stdout, usage)
		return errHelp
	default:
		fmt.Fprint(e.stderr, usage)
		return usagef("token: unknown command %q; say set or forget", args[0])
	}
}

func tokenSet(e env, toFile bool) error {
	interactive := isTerminal(e.stdin)
	if interactive {
		fmt.Fprint(e.stderr, "Paste your YNAB personal access token and press Enter (it will not show): ")
		if restore := noEcho(e.stdin); restore != nil {
			defer restore()
		}
	}
	line, err := bufio.NewReader(e.stdin).ReadString('\n')
	if interactive {
		fmt.Fprintln(e.stderr)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading the token from stdin: %w", err)
	}
	token := strings.TrimSpace(line)
	if token == "" {
		return errors.New("no token on stdin: paste it and press Enter, or pipe it in (avenir token set < file)")
	}
	if err := validToken(token); err != nil {
		return err
	}

	path := tokenFilePath(e.getenv)
	if !toFile && e.keychain != nil {
		err := e.keychain.Set(token)
		if err == nil {
			// One place only: a file left from before would win over the keychain.
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("the token is in %s, but the old token file %s could not be removed (it would be used first): %w", e.keychain.Name(), path, err)
			}
			fmt.Fprintf(e.stdout, "The token is in %s. avenir serve finds it there; run 'avenir doctor' to check that YNAB accepts it.\n", e.keychain.Name())
			return nil
		}
		if errors.Is(err, errNoKeychain) {
			fmt.Fprintf(e.stderr, "avenir: %v; keeping the token in a file instead.\n", err)
		} else {
			fmt.Fprintf(e.stderr, "avenir: %s could not keep the token (%v); keeping it in a file instead.\n", e.keychain.Name(), err)
		}
	}
	if err := writeTokenFile(path, token); err != nil {
		return err
	}
	if e.keychain != nil {
		_ = e.keychain.Delete() // an older token there would only confuse; the file wins anyway
	}
	fmt.Fprintf(e.stdout, "The token is in %s (readable by you only). avenir serve finds it there; run 'avenir doctor' to check that YNAB accepts it.\n", path)
	return nil
}

// writeTokenFile writes the token with mode 0600 in a 0700 directory, through a temporary file
// renamed into place, so that no reader ever sees half a token or a file others can read.
func writeTokenFile(path, token string) error {
	if err := writeSecretFile(path, token); err != nil {
		return fmt.Errorf("writing the token file: %w", err)
	}
	return nil
}

// writeSecretFile writes a secret and a newline to path, readable by its owner only (mode
// 0600, in a directory created 0700), through a temporary file renamed into place.
func writeSecretFile(path, secret string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // gone after the rename; removes it after a failure
	if err := f.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		f.Close()
		return err
	}
	if _, err := f.WriteString(secret + "\n"); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	return nil
}

func tokenForget(e env) error {
	var removed []string
	path := tokenFilePath(e.getenv)
	switch err := os.Remove(path); {
	case err == nil:
		removed = append(removed, path)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("removing the token file: %w", err)
	}
	if e.keychain != nil {
		switch err := e.keychain.Delete(); {
		case err == nil:
			removed = append(removed, e.keychain.Name())
		case !errors.Is(err, errNoSecret) && !errors.Is(err, errNoKeychain):
			return fmt.Errorf("removing the token from %s: %w", e.keychain.Name(), err)
		}
	}
	if len(removed) == 0 {
		fmt.Fprintln(e.stdout, "avenir kept no token: nothing to forget.")
	} else {
		fmt.Fprintf(e.stdout, "Forgot the token in %s. (To stop it working anywhere, delete it at https://app.ynab.com/settings/developer.)\n", strings.Join(removed, " and "))
	}
	for _, v := range []string{"YNAB_ACCESS_TOKEN", "YNAB_ACCESS_TOKEN_FILE"} {
		if e.getenv(v) != "" {
			fmt.Fprintf(e.stdout, "%s is still set in this environment; avenir serve uses it where it is set.\n", v)
		}
	}
	return nil
}

// noEcho turns off the terminal's echo while a token is typed, with stty where there is one,
// and returns what turns it back on (nil when it could not be turned off: the token then
// shows, as it would in any terminal prompt without this).
func noEcho(stdin io.Reader) func() {
	f, ok := stdin.(*os.File)
	if !ok || runtime.GOOS == "windows" {
		return nil
	}
	stty := func(arg string) error {
		cmd := exec.Command("stty", arg)
		cmd.Stdin = f
		return cmd.Run()
	}
	if stty("-echo") != nil {
		return nil
	}
	return func() { _ = stty("echo") }
}
