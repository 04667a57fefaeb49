package main

import (
	"context"
	"errors"
	"io"
)

// acpCmd runs an agent behind the ACP proxy. (Owned by the proxy work.)
func acpCmd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	return errors.New("plandash acp: not built yet")
}
