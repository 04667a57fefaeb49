package client

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/plandash/plandash/internal/files"
)

// AddrFile is the file in a data directory that holds the address the server listens on, so
// that the client commands find a server that did not get the default port (a demo that picked
// a free one, a server started with --addr).
func AddrFile(dataDir string) string { return filepath.Join(dataDir, "addr") }

// WriteAddr records base (e.g. "http://127.0.0.1:7421") in dataDir, replacing the file whole so a
// reader never sees half of it.
func WriteAddr(dataDir, base string) error {
	if err := files.WriteAtomic(files.OSOps{}, AddrFile(dataDir), []byte(base+"\n")); err != nil {
		return fmt.Errorf("record the address: %w", err)
	}
	return nil
}

// RemoveAddr removes the record of base when the server stops, unless another server has since
// written its own.
func RemoveAddr(dataDir, base string) error {
	b, err := os.ReadFile(AddrFile(dataDir))
	if errors.Is(err, os.ErrNotExist) || (err == nil && !bytes.Equal(bytes.TrimSpace(b), []byte(base))) {
		return nil
	}
	if err != nil {
		return err
	}
	return os.Remove(AddrFile(dataDir))
}

// ReadAddr is the address recorded in dataDir, or "" when there is none or it is not an
// http(s) URL (the file is outside input: a stray edit must not send the token elsewhere than
// a plandash server's scheme allows).
func ReadAddr(dataDir string) string {
	b, err := os.ReadFile(AddrFile(dataDir))
	if err != nil || len(b) > 512 {
		return ""
	}
	s := strings.TrimSpace(string(b))
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return s
}
