package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestQuickstart(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, 500, 1000); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"inserted 500 orders",
		"sequence orders_seq: 1500 values handed out",
		"500 rows, 500 distinct ids from 1000 to 1499: all unique",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
