#!/usr/bin/python3
"""A GTK 3 window that draws its own title bar (a header bar), so its surface carries a
client-side shadow, which GTK drops while the window is maximized, tiled or fullscreen. The
button "Press" renames the label "Pressed: 0" to "Pressed: N"."""
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

win = Gtk.Window(title="mcec header bar")
bar = Gtk.HeaderBar(title="mcec header bar", show_close_button=True)
win.set_titlebar(bar)
win.set_default_size(360, 220)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
label = Gtk.Label(label="Pressed: 0")
button = Gtk.Button(label="Press")
presses = 0


def press(_button):
    global presses
    presses += 1
    label.set_text("Pressed: %d" % presses)


button.connect("clicked", press)
box.pack_start(label, False, False, 0)
box.pack_start(button, False, False, 0)
win.add(box)
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gtk.main()
