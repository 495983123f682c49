package cosmosstore

import (
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseURL checks, for any store URL: ParseURL does not panic; its
// errors wrap ErrURL; a URL it reads names a valid database and container
// and, written back from its parts, reads the same.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"cosmos://acct.documents.azure.com/seqshim/sequences", "cosmos://acct.documents.azure.com/db/c?prefix=billing%2F",
		"cosmos+http://127.0.0.1:8081/db/c", "cosmos://h/db", "cosmos://h/db/c/d", "cosmos://u:p@h/db/c", "cosmos://h/db/c#f",
		"cosmos:h/db/c", "cosmos://h/db/c?x=1", "cosmos://h/db/c?prefix=a&prefix=b", "COSMOS://h/db/c", "cosmos://h/d%3Fb/c",
		"cosmos:///db/c", "cosmos://[::1]:1/db/c", "cosmos://h/%20db/c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		p, err := ParseURL(raw)
		if err != nil {
			if !errors.Is(err, ErrURL) {
				t.Fatalf("ParseURL(%q): %v does not wrap ErrURL", raw, err)
			}
			return
		}
		if !validName(p.Database) || !validName(p.Container) {
			t.Fatalf("ParseURL(%q) = %+v", raw, p)
		}
		scheme, host, ok := strings.Cut(p.Endpoint, "://")
		if !ok || !strings.HasSuffix(host, "/") {
			t.Fatalf("ParseURL(%q): endpoint %q", raw, p.Endpoint)
		}
		back := "cosmos://"
		if scheme == "http" {
			back = "cosmos+http://"
		}
		back += strings.TrimSuffix(host, "/") + "/" + url.PathEscape(p.Database) + "/" + url.PathEscape(p.Container)
		if p.Prefix != "" {
			back += "?" + url.Values{"prefix": {p.Prefix}}.Encode()
		}
		if again, err := ParseURL(back); err != nil || again != p {
			t.Fatalf("ParseURL(%q) = %+v, written back %q: %+v, %v", raw, p, back, again, err)
		}
	})
}

// FuzzDocument checks, for any JSON a container may hold (a hand-edited or
// foreign document): decoding does not panic; a document that decodes into
// a sequence, written back, decodes into the same sequence.
func FuzzDocument(f *testing.F) {
	d := newDocument("svc/public.s", mustSpec(), mustSpec().Initial(), 7)
	seed, _ := json.Marshal(&d)
	f.Add(string(seed))
	f.Add(`{"id":"x","name":"x","type":"bigint","inc":"1","min":"1","max":"9223372036854775807","start":"1","cache":"1","last":"1"}`)
	f.Add(`{"id":"x","type":"bigint","inc":1,"min":"1"}`)
	f.Add(`{"inc":"0","type":"smallint","members":"[{\"db\":\"a\"}]","defaults":"t.c"}`)
	f.Fuzz(func(t *testing.T, raw string) {
		var d document
		if json.Unmarshal([]byte(raw), &d) != nil {
			return
		}
		info, err := d.info("s")
		if err != nil {
			return
		}
		var back document
		back.setSpec(info.Spec)
		back.Last, back.Called, back.Gen, back.Ver = d.Last, d.Called, d.Gen, d.Ver
		back.Resv, back.Nres, back.LastRes, back.UDay, back.UUsed = d.Resv, d.Nres, d.LastRes, d.UDay, d.UUsed
		b, err := json.Marshal(&back)
		if err != nil {
			t.Fatal(err)
		}
		var again document
		if err := json.Unmarshal(b, &again); err != nil {
			t.Fatalf("%s does not decode: %v", b, err)
		}
		info2, err := again.info("s")
		if err != nil {
			t.Fatalf("%s written back from %s: %v", b, raw, err)
		}
		if !reflect.DeepEqual(info, info2) {
			t.Fatalf("%s decodes to %+v, written back %s to %+v", raw, info, b, info2)
		}
	})
}
