package dynamostore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/seqshim/seqshim/sequence"
)

// attrFrom marks an item created by a Rename with the key it was renamed
// from, until its next rename: an interrupted rename can be resumed, and
// one repeated after it completed recognised as done.
const attrFrom = "from"

// Create implements sequence.Admin: a PutItem that fails with
// sequence.ErrExists if the name is taken. Callers wanting CREATE SEQUENCE IF
// NOT EXISTS test the error with errors.Is(err, sequence.ErrExists).
func (s *Store) Create(ctx context.Context, name string, spec sequence.Spec, pos sequence.Position) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	if _, err := spec.SetVal(name, pos.Last, pos.Called); err != nil {
		return err
	}
	cond := "attribute_not_exists(#name)"
	_, err := s.api.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                &s.table,
		Item:                     newItem(s.key(name), rand.Text(), spec, pos),
		ConditionExpression:      &cond,
		ExpressionAttributeNames: names(cond),
	})
	if conditionFailed(err) {
		return sequence.ExistsError(name)
	}
	s.forget(name)
	return s.wrap("create", name, err)
}

// Describe implements sequence.Admin with a consistent read.
func (s *Store) Describe(ctx context.Context, name string) (sequence.Info, error) {
	r, err := s.load(ctx, name)
	if err != nil {
		return sequence.Info{}, s.wrap("describe", name, err)
	}
	return r.info, nil
}

// Alter implements sequence.Admin: [sequence.Clauses.Alter] on a consistent
// read, written with a compare-and-set on the version, which it bumps so that
// every Store's next Reserve re-reads the spec. Unless the clauses restart
// the sequence, the write also requires the position, which reservations may
// move meanwhile, to be within the new bounds.
func (s *Store) Alter(ctx context.Context, name string, c sequence.Clauses) (sequence.Info, error) {
	return retry(ctx, s, "alter", name, func() (sequence.Info, error) {
		r, err := s.load(ctx, name)
		if err != nil {
			return sequence.Info{}, s.wrap("alter", name, err)
		}
		spec, pos, err := c.Alter(r.info.Spec, r.info.Position)
		if err != nil {
			return sequence.Info{}, err
		}
		values := map[string]types.AttributeValue{
			":g":     str(r.gen),
			":v":     num(r.info.Version),
			":one":   num(1),
			":type":  str(spec.Type.String()),
			":inc":   num(spec.Increment),
			":min":   num(spec.Min),
			":max":   num(spec.Max),
			":start": num(spec.Start),
			":cache": num(spec.Cache),
			":cycle": boolean(spec.Cycle),
		}
		update := "SET #type = :type, #inc = :inc, #min = :min, #max = :max, #start = :start, #cache = :cache, #cycle = :cycle"
		if spec.OwnedBy != "" {
			update += ", #owner = :owner"
			values[":owner"] = str(spec.OwnedBy)
		}
		// Column defaults are written only when the clauses replace them: an
		// Alter of other options leaves the attribute as it is.
		removeDefs := false
		if c.Defaults != nil {
			if len(spec.Defaults) > 0 {
				update += ", #defaults = :defaults"
				values[":defaults"] = str(sequence.EncodeDefaults(spec.Defaults))
			} else {
				removeDefs = true
			}
		}
		cond := "attribute_exists(#name) AND #gen = :g AND #ver = :v"
		if c.Restart || c.RestartAt != nil {
			update += ", #last = :nl, #called = :nc"
			values[":nl"], values[":nc"] = num(pos.Last), boolean(pos.Called)
		} else {
			cond += " AND #last BETWEEN :min AND :max"
		}
		if spec.DailyLimit > 0 {
			update += ", #dlimit = :dlimit"
			values[":dlimit"] = num(spec.DailyLimit)
		}
		for _, a := range policyAttrs(spec.Policy) {
			if a.v != 0 {
				update += ", #" + a.name + " = :" + a.name
				values[":"+a.name] = num(a.v)
			}
		}
		update += " ADD #ver :one"
		// The day's usage (uday, uused) stays whatever the limit becomes.
		var remove []string
		if spec.OwnedBy == "" {
			remove = append(remove, "#owner")
		}
		if removeDefs {
			remove = append(remove, "#defaults")
		}
		if spec.DailyLimit == 0 {
			remove = append(remove, "#dlimit")
		}
		for _, a := range policyAttrs(spec.Policy) {
			if a.v == 0 {
				remove = append(remove, "#"+a.name)
			}
		}
		if len(remove) > 0 {
			update += " REMOVE " + strings.Join(remove, ", ")
		}
		out, err := s.updateItem(ctx, s.key(name), update, cond, values, types.ReturnValueAllNew)
		s.forget(name)
		return s.written("alter", name, out, err)
	})
}

