// Command avenir is a stdio MCP server that lets an AI assistant read and safely change a YNAB
// plan: every write is previewed, confirmed by the person, journaled and undoable.
//
// main only turns signals and errors into exit codes; the work is in run and the subcommands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// usageError is a mistake in the command line: it is printed with a hint and exits with 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// env is what a subcommand may see of the outside world, so that tests can run it in-process.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// keychain is the OS's secret store for the YNAB token; nil where there is none (and in
	// tests that do not give one).
	keychain keychain
}

const mainUsage = `avenir: let an AI assistant work on your YNAB plan, safely.

Usage:
  avenir serve [--sandbox]        run the MCP server on stdio (YNAB_ACCESS_TOKEN, or --sandbox)
  avenir demo                     watch a short session against the built-in sandbox
  avenir journal list|show        see what avenir wrote, when, and how it was confirmed
  avenir sandbox serve|reset      run the YNAB emulator on its own, or restore its sample plan
  avenir token set|forget         keep your YNAB token in the OS keychain (read from stdin)
  avenir config CLIENT [--write]  the configuration that makes an MCP client start avenir
  avenir doctor                   check that serve would work here, and say what to fix
  avenir version                  print the version

Run 'avenir COMMAND --help' for a command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	e := env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, keychain: systemKeychain()}
	err := run(ctx, os.Args[1:], e)
	stop()
	os.Exit(exitCode(err, e.stderr))
}

// exitCode prints err for a person and picks the exit status: 0, 2 for usage errors, else 1.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, errHelp) {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "avenir: %s\nRun 'avenir --help' for usage.\n", ue.msg)
		return 2
	}
	fmt.Fprintf(stderr, "avenir: %v\n", err)
	return 1
}

// errHelp is returned after a --help text was printed: not a failure.
var errHelp = errors.New("help shown")

func run(ctx context.Context, args []string, e env) error {
	e.getenv = withoutUnfilledSettings(e.getenv)
	if len(args) == 0 {
		fmt.Fprint(e.stderr, mainUsage)
		return usagef("no command given")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return runServe(ctx, rest, e)
	case "demo":
		return runDemo(ctx, rest, e)
	case "journal":
		return runJournal(ctx, rest, e)
	case "sandbox":
		return runSandbox(ctx, rest, e)
	case "token":
		return runToken(rest, e)
	case "config":
		return runConfig(rest, e)
	case "doctor":
		return runDoctor(ctx, rest, e)
	case "version", "--version":
		return runVersion(rest, e)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(e.stdout, mainUsage)
		return errHelp
	default:
		fmt.Fprint(e.stderr, mainUsage)
		return usagef("unknown command %q", cmd)
	}
}
