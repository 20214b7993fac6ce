package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// ward version names the module's version and the commit Go stamped into the build; a build
// without VCS stamps says so rather than printing an empty commit.
func TestVersionLine(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/ward-sim/ward", Version: "v0.4.0"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef"},
			{Key: "vcs.time", Value: "2026-11-28T19:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := versionLine(stamped), "ward v0.4.0 (commit 0123456789abcdef, 2026-11-28T19:00:00Z, modified, go1.26.8)"; got != want {
		t.Errorf("stamped build: %q, want %q", got, want)
	}
	bare := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}
	if got := versionLine(bare); got != "ward (devel) (commit unknown, go1.26.8)" {
		t.Errorf("unstamped build: %q", got)
	}
}

// The command itself runs and prints one line that starts with "ward ".
func TestVersionCommand(t *testing.T) {
	var out, errs strings.Builder
	if code := runAndReport([]string{"version"}, strings.NewReader(""), &out, &errs); code != 0 || !strings.HasPrefix(out.String(), "ward ") ||
		strings.Count(out.String(), "\n") != 1 {
		t.Errorf("ward version: exit %d, %q, stderr %q", code, out.String(), errs.String())
	}
}
