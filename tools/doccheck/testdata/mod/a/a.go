// Package a holds every kind of doc link doccheck tells apart. Resolved:
// [Good], [Good.M], [*Good], [a.Good], [b], [b.T], [strings.Builder],
// [io/fs.FS], [Good.F] (a field), [Iface.Do] (an interface method).
// Broken: [Bad], [Good.Bad], [b.Nope], [strings.Nope], [io/fs.Nope],
// [nope.Thing], [a.Nope], [c].
// No doc links: [N], [i], [0], [optional], [UNLOGGED], [Good.m], [a.b],
// map[string]Good, []byte, [2]int, [link].
//
//	[Bad] in a code block
//
// [link]: https://example.com
package a

import "example.com/m/b"

var _ b.T

// Good is fine, [Good.M] too, but not [Good.X].
type Good struct{ F int }

// M links [Good.F] and [Good.G].
func (Good) M() {}

// Iface is an interface.
type Iface interface{ Do() }

// unexported has [Broken], which pkgsite does not show.
func unexported() {}

var _ = unexported

// Limit and Max are a group whose doc links [Limitless].
const (
	Limit = 1
	Max   = 2
)

// New links [Newer].
func New() Good { return Good{} }
