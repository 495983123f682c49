package main

import (
	"context"
	"runtime/debug"
	"strings"
)

const versionDoc = `
Prints the version of this seqctl binary, as the go command recorded it: the
module version (v0.1.0 when installed with
'go install github.com/seqshim/seqshim/cmd/seqctl@v0.1.0', a pseudo-version
or (devel) when built from a clone), the VCS revision, commit time and whether
the working tree had uncommitted changes (when the go command stamped them:
a build from a clone without -buildvcs=false), and the Go version, OS and
architecture. 'seqctl --version' prints the same. With -o json, the same
fields as one JSON object.`

// readBuildInfo is debug.ReadBuildInfo; tests replace it.
var readBuildInfo = debug.ReadBuildInfo

// buildVersion is what seqctl version prints. Empty fields were not recorded.
type buildVersion struct {
	Version     string `json:"version"`
	VCSRevision string `json:"vcs_revision,omitempty"`
	VCSTime     string `json:"vcs_time,omitempty"`
	VCSModified string `json:"vcs_modified,omitempty"` // "true" or "false"
	Go          string `json:"go,omitempty"`
	Platform    string `json:"platform,omitempty"` // GOOS/GOARCH
}

// versionOf reads the version out of a binary's build information; bi is nil
// when the binary has none (built without module support).
func versionOf(bi *debug.BuildInfo) buildVersion {
	v := buildVersion{Version: "(unknown)"}
	if bi == nil {
		return v
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	v.Go = bi.GoVersion
	var goos, goarch string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.VCSRevision = s.Value
		case "vcs.time":
			v.VCSTime = s.Value
		case "vcs.modified":
			v.VCSModified = s.Value
		case "GOOS":
			goos = s.Value
		case "GOARCH":
			goarch = s.Value
		}
	}
	if goos != "" && goarch != "" {
		v.Platform = goos + "/" + goarch
	}
	return v
}

// String is the one line seqctl version prints, for example
// "seqctl v0.1.0 (go1.26.8 linux/amd64)" or
// "seqctl (devel) vcs.revision=e2b2f2d… vcs.time=… vcs.modified=true (go1.26.8 linux/amd64)".
func (v buildVersion) String() string {
	var b strings.Builder
	b.WriteString("seqctl ")
	b.WriteString(v.Version)
	for _, kv := range [][2]string{
		{"vcs.revision", v.VCSRevision},
		{"vcs.time", v.VCSTime},
		{"vcs.modified", v.VCSModified},
	} {
		if kv[1] != "" {
			b.WriteString(" " + kv[0] + "=" + kv[1])
		}
	}
	if env := strings.TrimSpace(v.Go + " " + v.Platform); env != "" {
		b.WriteString(" (" + env + ")")
	}
	return b.String()
}

func (a *app) cmdVersion(ctx context.Context, args []string) error {
	fs := a.flagSet("version", "[flags]", versionDoc)
	args, err := a.parse(fs, args)
	if err != nil {
		return err
	}
	if len(args) != 0 {
		return usagef("version takes no arguments")
	}
	return a.printVersion()
}

// printVersion prints the version, as text or JSON (-o json); seqctl
// --version comes here too.
func (a *app) printVersion() error {
	bi, ok := readBuildInfo()
	if !ok {
		bi = nil
	}
	v := versionOf(bi)
	if a.output == "json" {
		return writeJSON(a.stdout, v)
	}
	_, err := a.stdout.Write([]byte(v.String() + "\n"))
	return err
}
