#!/usr/bin/python3
"""A GTK 3 window for the effect tests: each control does one observable thing, and "Nothing"
does nothing at all: "Later" changes its label 120 ms after the click (after the button took the
focus), "Clear" empties the history text view (a value, no name), "Rename" changes only the
window's title. Needs python3-gi and gir1.2-gtk-3.0."""
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

win = Gtk.Window(title="mcec effects")
win.set_default_size(360, 360)
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

later_label = Gtk.Label(label="later: idle")
box.pack_start(later_label, False, False, 0)


def later(_button):
    def change():
        later_label.set_text("later: done")
        return False
    GLib.timeout_add(120, change)


history = Gtk.TextView()
history.get_buffer().set_text("1+1 = 2; 2*3 = 6")
history.get_accessible().set_name("")
history.set_size_request(-1, 40)  # a fixed height: its first layout must not move what follows
box.pack_start(history, False, False, 0)
renames = [0]


def rename(_button):
    renames[0] += 1
    win.set_title("mcec effects renamed %d" % renames[0])


for label, handler in [("Later", later), ("Clear", lambda b: history.get_buffer().set_text("")), ("Rename", rename)]:
    b = Gtk.Button(label=label)
    b.connect("clicked", handler)
    box.pack_start(b, False, False, 0)
win.add(box)
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gtk.main()
