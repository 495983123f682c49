package seqd

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"golang.org/x/time/rate"

	"github.com/seqshim/seqshim/sequence"
)

// Clients authenticate with bearer tokens (Authorization: Bearer TOKEN),
// over TLS. The server keeps only each token's SHA-256 (the credentials
// file), never the token. A bearer token was chosen over mTLS because
// every HTTP client in every language sends one header without a client
// certificate store, tokens rotate without a CA, and the credentials file
// says per token what it may do; TLS (Config of the http.Server, seqd
// --tls-cert/--tls-key) protects it on the wire.

// Credential is one client's token and what it may do.
type Credential struct {
	// Name names the client in metrics, logs and refusals.
	Name string `json:"name"`
	// TokenSHA256 is the hexadecimal SHA-256 of the client's bearer token
	// ('seqd token NAME' makes a token and prints both).
	TokenSHA256 string `json:"token_sha256"`
	// Prefixes are the sequence names the client may use: canonical names
	// (sequence.ParseName) that start with one of them. "" allows every name.
	Prefixes []string `json:"prefixes"`
	// Ops are what it may do: "reserve" (Reserve, Recover, Release, Gen,
	// Describe, List) and "admin" (Create, Alter, Rename, Drop, SetVal,
	// Attach, Detach, Describe, List).
	Ops []string `json:"ops"`
	// ValuesPerSecond limits the values the client takes (0: no limit), with
	// bursts of Burst values (default: one second's worth); a request over
	// it gets a smaller block or ResourceExhausted, which a client store
	// takes as throttling. It protects a counter from a crash-looping
	// deployment, on top of the counter's daily limit.
	ValuesPerSecond float64 `json:"values_per_second,omitempty"`
	Burst           int64   `json:"burst,omitempty"`
	// RequestsPerSecond limits its requests (0: no limit), with bursts of
	// RequestsPerSecond (at least 1).
	RequestsPerSecond float64 `json:"requests_per_second,omitempty"`
}

// LoadCredentials reads a credentials file: a JSON array of Credential.
func LoadCredentials(path string) ([]Credential, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("seqd: credentials: %w", err)
	}
	var out []Credential
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("seqd: credentials %s: %w", path, err)
	}
	return out, nil
}

// HashToken is what a Credential keeps of a token.
func HashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

type op int

const (
	opCheck   op = iota // anyone authenticated
	opReserve           // reserve
	opRead              // reserve or admin
	opList              // reserve or admin, no name
	opAdmin             // admin
)

func (o op) String() string {
	switch o {
	case opReserve:
		return "reserve"
	case opRead, opList:
		return "read"
	case opAdmin:
		return "administer"
	}
	return "check"
}

// client is an authenticated caller.
type client struct {
	name      string
	prefixes  []string
	reserve   bool
	admin     bool
	values    *rate.Limiter // nil: no limit
	requests  *rate.Limiter // nil: no limit
	valuesPS  float64
	refusedRL atomic.Int64
}

