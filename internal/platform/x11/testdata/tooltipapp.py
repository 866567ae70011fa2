#!/usr/bin/python3
"""A GTK 3 window for TestClickUnderTooltip: a "Hover" button with a tall tooltip above a
"Target" button, like galculator's "MS" above its "9".

It writes one JSON object per line on stdout: {"ready": xid, "hover": [x, y, w, h],
"target": [x, y, w, h]} once mapped (the buttons' rectangles in root coordinates), then
{"clicked": "hover"} or {"clicked": "target"} for every click on a button.
"""
import json
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402


def say(**kw):
    sys.stdout.write(json.dumps(kw) + "\n")
    sys.stdout.flush()


win = Gtk.Window(title="mcec tooltip")
win.move(100, 100)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=0, homogeneous=True)
hover = Gtk.Button(label="Hover")
# Several lines, so the tooltip shown below the pointer reaches well into the button below.
hover.set_tooltip_text("A tooltip\nof several lines\nover the button below\nso a press meets it")
target = Gtk.Button(label="Target")
for b, name in ((hover, "hover"), (target, "target")):
    b.set_size_request(240, 80)
    b.connect("clicked", lambda _b, n=name: say(clicked=n))
    box.pack_start(b, True, True, 0)
win.add(box)
win.connect("destroy", Gtk.main_quit)


def rect(widget):
    ox, oy = widget.get_window().get_origin()[1:]
    a = widget.get_allocation()
    return [ox + a.x, oy + a.y, a.width, a.height]


def mapped(w, _ev):
    def report():
        say(ready=w.get_window().get_xid(), hover=rect(hover), target=rect(target))
        return False
    # After the first frame, so the allocation is final.
    GLib.idle_add(report)
    return False


win.connect("map-event", mapped)
win.show_all()
Gtk.main()
