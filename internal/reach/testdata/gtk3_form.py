#!/usr/bin/python3
"""The reach suite's GTK 3 form (python3-gi): a named text field, a Greet button that changes the
status label, a check box, and a button that opens a modal dialog (shown without a nested main
loop, so the app keeps answering AT-SPI while it is open)."""
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

win = Gtk.Window(title="Reach GTK3 Form")
win.set_default_size(420, 260)
win.move(40, 40)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6, margin=12)
entry = Gtk.Entry(text="initial text")
entry.get_accessible().set_name("Name field")
greet = Gtk.Button(label="Greet")
status = Gtk.Label(label="Status: idle")
check = Gtk.CheckButton(label="Subscribe")
opener = Gtk.Button(label="Open dialog")
for w in (entry, greet, status, check, opener):
    box.pack_start(w, False, False, 0)
win.add(box)
count = 0


def on_greet(_b):
    global count
    count += 1
    status.set_text("Status: greeted %d" % count)


def on_open(_b):
    d = Gtk.Dialog(title="Reach Dialog", transient_for=win, modal=True)
    d.set_default_size(260, 120)
    d.get_content_area().pack_start(Gtk.Label(label="This is the dialog"), True, True, 6)
    close = d.add_button("Close dialog", Gtk.ResponseType.CLOSE)
    close.connect("clicked", lambda _b: d.destroy())
    d.connect("response", lambda d, _r: d.destroy())
    d.show_all()


greet.connect("clicked", on_greet)
opener.connect("clicked", on_open)
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gtk.main()
