package reasoner

import (
	"runtime/debug"
	"sync"
)

// version is set at link time for release builds:
//
//	go build -ldflags "-X github.com/grove-kg/grove/reasoner.version=v1.2.3" ./cmd/grove
var version string

// buildVersion reads the module version and VCS stamp once.
var buildVersion = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if (v == "" || v == "(devel)") && rev != "" {
		return "(devel) " + rev[:min(12, len(rev))] + dirty
	}
	if v == "" {
		return "(devel)"
	}
	return v
})

// Version is the Grove version recorded in every trace, eval manifest and
// report: the link-time version when set, else the module version from the
// build information (with the VCS revision for development builds).
func Version() string {
	if version != "" {
		return version
	}
	return buildVersion()
}
