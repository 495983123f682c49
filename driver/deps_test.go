package driver_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLinkedStores: a program that imports only the driver links the
// DynamoDB, PostgreSQL-table and memory stores, and none of the stores
// that need an import of their own (storeurl's Form.Import): no SQLite, no
// RPC stack of the sequence service, no Azure SDK.
func TestLinkedStores(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(gobin, "list", "-deps", "github.com/seqshim/seqshim/driver").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, want := range []string{"github.com/seqshim/seqshim/dynamostore", "github.com/seqshim/seqshim/sqlstore", "github.com/seqshim/seqshim/memstore"} {
		if !slices.Contains(deps, want) {
			t.Errorf("the driver does not link %s", want)
		}
	}
	for _, dep := range deps {
		for _, banned := range []string{"modernc.org/sqlite", "connectrpc.com/", "google.golang.org/protobuf", "github.com/Azure/", "github.com/seqshim/seqshim/cosmosstore", "github.com/seqshim/seqshim/seqdstore", "github.com/seqshim/seqshim/sqlstore/sqlite"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("the driver links %s: a program that imports only the driver must not", dep)
			}
		}
	}
}
