package testclient

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Runs is how a paced answer came: its bytes on the wire (status line and
// header included) in runs that arrived without a pause of the length
// asked for between them, and when each run began, since the request
// went.
type Runs struct {
	Sizes []int
	At    []time.Duration
}

// ReadRuns sends request to addr (host:port) as written, reads the answer
// until the server closes the connection (send "Connection: close"), at
// most for limit, and returns it parsed with its body and its runs split
// at pauses of pause or more. A pause long enough to be a rate's wait,
// not the machine's load, makes the runs the server's sends: their sizes
// hold however loaded the machine is. The request goes early in a second
// of the wall clock (StartMidSecond).
func ReadRuns(addr, request string, pause, limit time.Duration) (*http.Response, string, Runs, error) {
	var runs Runs
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, "", runs, err
	}
	defer c.Close()
	StartMidSecond()
	t0 := time.Now()
	_ = c.SetDeadline(t0.Add(limit))
	if _, err := io.WriteString(c, request); err != nil {
		return nil, "", runs, fmt.Errorf("sending to %s: %w", addr, err)
	}
	var raw bytes.Buffer
	buf := make([]byte, 64<<10)
	last := t0
	for {
		n, err := c.Read(buf)
		if now := time.Now(); n > 0 {
			if len(runs.Sizes) == 0 || now.Sub(last) >= pause {
				runs.Sizes, runs.At = append(runs.Sizes, 0), append(runs.At, now.Sub(t0))
			}
			runs.Sizes[len(runs.Sizes)-1] += n
			raw.Write(buf[:n])
			last = now
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, "", runs, fmt.Errorf("reading %s's answer (runs %v): %w", addr, runs.Sizes, err)
		}
	}
	resp, err := http.ReadResponse(bufio.NewReader(&raw), nil)
	if err != nil {
		return nil, "", runs, fmt.Errorf("reading %s's answer: %w", addr, err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b), runs, err
}

// StartMidSecond returns once the wall clock is between a fifth and a half
// into its second, waiting for the next second's fifth where it is not.
// A paced server (NGINX's write filter, package throttle) allows rate ×
// (whole seconds since the request's start + 1): a request that starts
// as the second turns gets two seconds' worth in its first send, which a
// test of the sends cannot tell from a rate twice too fast. Started here,
// each send has half a second of load to spare before the turn, and a
// send that should have waited its bytes' time, a second, comes at the
// turn instead, 800 ms or less after the first.
func StartMidSecond() {
	now := time.Now()
	sec := now.Truncate(time.Second)
	switch frac := now.Sub(sec); {
	case frac < 200*time.Millisecond:
		time.Sleep(200*time.Millisecond - frac)
	case frac >= 500*time.Millisecond:
		time.Sleep(sec.Add(time.Second + 200*time.Millisecond).Sub(now))
	}
}
