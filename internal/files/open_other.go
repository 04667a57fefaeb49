//go:build !unix

package files

import "os"

// openReadFlags is a plain read-only open: the platforms without O_NONBLOCK have no FIFOs that
// could block it.
const openReadFlags = os.O_RDONLY
