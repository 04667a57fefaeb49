package main

import (
	"context"
	"errors"
	"io"
)

// plansCmd reads and writes shared plans. (Owned by the shared-plans work.)
func plansCmd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	return errors.New("plandash plans: not built yet")
}
