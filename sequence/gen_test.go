package sequence

import (
	"context"
	"errors"
	"testing"
)

type genStore struct{ gen uint64 }

func (g genStore) Gen(context.Context, string) (uint64, error) { return g.gen, nil }

type describeStore struct{ info Info }

func (d describeStore) Describe(_ context.Context, name string) (Info, error) {
	if name != d.info.Name {
		return Info{}, NotFoundError(name)
	}
	return d.info, nil
}

// ReadGen asks a Validator, falls back to Describe, and says when the store
// can do neither.
func TestReadGen(t *testing.T) {
	ctx := context.Background()
	if g, err := ReadGen(ctx, genStore{7}, "public.s"); g != 7 || err != nil {
		t.Errorf("Validator: %d, %v", g, err)
	}
	d := describeStore{Info{Name: "public.s", Gen: 9}}
	if g, err := ReadGen(ctx, d, "public.s"); g != 9 || err != nil {
		t.Errorf("Describe: %d, %v", g, err)
	}
	if _, err := ReadGen(ctx, d, "public.t"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Describe of a missing sequence: %v, want ErrNotFound", err)
	}
	if _, err := ReadGen(ctx, struct{}{}, "public.s"); !errors.Is(err, ErrNoGen) {
		t.Errorf("neither: %v, want ErrNoGen", err)
	}
}
