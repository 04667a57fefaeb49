package main

import (
	"net"
	"strings"
	"testing"
)

// `serve --addr 0.0.0.0:…` printed http://[::]:7420, which no browser opens: the banner names a
// loopback URL for this machine and the host name and interface addresses for the others.
func TestPublicBasesOfAnUnspecifiedAddress(t *testing.T) {
	local, others := publicBases("http://[::]:7420", &net.TCPAddr{IP: net.IPv6unspecified, Port: 7420}, []string{"plandash.example.com"})
	if local != "http://127.0.0.1:7420" {
		t.Errorf("local = %q", local)
	}
	if len(others) == 0 || others[0] != "http://plandash.example.com:7420" {
		t.Errorf("the --host name comes first: %v", others)
	}
	if len(others) > maxShownAddrs {
		t.Errorf("%d addresses for other machines, more than %d", len(others), maxShownAddrs)
	}
	for _, o := range others {
		if strings.Contains(o, "[::]") || strings.Contains(o, "0.0.0.0") || strings.Contains(o, "127.0.0.1") || !strings.HasSuffix(o, ":7420") {
			t.Errorf("address for other machines %q", o)
		}
	}
	local, others = publicBases("https://0.0.0.0:8443", &net.TCPAddr{IP: net.IPv4zero, Port: 8443}, nil)
	if local != "https://127.0.0.1:8443" {
		t.Errorf("local = %q", local)
	}
	for _, o := range others {
		if !strings.HasPrefix(o, "https://") || strings.Count(o, ":") != 2 {
			t.Errorf("IPv4 listener's address for other machines %q", o)
		}
	}
	if local, others := publicBases("http://127.0.0.1:7420", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7420}, nil); local != "http://127.0.0.1:7420" || others != nil {
		t.Errorf("a loopback listener: %q %v", local, others)
	}
}

// The banner of a server on every interface opens in a browser here and says where others reach it.
func TestServeOnEveryInterfacePrintsUsableAddresses(t *testing.T) {
	data := t.TempDir()
	s := startServerEnv(t, testEnv(t), "serve", "--addr", "0.0.0.0:0", "--data", data)
	if !strings.HasPrefix(s.base, "http://127.0.0.1:") {
		t.Fatalf("the dashboard line names %s", s.base)
	}
	if code, _ := s.get(t, "/api/v1/plans"); code != 200 {
		t.Fatalf("GET through the printed address: %d", code)
	}
}
