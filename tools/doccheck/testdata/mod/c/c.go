// Package c is not imported by a.
package c
