package testenv

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/seqshim/seqshim/cosmosstore"
)

// EnvCosmos is the endpoint URL of the Cosmos DB emulator scripts/test
// starts (@vercel/cosmosdb-server), e.g. http://127.0.0.1:8081.
const EnvCosmos = "SEQSHIM_TEST_COSMOS"

// CosmosKey is the account key of test clients: the emulator accepts any;
// this is the Azure Cosmos DB emulator's published one.
const CosmosKey = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="

// Cosmos returns the emulator's endpoint URL, or skips the test.
func Cosmos(tb testing.TB) string { return lookup(tb, EnvCosmos, "Cosmos DB (cosmosdb-server)") }

// CosmosKeyEnv sets cosmosstore.EnvKey to [CosmosKey] when it is unset, so
// that code under test opening a cosmos+http:// store URL by itself signs
// its requests with a key instead of looking for an Azure identity. For
// TestMain (it sets the process's environment, for its children too).
func CosmosKeyEnv() {
	if os.Getenv(cosmosstore.EnvKey) == "" {
		os.Setenv(cosmosstore.EnvKey, CosmosKey)
	}
}

// CosmosContainer is a container on the test emulator, in a database of
// its own unique to one test, deleted when the test ends.
type CosmosContainer struct {
	Endpoint  string // the emulator's endpoint URL
	Database  string
	Container string
	Client    *azcosmos.Client
}

// NewCosmosContainer creates a database and its container (as seqctl init
// does) on the test emulator, or skips the test when there is none; it
// fails the test when they cannot be created.
func NewCosmosContainer(tb testing.TB) CosmosContainer {
	tb.Helper()
	c, err := CreateCosmosContainer(tb)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// CreateCosmosContainer is NewCosmosContainer returning the error of
// creating the database and the container, for a test that has other work
// to do without them.
func CreateCosmosContainer(tb testing.TB) (CosmosContainer, error) {
	tb.Helper()
	c := CosmosContainerToCreate(tb)
	ctx, cancel := context.WithTimeout(context.Background(), tableTimeout)
	defer cancel()
	st, err := c.Store()
	if err == nil {
		err = st.Init(ctx)
	}
	return c, err
}

// CosmosContainerToCreate is NewCosmosContainer for code under test that
// creates the database and the container itself (seqctl init).
func CosmosContainerToCreate(tb testing.TB) CosmosContainer {
	tb.Helper()
	endpoint := Cosmos(tb)
	cred, err := azcosmos.NewKeyCredential(CosmosKey)
	if err != nil {
		tb.Fatal(err)
	}
	client, err := azcosmos.NewClientWithKey(endpoint+"/", cred, nil)
	if err != nil {
		tb.Fatal(err)
	}
	c := CosmosContainer{Endpoint: endpoint, Database: dynamoTableName(tb), Container: "seqshim", Client: client}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), tableTimeout)
		defer cancel()
		db, err := client.NewDatabase(c.Database)
		if err == nil {
			_, err = db.Delete(ctx, nil)
		}
		if err != nil && !cosmosNotFound(err) {
			tb.Logf("delete Cosmos DB database %s: %v", c.Database, err)
		}
	})
	return c
}

// Store returns a store on the container, with the container's client.
func (c CosmosContainer) Store(optFns ...func(*cosmosstore.Options)) (*cosmosstore.Store, error) {
	return cosmosstore.New(c.Client, c.Database, c.Container, optFns...)
}

// URL returns the store URL of the container (cosmos+http://), with
// prefix if not empty.
func (c CosmosContainer) URL(prefix string) string {
	u, _ := url.Parse(c.Endpoint)
	s := "cosmos+http://" + u.Host + "/" + c.Database + "/" + c.Container
	if prefix != "" {
		s += "?" + url.Values{"prefix": {prefix}}.Encode()
	}
	return s
}

func cosmosNotFound(err error) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == http.StatusNotFound
}
