package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal pair (Linux's /dev/ptmx): what the child writes to slave,
// a terminal, the test reads from master.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	ioctl := func(req uintptr, arg unsafe.Pointer) error {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), req, uintptr(arg)); errno != 0 {
			return errno
		}
		return nil
	}
	var unlock int32
	if err := ioctl(syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	var n uint32
	if err := ioctl(syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		t.Fatalf("naming the pseudo-terminal: %v", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the pseudo-terminal's other end: %v", err)
	}
	t.Cleanup(func() { slave.Close() })
	return master, slave
}

// TestHTTPSecretOnATerminal: with stderr on a terminal, a person reads it, and serve --http
// prints the generated secret there and keeps no file of it.
func TestHTTPSecretOnATerminal(t *testing.T) {
	master, slave := openPTY(t)
	env, dir := isolatedEnv(t)
	cmd := exec.Command(avenirBinary(t), "serve", "--sandbox", "--http", "127.0.0.1:0")
	cmd.Env = env
	cmd.Stderr = slave
	hs := startHTTPProcess(t, cmd, master)
	if err := slave.Close(); err != nil { // the child has its own copy
		t.Fatal(err)
	}
	if strings.HasPrefix(hs.secret, secretFileIntro) || len(hs.secret) < 40 {
		t.Fatalf("on a terminal serve said %q about the secret; want the secret itself", hs.secret)
	}
	hs.connect(t, "2025-11-25", nil)
	if m, err := filepath.Glob(filepath.Join(dir, "avenir", "*secret*")); err != nil || len(m) != 0 {
		t.Fatalf("secret files %v (%v); want none", m, err)
	}
}
