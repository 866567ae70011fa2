#!/usr/bin/python3
"""platformtest's scene as a GTK 3 application (Debian python3-gi, gir1.2-gtk-3.0).

A window "mcec conformance" with a label "Clicks: 0" that counts activations of the button
"Count", a check box "Option", a text field reading "hello" and a hidden box holding a label
"Hidden". Commands on stdin (one per line,
each acknowledged with "ok <command>" on stdout): add / remove a button "Extra", dialog / close a
window "mcec conformance dialog" transient for the first.
"""
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

win = Gtk.Window(title="mcec conformance")
win.set_default_size(320, 200)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
label = Gtk.Label(label="Clicks: 0")
box.pack_start(label, False, False, 0)
clicks = 0


def count(_button):
    global clicks
    clicks += 1
    label.set_text("Clicks: %d" % clicks)


button = Gtk.Button(label="Count")
button.connect("clicked", count)
box.pack_start(button, False, False, 0)
box.pack_start(Gtk.CheckButton(label="Option"), False, False, 0)
entry = Gtk.Entry()
entry.set_text("hello")
box.pack_start(entry, False, False, 0)
hidden = Gtk.Box()
hidden.add(Gtk.Label(label="Hidden"))
box.pack_start(hidden, False, False, 0)
win.add(box)
win.connect("destroy", Gtk.main_quit)
win.show_all()
hidden.hide()  # a page not shown: its label is in the tree, not showing
extra = None
dialog = None


def command(source, condition):
    global extra, dialog
    line = source.readline()
    if not line:
        Gtk.main_quit()
        return False
    cmd = line.strip()
    if cmd == "add" and extra is None:
        extra = Gtk.Button(label="Extra")
        # Container.add, not Box.pack_start: GTK 3's accessibility hears of children added
        # through the container's "add" signal, which pack_start does not emit.
        box.add(extra)
        extra.show()
    elif cmd == "remove" and extra is not None:
        extra.destroy()
        extra = None
    elif cmd == "dialog" and dialog is None:
        dialog = Gtk.Window(title="mcec conformance dialog", transient_for=win)
        dialog.set_default_size(200, 100)
        dialog.add(Gtk.Label(label="a dialog"))
        dialog.show_all()
    elif cmd == "close" and dialog is not None:
        dialog.destroy()
        dialog = None
    print("ok", cmd, flush=True)
    return True


GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, command)
Gtk.main()
