package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// mdDoc is what a Markdown file offers and asks: its anchors and its links.
type mdDoc struct {
	anchors map[string]bool
	links   []mdLink
	code    []mdLink // code spans, as written between the backticks
}

type mdLink struct {
	line   int
	target string
}

var (
	mdHeading = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	mdFence   = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	mdInline  = regexp.MustCompile(`\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)`)
	mdDef     = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)`)
	mdHTMLID  = regexp.MustCompile(`<[a-zA-Z][^>]*\s(?:id|name)="([^"]+)"`)
	mdLinkTxt = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	mdScheme  = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// checkMarkdown checks the links of the Markdown files, and their code
// spans with checkSpan, but in CHANGELOG.md (whose old entries name what
// was then).
func checkMarkdown(root string, files []string, checkSpan func(code string) string) ([]problem, error) {
	docs := map[string]*mdDoc{}
	read := func(path string) (*mdDoc, error) {
		if d, ok := docs[path]; ok {
			return d, nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		d := parseMarkdown(string(b))
		docs[path] = d
		return d, nil
	}
	var problems []problem
	for _, file := range files {
		d, err := read(file)
		if err != nil {
			return nil, err
		}
		for _, l := range d.links {
			if msg := checkLink(root, file, l.target, read); msg != "" {
				problems = append(problems, problem{file: rel(root, file), line: l.line, msg: msg})
			}
		}
		if filepath.Base(file) == "CHANGELOG.md" {
			continue
		}
		for _, c := range d.code {
			if msg := checkSpan(c.target); msg != "" {
				problems = append(problems, problem{file: rel(root, file), line: c.line, msg: msg})
			}
		}
	}
	return problems, nil
}

// checkLink returns what is wrong with the link target in file, or "".
func checkLink(root, file, target string, read func(string) (*mdDoc, error)) string {
	target = strings.TrimSuffix(strings.TrimPrefix(target, "<"), ">")
	if mdScheme.MatchString(target) || strings.HasPrefix(target, "//") {
		return "" // another site
	}
	pathPart, frag, hasFrag := strings.Cut(target, "#")
	pathPart, _, _ = strings.Cut(pathPart, "?")
	dest := file
	if pathPart != "" {
		p, err := url.PathUnescape(pathPart)
		if err != nil {
			return fmt.Sprintf("link %s: %v", target, err)
		}
		if strings.HasPrefix(p, "/") {
			dest = filepath.Join(root, filepath.FromSlash(p))
		} else {
			dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(p))
		}
		if _, err := os.Stat(dest); err != nil {
			return fmt.Sprintf("link %s: no such file or directory %s", target, rel(root, dest))
		}
	}
	if !hasFrag || !strings.HasSuffix(dest, ".md") {
		return "" // a line anchor of a source file is GitHub's affair
	}
	anchor, err := url.PathUnescape(frag)
	if err != nil {
		return fmt.Sprintf("link %s: %v", target, err)
	}
	d, err := read(dest)
	if err != nil {
		return fmt.Sprintf("link %s: %v", target, err)
	}
	if !d.anchors[anchor] {
		return fmt.Sprintf("link %s: %s has no heading with the anchor #%s", target, rel(root, dest), anchor)
	}
	return ""
}

// parseMarkdown returns the anchors (headings by GitHub's rules, HTML ids)
// and the link targets of a Markdown text, outside code.
func parseMarkdown(text string) *mdDoc {
	d := &mdDoc{anchors: map[string]bool{}}
	counts := map[string]int{}
	fence := ""
	for i, line := range strings.Split(text, "\n") {
		if m := mdFence.FindStringSubmatch(line); m != nil {
			switch {
			case fence == "":
				fence = m[1]
				continue
			case m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(line[len(m[0]):]) == "":
				fence = ""
				continue
			}
		}
		if fence != "" {
			continue
		}
		if m := mdHeading.FindStringSubmatch(line); m != nil {
			s := slug(m[2])
			if n := counts[s]; n > 0 {
				d.anchors[s+"-"+strconv.Itoa(n)] = true
			} else {
				d.anchors[s] = true
			}
			counts[s]++
		}
		for _, m := range mdHTMLID.FindAllStringSubmatch(line, -1) {
			d.anchors[m[1]] = true
		}
		line = stripCode(line, func(code string) {
			d.code = append(d.code, mdLink{line: i + 1, target: strings.TrimSpace(code)})
		})
		if m := mdDef.FindStringSubmatch(line); m != nil {
			d.links = append(d.links, mdLink{line: i + 1, target: m[1]})
		}
		for _, m := range mdInline.FindAllStringSubmatch(line, -1) {
			d.links = append(d.links, mdLink{line: i + 1, target: m[1]})
		}
	}
	return d
}

// stripCode removes the code spans of a line (a run of backticks up to the
// next run of as many) and gives each to span.
func stripCode(line string, span func(code string)) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			b.WriteString(line)
			return b.String()
		}
		b.WriteString(line[:i])
		n := i
		for n < len(line) && line[n] == '`' {
			n++
		}
		ticks := line[i:n]
		rest := line[n:]
		j := indexRun(rest, ticks)
		if j < 0 {
			b.WriteString(ticks) // no closing run: literal backticks
			line = rest
			continue
		}
		span(rest[:j])
		line = rest[j+len(ticks):]
	}
}

// indexRun returns the index in s of a run of exactly len(ticks) backticks.
func indexRun(s, ticks string) int {
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], ticks)
		if j < 0 {
			return -1
		}
		j += i
		end := j + len(ticks)
		if (j == 0 || s[j-1] != '`') && (end == len(s) || s[end] != '`') {
			return j
		}
		for end < len(s) && s[end] == '`' {
			end++
		}
		i = end
	}
	return -1
}

// slug is GitHub's anchor of a heading: the text as rendered (link targets
// and code marks dropped), in lower case, with spaces turned into hyphens
// and punctuation other than hyphens and underscores removed.
func slug(heading string) string {
	heading = mdLinkTxt.ReplaceAllString(strings.TrimSpace(heading), "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
