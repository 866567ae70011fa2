#!/usr/bin/python3
"""A GTK 3 window with a one-column Gtk.TreeView of N rows (argv[1]), for the tree-size benchmark."""
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

n = int(sys.argv[1])
store = Gtk.ListStore(str)
for i in range(n):
    store.append(["row %d" % i])
view = Gtk.TreeView(model=store)
view.append_column(Gtk.TreeViewColumn("Item", Gtk.CellRendererText(), text=0))
scroll = Gtk.ScrolledWindow()
scroll.add(view)
win = Gtk.Window(title="mcec rows %d" % n)
win.set_default_size(400, 600)
win.add(scroll)
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gtk.main()
