//go:build unix

package sqlite

import "syscall"

// noRoom reports whether the database's file system has no room for another page.
func (f *faults) noRoom() bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(f.dir, &st); err != nil {
		return false
	}
	return uint64(st.Bavail)*uint64(st.Bsize) < minRoom
}
