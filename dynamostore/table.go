package dynamostore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TableAPI is the part of the DynamoDB client [CreateTable] uses;
// *dynamodb.Client implements it.
type TableAPI interface {
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}

var _ TableAPI = (*dynamodb.Client)(nil)

// ErrTableSchema is returned by [CreateTable] for an existing table whose key
// is not the one a Store needs.
var ErrTableSchema = errors.New("dynamostore: table has the wrong key schema")

// CreateTable creates the table a Store needs (partition key "name", a
// string; on-demand billing) and waits until it is ACTIVE, at most until
// ctx ends. An existing table with that key is left as it is (and waited
// for); one with another key is ErrTableSchema.
func CreateTable(ctx context.Context, client TableAPI, table string) error {
	if err := createTable(ctx, client, table); err != nil {
		if errors.Is(err, ErrTableSchema) {
			return err
		}
		return fmt.Errorf("dynamostore: %w", err)
	}
	return nil
}

// createTable is CreateTable with errors that say what failed, but not
// where: the caller says that.
func createTable(ctx context.Context, client TableAPI, table string) error {
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            &table,
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: strp(attrKey), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: strp(attrKey), KeyType: types.KeyTypeHash}},
	})
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("create table %s: %w", table, err)
	}
	// The waiter needs a bound; the real one is ctx.
	maxWait := 10 * time.Minute
	if d, ok := ctx.Deadline(); ok {
		maxWait = max(time.Until(d), time.Millisecond)
	}
	w := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 100 * time.Millisecond
		o.MaxDelay = 5 * time.Second
	})
	out, err := w.WaitForOutput(ctx, &dynamodb.DescribeTableInput{TableName: &table}, maxWait)
	if err != nil {
		return fmt.Errorf("wait for table %s: %w", table, err)
	}
	ks := out.Table.KeySchema
	if len(ks) != 1 || ks[0].AttributeName == nil || *ks[0].AttributeName != attrKey || ks[0].KeyType != types.KeyTypeHash {
		return fmt.Errorf("%w: %s needs a single partition key %q", ErrTableSchema, table, attrKey)
	}
	return nil
}

func strp(s string) *string { return &s }

// Policy returns a least-privilege IAM policy document (JSON) for a table and
// key prefix. With admin false it is what a service running seqshim needs:
// GetItem and UpdateItem, confined by dynamodb:LeadingKeys to items under
// prefix (the whole table when prefix is empty). With admin true it is what
// seqctl and sequence DDL need on top: PutItem and DeleteItem (also confined
// to the prefix), Scan for listing, and DescribeTable and CreateTable for
// table setup. Scan cannot be confined to a prefix (it reads the whole table;
// the store filters), so grant admin to operators, not services.
func Policy(table, prefix string, admin bool) string {
	arn := "arn:aws:dynamodb:*:*:table/" + table
	type statement struct {
		Sid       string         `json:"Sid"`
		Effect    string         `json:"Effect"`
		Action    []string       `json:"Action"`
		Resource  string         `json:"Resource"`
		Condition map[string]any `json:"Condition,omitempty"`
	}
	var cond map[string]any
	if prefix != "" {
		// StringLike's wildcards in the prefix itself must match literally.
		literal := strings.NewReplacer("$", "${$}", "*", "${*}", "?", "${?}").Replace(prefix)
		cond = map[string]any{"ForAllValues:StringLike": map[string][]string{"dynamodb:LeadingKeys": {literal + "*"}}}
	}
	items := []string{"dynamodb:GetItem", "dynamodb:UpdateItem"}
	sid := "SeqshimReserve"
	if admin {
		items = append(items, "dynamodb:PutItem", "dynamodb:DeleteItem")
		sid = "SeqshimAdminItems"
	}
	doc := struct {
		Version   string      `json:"Version"`
		Statement []statement `json:"Statement"`
	}{Version: "2012-10-17"}
	doc.Statement = append(doc.Statement, statement{Sid: sid, Effect: "Allow", Action: items, Resource: arn, Condition: cond})
	if admin {
		doc.Statement = append(doc.Statement, statement{
			Sid: "SeqshimAdminTable", Effect: "Allow",
			Action:   []string{"dynamodb:Scan", "dynamodb:DescribeTable", "dynamodb:CreateTable"},
			Resource: arn,
		})
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err) // static types: cannot happen
	}
	return string(b) + "\n"
}
