package cosmosstore

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/seqshim/seqshim/sequence"
)

// EnvKey is the environment variable [Open] takes an account key from.
// Without it, Open signs in with azidentity's default credential chain
// (environment, workload identity, managed identity, Azure CLI).
const EnvKey = "AZURE_COSMOS_KEY"

// ErrURL is wrapped by every error [Open] and [ParseURL] return for a
// malformed store URL.
var ErrURL = errors.New("cosmosstore: invalid store URL")

// ErrContainerSchema is returned for an existing container whose partition
// key is not the one a Store needs (/id).
var ErrContainerSchema = errors.New("cosmosstore: container has the wrong partition key")

// URL is a parsed store URL cosmos://ACCOUNT_HOST/DATABASE/CONTAINER?prefix=P
// (HTTPS), or cosmos+http://HOST:PORT/DATABASE/CONTAINER for an emulator
// on plain HTTP.
type URL struct {
	Endpoint  string // https://ACCOUNT_HOST/ (http:// for cosmos+http)
	Database  string
	Container string
	Prefix    string
}

// ParseURL parses a store URL. Unknown query parameters are errors, so a
// typo does not silently select the default.
func ParseURL(rawurl string) (URL, error) {
	const want = "want cosmos://ACCOUNT.documents.azure.com/DATABASE/CONTAINER?prefix=P"
	u, err := url.Parse(rawurl)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which may carry a secret
		}
		return URL{}, fmt.Errorf("%w: %w", ErrURL, err)
	}
	scheme := "https"
	switch strings.ToLower(u.Scheme) {
	case "cosmos":
	case "cosmos+http":
		scheme = "http"
	default:
		return URL{}, fmt.Errorf("%w: scheme %q, %s", ErrURL, u.Scheme, want)
	}
	if u.User != nil || u.Host == "" || u.Fragment != "" || u.Opaque != "" {
		return URL{}, fmt.Errorf("%w: %q: %s (the key comes from $%s, never the URL)", ErrURL, u.Redacted(), want, EnvKey)
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) != 2 || !validName(parts[0]) || !validName(parts[1]) {
		return URL{}, fmt.Errorf("%w: %q: path %q: %s (names of 1 to 255 characters without / \\ ? #)", ErrURL, u.Redacted(), u.Path, want)
	}
	p := URL{Endpoint: scheme + "://" + u.Host + "/", Database: parts[0], Container: parts[1]}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return URL{}, fmt.Errorf("%w: %w", ErrURL, err)
	}
	for k, v := range q {
		if len(v) != 1 {
			return URL{}, fmt.Errorf("%w: parameter %q given %d times", ErrURL, k, len(v))
		}
		switch k {
		case "prefix":
			p.Prefix = v[0]
		default:
			return URL{}, fmt.Errorf("%w: unknown parameter %q (known: prefix)", ErrURL, k)
		}
	}
	return p, nil
}

// validName is Cosmos DB's rule for database and container ids.
func validName(s string) bool {
	return s != "" && len(s) <= 255 && !strings.ContainsAny(s, `/\?#`) && strings.TrimSpace(s) == s
}

// Open returns a Store for a store URL
// cosmos://ACCOUNT_HOST/DATABASE/CONTAINER?prefix=P. The credentials are
// the account key in $AZURE_COSMOS_KEY, or else azidentity's default chain
// (a Microsoft Entra identity with a data-plane role; see the package
// documentation). Open does not contact Cosmos DB; the container must
// exist (see [Store.Init]), which [Store.Check] verifies.
func Open(ctx context.Context, rawurl string, optFns ...func(*Options)) (*Store, error) {
	p, err := ParseURL(rawurl)
	if err != nil {
		return nil, err
	}
	o := Options{Prefix: p.Prefix}
	for _, fn := range optFns {
		fn(&o)
	}
	var co azcosmos.ClientOptions
	if o.ClientOptions != nil {
		co = *o.ClientOptions
	}
	// The SDK retries transient failures and timeouts; 429 is the
	// Store's, which counts it and feeds it to the caches' sizing.
	co.Retry.StatusCodes = []int{http.StatusRequestTimeout, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}
	var client *azcosmos.Client
	if key := os.Getenv(EnvKey); key != "" {
		cred, err := azcosmos.NewKeyCredential(key)
		if err != nil {
			return nil, sequence.Misconfigured(fmt.Errorf("cosmosstore: $%s: %w", EnvKey, err))
		}
		client, err = azcosmos.NewClientWithKey(p.Endpoint, cred, &co)
		if err != nil {
			return nil, fmt.Errorf("cosmosstore: %s: %w", p.Endpoint, err)
		}
	} else {
		cred, err := azidentity.NewDefaultAzureCredential(nil)
		if err != nil {
			return nil, sequence.Misconfigured(fmt.Errorf("cosmosstore: %s: no credentials: set %s, or configure azidentity's default chain: %w", p.Endpoint, EnvKey, err))
		}
		client, err = azcosmos.NewClient(p.Endpoint, credential{cred}, &co)
		if err != nil {
			return nil, fmt.Errorf("cosmosstore: %s: %w", p.Endpoint, err)
		}
	}
	return New(client, p.Database, p.Container, func(x *Options) { *x = o })
}

// Check implements [sequence.Checker] with one read of the container's
// properties: it must exist, be readable with these credentials, and be
// partitioned on /id.
func (s *Store) Check(ctx context.Context) error {
	resp, err := s.container.Read(ctx, nil)
	if err != nil {
		s.charged(err)
		return s.wrap("check", "", err)
	}
	s.charge(resp.RequestCharge)
	if p := resp.ContainerProperties; p == nil || !slices.Equal(p.PartitionKeyDefinition.Paths, []string{"/id"}) {
		return s.wrap("check", "", ErrContainerSchema)
	}
	return nil
}

// ContainerProperties are the properties [Store.Init] creates the container
// with: partitioned on /id, so that each sequence is one logical
// partition, and indexing only /name (List's query), so that a write
// costs the fewest request units.
func ContainerProperties(container string) azcosmos.ContainerProperties {
	return azcosmos.ContainerProperties{
		ID:                     container,
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/id"}, Kind: azcosmos.PartitionKeyKindHash},
		IndexingPolicy: &azcosmos.IndexingPolicy{
			Automatic:     true,
			IndexingMode:  azcosmos.IndexingModeConsistent,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/name/?"}},
			ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/*"}},
		},
	}
}

// Init creates the database and the container if they do not exist (see
// [ContainerProperties]; the throughput is the account's or the
// database's), then checks the container ([Store.Check]). It needs the
// account key: Cosmos DB's data-plane roles, which an Entra identity
// holds, cannot create databases or containers (create them with the
// Azure CLI, Bicep or Terraform instead, with the properties above, and
// run seqctl check).
func (s *Store) Init(ctx context.Context) error {
	if _, err := s.client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: s.database}, nil); err != nil && status(err) != http.StatusConflict {
		s.charged(err)
		return s.wrap("create database", "", err)
	}
	db, err := s.client.NewDatabase(s.database)
	if err != nil {
		return fmt.Errorf("cosmosstore: %w", err)
	}
	if _, err := db.CreateContainer(ctx, ContainerProperties(s.name), nil); err != nil && status(err) != http.StatusConflict {
		s.charged(err)
		return s.wrap("create container", "", err)
	}
	return s.Check(ctx)
}
