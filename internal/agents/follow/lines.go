package follow

// FlushLines is the Flush of a Parser that buffers a file's lines and applies them with the
// state its earlier lines taught (S): it empties *lines and, when ready (evaluated by the
// caller before the call), hands apply the lines taken and st. When apply fails, *st is put
// back as it was (through clone, which copies what apply may change in place), so that the
// same lines, read again later, translate the same way.
func FlushLines[L, S any](lines *[]L, st *S, clone func(S) S, ready bool, apply func(st *S, lines []L) error) error {
	taken := *lines
	*lines = (*lines)[:0]
	if !ready {
		return nil
	}
	saved := clone(*st)
	if err := apply(st, taken); err != nil {
		*st = saved
		return err
	}
	return nil
}
