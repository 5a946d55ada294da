//go:build unix

package storebench

import (
	"os"
	"path/filepath"
	"syscall"
)

// DiskUsage sums the disk space allocated to the files under dir, as du
// does: an open database's value log is preallocated sparse (its size says
// gigabytes, few of them on disk), so DirSize overstates it.
func DiskUsage(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			n += int64(st.Blocks) * 512
		} else {
			n += info.Size()
		}
		return nil
	})
	return n
}
