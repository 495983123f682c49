package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionOf(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"go install @version", &debug.BuildInfo{
			GoVersion: "go1.26.8",
			Main:      debug.Module{Path: "github.com/seqshim/seqshim", Version: "v0.1.0"},
			Settings:  settings("-buildmode", "exe", "GOARCH", "amd64", "GOOS", "linux"),
		}, "seqctl v0.1.0 (go1.26.8 linux/amd64)"},
		{"from a clone", &debug.BuildInfo{
			GoVersion: "go1.26.8",
			Main:      debug.Module{Path: "github.com/seqshim/seqshim", Version: "(devel)"},
			Settings: settings("GOARCH", "arm64", "GOOS", "darwin", "vcs", "git",
				"vcs.revision", "e2b2f2d0c0ffee", "vcs.time", "2026-11-22T13:14:15Z", "vcs.modified", "true"),
		}, "seqctl (devel) vcs.revision=e2b2f2d0c0ffee vcs.time=2026-11-22T13:14:15Z vcs.modified=true (go1.26.8 darwin/arm64)"},
		{"no main version", &debug.BuildInfo{GoVersion: "go1.26.8"}, "seqctl (unknown) (go1.26.8)"},
		{"no build info", nil, "seqctl (unknown)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionOf(tc.bi).String(); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestVersionCommand(t *testing.T) {
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{
			GoVersion: "go1.26.8",
			Main:      debug.Module{Path: "github.com/seqshim/seqshim", Version: "v0.1.0"},
			Settings:  []debug.BuildSetting{{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "amd64"}},
		}, true
	}
	t.Cleanup(func() { readBuildInfo = debug.ReadBuildInfo })

	ts := &tester{t: t}
	const want = "seqctl v0.1.0 (go1.26.8 linux/amd64)\n"
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}, {"--store", "memory:", "version"}, {"--version", "list"}} {
		if r := ts.runRaw(args...); r.code != 0 || r.stdout != want || r.stderr != "" {
			t.Errorf("seqctl %v: exit %d, stdout %q, stderr %q; want stdout %q", args, r.code, r.stdout, r.stderr, want)
		}
	}
	var v buildVersion
	decode(t, ts.runRaw("version", "-o", "json").stdout, &v)
	if v.Version != "v0.1.0" || v.Go != "go1.26.8" || v.Platform != "linux/amd64" || v.VCSRevision != "" {
		t.Errorf("version -o json: %+v", v)
	}
	if r := ts.runRaw("version", "extra"); r.code != exitUsage {
		t.Errorf("seqctl version extra: exit %d, want %d", r.code, exitUsage)
	}
}

// TestVersionRealBuildInfo runs the command on this test binary's own build
// information.
func TestVersionRealBuildInfo(t *testing.T) {
	out := (&tester{t: t}).runRaw("version").stdout
	if !strings.HasPrefix(out, "seqctl ") || !strings.Contains(out, runtime.Version()) {
		t.Errorf("seqctl version = %q, want seqctl … (%s …)", out, runtime.Version())
	}
}
