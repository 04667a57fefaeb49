package main

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCertificateReload: a renewed pair written over the files is served from the next check
// on; a broken one is refused and the last good pair kept.
func TestCertificateReload(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	stamp := time.Now().Add(-time.Hour)
	install := func(certPEM, keyPEM []byte) {
		t.Helper()
		stamp = stamp.Add(time.Minute) // a distinct modification time, whatever the file system's resolution
		for path, b := range map[string][]byte{cert: certPEM, key: keyPEM} {
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(path, stamp, stamp); err != nil {
				t.Fatal(err)
			}
		}
	}
	read := func(p testPKI) ([]byte, []byte) {
		t.Helper()
		c, err := os.ReadFile(p.cert)
		if err != nil {
			t.Fatal(err)
		}
		k, err := os.ReadFile(p.key)
		if err != nil {
			t.Fatal(err)
		}
		return c, k
	}
	firstCert, firstKey := read(newTestPKI(t))
	install(firstCert, firstKey)
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	cf := &certFiles{cert: cert, key: key, log: slog.New(slog.DiscardHandler), now: func() time.Time { return now }}
	if err := cf.load(); err != nil {
		t.Fatal(err)
	}
	served := func() []byte {
		t.Helper()
		c, err := cf.get(nil)
		if err != nil || c == nil {
			t.Fatalf("get: %v", err)
		}
		return c.Certificate[0]
	}
	first := served()

	renewedCert, renewedKey := read(newTestPKI(t))
	install(renewedCert, renewedKey)
	if !bytes.Equal(served(), first) {
		t.Fatal("the files were looked at again before certCheckEvery passed")
	}
	now = now.Add(certCheckEvery)
	renewed := served()
	if bytes.Equal(renewed, first) {
		t.Fatal("the renewed certificate is not served")
	}

	install([]byte("not a certificate"), renewedKey)
	now = now.Add(certCheckEvery)
	if !bytes.Equal(served(), renewed) {
		t.Fatal("a broken renewal replaced the good certificate")
	}
}
