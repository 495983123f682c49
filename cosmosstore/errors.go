package cosmosstore

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/seqshim/seqshim/sequence"
)

// status is the HTTP status of a Cosmos DB error response, 0 for an error
// that is not one.
func status(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}

// subStatus is the x-ms-substatus of a Cosmos DB error response.
func subStatus(err error) string {
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.RawResponse != nil {
		return re.RawResponse.Header.Get("x-ms-substatus")
	}
	return ""
}

// ownerMissing reports whether a 404 is about the container or the
// database (substatus 1003, "owner resource does not exist"), not the
// document.
func ownerMissing(err error) bool {
	return status(err) == http.StatusNotFound && subStatus(err) == "1003"
}

// errCredential marks the errors of the credential [Open] signs in with:
// no identity in azidentity's chain could get a token.
var errCredential = errors.New("no Microsoft Entra token")

// credential is the azidentity credential of a Store made by [Open],
// whose errors it marks with errCredential: they mean the store cannot
// work as configured, and nothing else the SDK answers can be told from a
// transport error (azcosmos marks a write's lost connection NonRetriable,
// as azidentity marks its own errors).
type credential struct{ azcore.TokenCredential }

func (c credential) GetToken(ctx context.Context, opts policy.TokenRequestOptions) (azcore.AccessToken, error) {
	tok, err := c.TokenCredential.GetToken(ctx, opts)
	if err != nil && ctx.Err() == nil {
		err = fmt.Errorf("%w: %w", errCredential, err)
	}
	return tok, err
}

// wrap gives an error of operation op on sequence name (empty for the whole
// container) the container and account it concerns. An error that only a
// change of configuration fixes (no container, no or rejected credentials,
// a missing role) also says what to do and is marked with
// [sequence.Misconfigured]; a 429 is marked [sequence.Throttled].
// Sequence errors are returned as they are.
func (s *Store) wrap(op, name string, err error) error {
	if err == nil {
		return nil
	}
	var se *sequence.Error
	if errors.As(err, &se) {
		return err
	}
	what := op
	if name != "" {
		what += " " + name
	}
	if problem, ok := s.explain(err); ok {
		return sequence.Misconfigured(fmt.Errorf("cosmosstore: %s: %s %s: %w", what, s.where(), problem, err))
	}
	if status(err) == http.StatusTooManyRequests {
		return sequence.Throttled(fmt.Errorf("cosmosstore: %s: %s: %w", what, s.where(), err))
	}
	return fmt.Errorf("cosmosstore: %s: %s: %w", what, s.where(), err)
}

// where names the container for messages.
func (s *Store) where() string {
	w := "Cosmos DB container " + s.database + "/" + s.name
	if s.endpoint != "" {
		w += " at " + s.endpoint
	}
	return w
}

// explain tells whether err means the store cannot work as configured and,
// if so, what is wrong and what to do.
func (s *Store) explain(err error) (string, bool) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "", false
	}
	if errors.Is(err, errCredential) {
		var failed *azidentity.AuthenticationFailedError
		if errors.As(err, &failed) {
			return "cannot be reached: the identity azidentity's default chain found was refused a token (check its tenant, client id and secret, or its managed identity; or set " + EnvKey + " to the account's key)", true
		}
		return "cannot be reached without credentials, and none were found (set " + EnvKey + " to the account's key, or AZURE_CLIENT_ID with AZURE_TENANT_ID and a secret, certificate or workload identity, or run with a managed identity)", true
	}
	if errors.Is(err, ErrContainerSchema) {
		return "has the wrong partition key: a store needs a container partitioned on /id (use another container name)", true
	}
	switch status(err) {
	case http.StatusUnauthorized:
		return "refused the credentials (a wrong or rotated " + EnvKey + ", or a token for another account)", true
	case http.StatusForbidden:
		return "refused access: the identity needs a data-plane role on the container (Cosmos DB Built-in Data Contributor, or a custom role with readMetadata and items/* actions; see cosmosstore's documentation), or the account's firewall blocks this address", true
	case http.StatusNotFound:
		if ownerMissing(err) || subStatus(err) == "" {
			return "does not exist (run seqctl init with this store URL to create the database and the container)", true
		}
	}
	return "", false
}
