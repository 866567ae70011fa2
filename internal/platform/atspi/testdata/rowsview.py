#!/usr/bin/python3
"""A GTK 3 tree view scrolled somewhere (TestRowsInView): argv is KIND ROWS COLUMNS ROW HSCROLL,
KIND "list" or "tree" (every third row a parent of two expanded rows), the view scrolled so
that row ROW is at its centre, and all the way right when HSCROLL is 1. The title says
"scrolled" once the view has been scrolled."""
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

kind, rows, cols, target, hscroll = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
types = [str] * cols
if kind == "tree":
    store = Gtk.TreeStore(*types)
    parent = None
    for i in range(rows):
        cells = ["r%d c%d" % (i, c) for c in range(cols)]
        if i % 3 == 0:
            parent = store.append(None, cells)
        else:
            store.append(parent, cells)
else:
    store = Gtk.ListStore(*types)
    for i in range(rows):
        store.append(["r%d c%d" % (i, c) for c in range(cols)])
view = Gtk.TreeView(model=store)
for c in range(cols):
    col = Gtk.TreeViewColumn("Column %d" % c, Gtk.CellRendererText(), text=c)
    col.set_sizing(Gtk.TreeViewColumnSizing.FIXED)
    col.set_fixed_width(160)
    view.append_column(col)
view.expand_all()
scroll = Gtk.ScrolledWindow()
scroll.add(view)
win = Gtk.Window(title="mcec rows view")
win.set_default_size(360, 300)
win.add(scroll)
win.connect("destroy", Gtk.main_quit)


def scrolled():
    view.scroll_to_cell(path_of(target), None, True, 0.5, 0)
    if hscroll:
        h = scroll.get_hadjustment()
        h.set_value(h.get_upper() - h.get_page_size())
    win.set_title("mcec rows view scrolled")
    return False


def path_of(i):
    """The path of the i-th displayed row."""
    if kind == "list":
        return Gtk.TreePath.new_from_indices([i])
    return Gtk.TreePath.new_from_indices([i // 3]) if i % 3 == 0 else Gtk.TreePath.new_from_indices([i // 3, i % 3 - 1])


win.show_all()
GLib.timeout_add(300, scrolled)
Gtk.main()
