// Package b is imported by a.
// # Not a heading
//
// # Heading
//
// Text.
package b

// T is a type.
type T int
