package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestDescribeBuild(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "vcs.revision", Value: "8ae2efe0c0ffee"},
		{Key: "vcs.time", Value: "2026-11-30T10:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	tests := []struct {
		name    string
		release string
		bi      *debug.BuildInfo
		want    buildDescription
	}{
		{"go install of a tag", "", &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "v1.2.3"}},
			buildDescription{Version: "v1.2.3", Go: "go1.26.1"}},
		{"a release build names its tag", "v1.4.0", &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "(devel)"}},
			buildDescription{Version: "v1.4.0", Go: "go1.26.1"}},
		{"a local build from a checkout", "", &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			buildDescription{Version: "devel", Revision: "8ae2efe0c0ffee", Time: "2026-11-30T10:00:00Z", Modified: true, Go: "go1.26.1"}},
		{"no build info at all", "", nil, buildDescription{Version: "devel", Go: runtime.Version()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describeBuild(tt.release, tt.bi); got != tt.want {
				t.Fatalf("describeBuild = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestWriteVersion(t *testing.T) {
	var b strings.Builder
	writeVersion(&b, buildDescription{Version: "v1.2.3", Revision: "8ae2efe", Time: "2026-11-30T10:00:00Z", Modified: true, Go: "go1.26.1"})
	want := "avenir v1.2.3\n" +
		"  commit   8ae2efe (2026-11-30T10:00:00Z), with uncommitted changes\n" +
		"  go       go1.26.1\n" +
		"  platform " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestVersionOfTheBinary: the real binary reports the toolchain that built it, and the release
// build's -X flag (the one packaging/.goreleaser.yaml passes) names the version.
func TestVersionOfTheBinary(t *testing.T) {
	env, _ := isolatedEnv(t)
	out, _, code := runBinary(t, env, "version")
	if code != 0 || !strings.HasPrefix(out, "avenir ") || !strings.Contains(out, "  go       "+runtime.Version()+"\n") {
		t.Fatalf("avenir version: exit %d, output %q; want the version and %s", code, out, runtime.Version())
	}
	if _, errOut, code := runBinary(t, env, "version", "extra"); code != 2 || !strings.Contains(errOut, "version takes no arguments") {
		t.Fatalf("avenir version extra: exit %d, stderr %q; want a usage error", code, errOut)
	}

	bin := filepath.Join(t.TempDir(), "avenir")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=v9.8.7", "-o", bin, ".")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build with -X main.version: %v\n%s", err, b)
	}
	got, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.HasPrefix(string(got), "avenir v9.8.7\n") {
		t.Fatalf("release build: avenir version = %q, %v; want avenir v9.8.7 first", got, err)
	}
}
