//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A device or a named pipe is refused as not a regular file before anything is read from it
// (a pipe would block the server's read forever, /dev/zero never ends); a symlink in an allowed
// folder to a device is a path out of the folders.
func TestImportStatementNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "zero.csv")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "statement.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skipf("no /dev/zero here: %v", err)
	}
	e := newEnv(t, envOptions{kind: noElicit, statementDirs: []string{dir, "/dev"}})
	for _, c := range []struct{ name, file, want string }{
		{"a device", "/dev/zero", "file: " + quoted("/dev/zero") + " is not a regular file"},
		{"a symlink to a device", link, "file: " + quoted(link) + " is not a regular file"},
		{"a named pipe", fifo, "file: " + quoted(fifo) + " is not a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.sb.ResetCounts()
			done := make(chan string, 1)
			go func() {
				res := e.call("import_statement", map[string]any{"account": "Betaalrekening", "file": c.file})
				done <- text(res)
			}()
			select {
			case msg := <-done:
				if !strings.Contains(msg, c.want) || e.writes() != 0 {
					t.Fatalf("%s: %q, %d writes; want %q and nothing written", c.name, msg, e.writes(), c.want)
				}
			case <-time.After(10 * time.Second):
				if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil { // lets the blocked read end
					f.Close()
				}
				t.Fatalf("%s: import_statement is still reading it after 10 s", c.name)
			}
		})
	}
}
