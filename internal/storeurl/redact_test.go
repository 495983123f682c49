package storeurl

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		// Nothing secret: unchanged, byte for byte.
		{"memory:", "memory:"},
		{"sqlite:/var/lib/seq.db?table=t", "sqlite:/var/lib/seq.db?table=t"},
		{"postgres://app@db:5432/app?sslmode=disable", "postgres://app@db:5432/app?sslmode=disable"},
		{"dynamodb://seqs?region=eu-west-1&endpoint=http%3A%2F%2F127.0.0.1%3A4567&prefix=a%2F", "dynamodb://seqs?region=eu-west-1&endpoint=http%3A%2F%2F127.0.0.1%3A4567&prefix=a%2F"},
		{"host=db dbname=app", "host=db dbname=app"},
		{"", ""},

		// The user info's password.
		{"postgres://app:s3cret@db/app", "postgres://app:xxxxx@db/app"},
		{"postgresql://app:s3cret@db:5432/app?sslmode=require", "postgresql://app:xxxxx@db:5432/app?sslmode=require"},
		{"postgres://app:p@ss@db/app", "postgres://app:xxxxx@db/app"},
		{"postgres://app:@db/app", "postgres://app:xxxxx@db/app"},
		// A password url.Parse rejects is hidden all the same.
		{"postgres://app:pa/ss@db/app", "postgres://app:xxxxx@db/app"},
		{"postgres://app:p%zz@db/app", "postgres://app:xxxxx@db/app"},

		// A password query parameter, and a URL with one as a query value.
		{"postgres://db/app?user=app&password=s3cret", "postgres://db/app?password=xxxxx&user=app"},
		{"postgres://db/app?PASSWORD=s3cret", "postgres://db/app?PASSWORD=xxxxx"},
		{"dynamodb://seqs?endpoint=http://key:s3cret@127.0.0.1:4567", "dynamodb://seqs?endpoint=http%3A%2F%2Fkey%3Axxxxx%40127.0.0.1%3A4567"},

		// Keyword/value DSNs.
		{"host=db password=s3cret dbname=app", "host=db password=xxxxx dbname=app"},
		{"host=db password = 's3 cret' dbname=app", "host=db password=xxxxx dbname=app"},
		{"host=db Password=a:b", "host=db password=xxxxx"},
		// Found by FuzzRedact and FuzzOpen: text glued to a quoted password,
		// user info without a scheme.
		{"host=db password= '00'000 user=u", "host=db password=xxxxx user=u"},
		{"//app:s3cret@db/app", "//app:xxxxx@db/app"},
		// Found by the 10-minute FuzzRedact: hiding a password url.Parse
		// rejects made the text a URL with another user info, hidden too
		// (Redact of its output changes nothing).
		{"//:@://:%@", "//:xxxxx@://:xxxxx@"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := Redact(tt.in)
			if got != tt.want {
				t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if strings.Contains(got, "s3") || strings.Contains(got, "ss@") {
				t.Errorf("Redact(%q) = %q still holds the password", tt.in, got)
			}
		})
	}
}
