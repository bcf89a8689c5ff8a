// Package resolvertest runs a DNS server on loopback for tests of code
// that resolves names at request time (the "resolver" directive).
package resolvertest

import (
	"encoding/binary"
	"net"
	"net/netip"
	"sync/atomic"
	"testing"
)

// Record is one address record the server answers with.
type Record struct {
	Addr netip.Addr
	TTL  uint32
}

// Server answers A and AAAA queries over UDP from a table; a name missing
// from it gets NXDOMAIN.
type Server struct {
	Addr    string       // host:port to give the resolver
	Queries atomic.Int32 // queries received
}

// Start serves table until the test ends.
func Start(t testing.TB, table map[string][]Record) *Server {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	s := &Server{Addr: pc.LocalAddr().String()}
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			s.Queries.Add(1)
			resp := Respond(buf[:n], table)
			if resp != nil {
				_, _ = pc.WriteTo(resp, from)
			}
		}
	}()
	return s
}

const (
	typeA   = 1
	classIN = 1
)

// Respond builds the answer to query from table, with a CNAME before the
// addresses as recursive servers often send; nil for a query it cannot
// read.
func Respond(query []byte, table map[string][]Record) []byte {
	if len(query) < 12 {
		return nil
	}
	off, name := 12, ""
	for off < len(query) && query[off] != 0 {
		l := int(query[off])
		if l&0xc0 != 0 || off+1+l > len(query) {
			return nil
		}
		if name != "" {
			name += "."
		}
		name += string(query[off+1 : off+1+l])
		off += 1 + l
	}
	if off+5 > len(query) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(query[off+1:])
	question := query[12 : off+5]
	recs, ok := table[name]
	resp := append([]byte(nil), query[:2]...)
	if !ok {
		resp = append(resp, 0x81, 0x83) // a response, NXDOMAIN
		resp = append(resp, 0, 1, 0, 0, 0, 0, 0, 0)
		return append(resp, question...)
	}
	// A CNAME of the name to itself, by pointer to the question: a client
	// must skip it.
	answers := [][]byte{{0xc0, 12, 0, 5, 0, classIN, 0, 0, 0, 9, 0, 2, 0xc0, 12}}
	for _, r := range recs {
		if (qtype == typeA) != r.Addr.Is4() {
			continue
		}
		rr := []byte{0xc0, 12}
		rr = binary.BigEndian.AppendUint16(rr, qtype)
		rr = binary.BigEndian.AppendUint16(rr, classIN)
		rr = binary.BigEndian.AppendUint32(rr, r.TTL)
		ip := r.Addr.AsSlice()
		rr = binary.BigEndian.AppendUint16(rr, uint16(len(ip)))
		answers = append(answers, append(rr, ip...))
	}
	resp = append(resp, 0x81, 0x80, 0, 1)
	resp = binary.BigEndian.AppendUint16(resp, uint16(len(answers)))
	resp = append(resp, 0, 0, 0, 0)
	resp = append(resp, question...)
	for _, a := range answers {
		resp = append(resp, a...)
	}
	return resp
}
