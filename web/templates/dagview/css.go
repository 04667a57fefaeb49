package dagview

import _ "embed"

// CSS is the diagrams' stylesheet, served by the web layer beside the page's own.
//
//go:embed dag.css
var CSS []byte
