// Package static embeds the stylesheet, script and icons served under /static/.
package static

import "embed"

// FS holds the static files.
//
//go:embed *.css *.js *.svg
var FS embed.FS
