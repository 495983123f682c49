package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// DROP SCHEMA goes to the database, which knows nothing of the store's
// sequences in the schema: PostgreSQL would drop them with CASCADE, and
// refuse without it (2BP01). Before the text is sent, the session looks for
// store sequences in the schemas it drops; with CASCADE it drops them from
// the store after the database dropped the schema ([Session.afterDatabase]).

// codeDependentObjects is PostgreSQL's dependent_objects_still_exist.
const codeDependentObjects = "2BP01"

// schemaDrop is a DROP SCHEMA … CASCADE the database is about to run, and
// the store sequences to drop once it has.
type schemaDrop struct {
	query string
	names []string
}

// beforeSchemaDrop checks a text that drops schemas holding store
// sequences: without CASCADE it is PostgreSQL's 2BP01; with CASCADE it must
// be a statement of its own outside a transaction block (the store's drops
// cannot be rolled back), and the drops wait for the database.
func (s *Session[A]) beforeSchemaDrop(ctx context.Context, p *Statement) error {
	s.pendingDrop = schemaDrop{}
	drops, n, query := p.plan.SchemaDrops(), len(p.plan.Statements), p.query
	if len(drops) == 0 {
		return nil
	}
	infos, err := s.eng.store.List(ctx)
	if err != nil {
		return s.eng.storeErr(err)
	}
	var names []string
	for _, d := range drops {
		var in []string
		for _, info := range infos {
			if _, visible := s.view(info.Spec); !visible {
				continue // another database's
			}
			if schema, _ := sequence.SplitName(info.Name); slices.Contains(d.Schemas, schema) {
				in = append(in, info.Name)
			}
		}
		if len(in) == 0 {
			continue
		}
		if d.Rename {
			return unsupported("seqshim: ALTER SCHEMA … RENAME of a schema holding store sequences is not supported: the store's sequences would keep the old schema; create the new schema, recreate the sequences there (seqctl create, setval), then drop the old one")
		}
		if !d.Cascade {
			schema, _ := sequence.SplitName(in[0])
			if err := s.schemaExists(ctx, schema); err != nil {
				return nil // the database reports the missing schema
			}
			return schemaError(codeDependentObjects, "cannot drop schema %s because other objects depend on it", schema)
		}
		names = append(names, in...)
	}
	if len(names) == 0 {
		return nil
	}
	if n > 1 {
		return unsupported("seqshim: DROP SCHEMA … CASCADE of a schema holding store sequences must be a statement of its own")
	}
	if s.db != nil && s.db.TxStatus() != 'I' {
		return unsupported("seqshim: DROP SCHEMA … CASCADE of a schema holding store sequences cannot run in a transaction block: the store's sequences cannot be rolled back; run it outside a transaction")
	}
	s.pendingDrop = schemaDrop{query: query, names: names}
	return nil
}

// dropsSchema reports whether query waits for [Session.afterDatabase]
// after it ran: a DROP SCHEMA … CASCADE of a schema with store sequences,
// which the session runs itself, to completion, before it drops the
// store's sequences of the schema.
func (s *Session[A]) dropsSchema(query string) bool {
	return s.pendingDrop.query == query && query != ""
}

// afterDatabase finishes a statement the database ran successfully: after a
// DROP SCHEMA … CASCADE, it drops the schema's sequences from the store.
// It costs a comparison for other statements.
func (s *Session[A]) afterDatabase(ctx context.Context, query string) error {
	if !s.dropsSchema(query) {
		return nil
	}
	names := s.pendingDrop.names
	s.pendingDrop = schemaDrop{}
	defer s.eng.ddlGen.Add(1)
	var errs []error
	for _, name := range names {
		dropped, err := s.dropHere(ctx, name)
		if err != nil && !errors.Is(err, sequence.ErrNotFound) {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		if dropped {
			s.eng.cache.Retire(name) // the process's other sessions see it gone
		}
		s.seq.drop(name)
	}
	s.eng.forgetDefaults()
	if len(errs) > 0 {
		return fmt.Errorf("seqshim: the database dropped the schema, but not every store sequence in it was dropped (drop them with seqctl drop): %w", errors.Join(errs...))
	}
	return nil
}

func unsupported(msg string) *sequence.Error {
	return &sequence.Error{Code: sequence.CodeFeatureNotSupported, Kind: rewrite.ErrUnsupported, Message: msg}
}
