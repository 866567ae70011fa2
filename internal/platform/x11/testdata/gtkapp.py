#!/usr/bin/python3
"""A tiny GTK 3 app for the x11 input and clipboard tests.

It shows an entry, a toggle button and a text view, and writes one JSON object per line on
stdout: {"ready": xid, "toggle": [x, y]} once mapped (the toggle button's centre in root
coordinates), {"entry": text} / {"view": text} on every change, {"toggled": bool}. It reads
commands on stdin, one per line: "focus entry", "focus view", "clip-get" (answers
{"clip": text-or-null}) and "clip-set <json string>" (answers {"clipset": true}).
"""
import json
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402


def say(**kw):
    sys.stdout.write(json.dumps(kw) + "\n")
    sys.stdout.flush()


win = Gtk.Window(title="mcec gtkapp")
win.set_default_size(360, 240)
win.move(60, 60)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
entry = Gtk.Entry()
toggle = Gtk.ToggleButton(label="Toggle")
view = Gtk.TextView()
box.pack_start(entry, False, False, 0)
box.pack_start(toggle, False, False, 0)
box.pack_start(view, True, True, 0)
win.add(box)
win.connect("destroy", Gtk.main_quit)
entry.connect("changed", lambda e: say(entry=e.get_text()))
toggle.connect("toggled", lambda b: say(toggled=b.get_active()))
buf = view.get_buffer()
buf.connect("changed", lambda b: say(view=b.get_text(b.get_start_iter(), b.get_end_iter(), True)))
clip = Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD)


def mapped(w, _ev):
    def report():
        gw = toggle.get_window()
        ox, oy = gw.get_origin()[1:]
        a = toggle.get_allocation()
        say(ready=w.get_window().get_xid(), toggle=[ox + a.x + a.width // 2, oy + a.y + a.height // 2])
        return False
    # After the first frame, so the allocation is final.
    GLib.idle_add(report)
    return False


win.connect("map-event", mapped)


def command(ch, cond):
    line = sys.stdin.readline()
    if not line:
        Gtk.main_quit()
        return False
    cmd, _, arg = line.strip().partition(" ")
    if cmd == "focus":
        (entry if arg == "entry" else view).grab_focus()
        say(focused=arg)
    elif cmd == "clip-get":
        say(clip=clip.wait_for_text())
    elif cmd == "clip-set":
        clip.set_text(json.loads(arg), -1)
        say(clipset=True)
    return True


GLib.io_add_watch(GLib.IOChannel.unix_new(0), GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, command)
win.show_all()
entry.grab_focus()
Gtk.main()
