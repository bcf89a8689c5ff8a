// Package syncbuf is a bytes.Buffer that several goroutines may write
// (loggers, a child process's output) while a test reads it.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer collects writes from any goroutine; its zero value is empty.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what has been written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
