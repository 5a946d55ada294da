//go:build !unix

package storebench

// DiskUsage is DirSize where the allocated size is not known.
func DiskUsage(dir string) int64 { return DirSize(dir) }
