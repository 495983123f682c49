package driver

import (
	"strings"
)

// statementsSent are the texts the fake inner driver received, without
// seqshim's own catalog queries (the search_path, schemas).
func statementsSent(fs *fakeSetup) []string {
	var out []string
	for _, q := range fs.fake.Rec.Queries() {
		if strings.Contains(q, "current_setting('search_path')") || strings.Contains(q, "current_schemas(false)") || strings.Contains(q, "pg_namespace") {
			continue
		}
		out = append(out, q)
	}
	return out
}
