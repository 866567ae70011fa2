#!/usr/bin/python3
"""The task suite's GTK 3 app (python3-gi): a menu bar (File > Save As…, Edit > Clear…,
Help > About), a note entry, an Urgent check box, a Colour combo box, a Level slider (0-100) and an
Apply button. It reports its own state, independently of any accessibility answer, by rewriting
the JSON file named by its first argument (atomically) on every change.

Save As… opens a file chooser shown without a nested main loop (as current GTK apps do); Clear…
and About run their dialogs with Gtk.Dialog.run(), the nested main loop that stalls AT-SPI when it
is started from an accessibility action (issue 15)."""
import json
import os
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

STATE = sys.argv[1]
state = {"note": "", "urgent": False, "colour": "Red", "level": 0, "applied": 0,
         "about": "never", "clear": "never", "saved": ""}


def write():
    tmp = STATE + ".tmp"
    with open(tmp, "w") as f:
        json.dump(state, f)
    os.replace(tmp, STATE)


def change(**kw):
    state.update(kw)
    write()


win = Gtk.Window(title="Tasks GTK3 App")
win.set_default_size(520, 380)
win.move(40, 40)
outer = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
win.add(outer)

bar = Gtk.MenuBar()
outer.pack_start(bar, False, False, 0)


def menu(label, items):
    top = Gtk.MenuItem(label=label)
    sub = Gtk.Menu()
    for text, handler in items:
        it = Gtk.MenuItem(label=text)
        it.connect("activate", handler)
        sub.append(it)
    top.set_submenu(sub)
    bar.append(top)


box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6, margin=12)
outer.pack_start(box, True, True, 0)
entry = Gtk.Entry()
entry.get_accessible().set_name("Note")
entry.connect("changed", lambda e: change(note=e.get_text()))
urgent = Gtk.CheckButton(label="Urgent")
urgent.connect("toggled", lambda b: change(urgent=b.get_active()))
colour = Gtk.ComboBoxText()
for c in ("Red", "Green", "Blue", "Yellow"):
    colour.append_text(c)
colour.set_active(0)
colour.get_accessible().set_name("Colour")
colour.connect("changed", lambda c: change(colour=c.get_active_text()))
level = Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 100, 1)
level.set_digits(0)
level.set_draw_value(True)
level.set_size_request(400, -1)
level.get_accessible().set_name("Level")
level.connect("value-changed", lambda s: change(level=int(round(s.get_value()))))
apply_ = Gtk.Button(label="Apply")
apply_.connect("clicked", lambda b: change(applied=state["applied"] + 1))
status = Gtk.Label(label="Ready")
for w in (entry, urgent, colour, level, apply_, status):
    box.pack_start(w, False, False, 0)


def on_about(_it):
    change(about="open")
    d = Gtk.AboutDialog(transient_for=win, modal=True, program_name="Tasks GTK3 App",
                        version="1.0", comments="The task suite's GTK 3 app")
    d.run()
    d.destroy()
    change(about="closed")


def on_clear(_it):
    d = Gtk.MessageDialog(transient_for=win, modal=True, message_type=Gtk.MessageType.QUESTION,
                          buttons=Gtk.ButtonsType.YES_NO, text="Clear the note?")
    d.set_title("Confirm Clear")
    r = d.run()
    d.destroy()
    if r == Gtk.ResponseType.YES:
        entry.set_text("")
        change(clear="yes")
    else:
        change(clear="no")


def on_save_as(_it):
    d = Gtk.FileChooserDialog(title="Save Note As", transient_for=win, modal=True,
                              action=Gtk.FileChooserAction.SAVE)
    d.add_buttons("_Cancel", Gtk.ResponseType.CANCEL, "_Save", Gtk.ResponseType.ACCEPT)
    d.set_default_response(Gtk.ResponseType.ACCEPT)
    d.set_do_overwrite_confirmation(True)

    def response(dlg, r):
        if r == Gtk.ResponseType.ACCEPT:
            path = dlg.get_filename()
            with open(path, "w") as f:
                f.write(entry.get_text() + "\n")
            status.set_text("Saved " + os.path.basename(path))
            change(saved=path)
        dlg.destroy()

    d.connect("response", response)
    d.show_all()


menu("File", [("Save As…", on_save_as), ("Quit", lambda _i: Gtk.main_quit())])
menu("Edit", [("Clear…", on_clear)])
menu("Help", [("About", on_about)])

write()
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gtk.main()
