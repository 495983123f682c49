package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/seqshim/seqshim/dynamostore"
)

// DynamoRegion is the region of test clients and store URLs; dynalite
// accepts any.
const DynamoRegion = "us-east-1"

// tableTimeout bounds creating or deleting a table on dynalite.
const tableTimeout = 30 * time.Second

// DynamoDBClient returns a client of the dynalite at endpoint: DynamoRegion
// and dummy credentials (dynalite accepts any), nothing from the environment
// or the AWS config files. optFns apply last.
func DynamoDBClient(endpoint string, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       DynamoRegion,
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("seqshim", "seqshim", ""),
	}, optFns...)
}

// DynamoDBEnv points the AWS SDK's default chain, for the rest of the test,
// at dummy credentials and DynamoRegion, with no config files, instance
// metadata or endpoint override: code under test that opens a dynamodb://
// store URL by itself then reaches the dynalite the URL names and nothing
// real. Like t.Setenv, it cannot be used in parallel tests.
func DynamoDBEnv(tb testing.TB) {
	tb.Helper()
	dir := tb.TempDir() // config files that do not exist
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           "seqshim",
		"AWS_SECRET_ACCESS_KEY":       "seqshim",
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
		"AWS_REGION":                  DynamoRegion,
		"AWS_DEFAULT_REGION":          "",
		"AWS_CONFIG_FILE":             filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_ENDPOINT_URL":            "",
		"AWS_ENDPOINT_URL_DYNAMODB":   "",
	} {
		tb.Setenv(k, v)
	}
}

// DynamoTable is a DynamoDB table on the test dynalite, unique to one test
// and deleted when the test ends.
type DynamoTable struct {
	Endpoint string           // dynalite's endpoint URL
	Name     string           // the table's name
	Client   *dynamodb.Client // DynamoDBClient(Endpoint)
}

// NewDynamoTable creates a table on the test dynalite, or skips the test
// when there is none; it fails the test when the table cannot be created.
func NewDynamoTable(tb testing.TB) DynamoTable {
	tb.Helper()
	d, err := CreateDynamoTable(tb)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// CreateDynamoTable is NewDynamoTable returning the error of creating the
// table, for a test that has other work to do without it.
func CreateDynamoTable(tb testing.TB) (DynamoTable, error) {
	tb.Helper()
	d := DynamoTableToCreate(tb)
	ctx, cancel := context.WithTimeout(context.Background(), tableTimeout)
	defer cancel()
	return d, dynamostore.CreateTable(ctx, d.Client, d.Name)
}

// DynamoTableToCreate is NewDynamoTable for code under test that creates the
// table itself (seqctl init): the name is unique to the test and the table,
// if it was created, is deleted when the test ends.
func DynamoTableToCreate(tb testing.TB) DynamoTable {
	tb.Helper()
	endpoint := DynamoDB(tb)
	d := DynamoTable{Endpoint: endpoint, Name: dynamoTableName(tb), Client: DynamoDBClient(endpoint)}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), tableTimeout)
		defer cancel()
		_, err := d.Client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: &d.Name})
		var missing *types.ResourceNotFoundException
		if err != nil && !errors.As(err, &missing) {
			tb.Logf("delete DynamoDB table %s: %v", d.Name, err)
		}
	})
	return d
}

// Store returns a store on the table, with the table's client.
func (d DynamoTable) Store(optFns ...func(*dynamostore.Options)) *dynamostore.Store {
	return dynamostore.New(d.Client, d.Name, optFns...)
}

// URL returns the store URL of the table on d.Endpoint, with DynamoRegion
// and, if not empty, prefix.
func (d DynamoTable) URL(prefix string) string {
	q := url.Values{"region": {DynamoRegion}, "endpoint": {d.Endpoint}}
	if prefix != "" {
		q.Set("prefix", prefix)
	}
	return "dynamodb://" + d.Name + "?" + q.Encode()
}

// dynamoTableName is a table name made of the test's name and random bytes:
// at most 255 of a-z A-Z 0-9 _ - . as DynamoDB wants.
func dynamoTableName(tb testing.TB) string {
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
	return "seqshim-" + name + "-" + hex.EncodeToString(b[:])
}
