package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// goChecker checks the doc links of a module's packages.
type goChecker struct {
	root  string
	fset  *token.FileSet
	names map[string][]string     // import paths of the module's packages, by name
	docs  map[string]*doc.Package // by import path; nil: no such package
	files map[string][]string     // lines of the files read, by path
	ctx   build.Context           // how packages outside the module are found
	errs  map[string]error        // why a package could not be loaded
}

// A docItem is one doc comment: its text and where its source lies.
type docItem struct {
	text     string
	from, to token.Pos // the comment and what it documents
}

// checkGoDocs checks the doc comments of the packages in dirs. The checker
// it returns knows those packages.
func checkGoDocs(root, modPath string, dirs []string) (*goChecker, []problem, error) {
	c := &goChecker{
		root:  root,
		fset:  token.NewFileSet(),
		names: map[string][]string{},
		docs:  map[string]*doc.Package{},
		files: map[string][]string{},
		ctx:   build.Default,
		errs:  map[string]error{},
	}
	type pkg struct {
		path  string
		doc   *doc.Package
		items []docItem
	}
	var pkgs []pkg
	for _, dir := range dirs {
		bp, err := c.ctx.ImportDir(dir, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				continue
			}
			return nil, nil, err
		}
		if len(bp.GoFiles)+len(bp.CgoFiles) == 0 {
			continue // tests only
		}
		path := modPath
		if r := rel(root, dir); r != "." {
			path += "/" + r
		}
		d, files, err := c.parse(bp, path)
		if err != nil {
			return nil, nil, err
		}
		c.docs[path] = d
		c.names[d.Name] = append(c.names[d.Name], path)
		pkgs = append(pkgs, pkg{path: path, doc: d, items: items(d, files)})
	}
	var problems []problem
	for _, p := range pkgs {
		for _, it := range p.items {
			problems = append(problems, c.checkDoc(p.doc, it)...)
		}
	}
	return c, problems, nil
}

// goSpan matches code that names a declaration of a package: pkg.Name,
// pkg.Type.Method, *pkg.Type, pkg.Func().
var goSpan = regexp.MustCompile(`^\*?([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9_]*)(?:\.([A-Z][A-Za-z0-9_]*))?(?:\(\))?$`)

// checkSpan returns what is wrong with code (a Markdown code span) that
// names a declaration of one of the module's packages, or "" (for any other
// code too).
func (c *goChecker) checkSpan(code string) string {
	m := goSpan.FindStringSubmatch(code)
	if m == nil || len(c.names[m[1]]) != 1 {
		return "" // not Go, or not one package of the module
	}
	path := c.names[m[1]][0]
	recv, name := "", m[2]
	if m[3] != "" {
		recv, name = m[2], m[3]
	}
	if c.lookup(c.docs[path], recv, name) {
		return ""
	}
	return fmt.Sprintf("`%s`: package %s declares no exported %s", code, path, strings.TrimPrefix(recv+"."+name, "."))
}

// lookup reports whether d declares name, or recv's method or field name,
// following recv when it is an alias of another package's type (type
// Options = options.Options): the alias has the fields and methods of the
// type it names.
func (c *goChecker) lookup(d *doc.Package, recv, name string) bool {
	if d.Parser().LookupSym(recv, name) || recv == "" {
		return d.Parser().LookupSym(recv, name)
	}
	for _, t := range d.Types {
		if t.Name != recv {
			continue
		}
		for _, spec := range t.Decl.Specs {
			ts, ok := spec.(*ast.TypeSpec)
			if !ok || ts.Name.Name != recv || !ts.Assign.IsValid() {
				continue
			}
			sel, ok := ts.Type.(*ast.SelectorExpr)
			if !ok {
				continue
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				continue
			}
			for _, imp := range d.Imports {
				if path.Base(imp) != pkg.Name {
					continue
				}
				if target, err := c.load(imp); err == nil {
					return c.lookup(target, sel.Sel.Name, name)
				}
			}
		}
	}
	return false
}

