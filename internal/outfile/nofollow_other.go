//go:build !unix

package outfile

// noFollow: no such open flags here; Check's look before the open is the guard.
const noFollow = 0
