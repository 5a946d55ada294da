//go:build unix

package engine

import "syscall"

// freeDisk returns the bytes available to this user on the file system
// holding path (ok false when unknown).
func freeDisk(path string) (uint64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, false
	}
	return st.Bavail * uint64(st.Bsize), true
}
