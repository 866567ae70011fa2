#!/usr/bin/python3
"""The reach suite's GTK 4 form (python3-gi): a named text field, a Greet button that changes the
status label, a check box, and a button that opens a modal dialog."""
import gi

gi.require_version("Gtk", "4.0")
from gi.repository import GLib, Gtk  # noqa: E402

win = Gtk.Window(title="Reach GTK4 Form")
win.set_default_size(420, 260)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
for side in ("top", "bottom", "start", "end"):
    getattr(box, "set_margin_" + side)(12)
entry = Gtk.Entry(text="initial text")
entry.update_property([Gtk.AccessibleProperty.LABEL], ["Name field"])
greet = Gtk.Button(label="Greet")
status = Gtk.Label(label="Status: idle")
check = Gtk.CheckButton(label="Subscribe")
opener = Gtk.Button(label="Open dialog")
for w in (entry, greet, status, check, opener):
    box.append(w)
win.set_child(box)
count = 0


def on_greet(_b):
    global count
    count += 1
    status.set_text("Status: greeted %d" % count)


def on_open(_b):
    d = Gtk.Window(title="Reach Dialog", transient_for=win, modal=True)
    d.set_default_size(260, 120)
    inner = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
    inner.append(Gtk.Label(label="This is the dialog"))
    close = Gtk.Button(label="Close dialog")
    close.connect("clicked", lambda _b: d.destroy())
    inner.append(close)
    d.set_child(inner)
    d.present()


greet.connect("clicked", on_greet)
opener.connect("clicked", on_open)
loop = GLib.MainLoop()
win.connect("close-request", lambda _w: loop.quit() or False)
win.present()
loop.run()
