//go:build !unix

package engine

// freeDisk is unknown on this platform.
func freeDisk(string) (uint64, bool) { return 0, false }
