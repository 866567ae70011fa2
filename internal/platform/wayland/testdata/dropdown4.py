#!/usr/bin/python3
"""A GTK 4 window with a drop-down (Gtk.DropDown), whose list opens in a popover: a surface of its
own, which GTK 4.8 reports at the popover's allocation under the drop-down, not where the
compositor shows it, and with roles (fillers) that say nothing of a popup.
"""
import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gio, Gtk  # noqa: E402

app = Gtk.Application(application_id="org.mcec.DropDown4", flags=Gio.ApplicationFlags.NON_UNIQUE)


def activate(app):
    win = Gtk.ApplicationWindow(application=app, title="mcec dropdown4")
    win.set_default_size(360, 240)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
    box.append(Gtk.Label(label="Pick one"))
    box.append(Gtk.DropDown.new_from_strings(["Left", "Middle", "Right"]))
    win.set_child(box)
    win.present()


app.connect("activate", activate)
app.run(None)
