//go:build linux

package x11

import (
	"fmt"
	"os"
	"sync"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/shm"
	"golang.org/x/sys/unix"
)

// maxFreeSegments is how many idle segments a pool keeps for reuse.
const maxFreeSegments = 2

// shmSeg is one SysV shared memory segment attached both here and in the X server.
type shmSeg struct {
	id   shm.Seg
	data []byte
}

// shmPool hands out segments, one per capture in progress, and keeps a few for reuse: creating
// and attaching one costs two round trips.
type shmPool struct {
	minSize int

	mu     sync.Mutex
	free   []*shmSeg
	closed bool
}

func newSHMPool(minSize int) *shmPool { return &shmPool{minSize: minSize} }

// acquire returns a segment of at least size bytes. It may do round trips: call it under await.
func (p *shmPool) acquire(xc *xgb.Conn, size int) (*shmSeg, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, fmt.Errorf("shared memory pool closed")
	}
	best := -1
	for i, s := range p.free {
		if len(s.data) >= size && (best < 0 || len(s.data) < len(p.free[best].data)) {
			best = i
		}
	}
	if best >= 0 {
		s := p.free[best]
		p.free = append(p.free[:best], p.free[best+1:]...)
		p.mu.Unlock()
		return s, nil
	}
	p.mu.Unlock()
	return newSeg(xc, max(size, p.minSize))
}

// release returns s for reuse, or destroys it when the pool is closed or full.
func (p *shmPool) release(xc *xgb.Conn, s *shmSeg) {
	p.mu.Lock()
	if !p.closed && len(p.free) < maxFreeSegments {
		p.free = append(p.free, s)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	s.destroy(xc)
}

// close destroys idle segments now; segments in use are destroyed when released, so a capture
// abandoned by its caller never reads unmapped memory.
func (p *shmPool) close(xc *xgb.Conn) {
	p.mu.Lock()
	free := p.free
	p.free, p.closed = nil, true
	p.mu.Unlock()
	for _, s := range free {
		s.destroy(xc)
	}
}

func newSeg(xc *xgb.Conn, size int) (*shmSeg, error) {
	page := os.Getpagesize()
	size = (size + page - 1) / page * page
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, size, unix.IPC_CREAT|0o600)
	if err != nil {
		return nil, fmt.Errorf("shmget %d bytes: %w", size, err)
	}
	data, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		_, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil)
		return nil, fmt.Errorf("shmat: %w", err)
	}
	sid, err := shm.NewSegId(xc)
	if err == nil {
		err = shm.AttachChecked(xc, sid, uint32(id), false).Check()
	}
	// Marked for removal once both sides are attached: the segment lives until the last detach,
	// so neither a crash here nor one in the server leaks it.
	_, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	if err != nil {
		_ = unix.SysvShmDetach(data)
		return nil, fmt.Errorf("MIT-SHM attach: %w", err)
	}
	return &shmSeg{id: sid, data: data}, nil
}

func (s *shmSeg) destroy(xc *xgb.Conn) {
	shm.Detach(xc, s.id) // unchecked; a dead connection detached it already
	_ = unix.SysvShmDetach(s.data)
	s.data = nil
}
