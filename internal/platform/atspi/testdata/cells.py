#!/usr/bin/python3
"""A GTK 3 tree view whose cells differ in every way a text cell can: plain, markup, empty,
non-ASCII, long, beside toggle and number columns (TestPeerConnection)."""
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

store = Gtk.ListStore(str, str, bool, int)
rows = [
    ("plain", "<b>bold</b> words", True, 1),
    ("", "<i></i>", False, 0),
    ("Grüße — ünïcödé ✓", "a &amp; b", True, -5),
    ("x" * 300, "<span foreground='red'>red</span>", False, 123456),
]
for i in range(40):
    rows.append(("row %d" % i, "<tt>%d</tt>" % i, i % 2 == 0, i))
for r in rows:
    store.append(list(r))
view = Gtk.TreeView(model=store)
view.append_column(Gtk.TreeViewColumn("Text", Gtk.CellRendererText(), text=0))
view.append_column(Gtk.TreeViewColumn("Markup", Gtk.CellRendererText(), markup=1))
view.append_column(Gtk.TreeViewColumn("Done", Gtk.CellRendererToggle(), active=2))
view.append_column(Gtk.TreeViewColumn("Count", Gtk.CellRendererText(), text=3))
scroll = Gtk.ScrolledWindow()
scroll.add(view)
win = Gtk.Window(title="mcec cells")
win.set_default_size(500, 400)
win.add(scroll)
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gtk.main()
