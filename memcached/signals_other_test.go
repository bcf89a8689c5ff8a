//go:build !unix

package memcached_test

import "os"

// sigStop and sigCont are nil: a process is not paused with a signal here.
var sigStop, sigCont os.Signal
