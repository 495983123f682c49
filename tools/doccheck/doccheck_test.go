package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestModule checks seqshim's own documentation: every doc link of every
// package and every link of every Markdown file resolves.
func TestModule(t *testing.T) {
	problems, err := check("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s", p)
	}
}

// TestFixture runs the check on a module made of broken references and
// sound ones (testdata/mod): exactly the broken ones are reported, at their
// lines.
func TestFixture(t *testing.T) {
	problems, err := check("testdata/mod")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	want := []string{
		"CHANGELOG.md:3: link gone.md: no such file or directory gone.md",
		"README.md:5: link nope.md: no such file or directory nope.md",
		"README.md:5: link #nope: README.md has no heading with the anchor #nope",
		"README.md:6: link OTHER.md#zzz: OTHER.md has no heading with the anchor #zzz",
		"README.md:8: `b.Nope`: package example.com/m/b declares no exported Nope",
		"README.md:8: `a.Good.Nope`: package example.com/m/a declares no exported Good.Nope",
		"README.md:16: link gone/: no such file or directory gone",
		"README.md:17: link #not-a-heading: README.md has no heading with the anchor #not-a-heading",
		"a/a.go:4: [Bad] is not a doc link: package a declares no exported Bad",
		"a/a.go:4: [Good.Bad] is not a doc link: package a declares no exported Good.Bad",
		"a/a.go:4: [b.Nope] links to example.com/m/b.Nope, which package b does not declare (or export)",
		"a/a.go:4: [strings.Nope] links to strings.Nope, which package strings does not declare (or export)",
		"a/a.go:4: [io/fs.Nope] links to io/fs.Nope, which package fs does not declare (or export)",
		"a/a.go:5: [nope.Thing] is not a doc link: package a imports no package nope (write its import path)",
		"a/a.go:5: [a.Nope] links to example.com/m/a.Nope, which package a does not declare (or export)",
		"a/a.go:5: [c] links to package c, which package a does not import: write its import path",
		"a/a.go:18: [Good.X] is not a doc link: package a declares no exported Good.X",
		"a/a.go:21: [Good.G] is not a doc link: package a declares no exported Good.G",
		"a/a.go:32: [Limitless] is not a doc link: package a declares no exported Limitless",
		"a/a.go:38: [Newer] is not a doc link: package a declares no exported Newer",
		`b/b.go:2: "# Not a heading" is no heading but a line of a paragraph: a heading needs a blank line before and after it`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestRun(t *testing.T) {
	var out bytes.Buffer
	err := run([]string{"testdata/mod"}, &out)
	if err == nil || err.Error() != "21 broken references" {
		t.Errorf("run on the fixture: %v, want 21 broken references", err)
	}
	if n := strings.Count(out.String(), "\n"); n != 21 {
		t.Errorf("run wrote %d lines, want 21:\n%s", n, out.String())
	}
	if err := run([]string{"a", "b"}, &out); err == nil {
		t.Error("run with two arguments: no error")
	}
}

// TestSlug checks GitHub's anchors of headings.
func TestSlug(t *testing.T) {
	tests := []struct{ heading, want string }{
		{"Install", "install"},
		{"Operations: checks, daily limits, shadow mode, warm-up", "operations-checks-daily-limits-shadow-mode-warm-up"},
		{"Recipes: sqlx, GORM, bun, ent", "recipes-sqlx-gorm-bun-ent"},
		{"`seqctl`: the operator's tool", "seqctl-the-operators-tool"},
		{"The `seqshim.max_wait` option", "the-seqshimmax_wait-option"},
		{"See [the guide](https://example.com/g)", "see-the-guide"},
		{"Über café", "über-café"},
		{"a  b", "a--b"},
	}
	for _, tt := range tests {
		if got := slug(tt.heading); got != tt.want {
			t.Errorf("slug(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
}

// TestParseMarkdown checks what counts as a heading, a link and code.
func TestParseMarkdown(t *testing.T) {
	d := parseMarkdown("# A\n## A\n<a id=\"x\"></a>\n````\n```\n# B\n````\n" +
		"[l](t1) `[c](t2)` ``a ` [c](t3)`` [m](<t 4> \"title\")\n[d]: t5\n   ~~~\n[e](t6)\n   ~~~\n")
	var anchors []string
	for a := range d.anchors {
		anchors = append(anchors, a)
	}
	slices.Sort(anchors)
	if want := []string{"a", "a-1", "x"}; !slices.Equal(anchors, want) {
		t.Errorf("anchors %q, want %q", anchors, want)
	}
	var targets []string
	for _, l := range d.links {
		targets = append(targets, l.target)
	}
	if want := []string{"t1", "<t 4>", "t5"}; !slices.Equal(targets, want) {
		t.Errorf("links %q, want %q", targets, want)
	}
	var code []string
	for _, c := range d.code {
		code = append(code, c.target)
	}
	if want := []string{"[c](t2)", "a ` [c](t3)"}; !slices.Equal(code, want) {
		t.Errorf("code spans %q, want %q", code, want)
	}
}
