package dynamostore

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/seqshim/seqshim/sequence"
)

// The members of a sequence (sequence.Spec.Members) are one map attribute,
// members, keyed by the member's database (sequence.Member.DB), each value
// the member's view as a string (memberView's JSON). Attach and Detach write
// one key of it with one UpdateItem, so two databases' DDL never overwrite
// each other's membership: there is no read-modify-write of the whole list.

// memberView is a member's view as stored under its database in the
// members map: OWNED BY, the column defaults as sequence.EncodeDefaults
// writes them (as the defaults attribute holds a sequence's own), and the
// range reserved for the database's native sequence
// (sequence.Member.Native), if any.
type memberView struct {
	OwnedBy  string                `json:"owned_by,omitempty"`
	Defaults json.RawMessage       `json:"defaults,omitempty"`
	Native   *sequence.NativeRange `json:"native,omitempty"`
}

// viewOf is the value of m in the members map.
func viewOf(m sequence.Member) types.AttributeValue {
	v := memberView{OwnedBy: m.OwnedBy, Native: m.Native}
	if len(m.Defaults) > 0 {
		v.Defaults = json.RawMessage(sequence.EncodeDefaults(m.Defaults))
	}
	b, err := json.Marshal(v)
	if err != nil { // strings, integers and EncodeDefaults' JSON only: cannot fail
		panic(err)
	}
	return str(string(b))
}

// putMembers writes members to an item as the members map; nothing for
// none, as an item made before members were kept has none.
func putMembers(item map[string]types.AttributeValue, members []sequence.Member) {
	if len(members) == 0 {
		return
	}
	m := make(map[string]types.AttributeValue, len(members))
	for _, x := range members {
		m[x.DB] = viewOf(x)
	}
	item[attrMembers] = &types.AttributeValueMemberM{Value: m}
}

// decodeMembers reads the members map, in database order; nil for an empty
// map. ok is false for a value the store does not write.
func decodeMembers(v types.AttributeValue) (members []sequence.Member, ok bool) {
	mv, ok := v.(*types.AttributeValueMemberM)
	if !ok {
		return nil, false
	}
	for db, v := range mv.Value {
		s, ok := v.(*types.AttributeValueMemberS)
		if !ok || db == "" {
			return nil, false
		}
		var view memberView
		if err := json.Unmarshal([]byte(s.Value), &view); err != nil {
			return nil, false
		}
		m := sequence.Member{DB: db, OwnedBy: view.OwnedBy, Native: view.Native}
		if len(view.Defaults) > 0 {
			var err error
			if m.Defaults, err = sequence.DecodeDefaults(string(view.Defaults)); err != nil {
				return nil, false
			}
		}
		members = append(members, m)
	}
	slices.SortFunc(members, func(a, b sequence.Member) int { return strings.Compare(a.DB, b.DB) })
	return members, true
}

// Attach implements [sequence.Memberships] with one UpdateItem in the
// common case,
//
//	SET #members.#db = :view
//
// (#db standing for the member's database) conditioned on
//
//	attribute_exists(#name) AND attribute_not_exists(#moved) AND attribute_exists(#members)
//	AND #type = :type AND #inc = :inc AND #min = :min AND #max = :max AND #cycle = :cycle
//
// so that an ALTER changing the counter meanwhile makes it fail, and the
// other members, the position, the version and the incarnation are left
// as they are. When the condition fails, a consistent read tells why: no
// item (or one being renamed away) is sequence.ErrNotFound, another
// counter is sequence.CounterError, and an item made before members were
// kept gets an empty map first (SET #members = :empty, conditioned on
// attribute_exists(#name) AND attribute_not_exists(#members)) before the
// update is tried again.
func (s *Store) Attach(ctx context.Context, name string, m sequence.Member, counter sequence.Spec) (sequence.Info, error) {
	if err := m.Validate(); err != nil {
		return sequence.Info{}, err
	}
	key := s.key(name)
	return retry(ctx, s, "attach", name, func() (sequence.Info, error) {
		update := "SET #members.#db = :view"
		cond := "attribute_exists(#name) AND attribute_not_exists(#moved) AND attribute_exists(#members)" +
			" AND #type = :type AND #inc = :inc AND #min = :min AND #max = :max AND #cycle = :cycle"
		out, err := s.memberUpdate(ctx, key, m.DB, update, cond, map[string]types.AttributeValue{
			":view":  viewOf(m),
			":type":  str(counter.Type.String()),
			":inc":   num(counter.Increment),
			":min":   num(counter.Min),
			":max":   num(counter.Max),
			":cycle": boolean(counter.Cycle),
		}, types.ReturnValueAllNew)
		if err == nil || !conditionFailed(err) && !missingMap(err) {
			return s.written("attach", name, out, err)
		}
		item, err := s.getRaw(ctx, key)
		if err != nil {
			return sequence.Info{}, s.wrap("attach", name, err)
		}
		if item == nil {
			return sequence.Info{}, sequence.NotFoundError(name)
		}
		r, err := decode(name, item)
		if err != nil {
			return sequence.Info{}, err
		}
		if r.moved != "" {
			return sequence.Info{}, sequence.NotFoundError(name)
		}
		if !r.info.Spec.SameCounter(counter) {
			return sequence.Info{}, sequence.CounterError(name, r.info.Spec, r.info.Spec.Members)
		}
		if _, ok := item[attrMembers]; !ok {
			// Made before members were kept: the map first, then the member.
			_, err := s.updateItem(ctx, key, "SET #members = :empty", "attribute_exists(#name) AND attribute_not_exists(#members)",
				map[string]types.AttributeValue{":empty": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}},
				types.ReturnValueNone)
			if err != nil && !conditionFailed(err) {
				return sequence.Info{}, s.wrap("attach", name, err)
			}
		}
		return sequence.Info{}, errAgain // the item changed between the update and the read
	})
}

