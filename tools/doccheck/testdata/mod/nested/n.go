// Package n is a module of its own: [Broken] is not checked.
package n
