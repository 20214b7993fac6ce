package main

import (
	"context"
	"fmt"
	"runtime/debug"
)

// version prints what the binary was built from: the module's version (a tag when installed with
// `go install …@version`, "(devel)" for a build from a checkout) and the VCS commit, its time and
// whether the work tree had changes, as Go stamps them into every build from a git checkout.
func version(_ context.Context, c *call) error {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Errorf("this binary carries no build information")
	}
	_, err := fmt.Fprintln(c.stdout, versionLine(info))
	return err
}

// versionLine is "ward VERSION (commit REV, TIME[, modified])", or "commit unknown" for a build
// Go did not stamp (a test binary, or -buildvcs=false).
func versionLine(info *debug.BuildInfo) string {
	vcs := map[string]string{}
	for _, s := range info.Settings {
		vcs[s.Key] = s.Value
	}
	commit := "commit unknown"
	if rev := vcs["vcs.revision"]; rev != "" {
		commit = "commit " + rev
		if t := vcs["vcs.time"]; t != "" {
			commit += ", " + t
		}
		if vcs["vcs.modified"] == "true" {
			commit += ", modified"
		}
	}
	return fmt.Sprintf("ward %s (%s, %s)", info.Main.Version, commit, info.GoVersion)
}
