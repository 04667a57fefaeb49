package main

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// listen listens on addr. With anyPort (the demo on its default address) a taken port is no
// reason to fail: the demo takes a free port on the same host and says which, since someone
// trying plandash out may well have a server running already.
func listen(addr string, anyPort bool) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	if anyPort && errors.Is(err, syscall.EADDRINUSE) {
		host, _, serr := net.SplitHostPort(addr)
		if serr == nil {
			if ln, err2 := net.Listen("tcp", net.JoinHostPort(host, "0")); err2 == nil {
				return ln, nil
			}
		}
	}
	return nil, fmt.Errorf("listen on %s: %w", addr, err)
}