// parse reads the non-test files of bp as go/doc does for pkgsite.
func (c *goChecker) parse(bp *build.Package, importPath string) (*doc.Package, []*ast.File, error) {
	var files []*ast.File
	for _, name := range append(append([]string(nil), bp.GoFiles...), bp.CgoFiles...) {
		f, err := parser.ParseFile(c.fset, filepath.Join(bp.Dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	d, err := doc.NewFromFiles(c.fset, files, importPath, doc.PreserveAST)
	if err != nil {
		return nil, nil, err
	}
	return d, files, nil
}

// items returns the package doc and the doc of every exported declaration.
func items(d *doc.Package, files []*ast.File) []docItem {
	var out []docItem
	for _, f := range files {
		if f.Doc != nil {
			// The package doc is the files' package comments together; each
			// file's part is checked against its own lines.
			out = append(out, docItem{text: f.Doc.Text(), from: f.Doc.Pos(), to: f.Doc.End()})
		}
	}
	genDecl := func(text string, decl *ast.GenDecl) {
		if text == "" {
			return
		}
		from := decl.Pos()
		if decl.Doc != nil {
			from = decl.Doc.Pos()
		}
		out = append(out, docItem{text: text, from: from, to: decl.End()})
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			if f.Doc == "" || f.Level > 0 || f.Decl == nil {
				continue // promoted methods are checked where they are declared
			}
			from := f.Decl.Pos()
			if f.Decl.Doc != nil {
				from = f.Decl.Doc.Pos()
			}
			out = append(out, docItem{text: f.Doc, from: from, to: f.Decl.Name.End()})
		}
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			genDecl(v.Doc, v.Decl)
		}
	}
	values(d.Consts)
	values(d.Vars)
	funcs(d.Funcs)
	for _, t := range d.Types {
		if t.Doc != "" {
			from, to := t.Decl.Pos(), t.Decl.End()
			if t.Decl.Doc != nil {
				from = t.Decl.Doc.Pos()
			}
			out = append(out, docItem{text: t.Doc, from: from, to: to})
		}
		values(t.Consts)
		values(t.Vars)
		funcs(t.Funcs)
		funcs(t.Methods)
	}
	return out
}

// checkDoc checks the links of one doc comment of package d.
func (c *goChecker) checkDoc(d *doc.Package, it docItem) []problem {
	var problems []problem
	report := func(written, format string, args ...any) {
		file, line := c.locate(it, "["+written+"]")
		problems = append(problems, problem{file: file, line: line, msg: "[" + written + "] " + fmt.Sprintf(format, args...)})
	}
	parsed := d.Parser().Parse(it.text)
	for _, h := range strayHeadings(parsed.Content) {
		file, line := c.locate(it, h)
		problems = append(problems, problem{file: file, line: line,
			msg: fmt.Sprintf("%q is no heading but a line of a paragraph: a heading needs a blank line before and after it", h)})
	}
	walkText(parsed.Content, func(t comment.Text) {
		switch t := t.(type) {
		case comment.Plain:
			for _, written := range unresolved(string(t)) {
				if msg := c.explain(d, written); msg != "" {
					report(written, "%s", msg)
				}
			}
		case *comment.DocLink:
			if msg := c.follow(d, t); msg != "" {
				report(plain(t.Text), "%s", msg)
			}
		}
	})
	return problems
}

// strayHeadings returns the lines of paragraphs that are written as
// headings ("# Section") but, run into the text around them, are not.
func strayHeadings(blocks []comment.Block) []string {
	var out []string
	for _, b := range blocks {
		switch b := b.(type) {
		case *comment.Paragraph:
			var text strings.Builder
			for _, t := range b.Text {
				if p, ok := t.(comment.Plain); ok {
					text.WriteString(string(p))
				} else {
					text.WriteString("x") // a link: not the start of a line
				}
			}
			for _, line := range strings.Split(text.String(), "\n") {
				if strings.HasPrefix(line, "# ") {
					out = append(out, line)
				}
			}
		case *comment.List:
			for _, item := range b.Items {
				out = append(out, strayHeadings(item.Content)...)
			}
		}
	}
	return out
}

// walkText calls fn for every text outside code blocks and link texts.
func walkText(blocks []comment.Block, fn func(comment.Text)) {
	for _, b := range blocks {
		switch b := b.(type) {
		case *comment.Paragraph:
			for _, t := range b.Text {
				fn(t)
			}
		case *comment.Heading:
			for _, t := range b.Text {
				fn(t)
			}
		case *comment.List:
			for _, item := range b.Items {
				walkText(item.Content, fn)
			}
		}
	}
}

// plain returns the text of a link as written.
func plain(texts []comment.Text) string {
	var b strings.Builder
	for _, t := range texts {
		switch t := t.(type) {
		case comment.Plain:
			b.WriteString(string(t))
		case comment.Italic:
			b.WriteString(string(t))
		}
	}
	return b.String()
}

// bracketed matches what could be meant as a doc link: [Name], [Name.Name],
// [pkg.Name.Name], [pkg], with an optional leading star.
var bracketed = regexp.MustCompile(`\[\*?([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*){0,2})\]`)

// unresolved returns the bracketed names in plain text (left as text by the
// comment parser, so not resolved) placed where a doc link may be: preceded
// and followed by a space, punctuation or the end of the text.
func unresolved(text string) []string {
	var out []string
	for _, m := range bracketed.FindAllStringSubmatchIndex(text, -1) {
		if m[0] > 0 {
			if r, _ := utf8.DecodeLastRuneInString(text[:m[0]]); !unicode.IsPunct(r) && !unicode.IsSpace(r) {
				continue // map[string]T
			}
		}
		if m[1] < len(text) {
			if r, _ := utf8.DecodeRuneInString(text[m[1]:]); !unicode.IsPunct(r) && !unicode.IsSpace(r) {
				continue // [2]int
			}
		}
		out = append(out, text[m[0]+1:m[1]-1])
	}
	return out
}

// explain says why written, left as plain text in a doc of package d, is a
// broken doc link, or returns "" when it is no doc link at all.
func (c *goChecker) explain(d *doc.Package, written string) string {
	name := strings.TrimPrefix(written, "*")
	parts := strings.Split(name, ".")
	last := parts[len(parts)-1]
	switch {
	case !isExported(last):
		if len(parts) == 1 && len(c.names[last]) > 0 {
			return fmt.Sprintf("links to package %s, which package %s does not import: write its import path", last, d.Name)
		}
		return "" // [i], [optional], [a.b]
	case len(parts) == 1:
		if utf8.RuneCountInString(last) == 1 {
			return "" // [N], [T]: a placeholder
		}
		if strings.ToUpper(last) == last {
			return "" // CREATE [UNLOGGED] TABLE: SQL grammar
		}
		return fmt.Sprintf("is not a doc link: package %s declares no exported %s", d.Name, last)
	case isExported(parts[0]): // Type.Method
		return fmt.Sprintf("is not a doc link: package %s declares no exported %s", d.Name, name)
	default: // pkg.Name or pkg.Type.Method
		return fmt.Sprintf("is not a doc link: package %s imports no package %s (write its import path)", d.Name, parts[0])
	}
}

// follow checks a resolved doc link: that its package exists and declares
// its name (go/doc only checks that the package is imported).
func (c *goChecker) follow(d *doc.Package, l *comment.DocLink) string {
	target, path := d, d.ImportPath
	if l.ImportPath != "" {
		path = l.ImportPath
		var err error
		if target, err = c.load(l.ImportPath); err != nil {
			return fmt.Sprintf("links to package %s: %v", l.ImportPath, err)
		}
	}
	if l.Name == "" || target.Parser().LookupSym(l.Recv, l.Name) {
		return ""
	}
	sym := l.Name
	if l.Recv != "" {
		sym = l.Recv + "." + l.Name
	}
	return fmt.Sprintf("links to %s.%s, which package %s does not declare (or export)", path, sym, target.Name)
}

// load returns the doc of the package at importPath: one of the module's,
// or one found by go/build from the module root (the standard library, a
// dependency).
func (c *goChecker) load(importPath string) (*doc.Package, error) {
	if d, ok := c.docs[importPath]; ok {
		if d == nil {
			return nil, c.errs[importPath]
		}
		return d, nil
	}
	bp, err := c.ctx.Import(importPath, c.root, 0)
	var d *doc.Package
	if err == nil {
		d, _, err = c.parse(bp, importPath)
	}
	if err != nil {
		err = errors.New("no such package")
		c.errs[importPath] = err
	}
	c.docs[importPath] = d
	return d, err
}

// locate returns the file and line of the first line of the comment it that
// holds needle, or of the comment's first line.
func (c *goChecker) locate(it docItem, needle string) (string, int) {
	from, to := c.fset.Position(it.from), c.fset.Position(it.to)
	lines, ok := c.files[from.Filename]
	if !ok {
		if b, err := os.ReadFile(from.Filename); err == nil {
			lines = strings.Split(string(b), "\n")
		}
		c.files[from.Filename] = lines
	}
	for n := from.Line; n <= to.Line && n <= len(lines); n++ {
		if strings.Contains(lines[n-1], needle) {
			return rel(c.root, from.Filename), n
		}
	}
	return rel(c.root, from.Filename), from.Line
}

func isExported(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}
