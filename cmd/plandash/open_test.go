package main

import (
	"errors"
	"testing"
)

func TestDesktopOpener(t *testing.T) {
	found := func(name string) (string, error) { return "/usr/bin/" + name, nil }
	missing := func(string) (string, error) { return "", errors.New("not found") }
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		name    string
		enabled bool
		addr    string
		goos    string
		getenv  func(string) string
		look    func(string) (string, error)
		want    bool
	}{
		{"linux desktop", true, "127.0.0.1:7420", "linux", env("DISPLAY", ":0"), found, true},
		{"wayland", true, "[::1]:7420", "linux", env("WAYLAND_DISPLAY", "wayland-0"), found, true},
		{"switched off", false, "127.0.0.1:7420", "linux", env("DISPLAY", ":0"), found, false},
		{"no display (ssh, container)", true, "127.0.0.1:7420", "linux", env(), found, false},
		{"CI", true, "127.0.0.1:7420", "linux", env("DISPLAY", ":0", "CI", "true"), found, false},
		{"not loopback", true, "0.0.0.0:7420", "linux", env("DISPLAY", ":0"), found, false},
		{"no xdg-open", true, "127.0.0.1:7420", "linux", env("DISPLAY", ":0"), missing, false},
		{"mac", true, "localhost:7420", "darwin", env(), found, true},
	} {
		if got := desktopOpener(c.enabled, c.addr, c.goos, c.getenv, c.look) != nil; got != c.want {
			t.Errorf("%s: opener %v, want %v", c.name, got, c.want)
		}
	}
}
