package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/seqshim/seqshim/sequence"
)

// wrap gives an error of operation op on sequence name (empty for the whole
// table) the table, region and endpoint it concerns. An error that only a
// change of configuration fixes (no table, no or rejected credentials,
// missing permissions, a table with another key) also says what to do and
// is marked with [sequence.Misconfigured]. Sequence errors keep PostgreSQL's
// exact message and are returned as they are.
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
		return sequence.Misconfigured(fmt.Errorf("dynamostore: %s: %s %s: %w", what, s.where(), problem, err))
	}
	if throttled(err) {
		return sequence.Throttled(fmt.Errorf("dynamostore: %s: %s: %w", what, s.where(), err))
	}
	var send *smithyhttp.RequestSendError
	if errors.As(err, &send) {
		return fmt.Errorf("dynamostore: %s: %s unreachable: %w", what, s.where(), err)
	}
	return fmt.Errorf("dynamostore: %s: %s: %w", what, s.where(), err)
}

// where names the table for messages: "DynamoDB table seqs in region
// eu-west-1", with "at ENDPOINT" when the client has an endpoint of its own.
func (s *Store) where() string {
	w := "DynamoDB table " + s.table
	if s.region != "" {
		w += " in region " + s.region
	}
	if s.endpoint != "" {
		w += " at " + s.endpoint
	}
	return w
}

// initURL is the store URL 'seqctl init --store' takes to create the table.
func (s *Store) initURL() string {
	u := "dynamodb://" + s.table
	var q []string
	if s.region != "" {
		q = append(q, "region="+s.region)
	}
	if s.endpoint != "" {
		q = append(q, "endpoint="+s.endpoint)
	}
	if len(q) > 0 {
		u += "?" + strings.Join(q, "&")
	}
	return u
}

// Error codes of AWS services that say the credentials were rejected.
var rejectedCredentials = map[string]bool{
	"UnrecognizedClientException":         true, // DynamoDB: unknown access key
	"InvalidSignatureException":           true, // wrong secret key
	"IncompleteSignatureException":        true,
	"MissingAuthenticationTokenException": true,
	"InvalidClientTokenId":                true,
	"ExpiredTokenException":               true, // a session token past its expiry
	"ExpiredToken":                        true,
	"SignatureDoesNotMatch":               true,
}

// throttlingCodes are DynamoDB's answers for a request beyond the capacity
// of an item, a table or the account.
var throttlingCodes = map[string]bool{
	"ThrottlingException":                    true,
	"ProvisionedThroughputExceededException": true,
	"RequestLimitExceeded":                   true,
}

// throttled reports whether err is DynamoDB refusing a request for want of
// capacity: a cache takes it as back-pressure ([sequence.ErrThrottled]).
func throttled(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && throttlingCodes[api.ErrorCode()]
}

// explain tells whether err means the store cannot work as configured and,
// if so, what is wrong and what to do.
func (s *Store) explain(err error) (string, bool) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "", false
	}
	if missingCredentials(err) {
		return "cannot be reached without AWS credentials, and none were found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE to a profile of ~/.aws/config, or run with an IAM role)", true
	}
	if errors.Is(err, ErrTableSchema) {
		return "has the wrong key schema: a store needs a table whose only key is the partition key \"name\", a string (use another table name)", true
	}
	var api smithy.APIError
	if !errors.As(err, &api) {
		return "", false
	}
	code := api.ErrorCode()
	switch {
	case code == "ResourceNotFoundException":
		return fmt.Sprintf("does not exist (create it with: seqctl init --store '%s')", s.initURL()), true
	case rejectedCredentials[code]:
		return fmt.Sprintf("refused the AWS credentials (%s): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN (temporary credentials expire) and AWS_PROFILE, or the IAM role", code), true
	case code == "AccessDeniedException":
		return "denied an action to these AWS credentials (grant them the IAM policy 'seqctl policy' prints: --admin for seqctl and sequence DDL)", true
	case code == "ValidationException" && strings.Contains(api.ErrorMessage(), "key element does not match the schema"):
		return "has the wrong key schema: a store needs a table whose only key is the partition key \"name\", a string (use another table name)", true
	}
	return "", false
}

// missingCredentials reports whether err is the SDK failing to find
// credentials before sending a request: an error of the credentials
// provider, marked by markCredentials (Open installs it), or, for a client
// given to New, the SDK's own words for it.
func missingCredentials(err error) bool {
	var ce *credentialsError
	if errors.As(err, &ce) {
		return true
	}
	var resp *smithyhttp.ResponseError
	if errors.As(err, &resp) {
		return false // the request was sent: an answer, not a missing credential
	}
	msg := err.Error()
	return strings.Contains(msg, "get identity: ") || strings.Contains(msg, "failed to retrieve credentials")
}

// credentialsError is an error of the credentials provider: no
// credentials could be found (or refreshed).
type credentialsError struct{ err error }

func (e *credentialsError) Error() string { return e.err.Error() }
func (e *credentialsError) Unwrap() error { return e.err }

// markedCredentials marks the errors of a credentials provider, so that
// missingCredentials recognises them wherever the SDK reports them.
type markedCredentials struct{ aws.CredentialsProvider }

func (m markedCredentials) Retrieve(ctx context.Context) (aws.Credentials, error) {
	c, err := m.CredentialsProvider.Retrieve(ctx)
	if err != nil {
		return c, &credentialsError{err}
	}
	return c, nil
}

// IsCredentialsProvider lets aws.IsCredentialsProvider see the provider
// marked (the SDK asks it whether the credentials are anonymous).
func (m markedCredentials) IsCredentialsProvider(target aws.CredentialsProvider) bool {
	return aws.IsCredentialsProvider(m.CredentialsProvider, target)
}

// markCredentials is the last client option of Open.
func markCredentials(o *dynamodb.Options) {
	if o.Credentials != nil && !aws.IsCredentialsProvider(o.Credentials, aws.AnonymousCredentials{}) {
		o.Credentials = markedCredentials{o.Credentials}
	}
}

// Check implements [sequence.Checker] with one eventually consistent GetItem
// (half a read unit) of a key under the store's prefix, which the least
// privileges a service has (see [Policy]) allow: a table that does not
// exist, no or rejected credentials, missing permissions and a table with
// another key are errors wrapping [sequence.ErrMisconfigured] that name the
// table, region and endpoint and what to do. A DynamoDB that cannot be
// reached is an error that does not.
func (s *Store) Check(ctx context.Context) error {
	_, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table,
		Key:       keyOf(s.key(checkKey)),
	})
	return s.wrap("check", "", err)
}

// checkKey is the key Check reads, under the prefix; no sequence has it, and
// reading it would be harmless if one had.
const checkKey = "seqshim:check"

// Init creates the table, if it does not exist, with the Store's client (see
// [CreateTable]); the client must also implement [TableAPI], as a
// *dynamodb.Client does. seqctl init calls it. Errors are those of the
// Store's operations.
func (s *Store) Init(ctx context.Context) error {
	ta, ok := s.api.(TableAPI)
	if !ok {
		return fmt.Errorf("dynamostore: init: %s: the client (%T) cannot create tables", s.where(), s.api)
	}
	return s.wrap("init", "", createTable(ctx, ta, s.table))
}
