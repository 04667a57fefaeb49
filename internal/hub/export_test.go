package hub

// ResetOverflow resumes collecting fragments after an overflow. Call it before reading the store
// to resync: anything published during the resync then lands in pending rather than being lost,
// at worst repeating what the store read already showed (Seq tells the two apart).
func (s *Subscription) ResetOverflow() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.overflowed = false
}

// PendingCap is the pending storage s holds, for tests of what a burst leaves behind.
func (s *Subscription) PendingCap() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cap(s.pending)
}
