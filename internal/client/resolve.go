package client

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DefaultServer is where `plandash serve` listens unless told otherwise.
const DefaultServer = "http://127.0.0.1:7420"

// Flags are the flags every command that talks to a running server takes: --server, --token,
// --data and --ca. An empty field was not given.
type Flags struct {
	Server, Token, DataDir string
	CA                     string // a PEM file of CAs to trust for an https:// server
}

// Register adds --server, --token and --data to fs. Their defaults are applied by Resolve, not
// by the flag package, so that a flag given beats the environment, which beats the defaults.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Server, "server", "", "the plandash server (default $PLANDASH_SERVER, else the address the server recorded in --data, else "+DefaultServer+")")
	fs.StringVar(&f.Token, "token", "", "the server's token (default $PLANDASH_TOKEN, else the token file in --data)")
	fs.StringVar(&f.DataDir, "data", "", "the server's data directory, to read its token and address from (default $XDG_DATA_HOME/plandash, else ~/.local/share/plandash)")
	fs.StringVar(&f.CA, "ca", "", "trust the certificate authorities in this PEM file for an https:// server, besides the system's (default $PLANDASH_CA)")
}

// Target is a resolved server and the way to its token.
type Target struct {
	Server  string // the base URL
	Token   string // given by --token or $PLANDASH_TOKEN; "" means the token file in DataDir
	DataDir string // the server's data directory
	CA      string // a PEM file of extra CAs to trust (--ca, $PLANDASH_CA); "" trusts the system's
}

// Resolve decides the server and token the same way for every command: --server, else
// $PLANDASH_SERVER, else the address the running server recorded in --data (see AddrFile), else
// DefaultServer; --token, else $PLANDASH_TOKEN, else the file "token" in --data (default
// DefaultDataDir). The token file is read only when a call needs it (see ReadToken), because a
// server started later may create it.
func Resolve(getenv func(string) string, f Flags) Target {
	t := Target(f)
	if t.DataDir == "" {
		t.DataDir = DefaultDataDir(getenv)
	}
	if t.Server == "" {
		t.Server = getenv("PLANDASH_SERVER")
	}
	if t.Server == "" {
		t.Server = ReadAddr(t.DataDir)
	}
	if t.Server == "" {
		t.Server = DefaultServer
	}
	if t.Token == "" {
		t.Token = getenv("PLANDASH_TOKEN")
	}
	if t.CA == "" {
		t.CA = getenv("PLANDASH_CA")
	}
	return t
}

// DefaultDataDir is where the server keeps its data unless told otherwise: $XDG_DATA_HOME/plandash,
// else ~/.local/share/plandash, else .plandash.
func DefaultDataDir(getenv func(string) string) string {
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "plandash")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "share", "plandash")
	}
	return ".plandash"
}

// TokenFile is the file in a data directory that holds the server's token (tokens.LoadOrCreateServerToken
// writes it: the token and a newline).
func TokenFile(dataDir string) string { return filepath.Join(dataDir, "token") }

// ReadToken is the token to present: the one given, else the one in the data directory. It only
// reads; creating the token is the server's job.
func (t Target) ReadToken() (string, error) {
	if t.Token != "" {
		return t.Token, nil
	}
	b, err := os.ReadFile(TokenFile(t.DataDir))
	if err == nil {
		if tok := strings.TrimSpace(string(b)); tok != "" {
			return tok, nil
		}
		err = errors.New("the file is empty")
	}
	return "", fmt.Errorf("no token: pass --token or $PLANDASH_TOKEN, or --data of the server (%w)", err)
}

// Client is a client of the target that reads the token before each call (see WithTokenFunc)
// and trusts the target's CA file; opts come after, so they may override them.
func (t Target) Client(opts ...Option) *Client {
	first := []Option{WithTokenFunc(t.ReadToken)}
	if t.CA != "" {
		first = append(first, WithCA(t.CA))
	}
	return New(t.Server, "", append(first, opts...)...)
}
