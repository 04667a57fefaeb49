//go:build !unix

package follow

import "os"

// openFlags is a plain read-only open: these platforms have no FIFOs that could block it; the
// type is checked on the descriptor.
const openFlags = os.O_RDONLY
