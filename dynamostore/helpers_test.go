package dynamostore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/internal/testenv"
)

// testClient returns a client for dynalite (which accepts any credentials).
func testClient(tb testing.TB, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	tb.Helper()
	endpoint := testenv.DynamoDB(tb)
	opts := dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("seqshim", "seqshim", ""),
	}
	return dynamodb.New(opts, optFns...)
}

// testTable creates a table unique to this test run and deletes it at the end.
func testTable(tb testing.TB) string {
	tb.Helper()
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, tb.Name())
	if len(name) > 200 {
		name = name[:200]
	}
	table := "seqshim-" + name + "-" + hex.EncodeToString(b[:])
	client := testClient(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := dynamostore.CreateTable(ctx, client, table); err != nil {
		tb.Fatalf("CreateTable: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: &table}); err != nil {
			tb.Logf("DeleteTable %s: %v", table, err)
		}
	})
	return table
}

// testStore returns a Store on a fresh table.
func testStore(tb testing.TB, optFns ...func(*dynamostore.Options)) *dynamostore.Store {
	tb.Helper()
	return dynamostore.New(testClient(tb), testTable(tb), optFns...)
}
