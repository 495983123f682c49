package main

import (
	"strings"
	"testing"
	"time"
)

func TestReport(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	var out strings.Builder
	r := newReport(&out, t0)
	stream := []struct {
		sec  int
		line string
	}{
		{0, `{"Action":"start","Package":"m/a"}`},
		{0, `{"Action":"start","Package":"m/b"}`},
		{1, `{"Action":"run","Package":"m/a","Test":"TestOK"}`},
		{1, `{"Action":"output","Package":"m/a","Test":"TestOK","Output":"quiet when passing\n"}`},
		{1, `{"Action":"run","Package":"m/a","Test":"TestOK/sub"}`},
		{2, `{"Action":"pass","Package":"m/a","Test":"TestOK/sub"}`},
		{2, `{"Action":"pass","Package":"m/a","Test":"TestOK"}`},
		{2, `{"Action":"run","Package":"m/b","Test":"TestSlow"}`},
		{3, `{"Action":"run","Package":"m/a","Test":"TestSkip"}`},
		{3, `{"Action":"skip","Package":"m/a","Test":"TestSkip"}`},
		{3, `{"Action":"pass","Package":"m/a","Elapsed":3.01}`},
		{4, `go: downloading example.com/x v1.0.0`},
		{4, `{"Action":"start","Package":"m/f"}`},
		{4, `{"Action":"run","Package":"m/f","Test":"FuzzParse"}`},
		{4, `{"Action":"output","Package":"m/f","Test":"FuzzParse","Output":"fuzz: elapsed: 4s, execs: 9 (2/sec)\n"}`},
		{4, `{"Action":"pass","Package":"m/f","Test":"FuzzParse"}`},
		{4, `{"Action":"pass","Package":"m/f","Elapsed":4}`},
	}
	for _, s := range stream {
		r.line(s.line, at(s.sec))
	}
	r.progress(at(20))
	for _, l := range []string{
		`{"Action":"run","Package":"m/b","Test":"TestSlow/quiet"}`,
		`{"Action":"output","Package":"m/b","Test":"TestSlow/quiet","Output":"    slow_test.go:5: a passing scenario's log\n"}`,
		`{"Action":"pass","Package":"m/b","Test":"TestSlow/quiet"}`,
		`{"Action":"run","Package":"m/b","Test":"TestSlow/loud"}`,
		`{"Action":"output","Package":"m/b","Test":"TestSlow/loud","Output":"    slow_test.go:7: mismatch\n"}`,
		`{"Action":"fail","Package":"m/b","Test":"TestSlow/loud"}`,
		`{"Action":"output","Package":"m/b","Test":"TestSlow","Output":"    slow_test.go:9: boom\n"}`,
		`{"Action":"fail","Package":"m/b","Test":"TestSlow"}`,
		`{"Action":"output","Package":"m/b","Output":"FAIL\n"}`,
		`{"Action":"fail","Package":"m/b","Elapsed":25}`,
		`{"ImportPath":"m/c [m/c.test]","Action":"build-output","Output":"c.go:1: syntax error\n"}`,
		`{"ImportPath":"m/c [m/c.test]","Action":"build-fail"}`,
		`{"Action":"start","Package":"m/c"}`,
		`{"Action":"fail","Package":"m/c","Elapsed":0}`,
		`{"Action":"skip","Package":"m/d","Elapsed":0}`,
	} {
		r.line(l, at(25))
	}
	r.progress(at(40)) // nothing running: the go command builds
	r.summary("tests")
	want := `ok   m/a	3.01s	2 tests
go: downloading example.com/x v1.0.0
ok   m/f FuzzParse	4s
... 20s: running m/b (20s, TestSlow 18s)
--- output of m/b TestSlow
    slow_test.go:9: boom
--- output of m/b TestSlow/loud
    slow_test.go:7: mismatch
FAIL
FAIL m/b	25s
c.go:1: syntax error
FAIL m/c	0s
?    m/d	[no test files]
... 40s: building; no test binary running
skipped: m/a TestSkip
failed tests: m/b TestSlow/loud, m/b TestSlow
failed packages: m/b m/c
tests: 2 passed, 2 failed, 1 skipped
`
	if got := out.String(); got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
	if r.ok() {
		t.Error("ok() after failures")
	}
}