// Detach implements [sequence.Memberships] with one UpdateItem,
//
//	REMOVE #members.#db
//
// conditioned on
//
//	attribute_exists(#name) AND attribute_not_exists(#moved) AND attribute_exists(#members)
//
// returning the item as it leaves it (ALL_NEW). If no member is left — or
// the item has no members map at all (made before members were kept, or by
// seqctl), which the condition finds and a consistent read confirms — the
// item is deleted as [Store.Drop] deletes it, by a DeleteItem conditioned
// on the same incarnation still having no member:
//
//	attribute_exists(#name) AND attribute_not_exists(#moved) AND #gen = :g
//	AND (attribute_not_exists(#members) OR size(#members) = :zero)
//
// If that condition fails because an Attach came first, the sequence
// stays and dropped is false; if the item went meanwhile (another Detach
// or a Drop), the sequence is missing to this call: sequence.ErrNotFound.
// A database that is not a member of a sequence with members changes
// nothing (its REMOVE removes nothing).
func (s *Store) Detach(ctx context.Context, name, db string) (bool, error) {
	key := s.key(name)
	return retry(ctx, s, "detach", name, func() (bool, error) {
		cond := "attribute_exists(#name) AND attribute_not_exists(#moved) AND attribute_exists(#members)"
		out, err := s.memberUpdate(ctx, key, db, "REMOVE #members.#db", cond, nil, types.ReturnValueAllNew)
		var r record
		switch {
		case err == nil:
			if r, err = decode(name, out.Attributes); err != nil {
				return false, err
			}
		case conditionFailed(err) || missingMap(err):
			// Missing, being renamed, or without the map: which?
			if r, err = s.load(ctx, name); err != nil {
				return false, s.wrap("detach", name, err)
			}
			if len(r.info.Spec.Members) > 0 {
				return false, errAgain // attached meanwhile: remove it again
			}
		default:
			return false, s.wrap("detach", name, err)
		}
		if len(r.info.Spec.Members) > 0 {
			return false, nil
		}
		return s.dropUnattached(ctx, name, r)
	})
}

// dropUnattached deletes the incarnation r of name if it still has no
// member; see Detach.
func (s *Store) dropUnattached(ctx context.Context, name string, r record) (bool, error) {
	key := s.key(name)
	cond := "attribute_exists(#name) AND attribute_not_exists(#moved) AND #gen = :g" +
		" AND (attribute_not_exists(#members) OR size(#members) = :zero)"
	_, err := s.api.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 &s.table,
		Key:                       keyOf(key),
		ConditionExpression:       &cond,
		ExpressionAttributeNames:  names(cond),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": str(r.gen), ":zero": num(0)},
	})
	s.forget(name)
	if err == nil {
		return true, nil
	}
	if !conditionFailed(err) {
		return false, s.wrap("detach", name, err)
	}
	item, err := s.getRaw(ctx, key)
	if err != nil {
		return false, s.wrap("detach", name, err)
	}
	if g, _ := item[attrGen].(*types.AttributeValueMemberS); g == nil || g.Value != r.gen {
		return false, sequence.NotFoundError(name) // dropped by another, perhaps created again
	}
	if r, err = decode(name, item); err != nil {
		return false, err
	}
	if r.moved != "" || len(r.info.Spec.Members) > 0 {
		return false, nil // an Attach came first (or a Rename takes it away whole)
	}
	return false, errAgain
}

// errAgain makes retry attempt again, after its backoff, an operation
// whose item changed between two of its requests.
var errAgain = &types.ConditionalCheckFailedException{Message: aws.String("dynamostore: the item changed meanwhile")}

// memberUpdate is updateItem with #db standing for the database db, the
// key of a member in the members map.
func (s *Store) memberUpdate(ctx context.Context, key, db, update, cond string, values map[string]types.AttributeValue, ret types.ReturnValue) (*dynamodb.UpdateItemOutput, error) {
	n := names(update, cond)
	n["#db"] = db
	return s.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       keyOf(key),
		UpdateExpression:          &update,
		ConditionExpression:       &cond,
		ExpressionAttributeNames:  n,
		ExpressionAttributeValues: values,
		ReturnValues:              ret,
	})
}

// missingMap reports whether err is DynamoDB refusing a path into a map
// the item lacks (a members map not there), should it check the path before
// the condition that requires the map.
func missingMap(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == "ValidationException" &&
		strings.Contains(api.ErrorMessage(), "document path provided in the update expression is invalid")
}
