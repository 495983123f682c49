package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/seqshim/seqshim/sequence"
)

// ErrURL is wrapped by every error [Open] and [ParseURL] return for a
// malformed store URL.
var ErrURL = errors.New("dynamostore: invalid store URL")

// URL is a parsed store URL dynamodb://TABLE?region=R&endpoint=URL&prefix=P.
type URL struct {
	Table    string
	Region   string // empty: the SDK's default chain (AWS_REGION, profile, ...)
	Endpoint string // empty: the SDK's (AWS_ENDPOINT_URL_DYNAMODB, or AWS's)
	Prefix   string
}

// ParseURL parses a store URL. Unknown query parameters are errors, so a
// typo does not silently select the default.
func ParseURL(rawurl string) (URL, error) {
	u, err := url.Parse(rawurl)
	if err != nil {
		return URL{}, fmt.Errorf("%w: %w", ErrURL, parseReason(err))
	}
	if u.Scheme != "dynamodb" {
		return URL{}, fmt.Errorf("%w: scheme %q, want dynamodb://TABLE", ErrURL, u.Scheme)
	}
	if u.User != nil || u.Port() != "" || (u.Path != "" && u.Path != "/") || u.Fragment != "" || u.Opaque != "" {
		// Redacted: a URL with user info may carry a password.
		return URL{}, fmt.Errorf("%w: %q: want dynamodb://TABLE?region=R&endpoint=URL&prefix=P", ErrURL, u.Redacted())
	}
	p := URL{Table: u.Host}
	if !validTable(p.Table) {
		return URL{}, fmt.Errorf("%w: table name %q: want 3 to 255 characters of a-z, A-Z, 0-9, '_', '-' and '.'", ErrURL, p.Table)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return URL{}, fmt.Errorf("%w: %w", ErrURL, err)
	}
	for k, v := range q {
		if len(v) != 1 {
			return URL{}, fmt.Errorf("%w: parameter %q given %d times", ErrURL, k, len(v))
		}
		switch k {
		case "region":
			p.Region = v[0]
		case "endpoint":
			p.Endpoint = v[0]
			e, err := url.Parse(p.Endpoint)
			if err != nil {
				return URL{}, fmt.Errorf("%w: endpoint: %w: want http(s)://host[:port]", ErrURL, parseReason(err))
			}
			if (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" {
				return URL{}, fmt.Errorf("%w: endpoint %q: want http(s)://host[:port]", ErrURL, e.Redacted())
			}
		case "prefix":
			p.Prefix = v[0]
		default:
			return URL{}, fmt.Errorf("%w: unknown parameter %q (known: region, endpoint, prefix)", ErrURL, k)
		}
	}
	return p, nil
}

// parseReason is the reason of a [url.Parse] error without the URL, which
// may carry a password.
func parseReason(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func validTable(t string) bool {
	if len(t) < 3 || len(t) > 255 {
		return false
	}
	for _, c := range []byte(t) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// Open returns a Store for a store URL dynamodb://TABLE?region=R&endpoint=URL&prefix=P.
// The client is configured by the SDK's default chain (credentials, region,
// AWS_ENDPOINT_URL_DYNAMODB, shared config files); region and endpoint in the
// URL take precedence. optFns are applied after the URL's prefix, and their
// ConfigOptions and ClientOptions after the URL's settings. Open does not
// contact DynamoDB (credentials may be resolved); the table must exist (see
// [CreateTable], [Store.Init]), which [Store.Check] verifies. No region, in
// the URL or the environment, is an error wrapping both ErrURL and
// sequence.ErrMisconfigured.
func Open(ctx context.Context, rawurl string, optFns ...func(*Options)) (*Store, error) {
	p, err := ParseURL(rawurl)
	if err != nil {
		return nil, err
	}
	o := Options{Prefix: p.Prefix}
	for _, fn := range optFns {
		fn(&o)
	}
	var load []func(*config.LoadOptions) error
	if p.Region != "" {
		load = append(load, config.WithRegion(p.Region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, append(load, o.ConfigOptions...)...)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: load AWS config: %w", err)
	}
	if cfg.Region == "" {
		return nil, sequence.Misconfigured(fmt.Errorf("%w: DynamoDB table %s: no AWS region (add ?region= to the store URL, or set AWS_REGION)", ErrURL, p.Table))
	}
	endpoint := func(co *dynamodb.Options) {
		if p.Endpoint != "" {
			co.BaseEndpoint = aws.String(p.Endpoint)
		}
	}
	clientOpts := append([]func(*dynamodb.Options){endpoint}, o.ClientOptions...)
	client := dynamodb.NewFromConfig(cfg, append(clientOpts, markCredentials)...)
	return New(client, p.Table, func(x *Options) { *x = o }), nil
}
