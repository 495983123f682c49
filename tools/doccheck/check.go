package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A problem is one broken reference.
type problem struct {
	file string // relative to the module root, slash-separated
	line int
	msg  string
}

func (p problem) String() string { return fmt.Sprintf("%s:%d: %s", p.file, p.line, p.msg) }

// check returns every broken reference of the module at root, in file and
// line order.
func check(root string) ([]problem, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	modPath, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	dirs, mdFiles, err := walk(root)
	if err != nil {
		return nil, err
	}
	gc, goProblems, err := checkGoDocs(root, modPath, dirs)
	if err != nil {
		return nil, err
	}
	mdProblems, err := checkMarkdown(root, mdFiles, gc.checkSpan)
	if err != nil {
		return nil, err
	}
	problems := append(goProblems, mdProblems...)
	slices.SortStableFunc(problems, func(a, b problem) int {
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		return a.line - b.line
	})
	return problems, nil
}

// modulePath reads the module path from a go.mod file.
func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module"); ok {
			if path := strings.Trim(strings.TrimSpace(rest), `"`); path != "" {
				return path, nil
			}
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}

// walk returns the directories of the module at root that may hold its
// packages (not testdata, not hidden, not nested modules), and every
// Markdown file outside testdata and hidden directories (nested modules
// included: their documents are documents of the repository).
func walk(root string) (dirs []string, md []string, err error) {
	nested := map[string]bool{} // directories of nested modules and below
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules") {
				return filepath.SkipDir
			}
			inNested := nested[filepath.Dir(path)]
			if !inNested && path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					inNested = true
				}
			}
			nested[path] = inNested
			if !inNested {
				dirs = append(dirs, path)
			}
			return nil
		}
		if strings.HasSuffix(name, ".md") {
			md = append(md, path)
		}
		return nil
	})
	return dirs, md, err
}

// rel returns path relative to root, slash-separated.
func rel(root, path string) string {
	r, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}
