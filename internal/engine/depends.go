package engine

import (
	"context"
	"errors"
	"strings"

	"github.com/seqshim/seqshim/sequence"
)

// dropDependents returns PostgreSQL's error for DROP SEQUENCE of a
// sequence that column defaults draw from: an identity column's sequence
// cannot be dropped at all, another's only with CASCADE (which drops the
// defaults with it). defaults are the sequence's; nil when there are none.
func dropDependents(name string, defaults []sequence.ColumnDefault, cascade bool) error {
	var detail []string
	for _, d := range defaults {
		what := "column " + d.Column + " of table " + d.Table
		if d.Kind.IsIdentity() {
			return &sequence.Error{Code: codeDependentObjects, Kind: sequence.ErrInvalid,
				Message: "cannot drop sequence " + name + " because " + what + " requires it",
				Hint:    "You can drop " + what + " instead."}
		}
		detail = append(detail, "default value for "+what+" depends on sequence "+name)
	}
	if len(detail) == 0 || cascade {
		return nil
	}
	return &sequence.Error{Code: codeDependentObjects, Kind: sequence.ErrInvalid,
		Message: "cannot drop sequence " + name + " because other objects depend on it",
		Detail:  strings.Join(detail, "\n"),
		Hint:    "Use DROP ... CASCADE to drop the dependent objects too."}
}

// checkDrop returns dropDependents's error for store sequence name, as the
// store describes it; nil when it does not exist (the drop reports that).
func (s *Session[A]) checkDrop(ctx context.Context, name string, cascade bool) error {
	info, _, err := s.describe(ctx, name)
	if errors.Is(err, sequence.ErrNotFound) {
		return nil
	}
	if err != nil {
		return s.eng.storeErr(err)
	}
	return dropDependents(name, info.Spec.Defaults, cascade) // this database's columns
}
