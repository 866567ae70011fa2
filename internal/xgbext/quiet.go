package xgbext

import (
	"io"
	"log"

	"github.com/jezek/xgb"
)

// xgb's package-level logger writes authority warnings to stderr (corrupting terminals and
// looking like mcec's own output). Silencing it in this package's init, which every X client of
// mcec imports, means no goroutine ever races a later assignment. Tests with an X connection of
// their own import this package for that effect alone.
func init() { xgb.Logger = log.New(io.Discard, "", 0) }
