package proxymod

import (
	"fmt"
	"strings"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/proxy"
	core "github.com/mosaic-edge/mosaic/server"
)

// Buffers are the sizes of NGINX's response buffering: *_buffers,
// *_busy_buffers_size, *_temp_file_write_size, *_max_temp_file_size and
// proxy_buffer_size. *_buffers and *_max_temp_file_size bound the body
// read ahead of the client, in memory and in a temporary file (Apply);
// mosaic has no use for the others (the head is read with its own bound,
// the body goes to the client as it takes it and to the file as it is
// read), and ignores them with a notice. NGINX checks them all against
// each other at every level of the configuration, and a file it refuses
// for that is refused here too (Check).
type Buffers struct {
	size, bufferSize, busy, tempWrite, maxTemp core.Setting[int64]
	num                                        core.Setting[int64]
}

// Merge takes what b's level does not set from parent's.
func (b *Buffers) Merge(parent *Buffers) {
	b.num.Merge(parent.num)
	b.size.Merge(parent.size)
	b.bufferSize.Merge(parent.bufferSize)
	b.busy.Merge(parent.busy)
	b.tempWrite.Merge(parent.tempWrite)
	b.maxTemp.Merge(parent.maxTemp)
}

// NGINX's defaults on a system of 4 KiB pages.
const (
	pageSize       = 4096
	defaultBuffers = 8
	defaultMaxTemp = 1 << 30
)

// Check applies NGINX's rules to a merged level, for the directives of
// prefix ("proxy", "fastcgi"). bufferSize is the level's *_buffer_size
// where the module keeps it itself (the gateways), 0 for b's own.
func (b *Buffers) Check(prefix string, bufferSize int64) error {
	if bufferSize == 0 {
		bufferSize = b.bufferSize.Or(pageSize)
	}
	if b.num.Or(defaultBuffers) < 2 {
		return fmt.Errorf("there must be at least 2 %q", prefix+"_buffers")
	}
	// NGINX computes in size_t: sizes up to int64's largest, whose
	// doubles fit, and a product of the count that wraps around.
	num, one := uint64(b.num.Or(defaultBuffers)), uint64(b.size.Or(pageSize))
	size := max(uint64(bufferSize), one)
	or := func(s core.Setting[int64], def uint64) uint64 {
		if s.Set {
			return uint64(s.V)
		}
		return def
	}
	both := fmt.Sprintf("the maximum of the value of %q and one of the %q", prefix+"_buffer_size", prefix+"_buffers")
	busy := or(b.busy, 2*size)
	if busy < size {
		return fmt.Errorf("%q must be equal to or greater than %s", prefix+"_busy_buffers_size", both)
	}
	if busy > (num-1)*one {
		return fmt.Errorf("%q must be less than the size of all %q minus one buffer", prefix+"_busy_buffers_size", prefix+"_buffers")
	}
	if or(b.tempWrite, 2*size) < size {
		return fmt.Errorf("%q must be equal to or greater than %s", prefix+"_temp_file_write_size", both)
	}
	if m := or(b.maxTemp, defaultMaxTemp); m != 0 && m < size {
		return fmt.Errorf("%q must be equal to zero to disable temporary files usage or must be equal to or greater than %s",
			prefix+"_max_temp_file_size", both)
	}
	return nil
}

// TuningSetter returns the setter of a directive of Buffers, which get
// selects at the level: it reads the arguments as NGINX's handlers do
// (*_buffers a number and a size, both above 0; the others a size),
// stores them once per level and notices those that mosaic ignores.
func TuningSetter(get func(*core.Cmd) *Buffers) func(*core.Cmd) error {
	return func(c *core.Cmd) error {
		b := get(c)
		prefix, name, _ := strings.Cut(c.Name, "_")
		var err error
		switch name {
		case "buffers":
			err = putBufs(c, b)
		case "buffer_size":
			err = putSize(c, &b.bufferSize)
		case "busy_buffers_size":
			err = putSize(c, &b.busy)
		case "temp_file_write_size":
			err = putSize(c, &b.tempWrite)
		case "max_temp_file_size":
			err = putSize(c, &b.maxTemp)
		default:
			err = fmt.Errorf("proxymod: %q is no buffering directive", c.Name)
		}
		if err != nil {
			return err
		}
		if name != "buffers" && name != "max_temp_file_size" {
			c.Notice(fmt.Sprintf("ignoring %q directive: the body read ahead of the client is bounded by %s_buffers and %s_max_temp_file_size",
				c.Name, prefix, prefix))
		}
		return nil
	}
}

// maxAheadMemory bounds the memory one response is read ahead into,
// whatever *_buffers says (any count loads, as in NGINX): beyond it, the
// body read ahead goes to the temporary file.
const maxAheadMemory = 64 << 20

// Apply sets the bounds of the body read ahead of the client: the
// buffers' memory (at most maxAheadMemory), then the temporary file (0:
// none).
func (b *Buffers) Apply(o *proxy.Options) {
	num, size := b.num.Or(defaultBuffers), b.size.Or(pageSize)
	mem := int64(maxAheadMemory)
	if num <= mem/size {
		mem = num * size
	}
	o.AheadMemory = int(mem)
	o.AheadFileMax = b.maxTemp.Or(defaultMaxTemp)
}

func putBufs(c *core.Cmd, b *Buffers) error {
	// Any count loads, as NGINX's ngx_atoi reads it: mosaic allocates
	// none of these buffers.
	n, ok := conf.Atoi(c.Args[0])
	if !ok || n == 0 {
		return c.Invalid(c.Args[0], "")
	}
	size, err := c.Size(c.Args[1])
	if err != nil || size == 0 {
		return c.Invalid(c.Args[1], "")
	}
	if err := core.Put(c, &b.num, n); err != nil {
		return err
	}
	b.size.Put(size)
	return nil
}

func putSize(c *core.Cmd, s *core.Setting[int64]) error {
	n, err := c.Size(c.Args[0])
	if err != nil {
		return err
	}
	return core.Put(c, s, n)
}
