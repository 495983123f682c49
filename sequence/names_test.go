package sequence

import (
	"strings"
	"testing"
)

func TestParseName(t *testing.T) {
	long := strings.Repeat("a", 70)
	tests := []struct {
		in, want string
		wantErr  string
	}{
		{"orders_seq", "orders_seq", ""},
		{"ORDERS_SEQ", "orders_seq", ""},
		{`"orders_seq"`, "orders_seq", ""},
		{"public.orders_seq", "orders_seq", ""},
		{` public . "orders_seq" `, "orders_seq", ""},
		{`"Orders_Seq"`, `"Orders_Seq"`, ""},
		{`"PUBLIC".s`, `"PUBLIC".s`, ""},
		{"App.S", "app.s", ""},
		{`"a.b"`, `"a.b"`, ""},
		{`"a""b"`, `"a""b"`, ""},
		{`"select"`, `"select"`, ""},
		{"1abc", `"1abc"`, ""},
		{"Ünïcode", `"Ünïcode"`, ""}, // only ASCII folds
		{long, long[:63], ""},
		{"", "", "invalid name syntax"},
		{`""`, "", "invalid name syntax"},
		{`"open`, "", "invalid name syntax"},
		{"a b", "", "invalid name syntax"},
		{"a.", "", "invalid name syntax"},
		{".a", "", "invalid name syntax"},
		{"db.public.s", "", "cross-database references are not implemented: db.public.s"},
		{"a.b.c.d", "", "improper relation name (too many dotted names): a.b.c.d"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseName(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("ParseName(%q) = %q, %v; want error %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseName(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			// The canonical form is a fixed point.
			if again, err := ParseName(got); err != nil || again != got {
				t.Fatalf("ParseName(%q) = %q, %v; not canonical", got, again, err)
			}
		})
	}
}

func TestRelName(t *testing.T) {
	for in, want := range map[string]string{"s": "s", `"Orders_Seq"`: "Orders_Seq", "app.s": "s", `"a.b"`: "a.b", `x."a""b"`: `a"b`} {
		if got := RelName(in); got != want {
			t.Errorf("RelName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestErrorMessages(t *testing.T) {
	tests := []struct {
		err  *Error
		code string
		want string
	}{
		{NotFoundError("s"), "42P01", `relation "s" does not exist`},
		{NotFoundError("app.s"), "42P01", `relation "app.s" does not exist`},
		{ExistsError(`"Big"`), "42P07", `relation "Big" already exists`},
		{LimitError("s", Spec{Increment: 1, Max: 10}), "2200H", `nextval: reached maximum value of sequence "s" (10)`},
		{LimitError("app.d", Spec{Increment: -1, Min: -5}), "2200H", `nextval: reached minimum value of sequence "d" (-5)`},
		{CurrvalNotDefinedError("s"), "55000", `currval of sequence "s" is not yet defined in this session`},
		{LastvalNotDefinedError(), "55000", `lastval is not yet defined in this session`},
	}
	for _, tt := range tests {
		if tt.err.Error() != tt.want || tt.err.SQLState() != tt.code {
			t.Errorf("got %s %q, want %s %q", tt.err.SQLState(), tt.err.Error(), tt.code, tt.want)
		}
	}
}
