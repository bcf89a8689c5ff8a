package http1

import (
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Parking. A goroutine is the largest thing an idle keep-alive connection
// would hold (its stack, 2 KB at least, with the runtime's bookkeeping),
// where NGINX holds a few hundred bytes in an event loop. So a plain
// connection that has nothing to read after a response holds no goroutine:
// its socket is added to one epoll set shared by the process, and the
// goroutine ends. Whichever comes first of data (or the peer closing), the
// keep-alive deadline or the server closing the connection starts a fresh
// goroutine, which carries on as any waiting connection does (fill, with
// the read deadline already armed). The epoll set is itself waited on
// through Go's network poller, so parking costs no thread.

// parker is the process's epoll set of parked connections.
type parker struct {
	once sync.Once
	ep   int // the epoll descriptor, -1 when it could not be made
	file *os.File

	mu     sync.Mutex
	parked map[int32]*conn // by descriptor
	seq    uint32          // tells a parking from an earlier one on a reused descriptor
}

var idleParker = parker{ep: -1}

// The park states of a connection.
const (
	unparked int32 = iota
	isParked
)

// park parks c, whose read deadline is armed, and reports whether it did:
// false leaves c to wait on a goroutine as before (no epoll, or a socket
// it refuses).
func (c *conn) park() bool {
	p := &idleParker
	p.once.Do(p.start)
	if p.ep < 0 || c.raw == nil {
		return false
	}
	// Registered while Control holds the descriptor: a close from another
	// goroutine (closeIfIdle) then cannot free its number, for another
	// connection to take and park on, before the registration is done.
	var err error
	if cerr := c.raw.Control(func(s uintptr) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.seq++
		c.parkFD, c.parkSeq = int32(s), p.seq
		p.parked[c.parkFD] = c
		c.parkState.Store(isParked)
		if !c.waitUntil.IsZero() {
			// The deadline of the wait, as a read would have hit it.
			c.parkTimer = time.AfterFunc(time.Until(c.waitUntil), c.wake)
		}
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLONESHOT, Fd: c.parkFD, Pad: int32(c.parkSeq)}
		err = epollCtl(p.ep, unix.EPOLL_CTL_ADD, int(s), &ev)
	}); cerr != nil {
		return false // closed already: nothing was registered
	}
	// closeIfIdle may have closed c while it parked: its wake, before
	// parkState said parked, missed it, and a descriptor closed in the set
	// leaves it without an event, so that c would wait for its timer, or
	// for ever. Whoever unparks c runs it (the timer, a wake, or this
	// goroutine).
	if err != nil || c.state.Load() == stateClosed {
		return !c.unpark()
	}
	return true
}

// wake starts a goroutine for a parked connection, once, whatever woke it.
func (c *conn) wake() {
	if c.unpark() {
		go c.loop(true)
	}
}

// unpark takes c out of the epoll set and reports whether this call did
// (another may have already).
func (c *conn) unpark() bool {
	if !c.parkState.CompareAndSwap(isParked, unparked) {
		return false
	}
	p := &idleParker
	p.mu.Lock()
	if p.parked[c.parkFD] == c {
		delete(p.parked, c.parkFD)
	}
	p.mu.Unlock()
	// Out of the set before c's goroutine may close the descriptor, and
	// through Control, which fails once another has closed it: the close
	// took it out of the set, and its number may now be another
	// connection's, parked there.
	_ = c.raw.Control(func(s uintptr) { _ = epollCtl(p.ep, unix.EPOLL_CTL_DEL, int(s), nil) })
	if c.parkTimer != nil {
		c.parkTimer.Stop()
		c.parkTimer = nil
	}
	return true
}

// start makes the epoll set and its goroutine; failing, parking is off.
func (p *parker) start() {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return
	}
	if err := unix.SetNonblock(ep, true); err != nil {
		unix.Close(ep)
		return
	}
	// A non-blocking descriptor given to os.NewFile joins Go's network
	// poller: the epoll set is readable while events are pending.
	p.file = os.NewFile(uintptr(ep), "http1-idle-epoll")
	rc, err := p.file.SyscallConn()
	if err != nil {
		p.file.Close()
		return
	}
	p.parked = make(map[int32]*conn)
	p.ep = ep
	go p.run(rc)
}

// run wakes the connections whose sockets have events, for the life of
// the process.
func (p *parker) run(rc syscall.RawConn) {
	events := make([]unix.EpollEvent, 128)
	var ready []*conn
	for {
		err := rc.Read(func(uintptr) bool {
			n, err := epollPoll(p.ep, events)
			if err != nil || n <= 0 {
				return err != nil && err != unix.EINTR
			}
			p.mu.Lock()
			for _, ev := range events[:n] {
				if c := p.parked[ev.Fd]; c != nil && c.parkSeq == uint32(ev.Pad) {
					ready = append(ready, c)
				}
			}
			p.mu.Unlock()
			return true
		})
		if err != nil {
			return
		}
		for i, c := range ready {
			c.wake()
			ready[i] = nil
		}
		ready = ready[:0]
	}
}

// epollCtl and epollPoll are unix.EpollCtl and unix.EpollWait with a
// zero timeout, made raw (RawSyscall6): an ordinary call enters the
// scheduler's system-call state, which wakes the runtime's sysmon thread
// when it sleeps, as it does between responses; it then polls every 20 µs
// for ~3.5 ms, preempting the response's goroutine on a busy processor
// (compress README, "What wakes sysmon"). Neither call can block: one
// edits the set, the other only looks at it.
func epollCtl(ep, op, fd int, ev *unix.EpollEvent) error {
	_, _, e := unix.RawSyscall6(unix.SYS_EPOLL_CTL, uintptr(ep), uintptr(op), uintptr(fd), uintptr(unsafe.Pointer(ev)), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func epollPoll(ep int, events []unix.EpollEvent) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// parkedCount is how many connections are parked, for tests.
func parkedCount() int {
	p := &idleParker
	p.once.Do(p.start)
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.parked)
}