// SetVal implements sequence.Admin: setval(name, value, isCalled), checked by
// [sequence.Spec.SetVal] against the spec read, written conditioned on that
// spec's version, which it bumps.
func (s *Store) SetVal(ctx context.Context, name string, value int64, isCalled bool) (sequence.Info, error) {
	return retry(ctx, s, "setval", name, func() (sequence.Info, error) {
		r, err := s.load(ctx, name)
		if err != nil {
			return sequence.Info{}, s.wrap("setval", name, err)
		}
		pos, err := r.info.Spec.SetVal(name, value, isCalled)
		if err != nil {
			return sequence.Info{}, err
		}
		update := "SET #last = :nl, #called = :nc ADD #ver :one"
		cond := "attribute_exists(#name) AND #gen = :g AND #ver = :v"
		out, err := s.updateItem(ctx, s.key(name), update, cond, map[string]types.AttributeValue{
			":nl": num(pos.Last), ":nc": boolean(pos.Called), ":one": num(1), ":g": str(r.gen), ":v": num(r.info.Version),
		}, types.ReturnValueAllNew)
		s.forget(name)
		return s.written("setval", name, out, err)
	})
}

// written decodes the item an admin UpdateItem returned (ALL_NEW).
func (s *Store) written(op, name string, out *dynamodb.UpdateItemOutput, err error) (sequence.Info, error) {
	if err != nil {
		return sequence.Info{}, s.wrap(op, name, err)
	}
	r, err := decode(name, out.Attributes)
	return r.info, s.wrap(op, name, err)
}

// Drop implements sequence.Admin: a conditional DeleteItem. A Store that had
// the sequence cached fails its next Reserve with sequence.ErrNotFound (the
// fast path requires the item to exist); nothing restarts from zero.
func (s *Store) Drop(ctx context.Context, name string) error {
	cond := "attribute_exists(#name) AND attribute_not_exists(#moved)"
	_, err := s.api.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                &s.table,
		Key:                      keyOf(s.key(name)),
		ConditionExpression:      &cond,
		ExpressionAttributeNames: names(cond),
	})
	s.forget(name)
	if conditionFailed(err) {
		return sequence.NotFoundError(name)
	}
	return s.wrap("drop", name, err)
}

// List implements sequence.Admin: a consistent, paginated Scan of the items
// under the store's prefix, sorted by name.
func (s *Store) List(ctx context.Context) ([]sequence.Info, error) {
	in := &dynamodb.ScanInput{TableName: &s.table, ConsistentRead: aws.Bool(true)}
	if s.opts.Prefix != "" {
		filter := "begins_with(#name, :p)"
		in.FilterExpression = &filter
		in.ExpressionAttributeNames = names(filter)
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":p": str(s.opts.Prefix)}
	}
	var list []sequence.Info
	for p := dynamodb.NewScanPaginator(s.api, in); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, s.wrap("list", "", err)
		}
		for _, item := range page.Items {
			k, ok := item[attrKey].(*types.AttributeValueMemberS)
			if !ok {
				continue
			}
			name, ok := s.trimPrefix(k.Value)
			if !ok {
				continue
			}
			r, err := decode(name, item)
			if err != nil {
				return nil, err
			}
			if r.moved == "" {
				list = append(list, r.info)
			}
		}
	}
	slices.SortFunc(list, func(a, b sequence.Info) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return list, nil
}

