#!/usr/bin/python3
"""A GTK 3 window for the effect tests: each control does one observable thing, and "Nothing"
does nothing at all. Needs python3-gi and gir1.2-gtk-3.0."""
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

win = Gtk.Window(title="mcec effects")
win.set_default_size(360, 220)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4)
count = Gtk.Label(label="count: 0")
box.pack_start(count, False, False, 0)
clicks = [0]


def bump(_button):
    clicks[0] += 1
    count.set_text("count: %d" % clicks[0])


for label, handler in [("Count", bump), ("Nothing", lambda b: None)]:
    b = Gtk.Button(label=label)
    b.connect("clicked", handler)
    box.pack_start(b, False, False, 0)
opener = Gtk.Button(label="Open")
box.pack_start(opener, False, False, 0)
box.pack_start(Gtk.CheckButton(label="Check"), False, False, 0)
entry = Gtk.Entry()
entry.set_text("x")
box.pack_start(entry, False, False, 0)


def open_window(_button):
    w = Gtk.Window(title="mcec effects window", transient_for=win)
    w.add(Gtk.Label(label="opened"))
    w.show_all()


opener.connect("clicked", open_window)
win.add(box)
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gtk.main()
