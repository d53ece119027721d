package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// version is what avenir calls itself: in serverInfo, the log, `avenir version`. A release
// build sets it (-ldflags "-X main.version=v1.2.3", see packaging/.goreleaser.yaml); any other
// build takes the module version Go recorded (`go install …@v1.2.3` records v1.2.3), else
// "devel".
var version string

func init() {
	if version == "" {
		bi, _ := debug.ReadBuildInfo()
		version = describeBuild("", bi).Version
	}
}

// buildDescription is what a binary knows about how it was built.
type buildDescription struct {
	Version  string // the release or module version, or "devel"
	Revision string // the VCS commit, when the build recorded one
	Time     string // the commit's time (RFC 3339), when recorded
	Modified bool   // the work tree had changes the commit does not
	Go       string // the Go toolchain that built it
}

// describeBuild reads bi (nil when the binary carries no build info). A release version
// (from -X) wins over the module version: the release build knows its tag even where Go does
// not.
func describeBuild(release string, bi *debug.BuildInfo) buildDescription {
	d := buildDescription{Version: release, Go: runtime.Version()}
	if bi == nil {
		if d.Version == "" {
			d.Version = "devel"
		}
		return d
	}
	if bi.GoVersion != "" {
		d.Go = bi.GoVersion
	}
	if d.Version == "" {
		d.Version = bi.Main.Version
	}
	if d.Version == "" || d.Version == "(devel)" {
		d.Version = "devel"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			d.Revision = s.Value
		case "vcs.time":
			d.Time = s.Value
		case "vcs.modified":
			d.Modified = s.Value == "true"
		}
	}
	return d
}

// writeVersion prints the version on the first line, then where it came from: what a bug
// report needs.
func writeVersion(w io.Writer, d buildDescription) {
	fmt.Fprintf(w, "avenir %s\n", d.Version)
	if d.Revision != "" {
		rev := d.Revision
		if d.Time != "" {
			rev += " (" + d.Time + ")"
		}
		if d.Modified {
			rev += ", with uncommitted changes"
		}
		fmt.Fprintf(w, "  commit   %s\n", rev)
	}
	fmt.Fprintf(w, "  go       %s\n", d.Go)
	fmt.Fprintf(w, "  platform %s/%s\n", runtime.GOOS, runtime.GOARCH)
}

func runVersion(args []string, e env) error {
	if len(args) > 0 {
		if a := args[0]; a == "-h" || a == "-help" || a == "--help" {
			fmt.Fprintln(e.stdout, "Usage: avenir version\n\nPrints avenir's version, the commit it was built from, and the Go toolchain.")
			return errHelp
		}
		return usagef("version takes no arguments, got %q", strings.Join(args, " "))
	}
	bi, _ := debug.ReadBuildInfo()
	writeVersion(e.stdout, describeBuild(version, bi))
	return nil
}
