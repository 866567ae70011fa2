#!/usr/bin/python3
"""A small GTK 3 app the tools tests drive: it opens and closes a dialog when told to on stdin,
so a test can make the UI change at a moment it chooses.

Commands (one per line): dialog, close, quit. Each is acknowledged with "ok <command>" on stdout.
Buttons: "Apply" counts its clicks in the label below it ("applied N"), so every click has an
effect to observe; "Open dialog" opens the same (non-modal) dialog; "Modal" runs a modal dialog in a nested
main loop (Gtk.Dialog.run), which is what makes an application stop answering AT-SPI.
"""
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

win = Gtk.Window(title="mcec test app")
win.set_default_size(320, 200)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
entry = Gtk.Entry()
entry.set_text("hello")
box.pack_start(entry, False, False, 0)
apply_button = Gtk.Button(label="Apply")
box.pack_start(apply_button, False, False, 0)
applied = Gtk.Label(label="applied 0")
box.pack_start(applied, False, False, 0)
apply_button.connect("clicked", lambda b: applied.set_text("applied %d" % (int(applied.get_text().split()[1]) + 1)))
open_button = Gtk.Button(label="Open dialog")
open_button.connect("clicked", lambda b: open_dialog())
box.pack_start(open_button, False, False, 0)
modal_button = Gtk.Button(label="Modal")
box.pack_start(modal_button, False, False, 0)
win.add(box)


def run_modal(button):
    d = Gtk.MessageDialog(transient_for=win, modal=True, message_type=Gtk.MessageType.INFO,
                          buttons=Gtk.ButtonsType.OK, text="mcec modal")
    d.set_title("mcec modal dialog")
    d.run()
    d.destroy()
    print("modal closed", flush=True)


modal_button.connect("clicked", run_modal)
win.connect("destroy", Gtk.main_quit)
win.show_all()
dialog = None


def command(source, condition):
    global dialog
    line = source.readline()
    if not line:
        Gtk.main_quit()
        return False
    cmd = line.strip()
    if cmd == "dialog":
        open_dialog()
    elif cmd == "close":
        close_dialog()
    elif cmd == "quit":
        Gtk.main_quit()
    print("ok", cmd, flush=True)
    return True


def open_dialog():
    global dialog
    if dialog is None:
        dialog = Gtk.Dialog(title="mcec test dialog", transient_for=win)
        dialog.add_button("Close", Gtk.ResponseType.CLOSE)
        dialog.connect("response", lambda d, r: close_dialog())
        dialog.show_all()


def close_dialog():
    global dialog
    if dialog is not None:
        dialog.destroy()
        dialog = None


GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, command)
Gtk.main()
