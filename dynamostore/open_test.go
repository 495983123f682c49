package dynamostore_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		url  string
		want dynamostore.URL
		err  bool
	}{
		{url: "dynamodb://seqs", want: dynamostore.URL{Table: "seqs"}},
		{url: "dynamodb://my_table.v2-x?region=eu-west-1&prefix=billing/&endpoint=http://127.0.0.1:8000",
			want: dynamostore.URL{Table: "my_table.v2-x", Region: "eu-west-1", Prefix: "billing/", Endpoint: "http://127.0.0.1:8000"}},
		{url: "dynamodb://seqs/?endpoint=" + url.QueryEscape("https://dynamodb.example:443/"),
			want: dynamostore.URL{Table: "seqs", Endpoint: "https://dynamodb.example:443/"}},
		{url: "dynamo://seqs", err: true},
		{url: "dynamodb://", err: true},
		{url: "dynamodb://ab", err: true},                           // too short for a table name
		{url: "dynamodb://seqs/extra", err: true},                   // a path
		{url: "dynamodb://seqs:99", err: true},                      // a port
		{url: "dynamodb://user@seqs", err: true},                    // credentials belong to the SDK chain
		{url: "dynamodb://seqs?regoin=x", err: true},                // typo
		{url: "dynamodb://seqs?region=a&region=b", err: true},       // ambiguous
		{url: "dynamodb://seqs?endpoint=127.0.0.1:8000", err: true}, // no scheme
		{url: "dynamodb:seqs", err: true},
		// A password never shows in the error (found by FuzzOpen).
		{url: "dYnAmodB://:s3cret-pw@", err: true},
		{url: "dynamodb://u:s3cret-pw@[::1", err: true},
		{url: "dynamodb://seqs?endpoint=" + url.QueryEscape("ftp://u:s3cret-pw@host"), err: true},
		{url: "dynamodb://seqs?endpoint=" + url.QueryEscape("http://u:s3cret-pw@[::1"), err: true},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			got, err := dynamostore.ParseURL(tt.url)
			if tt.err {
				if !errors.Is(err, dynamostore.ErrURL) {
					t.Fatalf("ParseURL = %+v, %v; want ErrURL", got, err)
				}
				if strings.Contains(err.Error(), "s3cret-pw") {
					t.Fatalf("ParseURL: the error shows the password: %v", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseURL = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestOpen opens stores the ways a deployment would: the endpoint and
// region in the URL, or from the SDK's environment variables; credentials
// always from the environment (dynalite accepts any).
func TestOpen(t *testing.T) {
	d := testenv.NewDynamoTable(t)
	endpoint, table := d.Endpoint, d.Name
	testenv.DynamoDBEnv(t)
	t.Setenv("AWS_REGION", "") // the cases below set it, or leave it out

	tests := []struct {
		name string
		env  map[string]string
		url  string
	}{
		{"url", nil, "dynamodb://" + table + "?region=us-east-1&prefix=a/&endpoint=" + url.QueryEscape(endpoint)},
		{"environment", map[string]string{"AWS_REGION": "eu-central-1", "AWS_ENDPOINT_URL_DYNAMODB": endpoint}, "dynamodb://" + table + "?prefix=b/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			st, err := dynamostore.Open(ctx, tt.url)
			if err != nil {
				t.Fatal(err)
			}
			spec := sequence.DefaultSpec()
			if err := st.Create(ctx, "s", spec, spec.Initial()); err != nil {
				t.Fatal(err)
			}
			if b, err := st.Reserve(ctx, "s", 5); err != nil || b != (sequence.Block{First: 1, Step: 1, Count: 5, Gen: b.Gen}) || b.Gen == 0 {
				t.Fatalf("Reserve = %+v, %v", b, err)
			}
		})
	}
	t.Run("no region", func(t *testing.T) {
		_, err := dynamostore.Open(t.Context(), "dynamodb://"+table)
		if !errors.Is(err, dynamostore.ErrURL) {
			t.Fatalf("Open without a region: %v, want ErrURL", err)
		}
	})
}
