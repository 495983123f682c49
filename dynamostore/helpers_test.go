package dynamostore_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
)

// testClient returns a client for dynalite (which accepts any credentials).
func testClient(tb testing.TB, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	tb.Helper()
	return testenv.DynamoDBClient(testenv.DynamoDB(tb), optFns...)
}

// testTable creates a table unique to this test run and deletes it at the end.
func testTable(tb testing.TB) string {
	tb.Helper()
	return testenv.NewDynamoTable(tb).Name
}

// testStore returns a Store on a fresh table.
func testStore(tb testing.TB, optFns ...func(*dynamostore.Options)) *dynamostore.Store {
	tb.Helper()
	return testenv.NewDynamoTable(tb).Store(optFns...)
}
