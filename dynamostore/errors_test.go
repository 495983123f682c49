package dynamostore_test

import (
	"context"
	"crypto/rand"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
)

// calls are the operations every configuration error must fail the same
// way, keyed by the operation the message names.
func calls(st *dynamostore.Store) map[string]func(context.Context) error {
	return map[string]func(context.Context) error{
		"check":     st.Check,
		"reserve s": func(ctx context.Context) error { _, err := st.Reserve(ctx, "s", 10); return err },
		"create s": func(ctx context.Context) error {
			return st.Create(ctx, "s", sequence.DefaultSpec(), sequence.DefaultSpec().Initial())
		},
		"list": func(ctx context.Context) error { _, err := st.List(ctx); return err },
	}
}

// wantMisconfigured runs every call of st and wants a configuration error
// whose message starts with "dynamostore: OP: " and contains want.
func wantMisconfigured(t *testing.T, st *dynamostore.Store, want ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for op, call := range calls(st) {
		err := call(ctx)
		if !errors.Is(err, sequence.ErrMisconfigured) || sequence.IsTransient(err) {
			t.Errorf("%s: %v; want a configuration error", op, err)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "dynamostore: "+op+": ") {
			t.Errorf("%s: %q does not start with the operation", op, msg)
		}
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q\nwant it to contain %q", op, msg, w)
			}
		}
	}
}

// TestMissingTable: a table nobody created fails the check and every
// operation at once, naming the table, region and endpoint and the command
// that creates it.
func TestMissingTable(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	table := "seqshim_missing_" + rand.Text()
	st := dynamostore.New(testenv.DynamoDBClient(endpoint), table)
	wantMisconfigured(t, st,
		"DynamoDB table "+table+" in region "+testenv.DynamoRegion+" at "+endpoint+" does not exist",
		"(create it with: seqctl init --store 'dynamodb://"+table+"?region="+testenv.DynamoRegion+"&endpoint="+endpoint+"')")
}

// noCredentialsEnv is testenv.DynamoDBEnv without credentials: none in the
// environment, config files that do not exist, no instance metadata (which
// would otherwise be asked, and wait).
func noCredentialsEnv(t *testing.T) {
	testenv.DynamoDBEnv(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
}

// TestNoCredentials: with no credentials anywhere, the SDK fails before
// sending; the error says credentials and where to set them.
func TestNoCredentials(t *testing.T) {
	d := testenv.NewDynamoTable(t)
	noCredentialsEnv(t)
	st, err := dynamostore.Open(t.Context(), d.URL(""))
	if err != nil {
		t.Fatal(err)
	}
	wantMisconfigured(t, st,
		"DynamoDB table "+d.Name+" in region "+testenv.DynamoRegion+" at "+d.Endpoint+" cannot be reached without AWS credentials, and none were found",
		"set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE")
	if err := st.Init(t.Context()); !errors.Is(err, sequence.ErrMisconfigured) ||
		!strings.Contains(err.Error(), "AWS credentials") || strings.Contains(err.Error(), "policy") {
		t.Errorf("Init: %v; want a configuration error about credentials, not permissions", err)
	}

	// A client given to New, whose credentials Open did not mark: the SDK's
	// own words for it.
	client := dynamodb.New(dynamodb.Options{
		Region:       testenv.DynamoRegion,
		BaseEndpoint: aws.String(d.Endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{}, errors.New("no credentials here")
		}),
	})
	wantMisconfigured(t, dynamostore.New(client, d.Name), "cannot be reached without AWS credentials")
}

// TestNoRegion: a URL without region=, and no region in the environment,
// fails Open. (A wrong region cannot be shown on dynalite, which ignores
// regions; on AWS the table is not found in that region, and the message
// of TestMissingTable names the region it looked in.)
func TestNoRegion(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	testenv.DynamoDBEnv(t)
	t.Setenv("AWS_REGION", "")
	_, err := dynamostore.Open(t.Context(), "dynamodb://seqs?endpoint="+endpoint)
	if !errors.Is(err, sequence.ErrMisconfigured) || !errors.Is(err, dynamostore.ErrURL) {
		t.Fatalf("Open: %v; want ErrMisconfigured and ErrURL", err)
	}
	for _, w := range []string{"DynamoDB table seqs", "no AWS region", "?region=", "AWS_REGION"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q\nwant it to contain %q", err, w)
		}
	}
}

