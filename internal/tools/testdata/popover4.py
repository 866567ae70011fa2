#!/usr/bin/python3
"""A GTK 4 window with a menu button whose menu is a popover (a surface of its own), for the
test that clicks a popover's item by name: GTK 4.8 reports the popover's objects relative to the
main window as if the popover sat under its button. Choosing an item sets the status label.
"""
import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gio, GLib, Gtk  # noqa: E402

app = Gtk.Application(application_id="org.mcec.Popover4", flags=Gio.ApplicationFlags.NON_UNIQUE)


def activate(app):
    win = Gtk.ApplicationWindow(application=app, title="mcec popover4")
    win.set_default_size(420, 300)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
    status = Gtk.Label(label="Status: idle")
    menu = Gio.Menu()
    for label in ("Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"):
        # Long labels: the popover is far wider than its button and centred under it, and GTK
        # reports it as if it started where the button does.
        menu.append(label + ", one of six choices in this menu", "win.choose::" + label)
    action = Gio.SimpleAction.new("choose", GLib.VariantType.new("s"))
    action.connect("activate", lambda _a, v: status.set_text("Status: chose " + v.get_string()))
    win.add_action(action)
    row = Gtk.Box(orientation=Gtk.Orientation.HORIZONTAL)
    row.append(Gtk.Label(label="Menu", hexpand=True))
    button = Gtk.MenuButton(label="Choose", menu_model=menu)
    row.append(button)
    row.append(Gtk.Label(label="", hexpand=True))
    box.append(row)
    box.append(status)
    win.set_child(box)
    win.present()

app.connect("activate", activate)
app.run(None)
