package storeurl_test

import (
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/internal/storeurl"
)

// repoRoot is the repository root, seen from this package's directory.
const repoRoot = "../.."

// TestFormsDocumented keeps the texts that describe store URLs and cannot be
// made from Forms (Go doc comments, README.md) saying what Forms says.
func TestFormsDocumented(t *testing.T) {
	// Every text listing all the forms lists them as Summary does, word for
	// word once comment markers, Markdown backticks and line breaks are gone.
	for _, tt := range []struct {
		file  string
		count int // how many lists the file holds
	}{
		{"internal/storeurl/storeurl.go", 1}, // the package doc
		{"internal/options/options.go", 1},   // Options.StoreURL (the parameter table uses Summary)
		{"driver/doc.go", 1},                 // the configuration list
		{"cmd/seqctl/doc.go", 1},             // the package doc
		{"README.md", 2},                     // the configuration table and the seqctl section
	} {
		src := readRepoFile(t, tt.file)
		if got := strings.Count(normalizeDoc(src), storeurl.Summary()); got != tt.count {
			t.Errorf("%s lists the store URL forms as %q %d times, want %d", tt.file, storeurl.Summary(), got, tt.count)
		}
	}

	// README.md's table of stores has a row for each form.
	readme := readRepoFile(t, "README.md")
	_, table, ok := strings.Cut(readme, "| store URL | for |\n")
	if !ok {
		t.Fatal("README.md has no table of stores (| store URL | for |)")
	}
	row := regexp.MustCompile("^\\s*\\| `([^`]+)`")
	var rows []string
	for _, line := range strings.Split(table, "\n")[1:] { // after the |---|---| line
		m := row.FindStringSubmatch(line)
		if m == nil {
			break
		}
		rows = append(rows, m[1])
	}
	var syntaxes []string
	for _, f := range storeurl.Forms() {
		syntaxes = append(syntaxes, f.Syntax)
	}
	slices.Sort(rows)
	slices.Sort(syntaxes)
	if !slices.Equal(rows, syntaxes) {
		t.Errorf("README.md's table of stores has rows %q, want one for each of %q", rows, syntaxes)
	}

	// Anywhere else, a dynamodb:// syntax names only parameters the form
	// has, and one that starts with region=R is the whole form.
	dynamo := dynamoForm(t)
	u, err := url.Parse(dynamo)
	if err != nil {
		t.Fatal(err)
	}
	known := u.Query()
	mention := regexp.MustCompile(`dynamodb://TABLE\?[A-Za-z0-9_=&]+`)
	walkDocs(t, func(path, src string) {
		for _, m := range mention.FindAllString(src, -1) {
			_, query, _ := strings.Cut(m, "?")
			for _, kv := range strings.Split(query, "&") {
				if k, _, _ := strings.Cut(kv, "="); !known.Has(k) {
					t.Errorf("%s: %s names parameter %q; the form is %s", path, m, k, dynamo)
				}
			}
			if strings.HasPrefix(query, "region=R") && m != dynamo {
				t.Errorf("%s: %s, want the whole form %s", path, m, dynamo)
			}
		}
	})
}

// TestDynamoFormParameters: the dynamodb:// form documents exactly the query
// parameters dynamostore.ParseURL accepts.
func TestDynamoFormParameters(t *testing.T) {
	u, err := url.Parse(dynamoForm(t))
	if err != nil {
		t.Fatal(err)
	}
	valid := map[string]string{"region": "eu-west-1", "endpoint": "http://127.0.0.1:4567", "prefix": "billing/"}
	var names []string
	for _, kv := range strings.Split(u.RawQuery, "&") {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, k)
		v, ok := valid[k]
		if !ok {
			t.Errorf("the form documents parameter %q, which this test has no value for", k)
			continue
		}
		if _, err := dynamostore.ParseURL("dynamodb://seqs?" + url.Values{k: {v}}.Encode()); err != nil {
			t.Errorf("the form documents parameter %q, which ParseURL rejects: %v", k, err)
		}
	}
	_, err = dynamostore.ParseURL("dynamodb://seqs?no_such_parameter=1")
	if want := "(known: " + strings.Join(names, ", ") + ")"; !errors.Is(err, dynamostore.ErrURL) || !strings.Contains(err.Error(), want) {
		t.Errorf("ParseURL with an unknown parameter: %v; want ErrURL listing %s", err, want)
	}
}

// dynamoForm returns the syntax of the dynamodb:// form.
func dynamoForm(t *testing.T) string {
	t.Helper()
	for _, f := range storeurl.Forms() {
		if strings.HasPrefix(f.Syntax, "dynamodb://") {
			return f.Syntax
		}
	}
	t.Fatal("Forms has no dynamodb:// form")
	return ""
}

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// walkDocs calls f with every non-test Go file and Markdown file of the
// repository.
func walkDocs(t *testing.T, f func(path, src string)) {
	t.Helper()
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == ".tmp" || n == "testdata" || n == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !(strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, ".md")) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(repoRoot, path)
		if err != nil {
			return err
		}
		f(filepath.ToSlash(rel), string(src))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

var (
	commentMarker = regexp.MustCompile(`(?m)^\s*//[ \t]?`)
	space         = regexp.MustCompile(`\s+`)
)

// normalizeDoc turns Go comments and Markdown into plain running text.
func normalizeDoc(src string) string {
	src = commentMarker.ReplaceAllString(src, "")
	src = strings.ReplaceAll(src, "`", "")
	return space.ReplaceAllString(src, " ")
}
