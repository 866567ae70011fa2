package queue

import (
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/mcec/mcec/internal/rawcmd"
)

// watcher re-reads the commands file when its modification time or size changes. Polling (one
// stat per interval) needs no inotify module and also sees files replaced by rename.
type watcher struct {
	e       *Engine
	seen    bool
	mtime   time.Time
	size    int64
	present bool
}

func (w *watcher) run() {
	if w.e.opts.File == "" {
		return
	}
	t := time.NewTicker(w.e.opts.Poll)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			w.check()
		case <-w.e.ctx.Done():
			return
		}
	}
}

// check loads the table when the file changed since the last look (and always the first time).
func (w *watcher) check() {
	e := w.e
	var names []string
	if e.tools != nil {
		for _, n := range e.tools.Names() {
			if n != "send_command" { // from inside the queue it would wait for itself
				names = append(names, n)
			}
		}
	}
	if e.opts.File == "" {
		if !w.seen {
			e.table.Store(rawcmd.Builtins(names))
			w.seen = true
		}
		return
	}
	fi, err := os.Stat(e.opts.File)
	present := err == nil
	if w.seen && present == w.present && (!present || fi.ModTime().Equal(w.mtime) && fi.Size() == w.size) {
		return
	}
	w.seen, w.present = true, present
	base := rawcmd.Builtins(names)
	if !present {
		if !errors.Is(err, fs.ErrNotExist) {
			e.log.Warn("commands file unreadable; built-in commands only", "file", e.opts.File, "err", err)
		}
		e.table.Store(base)
		e.tableErr.Store(nil)
		return
	}
	w.mtime, w.size = fi.ModTime(), fi.Size()
	t, err := rawcmd.Load(e.opts.File, base)
	if err != nil {
		// The previous table stays in force.
		e.tableErr.Store(&err)
		e.log.Warn("commands file refused; the previous command table stays in force", "err", err)
		return
	}
	e.tableErr.Store(nil)
	e.table.Store(t)
	e.log.Info("commands file loaded", "file", e.opts.File, "commands", len(t.Entries()))
}
