//go:build !unix

package main

import "io"

// pollableStdin: see the unix version; elsewhere stdin is read as it is.
func pollableStdin(stdin io.Reader) io.Reader { return stdin }
