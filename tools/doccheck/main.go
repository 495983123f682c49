// Command doccheck checks the cross-references of a Go module's
// documentation and prints every broken one, as path:line: message. It
// exits 1 when it found any.
//
//	go run ./tools/doccheck [MODULE_ROOT]
//
// The root defaults to the current directory. The same check runs in `go
// test ./tools/doccheck` (TestModule), so a broken reference fails the
// suite.
//
// # Doc comments
//
// Every package of the module is read as pkgsite reads it (go/doc and its
// comment parser, non-test files only), skipping testdata and nested
// modules (a directory with a go.mod of its own). The package doc and the
// doc of every exported declaration (constants, variables, types, functions,
// methods) are parsed, and the doc links in them checked. A doc link is
// written in one of these forms:
//
//	[Name]  [Name.Method]  [pkg.Name]  [pkg.Name.Method]  [pkg]
//
// Reported are:
//
//   - a doc link go/doc could not resolve, and so leaves as plain text: a
//     name the package does not declare (or does not export), or a package
//     it does not import (a link to package seqcache from a package that
//     does not import it; write the full import path instead);
//   - a doc link go/doc did resolve, followed into its package, that names
//     something the package does not declare (go/doc checks only that the
//     package is imported), or a package that does not exist;
//   - a line written as a heading ("# Section") but run into a paragraph,
//     for want of a blank line before or after it: the section other docs
//     refer to by name does not exist.
//
// Brackets that are no doc link are left alone: a number, one letter, a
// lower-case word that names no package of the module, a word in capitals
// (SQL grammar: CREATE [UNLOGGED] TABLE), brackets not preceded and followed
// by a space or punctuation (a slice or map type), a link definition and
// code blocks:
//
//	[0]  [N]  [i]  [optional]  [UNLOGGED]  []byte  map[string]T  [text]: https://…
//
// # Markdown
//
// Every .md file outside testdata: each relative link target (inline
// "[text](target)" or a definition "[text]: target") must exist, and each
// anchor (#section), in the same file or in another Markdown file, must be
// a heading's anchor by GitHub's rules (lower case, spaces to '-',
// punctuation dropped, -1, -2 … for repeated headings). Links inside code
// (fenced blocks, `spans`) are not links. A code span that names a
// declaration of one of the module's packages (`pkg.Name`,
// `pkg.Type.Method`, `*pkg.Type`, `pkg.Func()`) must name one that exists,
// except in CHANGELOG.md, whose old entries name what was then.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "doccheck:", err)
		os.Exit(1)
	}
}

// run checks the module at args[0] (default ".") and writes one line per
// problem to w; an error when there are problems or the check failed.
func run(args []string, w io.Writer) error {
	root := "."
	switch len(args) {
	case 0:
	case 1:
		root = args[0]
	default:
		return fmt.Errorf("usage: doccheck [MODULE_ROOT]")
	}
	problems, err := check(root)
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintln(w, p)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d broken references", len(problems))
	}
	return nil
}
