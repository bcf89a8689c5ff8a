package cache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// An entry file is
//
//	magic "MSC1" | meta length u32 | body length u64 | meta CRC u32 | body CRC u32
//	body | meta
//
// (big-endian, CRC-32C). The header is written last, at offset 0, once
// body and meta are on disk, and the file is renamed into place only after
// that; a reader checks the magic, that the file is exactly as long as the
// header says, and both checksums.
const (
	diskMagic      = "MSC1"
	diskHeaderSize = 24
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type diskHeader struct {
	metaLen uint32
	bodyLen int64
	metaCRC uint32
	bodyCRC uint32
}

func (h diskHeader) fileSize() int64 { return diskHeaderSize + h.bodyLen + int64(h.metaLen) }

func (h diskHeader) marshal(b *[diskHeaderSize]byte) {
	copy(b[0:4], diskMagic)
	binary.BigEndian.PutUint32(b[4:8], h.metaLen)
	binary.BigEndian.PutUint64(b[8:16], uint64(h.bodyLen))
	binary.BigEndian.PutUint32(b[16:20], h.metaCRC)
	binary.BigEndian.PutUint32(b[20:24], h.bodyCRC)
}

func parseDiskHeader(b []byte) (diskHeader, error) {
	if len(b) < diskHeaderSize || string(b[0:4]) != diskMagic {
		return diskHeader{}, fmt.Errorf("bad file header: %w", ErrCorrupt)
	}
	h := diskHeader{
		metaLen: binary.BigEndian.Uint32(b[4:8]),
		bodyLen: int64(binary.BigEndian.Uint64(b[8:16])),
		metaCRC: binary.BigEndian.Uint32(b[16:20]),
		bodyCRC: binary.BigEndian.Uint32(b[20:24]),
	}
	if h.bodyLen < 0 {
		return diskHeader{}, fmt.Errorf("bad body length: %w", ErrCorrupt)
	}
	return h, nil
}

var errChecksum = errors.New("checksum mismatch")
