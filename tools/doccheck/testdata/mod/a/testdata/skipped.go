// Package skipped is in testdata: [Broken] is not checked.
package skipped
