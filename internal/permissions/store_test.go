package permissions_test

import (
	"testing"

	"github.com/plandash/plandash/internal/permissions"
	"github.com/plandash/plandash/internal/permissions/permissionstest"
)

func TestMemoryContract(t *testing.T) {
	permissionstest.Run(t, func(*testing.T) permissions.Store { return permissions.NewMemory() })
}
