//go:build unix

package outfile

import "syscall"

// noFollow makes an open refuse a symbolic link and not wait for a FIFO's reader.
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
