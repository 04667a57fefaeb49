package sqlite

import "golang.org/x/sys/windows"

// noRoom reports whether the database's volume has no room for another page.
func (f *faults) noRoom() bool {
	dir, err := windows.UTF16PtrFromString(f.dir)
	if err != nil {
		return false
	}
	var free uint64 // what this user may still write, quotas included
	if err := windows.GetDiskFreeSpaceEx(dir, &free, nil, nil); err != nil {
		return false
	}
	return free < minRoom
}
