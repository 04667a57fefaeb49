package main

import (
	"net"
	"strconv"
	"strings"
)

// maxShownAddrs bounds the addresses printed for a server on every interface: a machine with
// many interfaces (containers, VPNs) would otherwise print a screenful.
const maxShownAddrs = 4

// publicBases turns the base URL of a listener on an unspecified address (0.0.0.0, [::]), which
// no browser can open, into one this machine can use (loopback, also what the address file
// records) and the ones another machine can: the names given with --host (the only names the
// host check lets through), then the interfaces' addresses. For a listener on a specific address
// it returns base unchanged and nothing else.
func publicBases(base string, addr net.Addr, hosts []string) (local string, others []string) {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return base, nil
	}
	scheme, _, _ := strings.Cut(base, "://")
	port := strconv.Itoa(tcp.Port)
	url := func(host string) string { return scheme + "://" + net.JoinHostPort(host, port) }
	local = url("127.0.0.1")
	for _, h := range hosts {
		if len(others) < maxShownAddrs {
			others = append(others, url(h))
		}
	}
	ifaces, _ := net.InterfaceAddrs()
	for _, a := range ifaces {
		n, ok := a.(*net.IPNet)
		if !ok || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() || n.IP.IsMulticast() {
			continue
		}
		if n.IP.To4() == nil && tcp.IP.To4() != nil {
			continue // 0.0.0.0 listens on IPv4 only
		}
		if len(others) == maxShownAddrs {
			break
		}
		others = append(others, url(n.IP.String()))
	}
	return local, others
}