// Rename implements sequence.Admin in three steps, none of which lets a
// value be handed out twice:
//
//  1. fence the old item (a compare-and-set that records the new name and
//     bumps the version): from then on every Reserve of the old name fails
//     with sequence.ErrNotFound, and its position is final;
//  2. create the new item with the fenced spec, position and counters
//     (conditional on the name being free; if it is taken, the fence is
//     lifted and the error is sequence.ErrExists);
//  3. delete the old item.
//
// Between the steps neither name serves values. If the caller dies or the
// network fails after step 1, repeating the same Rename completes it; one
// repeated after it completed (the old item gone, the new one carrying the
// old key in its from attribute) succeeds without writing.
func (s *Store) Rename(ctx context.Context, name, newName string) error {
	if name == newName {
		return sequence.ExistsError(newName)
	}
	oldKey, newKey := s.key(name), s.key(newName)
	// Fence the old item: reservations and changes through it stop.
	fenced, err := retry(ctx, s, "rename", name, func() (map[string]types.AttributeValue, error) {
		item, err := s.getRaw(ctx, oldKey)
		if err != nil {
			return nil, s.wrap("rename", name, err)
		}
		if item == nil {
			// Done already? The new item says which key it came from.
			if other, err := s.getRaw(ctx, newKey); err != nil {
				return nil, s.wrap("rename", name, err)
			} else if from, _ := other[attrFrom].(*types.AttributeValueMemberS); from != nil && from.Value == oldKey {
				return nil, errRenamed
			}
			return nil, sequence.NotFoundError(name)
		}
		r, err := decode(name, item)
		if err != nil {
			return nil, err
		}
		switch r.moved {
		case newName: // an interrupted rename: resume it
			return item, nil
		case "":
		default:
			return nil, sequence.NotFoundError(name)
		}
		if other, err := s.getRaw(ctx, newKey); err != nil {
			return nil, s.wrap("rename", name, err)
		} else if other != nil {
			return nil, sequence.ExistsError(newName)
		}
		update := "SET #moved = :to ADD #ver :one"
		cond := "attribute_exists(#name) AND attribute_not_exists(#moved) AND #gen = :g AND #ver = :v"
		out, err := s.updateItem(ctx, oldKey, update, cond, map[string]types.AttributeValue{
			":to": str(newName), ":one": num(1), ":g": str(r.gen), ":v": num(r.info.Version),
		}, types.ReturnValueAllNew)
		s.forget(name)
		if err != nil {
			return nil, s.wrap("rename", name, err)
		}
		return out.Attributes, nil
	})
	if errors.Is(err, errRenamed) {
		return nil
	}
	if err != nil {
		return err
	}

	r, err := decode(name, fenced)
	if err != nil {
		return err
	}
	item := maps.Clone(fenced)
	delete(item, attrMoved)
	item[attrKey] = str(newKey)
	item[attrFrom] = str(oldKey)
	item[attrVer] = num(r.info.Version + 1)
	cond := "attribute_not_exists(#name)"
	_, err = s.api.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                &s.table,
		Item:                     item,
		ConditionExpression:      &cond,
		ExpressionAttributeNames: names(cond),
	})
	s.forget(newName)
	if conditionFailed(err) {
		// Ours from an earlier, interrupted attempt, or someone else's?
		other, gerr := s.getRaw(ctx, newKey)
		if gerr != nil {
			return s.wrap("rename", name, gerr)
		}
		if from, _ := other[attrFrom].(*types.AttributeValueMemberS); from == nil || from.Value != oldKey {
			if err := s.unfence(ctx, oldKey, newName); err != nil {
				return s.wrap("rename", name, err)
			}
			return sequence.ExistsError(newName)
		}
	} else if err != nil {
		return s.wrap("rename", name, err)
	}

	cond = "#moved = :to"
	_, err = s.api.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 &s.table,
		Key:                       keyOf(oldKey),
		ConditionExpression:       &cond,
		ExpressionAttributeNames:  names(cond),
		ExpressionAttributeValues: map[string]types.AttributeValue{":to": str(newName)},
	})
	if err != nil && !conditionFailed(err) { // already deleted by a concurrent resume
		return s.wrap("rename", name, err)
	}
	// The marker (from) stays on the new item: a repeat of this rename finds
	// the old key gone and the new item from it, and succeeds.
	return nil
}

// errRenamed ends Rename's first step when the rename was completed before.
var errRenamed = errors.New("renamed already")

// unfence lifts a Rename's fence; the version bump makes every Store re-read.
func (s *Store) unfence(ctx context.Context, oldKey, newName string) error {
	update := "REMOVE #moved ADD #ver :one"
	cond := "#moved = :to"
	_, err := s.updateItem(ctx, oldKey, update, cond, map[string]types.AttributeValue{":to": str(newName), ":one": num(1)}, types.ReturnValueNone)
	if conditionFailed(err) {
		return fmt.Errorf("fence on %q was lifted concurrently: %w", oldKey, err)
	}
	return err
}

func (s *Store) getRaw(ctx context.Context, key string) (map[string]types.AttributeValue, error) {
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      &s.table,
		Key:            keyOf(key),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, err
	}
	if len(out.Item) == 0 {
		return nil, nil
	}
	return out.Item, nil
}
