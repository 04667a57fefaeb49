//go:build !race

package mcpserver_test

// raceEnabled: see race_test.go.
const raceEnabled = false
