// Package status reports what a server is doing: NGINX's stub_status
// page, byte for byte, and a set of counters and histograms written in
// Prometheus's text exposition format.
//
// It knows nothing of the server: the caller gives it the connection
// counts (StubCounts) and feeds Metrics as requests end.
package status

import (
	"strconv"
)

// StubCounts are the numbers stub_status shows.
type StubCounts struct {
	Active   int64  // open client connections
	Accepts  uint64 // connections accepted
	Handled  uint64 // connections handled (accepted and not dropped at once)
	Requests uint64 // requests begun
	Reading  int64  // connections reading a request header
	Writing  int64  // requests being served
	Waiting  int64  // idle connections waiting for a request
}

// AppendStub appends NGINX's stub_status text, spaces before the line
// ends included:
//
//	Active connections: 2
//	server accepts handled requests
//	 10 10 31
//	Reading: 0 Writing: 1 Waiting: 1
func AppendStub(b []byte, c StubCounts) []byte {
	b = append(b, "Active connections: "...)
	b = strconv.AppendInt(b, c.Active, 10)
	b = append(b, " \nserver accepts handled requests\n "...)
	b = strconv.AppendUint(b, c.Accepts, 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, c.Handled, 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, c.Requests, 10)
	b = append(b, " \nReading: "...)
	b = strconv.AppendInt(b, c.Reading, 10)
	b = append(b, " Writing: "...)
	b = strconv.AppendInt(b, c.Writing, 10)
	b = append(b, " Waiting: "...)
	b = strconv.AppendInt(b, c.Waiting, 10)
	return append(b, " \n"...)
}
