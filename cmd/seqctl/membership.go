package main

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/seqshim/seqshim/sequence"
)

// Members: the databases that declared a counter (sequence.Spec.Members),
// each with its own OWNED BY and column defaults, as show, list and -o json
// print them.

// dbJSON is a database's identity as -o json prints it.
type dbJSON struct {
	DB               string  `json:"db"`                // as recorded: SYSTEM_IDENTIFIER/OID/NAME
	Database         string  `json:"database"`          // its name ("" when db is not of that form)
	OID              *uint32 `json:"oid"`               // null when db is not of that form
	SystemIdentifier string  `json:"system_identifier"` // the cluster's, as text: a 64-bit number
}

func toDBJSON(db string) dbJSON {
	j := dbJSON{DB: db}
	sysID, oid, name, ok := sequence.ParseDatabaseID(db)
	if !ok {
		return j
	}
	j.Database, j.SystemIdentifier = name, sysID
	if n, err := strconv.ParseUint(oid, 10, 32); err == nil {
		o := uint32(n)
		j.OID = &o
	}
	return j
}

// memberJSON is a member as -o json prints it.
type memberJSON struct {
	dbJSON
	OwnedBy        *string             `json:"owned_by"`        // null: none
	ColumnDefaults []columnDefaultJSON `json:"column_defaults"` // this database's ([] for none)
	// Stale is true when the database is gone, false when it exists, null
	// when its cluster was not checked (--check-db).
	Stale *bool `json:"stale"`
	// RenamedTo is the database's name now when it was renamed (not
	// stale: it exists, but no longer sees the counter); null otherwise.
	RenamedTo *string `json:"renamed_to"`
}

// membersJSON is members as -o json prints them ([] for none), with what
// the clusters cl say of each.
func membersJSON(members []sequence.Member, cl clusters) []memberJSON {
	out := make([]memberJSON, len(members))
	for i, m := range members {
		st, now := cl.state(m.DB)
		out[i] = memberJSON{dbJSON: toDBJSON(m.DB), ColumnDefaults: defaultsJSON(m.Defaults), Stale: st.staleJSON()}
		if st == renamed {
			out[i].RenamedTo = &now
		}
		if m.OwnedBy != "" {
			out[i].OwnedBy = &m.OwnedBy
		}
	}
	return out
}

// fmtDB is a database for people: "app (OID 16384, cluster 7301234567890123456)".
func fmtDB(db string) string {
	sysID, oid, name, ok := sequence.ParseDatabaseID(db)
	if !ok {
		return db
	}
	return fmt.Sprintf("%s (OID %s, cluster %s)", name, oid, sysID)
}

// dbName is a database's name, or its identity when it is not of the
// PostgreSQL form.
func dbName(db string) string {
	if _, _, name, ok := sequence.ParseDatabaseID(db); ok {
		return name
	}
	return db
}

// fmtState is what show prints after a member: nothing when no cluster was
// checked or the database exists.
func fmtState(cl clusters, db string) string {
	if cl == nil {
		return ""
	}
	switch st, now := cl.state(db); st {
	case stale:
		return " (stale: database gone)"
	case renamed:
		return fmt.Sprintf(" (renamed: the database is %s now, which does not see this counter; not stale)", now)
	case unknown:
		return " (not checked: its cluster is not among --check-db)"
	}
	return ""
}

// writeMembers prints the members of a counter in show's "key: value"
// lines, each with its OWNED BY and column defaults.
func writeMembers(tw *tabwriter.Writer, s sequence.Spec, cl clusters) {
	if len(s.Members) == 0 {
		fmt.Fprintf(tw, "members:\tevery database (no members recorded)\n")
		return
	}
	fmt.Fprintf(tw, "members:\t%d %s share this counter\n", len(s.Members), plural(len(s.Members), "database", "databases"))
	for _, m := range s.Members {
		fmt.Fprintf(tw, "member:\t%s%s\n", fmtDB(m.DB), fmtState(cl, m.DB))
		owned := m.OwnedBy
		if owned == "" {
			owned = "none"
		}
		fmt.Fprintf(tw, "  owned by:\t%s\n", owned)
		if len(m.Defaults) == 0 {
			fmt.Fprintf(tw, "  defaults:\tnone\n")
		}
		for i, d := range m.Defaults {
			label := "  defaults:"
			if i > 0 {
				label = ""
			}
			fmt.Fprintf(tw, "%s\t%s\n", label, d)
		}
	}
}

// fmtMembersShort is the members of a counter in one table cell: up to
// three database names, stale ones marked, and how many more.
func fmtMembersShort(members []sequence.Member, cl clusters) string {
	if len(members) == 0 {
		return "every database"
	}
	const shown = 3
	var parts []string
	hiddenStale := 0
	for i, m := range members {
		st, _ := cl.state(m.DB)
		if i >= shown {
			if st == stale {
				hiddenStale++
			}
			continue
		}
		p := dbName(m.DB)
		switch st {
		case stale:
			p += " (stale)"
		case renamed:
			p += " (renamed)"
		}
		parts = append(parts, p)
	}
	s := strings.Join(parts, ", ")
	if n := len(members) - shown; n > 0 {
		s += " +" + strconv.Itoa(n) + " more"
		if hiddenStale > 0 {
			s += " (" + strconv.Itoa(hiddenStale) + " stale)"
		}
	}
	return s
}

// fmtMemberDefaultsShort is the column defaults of every member in one
// table cell, each after its database's name: the first, and how many more.
func fmtMemberDefaultsShort(members []sequence.Member) string {
	var all []string
	for _, m := range members {
		for _, d := range m.Defaults {
			all = append(all, dbName(m.DB)+": "+d.String())
		}
	}
	switch len(all) {
	case 0:
		return "-"
	case 1:
		return all[0]
	}
	return all[0] + " +" + strconv.Itoa(len(all)-1) + " more"
}

// fmtMembersInline is every member on one line, for messages.
func fmtMembersInline(members []sequence.Member) string {
	s := make([]string, len(members))
	for i, m := range members {
		s[i] = fmtDB(m.DB)
	}
	return strings.Join(s, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
