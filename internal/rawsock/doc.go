// Package rawsock reads and writes non-blocking sockets with system calls
// that the Go scheduler is not told about.
//
// A read or write on a non-blocking socket returns at once, but net.Conn
// makes it as a blocking call: the runtime marks the processor as in a
// system call, and its monitor thread hands the processor to another
// thread when the call seems to take long — which a write that wakes the
// peer often does on a busy machine. An edge server that makes a few such
// calls per request then pays several thread switches per request that
// NGINX, one thread on an event loop, does not. On Linux this package
// makes the calls raw (syscall.RawSyscall) and waits through the
// runtime's poller, with the connection's deadlines, only when the socket
// is not ready; elsewhere it makes them as net.Conn does.
package rawsock
