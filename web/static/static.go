// Package static embeds the stylesheet, the page script (ES modules under js/), the service
// worker (sw.js, served at /sw.js) and the icons served under /static/.
package static

import "embed"

// FS holds the static files.
//
//go:embed *.css *.svg *.js js
var FS embed.FS
