package main

import (
	"net"
	"os/exec"
	"runtime"
)

// desktopOpener is how `serve` opens a waiting request in the default browser, or nil when it
// must not: switched off, not on loopback (a server's waits are not this desktop's), in CI, or
// with no desktop session or opener to be found. lookPath is exec.LookPath outside tests.
func desktopOpener(enabled bool, addr, goos string, getenv func(string) string, lookPath func(string) (string, error)) func(string) error {
	if !enabled || getenv("CI") != "" || !loopbackAddr(addr) {
		return nil
	}
	var name string
	var args []string
	switch goos {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler"}
	default:
		if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
			return nil // a terminal over SSH, a container: nobody would see the browser
		}
		name = "xdg-open"
	}
	path, err := lookPath(name)
	if err != nil {
		return nil
	}
	return func(u string) error {
		cmd := exec.Command(path, append(args, u)...)
		if err := cmd.Start(); err != nil {
			return err
		}
		go cmd.Wait() // reaped; xdg-open returns once the browser has the URL
		return nil
	}
}

// loopbackAddr reports whether a listen address is on loopback only.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// goos is the system serve runs on; a variable of the command, not of the package's tests.
func goos() string { return runtime.GOOS }