// TestUnreachable: an endpoint nobody listens on is not a configuration
// error: the error says unreachable, and names the operation, the table and
// the endpoint.
func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + l.Addr().String()
	l.Close()
	testenv.DynamoDBEnv(t)
	st, err := dynamostore.Open(t.Context(), "dynamodb://seqs?region=eu-west-1&endpoint="+endpoint, func(o *dynamostore.Options) {
		o.ConfigOptions = append(o.ConfigOptions, config.WithRetryMaxAttempts(1))
	})
	if err != nil {
		t.Fatal(err)
	}
	for op, call := range calls(st) {
		err := call(t.Context())
		if err == nil || errors.Is(err, sequence.ErrMisconfigured) || !sequence.IsTransient(err) {
			t.Errorf("%s: %v; want a transient error", op, err)
			continue
		}
		if want := "dynamostore: " + op + ": DynamoDB table seqs in region eu-west-1 at " + endpoint + " unreachable: "; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %q\nwant it to start with %q", op, err, want)
		}
	}
}

// fakeAPI answers every call with an API error, as DynamoDB does.
type fakeAPI struct {
	dynamostore.API
	code, message string
}

func (f fakeAPI) err(op string) error {
	return &smithy.OperationError{ServiceID: "DynamoDB", OperationName: op,
		Err: &smithy.GenericAPIError{Code: f.code, Message: f.message}}
}

func (f fakeAPI) Options() dynamodb.Options { return dynamodb.Options{Region: "eu-west-1"} }

func (f fakeAPI) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return nil, f.err("GetItem")
}

func (f fakeAPI) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return nil, f.err("UpdateItem")
}

func (f fakeAPI) PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return nil, f.err("PutItem")
}

func (f fakeAPI) Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return nil, f.err("Scan")
}

// TestRejected: DynamoDB's answers to rejected credentials, missing
// permissions and a table with another key. (dynalite accepts any
// credentials and has no IAM, so a fake gives the answers.)
func TestRejected(t *testing.T) {
	tests := []struct {
		code, message string
		want          []string
	}{
		{"UnrecognizedClientException", "The security token included in the request is invalid.",
			[]string{"DynamoDB table seqs in region eu-west-1 refused the AWS credentials (UnrecognizedClientException)", "AWS_ACCESS_KEY_ID"}},
		{"InvalidSignatureException", "The request signature we calculated does not match the signature you provided.",
			[]string{"refused the AWS credentials (InvalidSignatureException)", "AWS_SECRET_ACCESS_KEY"}},
		{"ExpiredTokenException", "The security token included in the request is expired",
			[]string{"refused the AWS credentials (ExpiredTokenException)", "AWS_SESSION_TOKEN (temporary credentials expire)"}},
		{"AccessDeniedException", "User: arn:aws:iam::1:user/app is not authorized to perform: dynamodb:UpdateItem",
			[]string{"DynamoDB table seqs in region eu-west-1 denied an action to these AWS credentials", "'seqctl policy'"}},
		{"ValidationException", "The provided key element does not match the schema",
			[]string{"has the wrong key schema", `partition key "name"`}},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			wantMisconfigured(t, dynamostore.New(fakeAPI{code: tt.code, message: tt.message}, "seqs"), append(tt.want, tt.message)...)
		})
	}
	// Throttling is not a configuration error.
	st := dynamostore.New(fakeAPI{code: "ProvisionedThroughputExceededException", message: "slow down"}, "seqs")
	if err := st.Check(t.Context()); errors.Is(err, sequence.ErrMisconfigured) || !sequence.IsTransient(err) {
		t.Errorf("throttled: %v; want a transient error", err)
	}
}