func (c *client) allows(name string) bool {
	for _, p := range c.prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// admit applies the client's rate limits to a request for n values and
// returns how many it may have.
func (c *client) admit(name string, n int64) (int64, error) {
	if c.values == nil {
		return n, nil
	}
	n = min(n, int64(c.values.Burst()))
	if !c.values.AllowN(time.Now(), int(n)) {
		c.refusedRL.Add(1)
		return 0, connect.NewError(connect.CodeResourceExhausted, fmt.Errorf(
			"seqd: client %q is over its rate limit of %g values a second (sequence %s); retry later", c.name, c.valuesPS, name))
	}
	return n, nil
}

type authorizer struct {
	open    *client
	byToken map[string]*client
}

func newAuthorizer(creds []Credential, open bool) (*authorizer, error) {
	a := &authorizer{byToken: map[string]*client{}}
	if open {
		a.open = &client{name: "open", prefixes: []string{""}, reserve: true, admin: true}
	}
	names := map[string]bool{}
	for i, c := range creds {
		switch {
		case c.Name == "":
			return nil, fmt.Errorf("seqd: credential %d has no name", i)
		case names[c.Name]:
			return nil, fmt.Errorf("seqd: credential %q appears twice", c.Name)
		case len(c.TokenSHA256) != 64:
			return nil, fmt.Errorf("seqd: credential %q: token_sha256 must be 64 hexadecimal digits ('seqd token %s' makes one)", c.Name, c.Name)
		case len(c.Prefixes) == 0:
			return nil, fmt.Errorf(`seqd: credential %q has no prefixes (give [""] for every name)`, c.Name)
		case c.ValuesPerSecond < 0 || c.RequestsPerSecond < 0 || c.Burst < 0:
			return nil, fmt.Errorf("seqd: credential %q: negative rate limit", c.Name)
		}
		names[c.Name] = true
		h := strings.ToLower(c.TokenSHA256)
		if _, err := hex.DecodeString(h); err != nil {
			return nil, fmt.Errorf("seqd: credential %q: token_sha256: %w", c.Name, err)
		}
		if _, dup := a.byToken[h]; dup {
			return nil, fmt.Errorf("seqd: credential %q has the token of another", c.Name)
		}
		cl := &client{name: c.Name, prefixes: c.Prefixes, valuesPS: c.ValuesPerSecond}
		for _, o := range c.Ops {
			switch o {
			case "reserve":
				cl.reserve = true
			case "admin":
				cl.admin = true
			default:
				return nil, fmt.Errorf("seqd: credential %q: unknown op %q (want reserve or admin)", c.Name, o)
			}
		}
		if c.ValuesPerSecond > 0 {
			burst := c.Burst
			if burst == 0 {
				burst = max(int64(c.ValuesPerSecond), 1)
			}
			cl.values = rate.NewLimiter(rate.Limit(c.ValuesPerSecond), int(min(burst, 1<<40)))
		}
		if c.RequestsPerSecond > 0 {
			cl.requests = rate.NewLimiter(rate.Limit(c.RequestsPerSecond), max(int(c.RequestsPerSecond), 1))
		}
		a.byToken[h] = cl
	}
	if len(a.byToken) == 0 && !open {
		return nil, errors.New("seqd: no credentials: every request would be refused (give a credentials file, or Open for a loopback test server)")
	}
	return a, nil
}

// authorize authenticates the caller of h and checks that it may do o on
// name ("" for no name). Refusals say why without naming anything the
// caller did not send.
func (a *authorizer) authorize(h http.Header, o op, name string) (*client, error) {
	c := a.open
	auth := h.Get("Authorization")
	if tok, ok := strings.CutPrefix(auth, "Bearer "); ok && tok != "" {
		c = a.byToken[HashToken(tok)]
		if c == nil {
			return nil, connect.NewError(connect.CodeUnauthenticated, errors.New("seqd: unknown bearer token"))
		}
	} else if c == nil {
		return nil, connect.NewError(connect.CodeUnauthenticated, errors.New("seqd: no bearer token (Authorization: Bearer TOKEN)"))
	}
	var ok bool
	switch o {
	case opCheck:
		ok = true
	case opReserve:
		ok = c.reserve
	case opRead, opList:
		ok = c.reserve || c.admin
	case opAdmin:
		ok = c.admin
	}
	if !ok {
		return nil, connect.NewError(connect.CodePermissionDenied, fmt.Errorf("seqd: client %q may not %s sequences", c.name, o))
	}
	if name != "" && !c.allows(name) {
		return nil, connect.NewError(connect.CodePermissionDenied, fmt.Errorf(
			"seqd: client %q may not use sequence %s: it is outside the client's name prefixes", c.name, sequence.RelName(name)))
	}
	if c.requests != nil && !c.requests.Allow() {
		c.refusedRL.Add(1)
		return nil, connect.NewError(connect.CodeResourceExhausted, fmt.Errorf("seqd: client %q is over its request rate limit; retry later", c.name))
	}
	return c, nil
}
