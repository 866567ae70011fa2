#!/usr/bin/python3
"""The task suite's GTK 4 app (python3-gi; argv: STATEFILE): a Note entry, an Urgent check
button, a Size drop-down and an Apply button. It reports its own state by rewriting the JSON file
STATEFILE (atomically) on every change, independently of any accessibility answer."""
import json
import os
import sys

import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gtk  # noqa: E402

STATE = sys.argv[1]
state = {"note": "", "urgent": False, "size": "Small", "applied": 0, "appliedNote": ""}
SIZES = ["Small", "Medium", "Large"]


def write():
    tmp = STATE + ".tmp"
    with open(tmp, "w") as f:
        json.dump(state, f)
    os.replace(tmp, STATE)


def change(**kw):
    state.update(kw)
    write()


def activate(app):
    win = Gtk.ApplicationWindow(application=app, title="Tasks GTK4 App")
    win.set_default_size(420, 260)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
    for side in ("top", "bottom", "start", "end"):
        getattr(box, "set_margin_" + side)(12)
    entry = Gtk.Entry()
    entry.update_property([Gtk.AccessibleProperty.LABEL], ["Note"])
    entry.connect("changed", lambda e: change(note=e.get_text()))
    urgent = Gtk.CheckButton(label="Urgent")
    urgent.connect("toggled", lambda b: change(urgent=b.get_active()))
    size = Gtk.DropDown.new_from_strings(SIZES)
    size.update_property([Gtk.AccessibleProperty.LABEL], ["Size"])
    size.connect("notify::selected", lambda d, _p: change(size=SIZES[d.get_selected()]))
    apply_ = Gtk.Button(label="Apply")
    apply_.connect("clicked", lambda b: change(applied=state["applied"] + 1, appliedNote=state["note"]))
    for w in (entry, urgent, size, apply_):
        box.append(w)
    win.set_child(box)
    win.present()


write()
app = Gtk.Application(application_id="org.mcec.TasksGtk4")
app.connect("activate", activate)
app.run([])
