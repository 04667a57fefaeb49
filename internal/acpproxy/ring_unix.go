//go:build unix

package acpproxy

import "golang.org/x/sys/unix"

// mapRing maps n bytes of anonymous memory for the ring, outside the Go heap, or returns nil;
// the system makes a page resident when it is first written.
func mapRing(n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil
	}
	return b
}

// releaseRing gives b's pages back to the system; b reads as zeros afterwards.
func releaseRing(b []byte) { unix.Madvise(b, unix.MADV_DONTNEED) }

// unmapRing ends a mapping of mapRing's.
func unmapRing(b []byte) { unix.Munmap(b) }
