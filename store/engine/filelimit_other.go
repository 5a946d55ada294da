//go:build !unix

package engine

// openFileLimit and mapLimit are unknown on this platform.
func openFileLimit() int64 { return 0 }
func mapLimit() int64      { return 0 }

// openFiles is unknown on this platform.
func openFiles() int64 { return 0 }

// openMaps is unknown on this platform.
func openMaps() int64 { return 0 }
