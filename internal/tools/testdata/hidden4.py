#!/usr/bin/python3
"""A GTK 4 window whose hidden widgets GTK reports as visible with 0x0 extents: an unrevealed
error label, and a stack whose hidden page, first in tree order, holds a "Close" button like the
shown page's. Each Close button sets the status label to say which page's it was."""
import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gio, Gtk  # noqa: E402

app = Gtk.Application(application_id="org.mcec.Hidden4", flags=Gio.ApplicationFlags.NON_UNIQUE)


def activate(app):
    win = Gtk.ApplicationWindow(application=app, title="mcec hidden4")
    win.set_default_size(360, 240)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
    status = Gtk.Label(label="Status: idle")
    revealer = Gtk.Revealer()
    revealer.set_child(Gtk.Label(label="Could Not Open File"))
    revealer.set_reveal_child(False)
    box.append(revealer)
    stack = Gtk.Stack()
    for page in ("hidden", "shown"):
        button = Gtk.Button(label="Close")
        button.connect("clicked", lambda _b, p=page: status.set_text("Status: closed " + p))
        stack.add_titled(button, page, page.capitalize() + " page")
    stack.set_visible_child_name("shown")
    box.append(stack)
    box.append(status)
    win.set_child(box)
    win.present()


app.connect("activate", activate)
app.run()
