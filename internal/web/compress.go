package web

import (
	"bufio"
	"compress/gzip"
	"errors"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// compressPages gzips HTML and JSON answers for clients that accept it: a page is mostly
// repeated markup and shrinks about ten-fold. It leaves alone the socket upgrade (the connection
// is handed over), event streams (each event must leave at once) and answers that set their own
// encoding; a handler that flushes (a long-poll's heartbeat) flushes through the compressor, so
// nothing streamed waits in a buffer.
func compressPages(next http.Handler) http.Handler {
	// A gzip.Writer is about 800 KB of tables to allocate and set up, whatever it compresses:
	// for the small answers of ingest posts it was most of the server's CPU (and its garbage).
	// Reset makes a used one the same as a new one, so answers are byte for byte the same.
	pool := &sync.Pool{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "" || strings.HasPrefix(r.URL.Path, "/static/") {
			next.ServeHTTP(w, r)
			return
		}
		// Said to every client: a cache must not hand one client's encoding to another.
		w.Header().Add("Vary", "Accept-Encoding")
		if !acceptsGzip(r) {
			next.ServeHTTP(w, r)
			return
		}
		gw := &gzipWriter{ResponseWriter: w, pool: pool}
		defer gw.close()
		next.ServeHTTP(gw, r)
	})
}

// minCompress is the smallest answer worth compressing: below it gzip's own header and the
// compressor's set-up cost more than they save (an ingest post's answer is about 40 bytes).
const minCompress = 1024

// compressible says which answers are worth compressing: text the server made, unless it says
// it is small.
func compressible(h http.Header) bool {
	if h.Get("Content-Encoding") != "" {
		return false
	}
	if n, err := strconv.Atoi(h.Get("Content-Length")); err == nil && n < minCompress {
		return false
	}
	ct, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	switch ct {
	case "text/html", "application/json", "application/problem+json", "text/plain", "text/css":
		return true
	}
	return false
}

// gzipWriter decides at the status line whether to compress; after that it only passes bytes.
type gzipWriter struct {
	http.ResponseWriter
	zw      *gzip.Writer // nil: the answer goes out as it is
	decided bool
	pool    *sync.Pool // of *gzip.Writer, closed and ready to Reset
}

func (g *gzipWriter) WriteHeader(code int) {
	// An informational status (103) is not the answer: the decision waits for the real one.
	if !g.decided && code >= 200 {
		g.decided = true
		h := g.Header()
		if code != http.StatusNoContent && code != http.StatusNotModified && compressible(h) {
			h.Set("Content-Encoding", "gzip")
			h.Del("Content-Length")
			if zw, ok := g.pool.Get().(*gzip.Writer); ok {
				zw.Reset(g.ResponseWriter)
				g.zw = zw
			} else {
				g.zw = gzip.NewWriter(g.ResponseWriter)
			}
		}
	}
	g.ResponseWriter.WriteHeader(code)
}

func (g *gzipWriter) Write(p []byte) (int, error) {
	if !g.decided {
		if g.Header().Get("Content-Type") == "" {
			g.Header().Set("Content-Type", http.DetectContentType(p))
		}
		g.WriteHeader(http.StatusOK)
	}
	if g.zw != nil {
		return g.zw.Write(p)
	}
	return g.ResponseWriter.Write(p)
}

// Flush sends what the compressor holds, then what the connection holds.
func (g *gzipWriter) Flush() {
	if g.zw != nil {
		_ = g.zw.Flush()
	}
	http.NewResponseController(g.ResponseWriter).Flush()
}

// Hijack hands the connection over untouched (nothing was compressed: an upgrade is passed by).
func (g *gzipWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if g.decided {
		return nil, nil, errors.New("hijack after the answer began")
	}
	return http.NewResponseController(g.ResponseWriter).Hijack()
}

// Unwrap lets http.ResponseController reach the connection's deadlines.
func (g *gzipWriter) Unwrap() http.ResponseWriter { return g.ResponseWriter }

func (g *gzipWriter) close() {
	if g.zw != nil {
		_ = g.zw.Close()
		g.pool.Put(g.zw)
		g.zw = nil
	}
}
