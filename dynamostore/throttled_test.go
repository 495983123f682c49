package dynamostore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"

	"github.com/seqshim/seqshim/sequence"
)

// throttlingAPI answers every read and update with a DynamoDB error code.
type throttlingAPI struct {
	API
	code string
}

func (a throttlingAPI) err() error {
	return &smithy.GenericAPIError{Code: a.code, Message: "rate of requests exceeds the allowed throughput"}
}

func (a throttlingAPI) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return nil, a.err()
}

func (a throttlingAPI) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return nil, a.err()
}

// TestReserveThrottled: DynamoDB's throttling answers reach a cache as
// sequence.ErrThrottled (transient, back-pressure), keeping DynamoDB's error
// code; another error is not throttling.
func TestReserveThrottled(t *testing.T) {
	for code, want := range map[string]bool{
		"ThrottlingException":                    true,
		"ProvisionedThroughputExceededException": true,
		"RequestLimitExceeded":                   true,
		"InternalServerError":                    false,
	} {
		t.Run(code, func(t *testing.T) {
			st := New(throttlingAPI{code: code}, "seqs")
			_, err := st.Reserve(t.Context(), "s", 10)
			if err == nil {
				t.Fatal("Reserve succeeded")
			}
			if got := errors.Is(err, sequence.ErrThrottled); got != want {
				t.Errorf("errors.Is(%v, ErrThrottled) = %v, want %v", err, got, want)
			}
			var api smithy.APIError
			if !errors.As(err, &api) || api.ErrorCode() != code {
				t.Errorf("%v does not keep DynamoDB's error code %s", err, code)
			}
			if !sequence.IsTransient(err) || errors.Is(err, sequence.ErrMisconfigured) {
				t.Errorf("%v: want a transient error", err)
			}
			if !strings.HasPrefix(err.Error(), "dynamostore: reserve s: DynamoDB table seqs") {
				t.Errorf("%q does not name the operation and the table", err)
			}
		})
	}
}
