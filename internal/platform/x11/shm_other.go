//go:build !linux

package x11

import (
	"errors"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/shm"
)

// SysV shared memory capture is wired up for Linux only; elsewhere captures use plain GetImage.

type shmSeg struct {
	id   shm.Seg
	data []byte
}

type shmPool struct{}

func newSHMPool(int) *shmPool { return &shmPool{} }

func (*shmPool) acquire(*xgb.Conn, int) (*shmSeg, error) {
	return nil, errors.New("MIT-SHM capture is only implemented on Linux")
}

func (*shmPool) release(*xgb.Conn, *shmSeg) {}

func (*shmPool) close(*xgb.Conn) {}
