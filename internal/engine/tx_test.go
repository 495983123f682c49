package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
)

// raiseSQL's statement fails in PostgreSQL with the code and message asked
// for, whatever the message holds and however strings are read.
func TestPGRaiseSQL(t *testing.T) {
	ctx := context.Background()
	pc, err := pgx.Connect(ctx, testenv.PG(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(ctx)
	tests := []struct{ code, msg, wantCode string }{
		{"42P01", `relation "missing" does not exist`, "42P01"},
		{"2200H", `nextval: reached maximum value of sequence "it's" (5)`, "2200H"},
		{"P0001", `back\slash \' and '' quotes, \n not a newline`, "P0001"},
		{"0A000", "dollar $seqshim$ tags $$ $seqshim_$ $seqshimx$\nand a newline", "0A000"},
		{"22023", "ends with a tag's start $seqshim", "22023"},
		{"bad", "an invalid code falls back to RAISE's own", "P0001"},
		{"4200'", "so does one that would break the literal", "P0001"},
	}
	for _, scs := range []string{"on", "off"} {
		if _, err := pc.Exec(ctx, "SET standard_conforming_strings = "+scs); err != nil {
			t.Fatal(err)
		}
		for _, tt := range tests {
			_, err := pc.Exec(ctx, raiseSQL("EXCEPTION", tt.code, tt.msg))
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != tt.wantCode || pe.Message != tt.msg {
				t.Errorf("standard_conforming_strings=%s: raiseSQL(%q, %q): %v, want %s %q", scs, tt.code, tt.msg, err, tt.wantCode, tt.msg)
			}
		}
	}
}
