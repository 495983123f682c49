// Package b is imported by a.
package b

// T is a type.
type T int
