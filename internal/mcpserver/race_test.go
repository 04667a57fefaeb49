//go:build race

package mcpserver_test

// raceEnabled: the race detector slows the client's decoding of 100 MiB frames to minutes.
const raceEnabled = true
