// Package xgbquiet silences xgb's package-level logger, which writes authority warnings to
// stderr (corrupting terminals and looking like mcec's own output). Import it for its side
// effect; doing it in one package init means no goroutine ever races a later assignment.
package xgbquiet

import (
	"io"
	"log"

	"github.com/jezek/xgb"
)

func init() { xgb.Logger = log.New(io.Discard, "", 0) }
