#!/usr/bin/python3
"""A tiny GTK 3 app the evidence tests record and replay.

"Apply" sets the status label to "applied"; "Quit" closes the window. The tests rewrite EXTRA
below to change the app between a recording and its replay.
"""
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

APPLY = "Apply"
EXTRA = ""  # when set, an extra label with this text

win = Gtk.Window(title="mcec evidence app")
win.set_default_size(300, 160)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
status = Gtk.Label(label="idle")
box.pack_start(status, False, False, 0)
if EXTRA:
    box.pack_start(Gtk.Label(label=EXTRA), False, False, 0)
apply_button = Gtk.Button(label=APPLY)
apply_button.connect("clicked", lambda b: status.set_text("applied"))
box.pack_start(apply_button, False, False, 0)
quit_button = Gtk.Button(label="Quit")
quit_button.connect("clicked", lambda b: win.destroy())
box.pack_start(quit_button, False, False, 0)
win.add(box)
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gtk.main()
