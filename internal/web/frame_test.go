package web

// frame is a socket frame as pages decode it.
type frame struct {
	T      string `json:"t"`
	ID     string `json:"id"`
	Parent string `json:"parent,omitempty"`
	Seq    uint64 `json:"seq"`
	HTML   string `json:"html"`
	size   int    // on the wire
}
